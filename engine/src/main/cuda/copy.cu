// kvledger_copy: one launch moves a whole batch of scattered slot copies (KV pages, Mamba states) between pinned
// host memory mapped into the device's address space and device memory, in either direction.
//
// The source of engine/src/main/resources/io/kvledger/engine/device/copy.ptx; regenerate it with
// scripts/gen-copy-ptx.sh (nvcc -ptx, compute_75). The driver compiles the PTX at load time (cuModuleLoadData),
// so the GPU machine needs no toolkit.
//
// Entry table (32 bytes an entry, little-endian; written by CopyPlanner), in device memory or in mapped pinned
// host memory (read through its device address, no copy before the launch):
//   +0  u64 source byte offset in the source pool
//   +8  u64 destination byte offset in the destination pool
//   +16 u32 source pool (0 device KV, 1 device Mamba, 2 host KV, 3 host Mamba: the Pool enum's values)
//   +20 u32 destination pool
//   +24 u32 bytes, a multiple of 16
//   +28 u32 unused
//
// A group of (1 << groupShift) threads, 32 to blockDim.x, copies one entry: block b, group g copies entry
// first + b * (blockDim.x >> groupShift) + g when it is below first + count. Each thread keeps eight 16-byte
// loads in flight before their stores, then moves what is left one word at a time. kvledger_copy_params takes
// the entries of a small launch in its parameters instead (see ParamTable). Data moves with
// ld.global.cg / st.global.cg (cached in L2 only), the table is read with ld.global.cv (never cached).

struct Entry
{
    unsigned long long src;
    unsigned long long dst;
    unsigned int srcPool;
    unsigned int dstPool;
    unsigned int bytes;
    unsigned int unused;
};

// The entries of a small launch carried in the launch's own parameters (4 KiB of parameters in all, with the four
// pool bases before it): no table in memory, nothing copied or read before the copying starts. A 16-byte entry:
//   x: source byte offset (bits 0-47), source pool (bits 48-49), destination pool (bits 50-51)
//   y: destination byte offset (bits 0-47), 16-byte words minus one (bits 48-63: at most 1 MiB an entry)
#define PARAM_ENTRIES 253

struct ParamTable
{
    unsigned int count;
    unsigned int groupShift;
    unsigned long long unused;
    ulonglong2 entries[PARAM_ENTRIES];
};

__device__ __forceinline__ unsigned long long poolBase(
    const unsigned int pool, const unsigned long long b0, const unsigned long long b1, const unsigned long long b2,
    const unsigned long long b3)
{
    return pool == 0 ? b0 : pool == 1 ? b1 : pool == 2 ? b2 : b3;
}

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

extern "C" __global__ void kvledger_copy(
    const Entry* table, const unsigned int first, const unsigned int count, const unsigned int groupShift,
    const unsigned long long base0, const unsigned long long base1, const unsigned long long base2,
    const unsigned long long base3)
{
    const unsigned int index = blockIdx.x * (blockDim.x >> groupShift) + (threadIdx.x >> groupShift);
    if (index >= count)
    {
        return;
    }

    const Entry* e = table + first + index;
    // the table is written by the host between launches: read it past the caches
    const ulonglong2 offsets = __ldcv(reinterpret_cast<const ulonglong2*>(e));
    const uint4 meta = __ldcv(reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(e) + 16));
    copyWords(reinterpret_cast<const uint4*>(poolBase(meta.x, base0, base1, base2, base3) + offsets.x),
        reinterpret_cast<uint4*>(poolBase(meta.y, base0, base1, base2, base3) + offsets.y), meta.z >> 4,
        threadIdx.x & ((1u << groupShift) - 1u), 1u << groupShift);
}

extern "C" __global__ void kvledger_copy_params(
    const unsigned long long base0, const unsigned long long base1, const unsigned long long base2,
    const unsigned long long base3, const __grid_constant__ ParamTable table)
{
    const unsigned int groupShift = table.groupShift;
    const unsigned int index = blockIdx.x * (blockDim.x >> groupShift) + (threadIdx.x >> groupShift);
    if (index >= table.count)
    {
        return;
    }

    const ulonglong2 e = table.entries[index];
    const unsigned long long offsetMask = (1ull << 48) - 1ull;
    copyWords(
        reinterpret_cast<const uint4*>(poolBase((e.x >> 48) & 3u, base0, base1, base2, base3) + (e.x & offsetMask)),
        reinterpret_cast<uint4*>(poolBase((e.x >> 50) & 3u, base0, base1, base2, base3) + (e.y & offsetMask)),
        (unsigned int)(e.y >> 48) + 1u, threadIdx.x & ((1u << groupShift) - 1u), 1u << groupShift);
}
