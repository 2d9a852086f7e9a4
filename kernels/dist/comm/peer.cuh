// Peer memory's device side (kernels/dist/comm/peer.py): the system-scope loads and stores and the
// meeting of the ranks, for kernels that store into their peers' buffers and meet them inside a
// launch of their own (bfs/direction_optimizing.cu's graphsweep_bfs_slice_search: a whole search a
// launch, its exchanges between grid barriers).  A thread that stored into a peer's memory fences
// (__threadfence_system) before the meeting's release store says so (NVSHMEM's put, quiet, signal).
#pragma once

typedef unsigned long long gs_u64;

__device__ __forceinline__ gs_u64 gs_peer_load_acquire(const gs_u64* p)
{
    gs_u64 v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void gs_peer_store_release(gs_u64* p, gs_u64 v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ long long gs_peer_now()
{
    long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One thread: arrive at the next meeting of `epoch` — every store this thread made before fenced
// (those of other threads fenced by them and ordered before this by a barrier), then the epoch + 1
// stored in flag `me` of every rank's flags — and wait until this rank's own flags all reach it:
// every rank arrived, and what each published is visible here.  False, with `error` set, if a
// barrier before failed, the host's abort word is set (a peer failed) or the wait passed timeout_ns.
__device__ __forceinline__ bool gs_peer_meet(gs_u64* const* flags, int k, int me, gs_u64* epoch,
                                             const volatile int* abort_word, long long timeout_ns, long long* error)
{
    if (*(volatile long long*)error) return false;
    const gs_u64 e = *(volatile gs_u64*)epoch + 1;
    __threadfence_system();
    for (int j = 0; j < k; ++j)
        gs_peer_store_release(flags[j] + me, e);
    const gs_u64* own = flags[me];
    const long long start = gs_peer_now();
    for (int j = 0; j < k; ++j) {
        unsigned spins = 0;
        while (gs_peer_load_acquire(own + j) < e) {
            if ((++spins & 255) == 0 && (*abort_word || gs_peer_now() - start > timeout_ns)) {
                *(volatile long long*)error = 1;
                __threadfence_system();
                return false;
            }
        }
    }
    *(volatile gs_u64*)epoch = e;
    return true;
}
