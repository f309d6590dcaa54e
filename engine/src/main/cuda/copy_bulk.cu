// kvledger_copy and kvledger_copy_params, moved by the Hopper bulk-copy unit (TMA) instead of the threads' own
// loads and stores: the same entries, launch structs and grid as copy.cu, so KernelLauncher launches either module
// the same way. Needs sm_90 (cp.async.bulk, mbarrier expect_tx); the source of
// engine/src/main/resources/io/kvledger/engine/device/copy_bulk.ptx (scripts/gen-copy-ptx.sh).
//
// One thread per group (the group's first lane) copies the group's entry through the group's share of dynamic
// shared memory, (1 << groupShift) * 128 bytes at a time: a bulk copy from the source into shared memory that
// completes on the group's mbarrier, then a bulk copy from shared memory to the destination. The block's dynamic
// shared memory holds one 8-byte mbarrier per group (blockDim.x / 32 of them, the region rounded up to 128 bytes),
// then blockDim.x * 128 bytes of buffers, group g's at g << (groupShift + 7).

#include "launch.cuh"

__device__ __forceinline__ unsigned int sharedAddress(const void* p)
{
    return (unsigned int)__cvta_generic_to_shared(p);
}

// Copy one entry by bulk copies through the group's buffer, one piece at a time; the thread waits for each piece's
// load on the barrier, then for the store to have read the buffer before the next piece reuses it.
__device__ __forceinline__ void copyEntryBulk(
    const Launch& launch, const ulonglong2 e, const unsigned int groupShift)
{
    extern __shared__ __align__(128) unsigned char shared[];
    const unsigned int group = threadIdx.x >> groupShift;
    const unsigned int barrierBytes = ((blockDim.x >> 2) + 127u) & ~127u;
    const unsigned int bar = sharedAddress(shared + 8u * group);
    const unsigned int buffer = sharedAddress(shared + barrierBytes + (group << (groupShift + 7)));
    const unsigned int pieceBytes = 1u << (groupShift + 7);

    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");

    const unsigned long long offsetMask = (1ull << 48) - 1ull;
    const unsigned long long src = launch.base[(e.x >> 48) & 3u] + (e.x & offsetMask);
    const unsigned long long dst = launch.base[(e.x >> 50) & 3u] + (e.y & offsetMask);
    const unsigned int bytes = ((unsigned int)(e.y >> 48) + 1u) * 16u;
    unsigned int phase = 0;
    for (unsigned int done = 0; done < bytes; done += pieceBytes)
    {
        const unsigned int n = min(pieceBytes, bytes - done);
        asm volatile("{ .reg .b64 state; mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1; }"
            :: "r"(bar), "r"(n) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
            :: "r"(buffer), "l"(src + done), "r"(n), "r"(bar) : "memory");
        unsigned int ready = 0;
        do
        {
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                : "=r"(ready) : "r"(bar), "r"(phase) : "memory");
        }
        while (!ready);
        phase ^= 1u;
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
            :: "l"(dst + done), "r"(buffer), "r"(n) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    // the stores must be complete (not only have read shared memory) when the kernel ends
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

extern "C" __global__ void kvledger_copy(const __grid_constant__ Launch launch)
{
    const unsigned int groupShift = launch.groupShift;
    const unsigned int index = blockIdx.x * (blockDim.x >> groupShift) + (threadIdx.x >> groupShift);
    if (index >= launch.count || (threadIdx.x & ((1u << groupShift) - 1u)) != 0)
    {
        return;
    }
    const ulonglong2 e = __ldcv(reinterpret_cast<const ulonglong2*>(launch.table) + launch.first + index);
    copyEntryBulk(launch, e, groupShift);
}

extern "C" __global__ void kvledger_copy_params(const __grid_constant__ ParamLaunch params)
{
    const unsigned int groupShift = params.launch.groupShift;
    const unsigned int index = blockIdx.x * (blockDim.x >> groupShift) + (threadIdx.x >> groupShift);
    if (index >= params.launch.count || (threadIdx.x & ((1u << groupShift) - 1u)) != 0)
    {
        return;
    }
    copyEntryBulk(params.launch, params.entries[index], groupShift);
}
