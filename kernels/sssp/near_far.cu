// sssp.near-far: delta-stepping in its near-far form on one persistent grid.
//
// Vertex state: packed (dist, parent) words replaced by CAS on strict improvement (sssp.cuh).
// Work: a near queue of (vertex, chunk) entries, chunk c standing for the vertex's out-edges
// [c CHUNK, (c + 1) CHUNK), so a hub is expanded by many warps at once; a far pile of vertices.
// One launch runs every iteration, separated by a grid barrier:
//   expansion  — each warp takes spans of entries (its first span by its id, the rest from an
//                atomic cursor), scans 32 entries' edge counts and relaxes 32 consecutive edges
//                per step (lane k takes the k-th), so lanes stay busy whatever the degrees; an
//                improved vertex goes to the next near queue if its distance is below the
//                threshold T, else to the far pile;
//   compaction — when the near queue is empty: T moves past the smallest far distance seen (at
//                least one delta), far vertices below the new T become the near queue, the rest
//                stay; stale entries (settled below the old T) are dropped.
// Same-address atomics serialise in L2, so none is issued per edge or per push: pushes collect in
// a per-warp shared buffer and reserve queue space 32+ at a time, the far minimum is reduced over
// the warp and sent once per warp, work counters once per warp at the end.
// Dedupe: a vertex enters a near queue at most once per iteration (stamp = iteration) and the far
// pile at most once per epoch (stamp = epoch).  Counters rotate over three slots (by iteration
// for the queue, by epoch for the pile) so each is reset two barriers away from its last use.
#include "sssp/sssp.cuh"

// ctl slots (u32 words)
#define NF_QCOUNT 0    // +it%3: entries in the near queue written by iteration it
#define NF_QCUR 3      // +it%3: work cursor of iteration it
#define NF_FCOUNT 6    // +epoch%3: far pile length
#define NF_FMIN 9      // +epoch%3: smallest distance pushed to (or kept in) the far pile
#define NF_BAR_COUNT 12
#define NF_BAR_GEN 13
#define NF_ABORT 14
#define NF_OVERFLOW 15
#define NF_ITERS 16
#define NF_EPOCHS 17
#define NF_EDGES 18    // u64 (words 18-19): edges relaxed, for the byte model
#define NF_ENTRIES 20  // u64 (words 20-21): near entries expanded
#define NF_CTL_WORDS 22

// Threads per block and blocks per SM the launcher asks for (-D options): registers are capped so
// that many blocks fit, so the grid holds ~48 warps per SM.
#ifndef NF_THREADS
#define NF_THREADS 1024
#endif
#ifndef NF_MIN_BLOCKS
#define NF_MIN_BLOCKS 1
#endif
#define NF_WARPS_MAX (NF_THREADS / 32)
#define NF_BUF 64        // per-warp push buffer (vertices); flushed when a round could overflow it

struct NfArgs {
    const long long* __restrict__ off;
    const int* __restrict__ idx;
    const int* __restrict__ wt;
    sp_u64* __restrict__ word;
    sp_u32* __restrict__ stamp_near;
    sp_u32* __restrict__ stamp_far;
    sp_u64* queue0;
    sp_u64* queue1;
    sp_u32* pile0;
    sp_u32* pile1;
    sp_u32* __restrict__ ctl;
    sp_u64* __restrict__ log;   // log[0] start ns; per iteration: T, entries read, compaction?, end ns
    int log_cap;
    int chunk_log2;
    sp_u32 delta;
    long long max_iters;
};

