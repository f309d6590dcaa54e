// kvledger_copy: one launch moves a whole batch of scattered slot copies (KV pages, Mamba states) between pinned
// host memory mapped into the device's address space and device memory, in either direction.
//
// The source of engine/src/main/resources/io/kvledger/engine/device/copy.ptx; regenerate it with
// scripts/gen-copy-ptx.sh (nvcc -ptx, compute_75). The driver compiles the PTX at load time (cuModuleLoadData),
// so the GPU machine needs no toolkit.
//
// Entry (16 bytes, little-endian; written by CopyPlanner):
//   x: source byte offset (bits 0-47), source pool (bits 48-49), destination pool (bits 50-51); pools are the Pool
//      enum's values: 0 device KV, 1 device Mamba, 2 host KV, 3 host Mamba
//   y: destination byte offset (bits 0-47), 16-byte words minus one (bits 48-63: at most 1 MiB an entry)
// kvledger_copy reads them from a table in device memory (or mapped pinned host memory); kvledger_copy_params
// takes those of a small launch in its parameter.
//
// A group of (1 << groupShift) threads, 32 to blockDim.x, copies one entry: block b, group g copies entry
// first + b * (blockDim.x >> groupShift) + g when that is below count. Each thread keeps eight 16-byte
// loads in flight before their stores, then moves what is left one word at a time. kvledger_copy_params takes
// the entries of a small launch in its parameter instead (see ParamLaunch). Data moves with
// ld.global.cg / st.global.cg (cached in L2 only), the table is read with ld.global.cv (never cached).

#include "launch.cuh"

// One group's share of an entry: each thread keeps eight 16-byte loads in flight, then moves what is left one word
// at a time.
__device__ __forceinline__ void copyWords(
    const uint4* src, uint4* dst, const unsigned int words, const unsigned int lane, const unsigned int groupThreads)
{
    unsigned int i = lane;
    for (; i + 7u * groupThreads < words; i += 8u * groupThreads)
    {
        uint4 v[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
        {
            v[k] = __ldcg(src + i + k * groupThreads);
        }
#pragma unroll
        for (int k = 0; k < 8; k++)
        {
            __stcg(dst + i + k * groupThreads, v[k]);
        }
    }
    for (; i < words; i += groupThreads)
    {
        __stcg(dst + i, __ldcg(src + i));
    }
}

// Copy one entry with the threads of a group.
__device__ __forceinline__ void copyEntry(
    const Launch& launch, const ulonglong2 e, const unsigned int lane, const unsigned int groupShift)
{
    const unsigned long long offsetMask = (1ull << 48) - 1ull;
    copyWords(reinterpret_cast<const uint4*>(launch.base[(e.x >> 48) & 3u] + (e.x & offsetMask)),
        reinterpret_cast<uint4*>(launch.base[(e.x >> 50) & 3u] + (e.y & offsetMask)),
        (unsigned int)(e.y >> 48) + 1u, lane, 1u << groupShift);
}

extern "C" __global__ void kvledger_copy(const __grid_constant__ Launch launch)
{
    const unsigned int groupShift = launch.groupShift;
    const unsigned int index = blockIdx.x * (blockDim.x >> groupShift) + (threadIdx.x >> groupShift);
    if (index >= launch.count)
    {
        return;
    }

    // the table is written by the host between launches: read it past the caches
    const ulonglong2 e = __ldcv(reinterpret_cast<const ulonglong2*>(launch.table) + launch.first + index);
    copyEntry(launch, e, threadIdx.x & ((1u << groupShift) - 1u), groupShift);
}

extern "C" __global__ void kvledger_copy_params(const __grid_constant__ ParamLaunch params)
{
    const unsigned int groupShift = params.launch.groupShift;
    const unsigned int index = blockIdx.x * (blockDim.x >> groupShift) + (threadIdx.x >> groupShift);
    if (index >= params.launch.count)
    {
        return;
    }

    copyEntry(params.launch, params.entries[index], threadIdx.x & ((1u << groupShift) - 1u), groupShift);
}

// Loads and stores of the control block in host memory at system scope: a volatile access may be served by (or
// linger in) the GPU's L2, where the host's doorbell would be seen late and the kernel's done would reach the host
// late.
__device__ __forceinline__ unsigned long long loadSystem(const unsigned long long* address)
{
    unsigned long long value;
    asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(value) : "l"(address) : "memory");
    return value;
}

