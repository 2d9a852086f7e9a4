// Peer memory between the GPUs of one host (kernels/dist/comm/peer.py): puts into the same buffer
// on every other rank, mapped by CUDA IPC, and a barrier of flags in that memory — exchanges whose
// size the device decides, queued without the host and captured into CUDA graphs like any kernel.
//
// A put is followed by __threadfence_system() in every thread that stored, so what it wrote is
// visible to the peers before the barrier's release store says so (NVSHMEM's put, quiet, signal).
// Each kernel runs only while `when` (a word the device holds, the same on every rank; null:
// always) is non-zero, so a step the device decides to skip is skipped by every rank alike.

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

// words [offset, offset + count) of `src` (this rank's buffer) into the same words of every other
// rank's copy (dst: the K ranks' buffers).
extern "C" __global__ void graphsweep_peer_put(const unsigned* __restrict__ src, unsigned* const* dst,
                                               long long offset, long long count, int k, int me,
                                               const long long* when)
{
    if (when && !*when) return;
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
                                                     int me, const long long* when)
{
    const int j = blockIdx.y;
    if (j == me || (when && !*when)) return;
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

// Every rank arrives, then waits for all: this rank's arrival is its epoch + 1 stored in flag `me`
// of every rank's flags; it waits until its own flags all reach that epoch.  A wait longer than
// timeout_ns, or the host's abort word set (a peer failed), sets `error` and ends this barrier and
// every later one at once; `done` (the caller's end-of-search word, may be null) is then set too, so
// a host loop waiting for the search's end stops.  One thread.
extern "C" __global__ void graphsweep_peer_barrier(gs_u64* const* flags, int k, int me, gs_u64* epoch,
                                                   const volatile int* abort_word, long long timeout_ns,
                                                   long long* error, long long* done, const long long* when)
{
    if (blockIdx.x != 0 || threadIdx.x != 0 || *(volatile long long*)error || (when && !*when)) return;
    __threadfence_system();
    const gs_u64 e = *epoch + 1;
    for (int j = 0; j < k; ++j)
        gs_peer_store_release(flags[j] + me, e);
    const gs_u64* own = flags[me];
    const long long start = gs_peer_now();
    for (int j = 0; j < k; ++j) {
        unsigned spins = 0;
        while (gs_peer_load_acquire(own + j) < e) {
            if ((++spins & 255) == 0 && (*abort_word || gs_peer_now() - start > timeout_ns)) {
                *error = 1;
                if (done) *done = 1;
                __threadfence_system();
                return;
            }
        }
    }
    *epoch = e;
}
