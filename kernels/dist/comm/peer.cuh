// Peer memory's device side: the loads, stores and barrier of peer.cu's kernels, for kernels that
// meet their peers inside a launch of their own (bfs/direction_optimizing.cu's
// graphsweep_bfs_slice_search: a whole search a launch, its exchanges between grid barriers).
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

// This rank arrives at meeting `e`: every store this thread made before is fenced, then e stored
// in flag `me` of every rank's flags.  One thread, after every store of its kernel that the meeting
// publishes (those of other threads fenced by them and ordered before this by a barrier).
__device__ __forceinline__ void gs_peer_arrive(gs_u64* const* flags, int k, int me, gs_u64 e)
{
    __threadfence_system();
    for (int j = 0; j < k; ++j)
        gs_peer_store_release(flags[j] + me, e);
}

// Wait until this rank's flags (`own`: one per rank) all reach meeting `e`: every rank arrived, and
// what each published is visible here.  False, with `error` set, if a barrier before failed, the
// host's abort word is set (a peer failed) or the wait passed timeout_ns.  Any number of threads
// may wait at once (a persistent kernel's blocks each wait for themselves).
__device__ __forceinline__ bool gs_peer_await(const gs_u64* own, int k, gs_u64 e, const volatile int* abort_word,
                                              long long timeout_ns, long long* error)
{
    const long long start = gs_peer_now();
    for (int j = 0; j < k; ++j) {
        unsigned spins = 0;
        while (gs_peer_load_acquire(own + j) < e) {
            if ((++spins & 255) == 0 &&
                (*abort_word || *(volatile long long*)error || gs_peer_now() - start > timeout_ns)) {
                *(volatile long long*)error = 1;
                __threadfence_system();
                return false;
            }
        }
    }
    return true;
}

// One thread: arrive at the next meeting of `epoch` and wait for every rank (the barrier of
// peer.cu).  False as gs_peer_await, or at once if a barrier before failed.
__device__ __forceinline__ bool gs_peer_meet(gs_u64* const* flags, int k, int me, gs_u64* epoch,
                                             const volatile int* abort_word, long long timeout_ns, long long* error)
{
    if (*(volatile long long*)error) return false;
    const gs_u64 e = *(volatile gs_u64*)epoch + 1;
    gs_peer_arrive(flags, k, me, e);
    if (!gs_peer_await(flags[me], k, e, abort_word, timeout_ns, error)) return false;
    *(volatile gs_u64*)epoch = e;
    return true;
}