__device__ __forceinline__ unsigned int loadSystem32(const unsigned int* address)
{
    unsigned int value;
    asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
    return value;
}

__device__ __forceinline__ void storeSystem(unsigned long long* address, const unsigned long long value)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" :: "l"(address), "l"(value) : "memory");
}

// kvledger_copy_resident: the copy kernel launched once per stream and left resident. Block 0's first thread polls
// the host's doorbell in the control block (one PCIe read at a time, a short sleep between) and passes what it read
// to the other blocks through device memory; every block then takes the batches one by one, in order: reads the
// descriptor, copies its share of each stage's entries (a grid-stride loop over the table, a group of threads an
// entry), waits at a grid-wide barrier after each stage (a monotonic arrival counter), and block 0 publishes the
// batch's sequence as done (after a system-wide fence, so the host sees every byte copied to host memory first).
// Returns when the host sets stop. Its grid must be resident all at once (the barrier spins): the launcher asks for
// far fewer blocks than the device holds.
extern "C" __global__ void kvledger_copy_resident(const __grid_constant__ Resident r)
{
    unsigned long long* control = reinterpret_cast<unsigned long long*>(r.control);
    volatile unsigned long long* posted = reinterpret_cast<volatile unsigned long long*>(r.counters);
    unsigned long long* arrivals = reinterpret_cast<unsigned long long*>(r.counters + 8);
    __shared__ unsigned long long nextShared;
    __shared__ unsigned int descriptor[RESIDENT_DESCRIPTOR_WORDS];
    unsigned long long seq = 0;
    unsigned long long stagesDone = 0;
    for (;;)
    {
        if (threadIdx.x == 0)
        {
            unsigned long long next = *posted;
            if (next <= seq)
            {
                if (blockIdx.x == 0)
                {
                    for (;;)
                    {
                        if (loadSystem(control + 1) != 0)
                        {
                            next = ~0ull;
                            break;
                        }
                        next = loadSystem(control);
                        if (next > seq)
                        {
                            break;
                        }
                        __nanosleep(128);
                    }
                    __threadfence_system();
                    *posted = next;
                    __threadfence();
                }
                else
                {
                    do
                    {
                        __nanosleep(64);
                        next = *posted;
                    }
                    while (next <= seq);
                    __threadfence();
                }
            }
            nextShared = next;
        }
        __syncthreads();
        if (nextShared == ~0ull)
        {
            return;
        }
        seq++;
        if (threadIdx.x < RESIDENT_DESCRIPTOR_WORDS)
        {
            const unsigned int* words = reinterpret_cast<const unsigned int*>(
                r.control + 64 + (seq % RESIDENT_RING) * (RESIDENT_DESCRIPTOR_WORDS * 4));
            descriptor[threadIdx.x] = loadSystem32(words + threadIdx.x);
        }
        __syncthreads();
        const ulonglong2* table = reinterpret_cast<const ulonglong2*>(
            r.tables + (unsigned long long)descriptor[0] * r.tableBytes);
        const unsigned int stages = min(descriptor[1], (unsigned int)RESIDENT_STAGES);
        unsigned int start = descriptor[2];
        for (unsigned int s = 0; s < stages; s++)
        {
            const unsigned int end = descriptor[4 + 2 * s];
            const unsigned int shift = descriptor[5 + 2 * s];
            const unsigned int groups = blockDim.x >> shift;
            const unsigned int lane = threadIdx.x & ((1u << shift) - 1u);
            for (unsigned int i = start + blockIdx.x * groups + (threadIdx.x >> shift); i < end;
                i += gridDim.x * groups)
            {
                copyEntry(r.launch, __ldcv(table + i), lane, shift);
            }
            start = end;
            stagesDone++;
            __syncthreads();
            if (threadIdx.x == 0)
            {
                __threadfence_system();
                atomicAdd(arrivals, 1ull);
                while (*reinterpret_cast<volatile unsigned long long*>(arrivals) < stagesDone * gridDim.x)
                {
                    __nanosleep(32);
                }
                __threadfence_system();
            }
            __syncthreads();
        }
        if (blockIdx.x == 0 && threadIdx.x == 0)
        {
            __threadfence_system();
            storeSystem(control + 2, seq);
        }
    }
}
