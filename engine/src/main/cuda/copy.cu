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

// kvledger_copy_resident: the copy kernel launched once per stream and left resident. Block 0 polls the host's
// doorbell in the control block (one thread, one PCIe read at a time, a short sleep between); for each new batch
// its threads read the descriptor and the batch's entries from host memory once and stage them in device memory
// (the other blocks reading host memory themselves measured about 60 us a batch: a thousand small reads of the same
// lines over the bus), then publish the batch's sequence there. Every block takes the batches one by one, in order:
// copies its share of each stage's entries (a grid-stride loop, a group of threads an entry), waits at a grid-wide
// barrier after each stage and at the end of the batch (a monotonic arrival counter), and block 0 publishes the
// sequence as done in host memory after a system-wide fence, so the host sees every byte copied to host memory
// first. Returns when the host sets stop. Its grid must be resident all at once (the barrier spins): the launcher
// asks for far fewer blocks than the device holds.
//
// Device state (r.counters, zeroed): u64 staged (the sequence block 0 staged last; ~0 to stop), u64 arrivals, then
// from 64 the staged descriptor (RESIDENT_DESCRIPTOR_WORDS u32), from 128 the staged entries (r.tableBytes bytes).
extern "C" __global__ void kvledger_copy_resident(const __grid_constant__ Resident r)
{
    unsigned long long* control = reinterpret_cast<unsigned long long*>(r.control);
    volatile unsigned long long* staged = reinterpret_cast<volatile unsigned long long*>(r.counters);
    unsigned long long* arrivals = reinterpret_cast<unsigned long long*>(r.counters + 8);
    unsigned int* stagedDescriptor = reinterpret_cast<unsigned int*>(r.counters + 64);
    ulonglong2* stagedEntries = reinterpret_cast<ulonglong2*>(r.counters + 128);
    __shared__ unsigned long long nextShared;
    __shared__ unsigned int descriptor[RESIDENT_DESCRIPTOR_WORDS];
    unsigned long long seq = 0;
    unsigned long long barriers = 0;
    for (;;)
    {
        if (blockIdx.x == 0)
        {
            if (threadIdx.x == 0)
            {
                unsigned long long next;
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
                nextShared = next;
            }
            __syncthreads();
            if (nextShared != ~0ull)
            {
                if (threadIdx.x < RESIDENT_DESCRIPTOR_WORDS)
                {
                    const unsigned int* words = reinterpret_cast<const unsigned int*>(
                        r.control + 64 + ((seq + 1) % RESIDENT_RING) * (RESIDENT_DESCRIPTOR_WORDS * 4));
                    descriptor[threadIdx.x] = loadSystem32(words + threadIdx.x);
                }
                __syncthreads();
                const unsigned int stages = min(descriptor[1], (unsigned int)RESIDENT_STAGES);
                const unsigned int first = descriptor[2];
                const unsigned int last = stages == 0 ? first : descriptor[2 + 2 * stages];
                const ulonglong2* table = reinterpret_cast<const ulonglong2*>(
                    r.tables + (unsigned long long)descriptor[0] * r.tableBytes);
                for (unsigned int i = first + threadIdx.x; i < last; i += blockDim.x)
                {
                    __stcg(stagedEntries + i, __ldcv(table + i));
                }
                if (threadIdx.x < RESIDENT_DESCRIPTOR_WORDS)
                {
                    __stcg(stagedDescriptor + threadIdx.x, descriptor[threadIdx.x]);
                }
                __threadfence();
                __syncthreads();
            }
            if (threadIdx.x == 0)
            {
                *staged = nextShared == ~0ull ? ~0ull : seq + 1;
                __threadfence();
            }
        }
        else
        {
            if (threadIdx.x == 0)
            {
                unsigned long long next;
                while ((next = *staged) <= seq)
                {
                    __nanosleep(64);
                }
                __threadfence();
                nextShared = next;
            }
            __syncthreads();
            if (nextShared != ~0ull && threadIdx.x < RESIDENT_DESCRIPTOR_WORDS)
            {
                descriptor[threadIdx.x] = __ldcg(stagedDescriptor + threadIdx.x);
            }
        }
        __syncthreads();
        if (nextShared == ~0ull)
        {
            return;
        }
        seq++;
        const unsigned int stages = min(descriptor[1], (unsigned int)RESIDENT_STAGES);
        unsigned int start = descriptor[2];
        // a barrier after every stage, and one for a batch without any: block 0 must not stage the next batch over
        // this one's entries while another block still reads them
        const unsigned int rounds = max(stages, 1u);
        for (unsigned int s = 0; s < rounds; s++)
        {
            if (s < stages)
            {
                const unsigned int end = descriptor[4 + 2 * s];
                const unsigned int shift = descriptor[5 + 2 * s];
                const unsigned int groups = blockDim.x >> shift;
                const unsigned int lane = threadIdx.x & ((1u << shift) - 1u);
                for (unsigned int i = start + blockIdx.x * groups + (threadIdx.x >> shift); i < end;
                    i += gridDim.x * groups)
                {
                    copyEntry(r.launch, __ldcg(stagedEntries + i), lane, shift);
                }
                start = end;
            }
            barriers++;
            __syncthreads();
            if (threadIdx.x == 0)
            {
                __threadfence_system();
                atomicAdd(arrivals, 1ull);
                while (*reinterpret_cast<volatile unsigned long long*>(arrivals) < barriers * gridDim.x)
                {
                    __nanosleep(32);
                }
                __threadfence();
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