__device__ __forceinline__ sp_u64 nf_clock()
{
    sp_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Grid barrier for a co-resident grid (the launcher sizes it from the occupancy calculator).  A
// waiter that spins for seconds sets ABORT and leaves, so a mis-sized grid fails instead of hanging.
__device__ void nf_barrier(sp_u32* ctl)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile sp_u32* gen = ctl + NF_BAR_GEN;
        const sp_u32 g = *gen;
        __threadfence();
        if (atomicAdd(ctl + NF_BAR_COUNT, 1u) == gridDim.x - 1) {
            ctl[NF_BAR_COUNT] = 0;
            __threadfence();
            atomicExch(ctl + NF_BAR_GEN, g + 1);
        } else {
            const long long start = clock64();
            while (*gen == g) {
                if (clock64() - start > (1LL << 33)) {  // ~4 s
                    atomicExch(ctl + NF_ABORT, 1u);
                    break;
                }
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// A warp's pushes of one iteration: vertices for the next near queue (single-chunk ones through
// the buffer, multi-chunk hubs straight to the queue as their chunks) and for the far pile, and the
// smallest far distance its lanes saw.  All 32 lanes call every method together.
struct NfPusher {
    sp_u32* near_buf;   // this warp's NF_BUF shared slots
    sp_u32* far_buf;
    sp_u32 near_len, far_len, far_min;
    sp_u64* qout;
    sp_u32* qcount;
    sp_u32* pile;
    sp_u32* fcount;
    sp_u32* fmin;

    __device__ void flush_near()
    {
        const int lane = threadIdx.x & 31;
        sp_u32 base = 0;
        if (lane == 0 && near_len) base = atomicAdd(qcount, near_len);
        base = __shfl_sync(SP_FULL, base, 0);
        __syncwarp();
        for (sp_u32 i = lane; i < near_len; i += 32) qout[base + i] = near_buf[i];  // chunk 0 of the vertex
        __syncwarp();
        near_len = 0;
    }

    __device__ void flush_far()
    {
        const int lane = threadIdx.x & 31;
        sp_u32 base = 0;
        if (lane == 0 && far_len) base = atomicAdd(fcount, far_len);
        base = __shfl_sync(SP_FULL, base, 0);
        __syncwarp();
        for (sp_u32 i = lane; i < far_len; i += 32) pile[base + i] = far_buf[i];
        __syncwarp();
        far_len = 0;
    }

    // One round: lane's vertex v goes near (chunks = its edge chunks, 0 for none) and/or far.
    __device__ void round(sp_u32 v, sp_u32 chunks, bool far)
    {
        const int lane = threadIdx.x & 31;
        const sp_u32 lower = (1u << lane) - 1;
        sp_u32 hubs = __ballot_sync(SP_FULL, chunks > 1);
        if (hubs) {  // hubs: all their chunks, reserved straight away and written by the whole warp
            const sp_u32 many = chunks > 1 ? chunks : 0;
            const sp_u32 slot = sp_warp_reserve(qcount, many);
            while (hubs) {
                const int h = __ffs(hubs) - 1;
                hubs &= hubs - 1;
                const sp_u32 hv = __shfl_sync(SP_FULL, v, h), hs = __shfl_sync(SP_FULL, slot, h);
                const sp_u32 hn = __shfl_sync(SP_FULL, many, h);
                for (sp_u32 c = lane; c < hn; c += 32) qout[hs + c] = ((sp_u64)c << 32) | hv;
            }
        }
        const sp_u32 one = __ballot_sync(SP_FULL, chunks == 1);
        if (one) {
            if (chunks == 1) near_buf[near_len + __popc(one & lower)] = v;
            near_len += __popc(one);
        }
        const sp_u32 fars = __ballot_sync(SP_FULL, far);
        if (fars) {
            if (far) far_buf[far_len + __popc(fars & lower)] = v;
            far_len += __popc(fars);
        }
        __syncwarp();
        if (near_len > NF_BUF - 32) flush_near();
        if (far_len > NF_BUF - 32) flush_far();
    }

    __device__ void finish()
    {
        flush_near();
        flush_far();
        const sp_u32 m = __reduce_min_sync(SP_FULL, far_min);
        if ((threadIdx.x & 31) == 0 && m != SP_INF && m < __ldcg(fmin)) atomicMin(fmin, m);
    }
};

__device__ __forceinline__ sp_u32 nf_chunks(const NfArgs& a, sp_u32 v)
{
    const long long deg = __ldg(a.off + v + 1) - __ldg(a.off + v);
    return (sp_u32)((deg + (1LL << a.chunk_log2) - 1) >> a.chunk_log2);
}

// Relax edge e of vertex u (distance du); returns whether the head v improved, and where it goes.
__device__ __forceinline__ void nf_relax_edge(const NfArgs& a, long long e, sp_u32 u, sp_u32 du, sp_u64 T,
                                              sp_u32 it, sp_u32 epoch, NfPusher& p, sp_u32& v, sp_u32& chunks,
                                              bool& far)
{
    v = (sp_u32)__ldg(a.idx + e);
    const sp_u64 nd = (sp_u64)du + (sp_u32)__ldg(a.wt + e);
    if (nd >= SP_INF) {
        a.ctl[NF_OVERFLOW] = 1;
        return;
    }
    if (!sp_relax(a.word, v, (sp_u32)nd, u)) return;
    if (nd < T) {
        if (atomicExch(a.stamp_near + v, it) != it) chunks = nf_chunks(a, v);
    } else {
        p.far_min = min(p.far_min, (sp_u32)nd);
        far = atomicExch(a.stamp_far + v, epoch) != epoch;
    }
}

// Expansion of the near queue `qin` (nq entries): spans of `span` entries, the warp's first by its
// global id, the next ones from the cursor.
__device__ void nf_expand(const NfArgs& a, const sp_u64* qin, sp_u32 nq, sp_u32* cursor, NfPusher& p, sp_u64 T,
                          sp_u32 it, sp_u32 epoch, sp_u64& edges, sp_u64& entries)
{
    __shared__ sp_u32 s_excl[NF_WARPS_MAX][32];
    __shared__ long long s_start[NF_WARPS_MAX][32];
    __shared__ sp_u32 s_vert[NF_WARPS_MAX][32];
    __shared__ sp_u32 s_dist[NF_WARPS_MAX][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const sp_u32 warps = gridDim.x * (blockDim.x >> 5);
    const sp_u32 gwarp = blockIdx.x * (blockDim.x >> 5) + warp;
    // Entries per warp batch: 32, or fewer when the queue is too short to give every warp 32, so a
    // small frontier is spread over many warps instead of a few walking their edges round after
    // round (each round is a chain of dependent loads and atomics); big queues go in spans of up
    // to 8 batches (fewer cursor atomics).
    const sp_u32 batch = nq >= warps * 32u ? 32u : max(1u, (nq + warps - 1) / warps);
    const sp_u32 span = batch < 32u ? batch : 32u * max(1u, min(8u, nq / (warps * 64u)));
    const int chunk = 1 << a.chunk_log2;
    sp_u32 first = gwarp * span;
    while (first < nq) {
        const sp_u32 last = min(nq, first + span);
        for (sp_u32 b = first; b < last; b += batch) {
            const sp_u32 i = b + lane;
            sp_u32 count = 0, u = 0, du = 0;
            long long start = 0;
            if (lane < batch && i < last) {
                const sp_u64 entry = __ldcg(qin + i);
                u = (sp_u32)entry;
                du = sp_dist(__ldcg(a.word + u));
                start = __ldg(a.off + u) + ((long long)(entry >> 32) << a.chunk_log2);
                count = (sp_u32)min((long long)chunk, __ldg(a.off + u + 1) - start);
            }
            const sp_u32 incl = sp_warp_scan(count);
            const sp_u32 total = __shfl_sync(SP_FULL, incl, 31);
            if (lane == 0) {
                edges += total;
                entries += min(batch, last - b);
            }
            s_excl[warp][lane] = incl - count;
            s_start[warp][lane] = start;
            s_vert[warp][lane] = u;
            s_dist[warp][lane] = du;
            __syncwarp();
            for (sp_u32 kb = 0; kb < total; kb += 32) {
                const sp_u32 k = kb + lane;
                sp_u32 v = 0, chunks = 0;
                bool far = false;
                if (k < total) {
                    const int j = sp_warp_owner(s_excl[warp], k);
                    const long long e = s_start[warp][j] + (k - s_excl[warp][j]);
                    nf_relax_edge(a, e, s_vert[warp][j], s_dist[warp][j], T, it, epoch, p, v, chunks, far);
                }
                p.round(v, chunks, far);
            }
            __syncwarp();
        }
        sp_u32 next = 0;
        if (lane == 0) next = warps * span + atomicAdd(cursor, span);
        first = __shfl_sync(SP_FULL, next, 0);
    }
}

// Compaction at an epoch change: far vertices in [t_old, t_new) become near, >= t_new stay far.
__device__ void nf_compact(const NfArgs& a, const sp_u32* pile_in, sp_u32 nf, NfPusher& p, sp_u64 t_old,
                           sp_u64 t_new, sp_u32 it, sp_u32 epoch)
{
    const int lane = threadIdx.x & 31;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i - lane < nf; i += stride) {
        sp_u32 v = 0, chunks = 0;
        bool far = false;
        if (i < nf) {
            v = __ldcg(pile_in + i);
            const sp_u32 d = sp_dist(__ldcg(a.word + v));
            if (d >= t_old && d < t_new) {
                if (atomicExch(a.stamp_near + v, it) != it) chunks = nf_chunks(a, v);
            } else if (d >= t_new) {
                p.far_min = min(p.far_min, d);
                far = atomicExch(a.stamp_far + v, epoch) != epoch;
            }
        }
        p.round(v, chunks, far);
    }
}

extern "C" __global__ void __launch_bounds__(NF_THREADS, NF_MIN_BLOCKS)
graphsweep_sssp_nearfar(const long long* __restrict__ off, const int* __restrict__ idx, const int* __restrict__ wt,
                        sp_u64* __restrict__ word, sp_u32* __restrict__ stamp_near, sp_u32* __restrict__ stamp_far,
                        sp_u64* queue0, sp_u64* queue1, sp_u32* pile0, sp_u32* pile1, sp_u32* __restrict__ ctl,
                        sp_u64* __restrict__ log, int log_cap, int chunk_log2, sp_u32 delta, long long max_iters)
{
    const NfArgs a = {off, idx, wt, word, stamp_near, stamp_far, queue0, queue1, pile0, pile1, ctl, log,
                      log_cap, chunk_log2, delta, max_iters};
    __shared__ sp_u32 s_near[NF_WARPS_MAX][NF_BUF];
    __shared__ sp_u32 s_far[NF_WARPS_MAX][NF_BUF];
    const int warp = threadIdx.x >> 5;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    sp_u32 it = 0, epoch = 0;
    sp_u64 T = a.delta, edges = 0, entries = 0;
    sp_u32 nq = __ldcg(ctl + NF_QCOUNT);
    if (leader) a.log[0] = nf_clock();
    while (true) {
        const bool compact = nq == 0;
        sp_u32 nf = 0;
        const sp_u64 t_old = T;
        if (compact) {
            nf = __ldcg(ctl + NF_FCOUNT + epoch % 3);
            if (nf == 0) break;
            const sp_u64 fmin = __ldcg(ctl + NF_FMIN + epoch % 3);
            T = max(t_old + a.delta, (fmin / a.delta + 1) * a.delta);
        }
        if (leader) {
            ctl[NF_QCOUNT + (it + 2) % 3] = 0;
            ctl[NF_QCUR + (it + 1) % 3] = 0;
            if (compact) {
                ctl[NF_FCOUNT + (epoch + 2) % 3] = 0;
                ctl[NF_FMIN + (epoch + 2) % 3] = SP_INF;
            }
        }
        const sp_u32 pile_epoch = compact ? epoch + 1 : epoch;   // the pile this iteration pushes to
        NfPusher p = {s_near[warp], s_far[warp], 0, 0, SP_INF, ((it + 1) & 1 ? a.queue1 : a.queue0),
                      ctl + NF_QCOUNT + (it + 1) % 3, (pile_epoch & 1 ? a.pile1 : a.pile0),
                      ctl + NF_FCOUNT + pile_epoch % 3, ctl + NF_FMIN + pile_epoch % 3};
        if (compact) {
            nf_compact(a, (epoch & 1 ? a.pile1 : a.pile0), nf, p, t_old, T, it, pile_epoch);
            epoch = pile_epoch;
        } else {
            nf_expand(a, (it & 1 ? a.queue1 : a.queue0), nq, ctl + NF_QCUR + it % 3, p, T, it, epoch, edges, entries);
        }
        p.finish();
        nf_barrier(ctl);
        if (leader && it < (sp_u32)a.log_cap) {
            sp_u64* row = a.log + 1 + 4 * (long long)it;  // log[0]: the start time
            row[0] = T;
            row[1] = compact ? nf : nq;
            row[2] = compact;
            row[3] = nf_clock();
        }
        nq = __ldcg(ctl + NF_QCOUNT + (it + 1) % 3);
        ++it;
        if (__ldcg(ctl + NF_ABORT) || it >= a.max_iters) {
            if (leader) ctl[NF_ABORT] = 1;
            break;
        }
    }
    if ((threadIdx.x & 31) == 0 && edges) {
        atomicAdd((sp_u64*)(ctl + NF_EDGES), edges);
        atomicAdd((sp_u64*)(ctl + NF_ENTRIES), entries);
    }
    if (leader) {
        ctl[NF_ITERS] = it;
        ctl[NF_EPOCHS] = epoch;
    }
}

// Before the launch: ctl zeroed, far minima INF, stamps "never", the root's chunks queued.
extern "C" __global__ void graphsweep_sssp_nearfar_init(const long long* __restrict__ off, sp_u32* __restrict__ stamp_near,
                                                        sp_u32* __restrict__ stamp_far, sp_u64* __restrict__ queue,
                                                        sp_u32* __restrict__ ctl, long long n, int root, int chunk_log2)
{
    const long long deg = off[root + 1] - off[root];
    const long long chunks = (deg + (1LL << chunk_log2) - 1) >> chunk_log2;
    SP_GRID_STRIDE(i, max(max(n, chunks), (long long)NF_CTL_WORDS)) {
        if (i < n) {
            stamp_near[i] = SP_INF;
            stamp_far[i] = SP_INF;
        }
        if (i < chunks) queue[i] = ((sp_u64)i << 32) | (sp_u32)root;
        if (i < NF_CTL_WORDS)
            ctl[i] = i == NF_QCOUNT ? (sp_u32)chunks : (i >= NF_FMIN && i < NF_FMIN + 3) ? SP_INF : 0u;
    }
}
