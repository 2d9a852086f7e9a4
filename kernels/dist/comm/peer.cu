// Peer memory between the GPUs of one host (kernels/dist/comm/peer.py): puts into the same buffer
// on every other rank, mapped by CUDA IPC, and a barrier of flags in that memory — exchanges whose
// size the device decides, queued without the host and captured into CUDA graphs like any kernel.
//
// A put is followed by __threadfence_system() in every thread that stored, so what it wrote is
// visible to the peers before the barrier's release store says so (NVSHMEM's put, quiet, signal).

#include "dist/comm/peer.cuh"

// words [offset, offset + count) of `src` (this rank's buffer) into the same words of every other
// rank's copy (dst: the K ranks' buffers).
extern "C" __global__ void graphsweep_peer_put(const unsigned* __restrict__ src, unsigned* const* dst,
                                               long long offset, long long count, int k, int me)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    bool stored = false;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const unsigned v = __ldg(src + offset + i);
        for (int j = 0; j < k; ++j)
            if (j != me) dst[j][offset + i] = v;
        stored = true;
    }
    if (stored) __threadfence_system();
}

// Count-prefixed boxes: box j of this rank's `boxes` (cap + 1 int2, its count in the first's .x)
// into box `me` of rank j's `inbox` — the count and that many entries, no more.  blockIdx.y = j.
extern "C" __global__ void graphsweep_peer_put_boxes(const int2* __restrict__ boxes, int2* const* inbox, int cap,
                                                     int me)
{
    const int j = blockIdx.y;
    if (j == me) return;
    const int2* box = boxes + (long long)j * (cap + 1);
    const long long count = 1 + min(__ldg(&box->x), cap);
    int2* to = inbox[j] + (long long)me * (cap + 1);
    const long long stride = (long long)gridDim.x * blockDim.x;
    bool stored = false;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        to[i] = __ldg(box + i);
        stored = true;
    }
    if (stored) __threadfence_system();
}

// Every rank arrives, then waits for all (gs_peer_meet); after a failed barrier every later one
// ends at once.  One thread.
extern "C" __global__ void graphsweep_peer_barrier(gs_u64* const* flags, int k, int me, gs_u64* epoch,
                                                   const volatile int* abort_word, long long timeout_ns,
                                                   long long* error)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) gs_peer_meet(flags, k, me, epoch, abort_word, timeout_ns, error);
}
