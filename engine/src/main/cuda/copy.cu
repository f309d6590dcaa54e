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
