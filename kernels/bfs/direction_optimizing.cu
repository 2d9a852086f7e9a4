// bfs.direction-optimizing: queue-based top-down levels and bitmap bottom-up levels, every level in
// one persistent grid (a grid barrier per level; the direction chosen on the device), after Beamer
// et al. SC'12 and GAPBS bfs.cc.
//
// Encodings written down once:
//   visited, frontier, next   bitmaps: vertex v is bit (v & 31) of word (v >> 5).
//   queue entries             longlong2 {x = offsets[v], y = (degree << 32) | v}: a claimed vertex's
//                             row travels with it, so the level that expands it reads no offsets.
//   queue0/queue1             the frontier of level L is queue[L & 1].
//   lp                        int2 {level, parent} per reached vertex: a claim is one 8-byte store, not
//                             two 4-byte stores to two arrays (each a partial-sector write to DRAM);
//                             never initialised: the launch that finishes the search writes the level
//                             and parent outputs from it and the visited bitmap (-1 where unvisited).
//   items                     work items of big vertices: (chunk << 32) | v stands for the edges
//                             [offsets[v] + chunk * GS_BFS_CHUNK, + GS_BFS_CHUNK) of v.
//   ctl                       the run's control block, unsigned 64-bit slots (CTL_*, passed with -D by
//                             direction_optimizing.py).  Counts and edge sums are triple-buffered by
//                             level % 3: level L reads slot L%3, appends to (L+1)%3 and clears (L+2)%3,
//                             which nobody touches during L.  A count slot is also level L's barrier:
//                             the count in its low 40 bits, the blocks' arrivals (GS_BFS_ARRIVAL each)
//                             above, so the read that sees the last arrival also reads the count.
#include "bfs/common.cuh"
#include "dist/comm/peer.cuh"

// Shared with the launcher, which passes them with -D (direction_optimizing.py: CHUNK, WARP_BUFFER,
// MAX_THREADS, MIN_BLOCKS (of MAX_THREADS a SM: the `registers` parameter), the control block's CTL_* slots, EXIT_* reasons and REC_* record fields).
#if !defined(GS_BFS_CHUNK) || !defined(GS_BFS_BUF) || !defined(GS_BFS_MAX_THREADS) || !defined(GS_BFS_MIN_BLOCKS) \
    || !defined(CTL_SIZE) || !defined(SLICECTL_SIZE) \
    || !defined(EXIT_LIMIT) || !defined(MODE_AUTO) || !defined(KIND_BOTTOM_UP) || !defined(REC_FIELDS)
#error "compile through kernels/bfs/direction_optimizing.py, which defines the shared constants"
#endif
#define GS_BFS_UNROLL 4           // edges a lane has in flight in top-down (32 x 4 per warp step)
#define GS_BFS_PRECHECK 16384     // frontiers at least this big test visited bits before the atomic
#define GS_BFS_BU_SERIAL 32       // neighbours a lane checks alone in bottom-up before its warp helps
#define GS_BFS_BU_WIDE 4          // ... GS_BFS_BU_WIDE at a time (their loads in flight together)
#define GS_BFS_SPECULATE 65536    // levels of fewer frontier edges read a neighbour's row with its claim
#define GS_BFS_TIMEOUT_NS 1000000000ULL   // a grid barrier waiting 1 s gives up (a level takes < 0.1 s)
#define GS_BFS_ARRIVAL (1ULL << 40)       // a block's arrival at a barrier, in a count slot's high bits
#define GS_BFS_COUNT_MASK (GS_BFS_ARRIVAL - 1)

__device__ __forceinline__ longlong2 gs_entry(int v, long long first, long long end)
{
    return make_longlong2(first, ((end - first) << 32) | (long long)(unsigned)v);
}

__device__ __forceinline__ int gs_entry_vertex(longlong2 e) { return (int)(unsigned)(e.y & 0xffffffffLL); }
__device__ __forceinline__ long long gs_entry_degree(longlong2 e) { return e.y >> 32; }

// One slice of a graph partitioned over K ranks (kernels/bfs/distributed.py): this rank's rows are
// the vertices [lo, hi); `offsets` and `lp` are passed moved back by lo, so they are indexed by
// vertex id like the whole graph's; `visited` is a bitmap of every vertex (for a vertex of another
// slice: claimed here once already).  A claim of another slice's vertex goes to its owner j as a
// (vertex, parent) pair in the outbox of j (outbox[j * (cap + 1)]: its count in .x, then up to cap
// pairs), or, once that is full, as its bit in `claims` (a bitmap of every vertex; the owner finds
// a parent for it).  A claim of this slice's vertex also sets its bit in `next`, the next
// frontier's bitmap (global words).  Over peer memory (`remote`: the K ranks' inboxes, this rank
// `me`) the outbox is only the K counts (outbox[j].x) and each pair goes straight into box `me` of
// its owner's inbox.  The whole-graph kernel passes SLICED = false and none of this is compiled in.
#define GS_NO_OWNER 0x7fffffff     // a claim that stays in this slice (gs_td_claim)

struct gs_slice {
    long long lo, hi;
    const long long* bounds;     // the K + 1 bounds of the slices
    int k;
    int2* outbox;
    int cap;
    unsigned* claims;
    unsigned* next;
    int2* const* remote;
    int me;
    int* sent;                   // with remote: the block's mark (shared memory) that it stored a pair there
};

__device__ __forceinline__ int gs_owner(const gs_slice& sl, int v)
{
    int j = 0;      // the last slice starting at or before v
    for (int step = 32; step > 0; step >>= 1)
        if (j + step < sl.k && __ldg(sl.bounds + j + step) <= v) j += step;
    return j;
}

// ---- one run's set-up: visited empty, the root alone in queue0 (lp is written as vertices are reached) --

extern "C" __global__ void graphsweep_bfs_init(int2* __restrict__ lp, unsigned* __restrict__ visited,
                                               longlong2* __restrict__ queue0, gs_u64* __restrict__ ctl,
                                               const long long* __restrict__ offsets, int words, int root)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = tid; i < words; i += stride) visited[i] = i == (root >> 5) ? 1u << (root & 31) : 0u;
    if (tid == 0) {
        lp[root] = make_int2(0, root);
        queue0[0] = gs_entry(root, offsets[root], offsets[root + 1]);
        for (int k = 0; k < CTL_SIZE; ++k) ctl[k] = 0;
        ctl[CTL_COUNT] = 1;
        ctl[CTL_SCOUT] = (gs_u64)(offsets[root + 1] - offsets[root]);
    }
}

// ---- top-down ----------------------------------------------------------------------------------

// A warp's discovered vertices are staged in shared memory and appended to the next queue with
// one atomic per GS_BFS_BUF - 127 or more vertices: one counter shared by the whole grid would
// otherwise take an atomic per 32 edges.  The counter is the level's count slot, whose high bits
// count the blocks already at the barrier.
__device__ __forceinline__ void gs_flush(longlong2* buf, int& fill, longlong2* qout, gs_u64* count_out, int lane)
{
    if (fill == 0) return;
    __syncwarp();
    gs_u64 base = 0;
    if (lane == 0) base = atomicAdd(count_out, (gs_u64)fill) & GS_BFS_COUNT_MASK;
    base = __shfl_sync(GS_FULL, base, 0);
    for (int i = lane; i < fill; i += 32) qout[base + i] = buf[i];
    __syncwarp();
    fill = 0;
}

__device__ __forceinline__ void gs_prefetch_l2(const void* p)
{
    asm volatile("prefetch.global.L2 [%0];" :: "l"(p));
}

// Claim GS_BFS_UNROLL edges (u[q] -> w[q]) per lane at once; all lanes of the warp call this
// together and `valid` says which edges exist.  Each stage's loads for the q edges are issued
// before any is used, so a lane keeps several memory round trips in flight.  `precheck` tests
// the visited bit with a plain L2 read first (cheaper than an atomic once most vertices are
// reached; on small frontiers it is one more round trip per level, so it is skipped).  A claimed
// vertex's row is read and queued with it (its out-degree is Beamer's m_f); on levels of few edges
// (`speculate`) every neighbour's row is read beside its claim, not after it: one round trip less
// per level for 16 bytes a lost claim, which only small levels can afford; and a claimed vertex's
// edges are prefetched into L2, so the next level's read of them is an L2 hit, not a DRAM trip.
template <bool SLICED>
__device__ __forceinline__ void gs_td_claim(const int (&u)[GS_BFS_UNROLL], const int (&w)[GS_BFS_UNROLL],
                                            const bool (&valid)[GS_BFS_UNROLL], bool precheck, bool speculate,
                                            int next_depth, unsigned* visited, int2* lp,
                                            const long long* __restrict__ offsets, const int* indices, long long& scout,
                                            longlong2* buf, int& fill, longlong2* qout, gs_u64* count_out, int lane,
                                            const gs_slice& sl)
{
    bool claim[GS_BFS_UNROLL], mine[GS_BFS_UNROLL];
    unsigned seen[GS_BFS_UNROLL];
    long long first[GS_BFS_UNROLL], end[GS_BFS_UNROLL];
#pragma unroll
    for (int q = 0; q < GS_BFS_UNROLL; ++q) mine[q] = !SLICED || (w[q] >= sl.lo && w[q] < sl.hi);
#pragma unroll
    for (int q = 0; q < GS_BFS_UNROLL; ++q) {
        first[q] = end[q] = 0;
        if (valid[q] && speculate && mine[q]) {
            first[q] = __ldg(offsets + w[q]);
            end[q] = __ldg(offsets + w[q] + 1);
        }
    }
#pragma unroll
    for (int q = 0; q < GS_BFS_UNROLL; ++q) seen[q] = valid[q] && precheck ? __ldcg(visited + (w[q] >> 5)) : 0u;
#pragma unroll
    for (int q = 0; q < GS_BFS_UNROLL; ++q) {
        const unsigned bit = 1u << (w[q] & 31);
        claim[q] = valid[q] && !(seen[q] & bit);
        if (claim[q]) claim[q] = !(atomicOr(visited + (w[q] >> 5), bit) & bit);
    }
    if (SLICED) {
        // Another slice's vertex goes to its owner, once, as a pair in the owner's box.  The warp's
        // pairs of all GS_BFS_UNROLL rounds bound for one owner take their places with one atomic
        // on that box's count, laid end to end: a level expanding hubs sends millions of pairs, and
        // an atomic a round and owner on K hot counters serialised it (R-MAT 28 over 4 H200s, 16
        // roots: the top-down levels of hubs 1.23 -> 0.86 ms a root; the worst 5.59 -> 3.45 ms
        // against one GPU's 6.10).
        bool away[GS_BFS_UNROLL];
        int owner[GS_BFS_UNROLL], at[GS_BFS_UNROLL];
        bool any = false;
#pragma unroll
        for (int q = 0; q < GS_BFS_UNROLL; ++q) {
            const unsigned bit = 1u << (w[q] & 31);
            if (claim[q] && mine[q]) atomicOr(sl.next + (w[q] >> 5), bit);
            away[q] = claim[q] && !mine[q];
            owner[q] = away[q] ? gs_owner(sl, w[q]) : GS_NO_OWNER;
            at[q] = 0;
            any |= away[q];
        }
        if (__any_sync(GS_FULL, any)) {
            const unsigned below = (1u << lane) - 1u;
            int done = -1;            // owners up to this one have their places
            for (;;) {
                int least = GS_NO_OWNER;  // the lane's smallest owner still without places
#pragma unroll
                for (int q = 0; q < GS_BFS_UNROLL; ++q)
                    if (owner[q] > done && owner[q] < least) least = owner[q];
                const int j = (int)__reduce_min_sync(GS_FULL, (unsigned)least);
                if (j == GS_NO_OWNER) break;
                unsigned m[GS_BFS_UNROLL];
                int total = 0;
#pragma unroll
                for (int q = 0; q < GS_BFS_UNROLL; ++q) {
                    m[q] = __ballot_sync(GS_FULL, owner[q] == j);
                    total += __popc(m[q]);
                }
                int2* box = sl.outbox + (long long)j * (sl.remote ? 1 : sl.cap + 1);
                int base = 0;
                if (lane == 0) base = atomicAdd(&box->x, total);
                base = __shfl_sync(GS_FULL, base, 0);
#pragma unroll
                for (int q = 0; q < GS_BFS_UNROLL; ++q) {
                    if (owner[q] == j) at[q] = base + __popc(m[q] & below);
                    base += __popc(m[q]);
                }
                done = j;
            }
#pragma unroll
            for (int q = 0; q < GS_BFS_UNROLL; ++q) {
                if (!away[q]) continue;
                claim[q] = false;
                int2* to = sl.remote ? sl.remote[owner[q]] + (long long)sl.me * (sl.cap + 1)
                                     : sl.outbox + (long long)owner[q] * (sl.cap + 1);
                if (at[q] < sl.cap) to[1 + at[q]] = make_int2(w[q], u[q]);
                else if (sl.claims)   // none over peer memory: a box holds a slice
                    atomicOr(sl.claims + (w[q] >> 5), 1u << (w[q] & 31));
                if (sl.remote) *sl.sent = next_depth;
            }
        }
    }
#pragma unroll
    for (int q = 0; q < GS_BFS_UNROLL; ++q) {
        if (claim[q]) {
            lp[w[q]] = make_int2(next_depth, u[q]);
            if (!speculate) {
                first[q] = __ldg(offsets + w[q]);
                end[q] = __ldg(offsets + w[q] + 1);
            } else if (end[q] > first[q]) {
                gs_prefetch_l2(indices + first[q]);
                gs_prefetch_l2(indices + end[q] - 1);
            }
        }
    }
#pragma unroll
    for (int q = 0; q < GS_BFS_UNROLL; ++q) {
        const unsigned m = __ballot_sync(GS_FULL, claim[q]);
        if (!m) continue;
        const int k = __popc(m);
        if (fill + k > GS_BFS_BUF) gs_flush(buf, fill, qout, count_out, lane);
        if (claim[q]) {
            buf[fill + __popc(m & ((1u << lane) - 1u))] = gs_entry(w[q], first[q], end[q]);
            scout += end[q] - first[q];
        }
        fill += k;
    }
}

// Expand the frontier qin[0, count): each warp takes 32 entries; vertices of degree above
// GS_BFS_CHUNK become work items (expanded by the whole grid after a barrier), the others'
// edges are laid end to end by a warp scan and taken 32 x GS_BFS_UNROLL at a time, each lane
// finding the source of its edge by a binary search over the lanes' exclusive sums (Merrill's
// scan-based gather within a warp) — unless all 32 have at most GS_BFS_UNROLL edges, which the
// lanes then take one vertex each.  `rank` orders the warps block-minor (see gs_spread_rank);
// `mine` is the lane's first entry, qin[rank * 32 + lane], read by the caller beside the level's
// other reads.
template <bool SLICED>
__device__ __forceinline__ void gs_td_queue(const int* __restrict__ indices, const long long* __restrict__ offsets,
                                            unsigned* visited, int2* lp, const longlong2* qin, longlong2 mine,
                                            gs_u64 count, longlong2* qout, gs_u64* count_out, gs_u64* items,
                                            gs_u64* items_count, int next_depth, bool precheck, bool speculate,
                                            long long& scout, longlong2* buf, int& fill, gs_u64 rank,
                                            gs_u64 nwarps, int lane, const gs_slice& sl)
{
    for (gs_u64 base = rank * 32; base < count; base += nwarps * 32) {
        const gs_u64 i = base + lane;
        int v = 0;
        long long off = 0, deg = 0;
        if (i < count) {
            const longlong2 e = base == rank * 32 ? mine : __ldcg(qin + i);
            v = gs_entry_vertex(e);
            off = e.x;
            deg = gs_entry_degree(e);
        }
        const bool big = deg > GS_BFS_CHUNK;
        unsigned bigs = __ballot_sync(GS_FULL, big);
        while (bigs) {
            const int j = __ffs(bigs) - 1;
            bigs &= bigs - 1;
            const unsigned vj = (unsigned)__shfl_sync(GS_FULL, v, j);
            const long long dj = __shfl_sync(GS_FULL, deg, j);
            const gs_u64 nitems = (gs_u64)((dj + GS_BFS_CHUNK - 1) / GS_BFS_CHUNK);
            gs_u64 first = 0;
            if (lane == 0) first = atomicAdd(items_count, nitems);
            first = __shfl_sync(GS_FULL, first, 0);
            for (gs_u64 k = lane; k < nitems; k += 32) items[first + k] = (k << 32) | vj;
        }
        if (__all_sync(GS_FULL, deg <= GS_BFS_UNROLL)) {
            // A road network's frontier: each lane claims its own vertex's few edges, no scan needed.
            int u[GS_BFS_UNROLL], w[GS_BFS_UNROLL];
            bool valid[GS_BFS_UNROLL];
#pragma unroll
            for (int q = 0; q < GS_BFS_UNROLL; ++q) {
                u[q] = v;
                valid[q] = q < deg;
                w[q] = valid[q] ? __ldg(indices + off + q) : 0;
            }
            gs_td_claim<SLICED>(u, w, valid, precheck, speculate, next_depth, visited, lp, offsets, indices, scout,
                                buf, fill, qout, count_out, lane, sl);
            continue;
        }
        const int d = big ? 0 : (int)deg;
        const int incl = gs_warp_inclusive_sum(d, lane);
        const int total = __shfl_sync(GS_FULL, incl, 31);
        const int excl = incl - d;
        for (int r0 = 0; r0 < total; r0 += 32 * GS_BFS_UNROLL) {
            int u[GS_BFS_UNROLL], w[GS_BFS_UNROLL];
            bool valid[GS_BFS_UNROLL];
#pragma unroll
            for (int q = 0; q < GS_BFS_UNROLL; ++q) {
                const int r = r0 + 32 * q + lane;
                int j = 0;      // the last lane whose edges start at or before r: it owns edge r
                for (int s = 16; s > 0; s >>= 1)
                    if (__shfl_sync(GS_FULL, excl, j + s) <= r) j += s;
                u[q] = __shfl_sync(GS_FULL, v, j);
                const long long e = __shfl_sync(GS_FULL, off, j) + (r - __shfl_sync(GS_FULL, excl, j));
                valid[q] = r < total;
                w[q] = valid[q] ? __ldg(indices + e) : 0;
            }
            gs_td_claim<SLICED>(u, w, valid, precheck, speculate, next_depth, visited, lp, offsets, indices, scout,
                                buf, fill, qout, count_out, lane, sl);
        }
    }
}

// Expand the work items of big vertices, one warp per item of GS_BFS_CHUNK edges, in `rank` order.
template <bool SLICED>
__device__ __forceinline__ void gs_td_items(const int* __restrict__ indices, const long long* __restrict__ offsets,
                                            unsigned* visited, int2* lp, const gs_u64* items,
                                            gs_u64 nitems, longlong2* qout, gs_u64* count_out, int next_depth,
                                            long long& scout, longlong2* buf, int& fill, gs_u64 rank,
                                            gs_u64 nwarps, int lane, const gs_slice& sl)
{
    for (gs_u64 it = rank; it < nitems; it += nwarps) {
        const gs_u64 item = __ldcg(items + it);
        const int v = (int)(unsigned)(item & 0xffffffffu);
        const long long first = __ldg(offsets + v) + (long long)(item >> 32) * GS_BFS_CHUNK;
        const long long end = min(__ldg(offsets + v + 1), first + GS_BFS_CHUNK);
        for (long long x0 = first; x0 < end; x0 += 32 * GS_BFS_UNROLL) {
            int u[GS_BFS_UNROLL], w[GS_BFS_UNROLL];
            bool valid[GS_BFS_UNROLL];
#pragma unroll
            for (int q = 0; q < GS_BFS_UNROLL; ++q) {
                const long long x = x0 + 32 * q + lane;
                u[q] = v;
                valid[q] = x < end;
                w[q] = valid[q] ? __ldg(indices + x) : 0;
            }
            gs_td_claim<SLICED>(u, w, valid, true, false, next_depth, visited, lp, offsets, indices, scout, buf, fill,
                                qout, count_out, lane, sl);
        }
    }
}

// A warp's rank in the top-down work order, block-minor: consecutive 32-entry slices of a frontier
// go to different blocks, so a small frontier is spread over as many SMs as it has slices, not
// packed into the first few (whose load units would take its scattered loads one line at a time,
// and whose __syncthreads would wait on every busy warp of the block).
__device__ __forceinline__ gs_u64 gs_spread_rank()
{
    return (gs_u64)(threadIdx.x >> 5) * gridDim.x + blockIdx.x;
}

// Acquire and release, GPU scope: a barrier's poll and arrival order the level's reads and writes
// without a full fence on either side.
__device__ __forceinline__ gs_u64 gs_load_acquire(const gs_u64* p)
{
    gs_u64 v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void gs_add_release(gs_u64* p, gs_u64 x)
{
    asm volatile("red.release.gpu.global.add.u64 [%0], %1;" :: "l"(p), "l"(x) : "memory");
}

#define GS_BFS_ABORT (~0ULL)      // what a barrier whose wait timed out returns

enum { GS_WAIT = 0, GS_TOP_DOWN_SUMS = 1, GS_BOTTOM_UP_SUMS = 2 };

// Grid barrier of a co-resident grid (launched cooperatively, sized by occupancy) on the count slot
// `word` of the level in progress: the block's __syncthreads serve a reduction of its threads'
// `found`, `scout` and `checked` (SUMS: none, scout only, all three); thread 0 adds scout and
// checked to *scout_to and *checked_to (relaxed), then found and the block's arrival to `word` in
// one release-ordered add, and reads `word` (acquire) until `arrivals` blocks have arrived.
// Returns the count in `word` as the read that saw the last arrival left it (every block's adds
// of the level so far are in it), or GS_BFS_ABORT if the wait passed timeout_ns (ctl[CTL_ERROR] set).
template <int SUMS>
__device__ __forceinline__ gs_u64 gs_barrier(gs_u64* word, gs_u64 arrivals, long long found, gs_u64* scout_to,
                                             long long scout, gs_u64* checked_to, long long checked, long long* red,
                                             gs_u64* ctl, gs_u64 timeout_ns = GS_BFS_TIMEOUT_NS)
{
    __shared__ gs_u64 seen;
    const int warps = blockDim.x >> 5, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (SUMS == GS_TOP_DOWN_SUMS) {
        const long long s = gs_warp_sum(scout);
        if (lane == 0) red[warp] = s;
    } else if (SUMS == GS_BOTTOM_UP_SUMS) {
        const long long values[3] = {found, scout, checked};
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            const long long s = gs_warp_sum(values[k]);
            if (lane == 0) red[k * warps + warp] = s;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        long long total[3] = {0, 0, 0};     // found, scout, checked
        if (SUMS == GS_TOP_DOWN_SUMS)
            for (int i = 0; i < warps; ++i) total[1] += red[i];
        if (SUMS == GS_BOTTOM_UP_SUMS)
            for (int k = 0; k < 3; ++k)
                for (int i = 0; i < warps; ++i) total[k] += red[k * warps + i];
        if (total[1]) atomicAdd(scout_to, (gs_u64)total[1]);
        if (total[2]) atomicAdd(checked_to, (gs_u64)total[2]);
        gs_add_release(word, GS_BFS_ARRIVAL + (gs_u64)total[0]);
        const gs_u64 t0 = gs_globaltimer();
        gs_u64 v;
        for (unsigned polls = 1; (v = gs_load_acquire(word)) / GS_BFS_ARRIVAL < arrivals; ++polls) {
            if (polls % 256 == 0 && gs_globaltimer() - t0 > timeout_ns) {
                atomicExch(ctl + CTL_ERROR, 1ULL);
                v = GS_BFS_ABORT;
                break;
            }
        }
        seen = v;
    }
    __syncthreads();
    const gs_u64 v = seen;
    return v == GS_BFS_ABORT ? v : v & GS_BFS_COUNT_MASK;
}

// A barrier that sums nothing; false if it timed out.
__device__ __forceinline__ bool gs_wait(gs_u64* word, gs_u64 arrivals, long long* red, gs_u64* ctl,
                                        gs_u64 timeout_ns = GS_BFS_TIMEOUT_NS)
{
    return gs_barrier<GS_WAIT>(word, arrivals, 0, nullptr, 0, nullptr, 0, red, ctl, timeout_ns) != GS_BFS_ABORT;
}

// At level L's start its leader clears the slots level L + 1 writes (its count and edge sums, work
// items and edges examined: nobody touches them during L) and the bitmap-to-queue cursor L may use.
__device__ __forceinline__ void gs_clear_next_slots(gs_u64* ctl, int L)
{
    ctl[CTL_COUNT + (L + 2) % 3] = 0;
    ctl[CTL_SCOUT + (L + 2) % 3] = 0;
    ctl[CTL_ITEMS + ((L + 1) & 1)] = 0;
    ctl[CTL_CHECKED + ((L + 1) & 1)] = 0;
    ctl[CTL_SCRATCH] = 0;
}

// ---- a top-down level (inside a persistent grid) -------------------------------------------------

// Over peer memory (PEER: a slice's pairs stored straight into their owners' inboxes, sl.remote)
// a block that stored a pair this level (its mark *sl.sent) fences its stores at system scope
// before the grid barrier, so the meeting after the level publishes them.  Nothing elsewhere.
template <bool PEER>
__device__ __forceinline__ void gs_td_fence(const gs_slice& sl, int next_depth)
{
    if (PEER) {
        __syncthreads();
        if (*sl.sent == next_depth) __threadfence_system();
    }
}

// One top-down level as every persistent kernel runs it (graphsweep_bfs_levels, and a slice's:
// graphsweep_bfs_slice_top_down, graphsweep_bfs_slice_search): the queue qin[0, count) expanded
// (gs_td_queue; `first` is the lane's first entry, read by the caller beside the level's other
// reads), the warps' buffers flushed, a grid barrier on the level's count slot `count_out` that sums
// the claimed vertices' out-edges into *scout_out; then, if the queue's big vertices made work
// items (*items_count after that barrier, returned in `nitems`), the items expanded, flushed and
// a second barrier.  `arrivals` counts the level's barriers (times the grid); `next_count` is the
// next queue's count as the last barrier read it.  False if a barrier timed out.  PEER (with
// SLICED): the slice search's level over peer memory, its stores fenced before each barrier.
template <bool SLICED, bool PEER = false>
__device__ __forceinline__ bool gs_td_level(const int* __restrict__ indices, const long long* __restrict__ offsets,
                                            unsigned* visited, int2* lp, const longlong2* qin, longlong2 first,
                                            gs_u64 count, longlong2* qout, gs_u64* count_out, gs_u64* scout_out,
                                            gs_u64* items, gs_u64* items_count, int next_depth, bool precheck,
                                            bool speculate, gs_u64& arrivals, gs_u64& next_count, gs_u64& nitems,
                                            longlong2* buf, long long* red, gs_u64* ctl, gs_u64 rank, gs_u64 nwarps,
                                            int lane, const gs_slice& sl)
{
    long long scout = 0;      // out-edges of the vertices claimed
    int fill = 0;
    gs_td_queue<SLICED>(indices, offsets, visited, lp, qin, first, count, qout, count_out, items, items_count,
                        next_depth, precheck, speculate, scout, buf, fill, rank, nwarps, lane, sl);
    gs_flush(buf, fill, qout, count_out, lane);
    gs_td_fence<PEER>(sl, next_depth);
    next_count = gs_barrier<GS_TOP_DOWN_SUMS>(count_out, arrivals += gridDim.x, 0, scout_out, scout, nullptr, 0, red,
                                              ctl);
    if (next_count == GS_BFS_ABORT) return false;
    nitems = __ldcg(items_count);
    if (nitems) {
        scout = 0;
        gs_td_items<SLICED>(indices, offsets, visited, lp, items, nitems, qout, count_out, next_depth, scout, buf,
                            fill, rank, nwarps, lane, sl);
        gs_flush(buf, fill, qout, count_out, lane);
        gs_td_fence<PEER>(sl, next_depth);
        next_count = gs_barrier<GS_TOP_DOWN_SUMS>(count_out, arrivals += gridDim.x, 0, scout_out, scout, nullptr, 0,
                                                  red, ctl);
        if (next_count == GS_BFS_ABORT) return false;
    }
    return true;
}

// ---- switching representation (inside the persistent grid) -------------------------------------

// The frontier queue[0, count) as the bits of `bitmap` (GAPBS QueueToBitmap): the grid clears it,
// waits, sets the bits and waits again (barriers on the level's count slot `word`, `arrivals`
// counting them), so bottom-up reads it complete.
__device__ __forceinline__ bool gs_queue_to_bitmap(const longlong2* queue, gs_u64 count, unsigned* bitmap,
                                                   int words, gs_u64* word, gs_u64& arrivals, long long* red,
                                                   gs_u64* ctl)
{
    const gs_u64 tid = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x, stride = (gs_u64)gridDim.x * blockDim.x;
    for (gs_u64 i = tid; i < (gs_u64)words; i += stride) bitmap[i] = 0u;
    if (!gs_wait(word, arrivals += gridDim.x, red, ctl)) return false;
    for (gs_u64 i = tid; i < count; i += stride) {
        const int v = gs_entry_vertex(__ldcg(queue + i));
        atomicOr(bitmap + (v >> 5), 1u << (v & 31));
    }
    return gs_wait(word, arrivals += gridDim.x, red, ctl);
}

// The set bits of `bitmap` as queue entries (GAPBS BitmapToQueue): a block scans its words'
// popcounts and reserves its share of the queue with one atomic on `cursor` (ctl[CTL_SCRATCH],
// cleared at the start of the bottom-up level); each entry carries its vertex's row and id, base +
// its bit's index (a slice's bitmap starts at its first vertex).  The caller waits after.
__device__ __forceinline__ void gs_bitmap_to_queue(const unsigned* bitmap, int words,
                                                   const long long* __restrict__ offsets, longlong2* queue,
                                                   gs_u64* cursor, int base)
{
    __shared__ int warp_sums[32];
    __shared__ gs_u64 block_base;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long first = (long long)blockIdx.x * blockDim.x; first < words; first += (long long)gridDim.x * blockDim.x) {
        const long long w = first + threadIdx.x;
        unsigned bits = w < words ? __ldcg(bitmap + w) : 0u;
        const int c = __popc(bits);
        const int incl = gs_warp_inclusive_sum(c, lane);
        if (lane == 31) warp_sums[warp] = incl;
        __syncthreads();
        if (threadIdx.x == 0) {
            int sum = 0;
            for (int i = 0; i < (int)(blockDim.x >> 5); ++i) {
                const int t = warp_sums[i];
                warp_sums[i] = sum;
                sum += t;
            }
            block_base = sum ? atomicAdd(cursor, (gs_u64)sum) : 0;
        }
        __syncthreads();
        gs_u64 pos = block_base + warp_sums[warp] + incl - c;
        while (bits) {
            const int b = __ffs(bits) - 1;
            bits &= bits - 1;
            const int v = (int)(w * 32 + b);
            queue[pos++] = gs_entry(base + v, __ldg(offsets + v), __ldg(offsets + v + 1));
        }
        __syncthreads();
    }
}

// ---- bottom-up ---------------------------------------------------------------------------------

// One bottom-up level (GAPBS BUStep): a warp per visited word; each unvisited vertex looks for a
// parent among its in-neighbours (rcsr) in the `frontier` bitmap and stops at the first.  A lane
// checks its first GS_BFS_BU_SERIAL neighbours alone, GS_BFS_BU_WIDE at a time (their loads in
// flight together; up to 3 are read needlessly); the vertices still searching after that are
// taken one at a time by the whole warp, 32 neighbours per step, so one long adjacency list does
// not hold 31 idle lanes (with a serial limit of 8, a uniform graph of degree 16 sent ~40% of its
// lanes through that one-at-a-time loop: 1.9 ms for one level of 16M vertices).  Writes every
// word of `next`; adds to the thread's counts the vertices found, their out-edges (`offsets`: the
// out-edge CSR, the same array as roffsets when undirected) and the edges examined.  `visited`
// and `frontier` are written by this launch, so they are read through L2 (__ldcg), never a
// stale L1 or the read-only path.  `dead` marks the vertices without in-edges, which no level can
// reach: they are skipped like visited ones, without reading their rows (R-MAT's isolated
// vertices, most of the ~8M of scale 24's 16.7M that no root reaches, cost 16 bytes each a level
// otherwise).
__device__ __forceinline__ void gs_bu_level(const long long* __restrict__ offsets,
                                            const long long* __restrict__ roffsets,
                                            const int* __restrict__ rindices, unsigned* visited,
                                            const unsigned* __restrict__ dead, const unsigned* frontier,
                                            unsigned* next, int2* lp, int n, int words,
                                            int depth, long long& awake, long long& scout, long long& checked,
                                            long long gwarp, long long nwarps, int lane)
{
    for (long long w = gwarp; w < words; w += nwarps) {
        const unsigned seen = __ldcg(visited + w), skip = seen | __ldg(dead + w);
        unsigned found = 0;
        if (skip != GS_FULL) {
            const int v = (int)(w * 32 + lane);
            const bool todo = v < n && !((skip >> lane) & 1u);
            long long start = 0, e = 0, end = 0;
            int par = -1;
            if (todo) {
                start = e = __ldg(roffsets + v);
                end = __ldg(roffsets + v + 1);
                const long long stop = min(end, e + GS_BFS_BU_SERIAL);
                for (; e < stop; e += GS_BFS_BU_WIDE) {
                    int u[GS_BFS_BU_WIDE];
                    bool hit[GS_BFS_BU_WIDE];
#pragma unroll
                    for (int q = 0; q < GS_BFS_BU_WIDE; ++q) u[q] = e + q < stop ? __ldg(rindices + e + q) : -1;
#pragma unroll
                    for (int q = 0; q < GS_BFS_BU_WIDE; ++q)
                        hit[q] = u[q] >= 0 && ((__ldcg(frontier + (u[q] >> 5)) >> (u[q] & 31)) & 1u);
                    int first = -1;     // the first neighbour of the group in the frontier
#pragma unroll
                    for (int q = GS_BFS_BU_WIDE - 1; q >= 0; --q)
                        if (hit[q]) { first = q; par = u[q]; }
                    if (first >= 0) { e += first; break; }
                }
                if (par < 0) e = stop;
                checked += (par >= 0 ? e + 1 : e) - start;
            }
            unsigned rest = __ballot_sync(GS_FULL, todo && par < 0 && e < end);
            while (rest) {
                const int j = __ffs(rest) - 1;
                rest &= rest - 1;
                const long long ej = __shfl_sync(GS_FULL, e, j), endj = __shfl_sync(GS_FULL, end, j);
                int pj = -1;
                for (long long x0 = ej; x0 < endj; x0 += 32) {
                    const long long x = x0 + lane;
                    int u = 0;
                    bool hit = false;
                    if (x < endj) {
                        u = __ldg(rindices + x);
                        hit = (__ldcg(frontier + (u >> 5)) >> (u & 31)) & 1u;
                    }
                    const unsigned hits = __ballot_sync(GS_FULL, hit);
                    if (lane == 0) checked += min(endj - x0, 32LL);
                    if (hits) {
                        pj = __shfl_sync(GS_FULL, u, __ffs(hits) - 1);
                        break;
                    }
                }
                if (lane == j) par = pj;
            }
            found = __ballot_sync(GS_FULL, par >= 0);
            if (par >= 0) {
                lp[v] = make_int2(depth + 1, par);
                scout += offsets == roffsets ? end - start : __ldg(offsets + v + 1) - __ldg(offsets + v);
            }
            if (lane == 0 && found) visited[w] = seen | found;
        }
        if (lane == 0) {
            next[w] = found;
            awake += __popc(found);
        }
    }
}

// ---- the outputs ---------------------------------------------------------------------------------

// level[v], parent[v] from lp[v] where v is visited, -1 elsewhere (lp is never initialised): four
// vertices a thread, their lp read only where reached, two 16-byte stores.
__device__ __forceinline__ void gs_write_outputs(const unsigned* visited, const int2* lp, int* __restrict__ level,
                                                 int* __restrict__ parent, int n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long quads = n >> 2;
    for (long long i = tid; i < quads; i += stride) {
        const unsigned bits = (__ldcg(visited + (i >> 3)) >> ((i & 7) * 4)) & 15u;
        int4 a = make_int4(-1, -1, -1, -1), b = a;
        if (bits & 3u) a = __ldcg(reinterpret_cast<const int4*>(lp) + 2 * i);
        if (bits & 12u) b = __ldcg(reinterpret_cast<const int4*>(lp) + 2 * i + 1);
        const int4 lv = make_int4(bits & 1u ? a.x : -1, bits & 2u ? a.z : -1, bits & 4u ? b.x : -1,
                                  bits & 8u ? b.z : -1);
        const int4 pa = make_int4(bits & 1u ? a.y : -1, bits & 2u ? a.w : -1, bits & 4u ? b.y : -1,
                                  bits & 8u ? b.w : -1);
        reinterpret_cast<int4*>(level)[i] = lv;
        reinterpret_cast<int4*>(parent)[i] = pa;
    }
    for (long long v = (quads << 2) + tid; v < n; v += stride) {
        const bool seen = (__ldcg(visited + (v >> 5)) >> (v & 31)) & 1u;
        const int2 x = seen ? __ldcg(lp + v) : make_int2(-1, -1);
        level[v] = x.x;
        parent[v] = x.y;
    }
}

// ---- the traversal: every level in one persistent launch ----------------------------------------

// Levels from `depth` in one persistent launch, each ended by a grid barrier, until the frontier
// is empty (DONE: the launch then writes the level and parent outputs) or max_levels levels are
// done (LIMIT; 0 = no limit).  The direction is decided here, by every block alike from the same
// counters read after the same barrier (Beamer's switching, as GAPBS): a top-down level goes
// bottom-up (mode MODE_BOTTOM_UP: always) when scout > edges_to_check / alpha and, since a
// bottom-up level on a GPU is a pass over every vertex, the frontier has more than min_switch =
// n / beta edges — not tested on the first top-down level after bottom-up (`check` 0), as GAPBS
// does; the queue becomes the bitmap of that level.  A bottom-up level returns to top-down (mode
// MODE_AUTO only) when its frontier shrank and is at most n / beta; the bitmap becomes the queue.
// `bottom_up`, `check` and `reached` carry the state across launches (LIMIT), read back from ctl.
// Level k of the launch is recorded in rec[field * rec_cap + rec_base + k] while rec_base + k <
// rec_cap; fields REC_*: its frontier, the frontier's out-edges (top-down), the vertices it
// claimed, its work items, the edges bottom-up examined, its KIND_* bits and the %globaltimer at
// its end (the launch's start is ctl[CTL_T0]).  On exit the launch's totals per direction are in
// ctl (the byte model's counts).
//
// A level on a small frontier is a chain of dependent round trips; the kernel keeps it short: the
// frontier's size arrives with the barrier's last arrival (the count slot), the level's edge sum
// and each lane's first queue entry are read together after it, the frontier's slices go to as
// many SMs as there are slices, lanes of vertices of at most GS_BFS_UNROLL edges take their own
// edges without a scan, and on levels of few edges a neighbour's row is read beside its claim.
extern "C" __global__ void __launch_bounds__(GS_BFS_MAX_THREADS, GS_BFS_MIN_BLOCKS)
graphsweep_bfs_levels(const long long* __restrict__ offsets, const int* __restrict__ indices,
                      const long long* __restrict__ roffsets, const int* __restrict__ rindices, unsigned* visited,
                      const unsigned* __restrict__ dead, int2* lp, int* __restrict__ level, int* __restrict__ parent,
                      longlong2* queue0, longlong2* queue1, unsigned* bitmap0, unsigned* bitmap1, gs_u64* items,
                      gs_u64* ctl, long long* rec, int rec_base, int rec_cap, int n, int depth,
                      long long edges_to_check, long long reached, int max_levels, int mode, int bottom_up, int check,
                      double alpha, double beta, long long min_switch)
{
    extern __shared__ longlong2 gs_smem[];
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    const int words = (n + 31) >> 5;
    longlong2* buf = gs_smem + (threadIdx.x >> 5) * GS_BFS_BUF;
    long long* red = (long long*)(gs_smem + warps * GS_BFS_BUF);
    const gs_u64 gwarp = ((gs_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const gs_u64 nwarps = ((gs_u64)gridDim.x * blockDim.x) >> 5;
    const gs_u64 rank = gs_spread_rank();
    const gs_u64 mine = rank * 32 + lane;       // the lane's first queue entry of a top-down level
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const gs_slice whole = {0, n, nullptr, 1, nullptr, 0, nullptr, nullptr};
    if (leader) ctl[CTL_T0] = gs_globaltimer();
    gs_u64 td_frontier = 0, td_edges = 0, td_items = 0, td_claimed = 0;
    gs_u64 bu_levels = 0, bu_unvisited = 0, bu_checked = 0, bu_found = 0;
    gs_u64 to_bitmap = 0, to_bitmap_vertices = 0, to_queue = 0, to_queue_vertices = 0;
    int L = depth, done = 0, reason;
    gs_u64 count = __ldcg(ctl + CTL_COUNT + L % 3) & GS_BFS_COUNT_MASK;
    while (true) {
        if (count == 0) { reason = EXIT_DONE; break; }
        if (max_levels > 0 && done == max_levels) { reason = EXIT_LIMIT; break; }
        const longlong2* qin = (L & 1) ? queue1 : queue0;
        longlong2* qout = (L & 1) ? queue0 : queue1;
        unsigned* front = (L & 1) ? bitmap1 : bitmap0;
        unsigned* next = (L & 1) ? bitmap0 : bitmap1;
        gs_u64* count_out = ctl + CTL_COUNT + (L + 1) % 3;     // also the level's barrier
        gs_u64* scout_out = ctl + CTL_SCOUT + (L + 1) % 3;
        gs_u64* checked_out = ctl + CTL_CHECKED + (L & 1);
        gs_u64* items_count = ctl + CTL_ITEMS + (L & 1);
        gs_u64 arrivals = 0;                                     // the level's barriers so far, times the grid
        // One round trip for both: the frontier's out-edges and the lane's first entry.
        const gs_u64 scout_now = __ldcg(ctl + CTL_SCOUT + L % 3);
        const longlong2 first = !bottom_up && mine < count ? __ldcg(qin + mine) : make_longlong2(0, 0);
        if (leader) gs_clear_next_slots(ctl, L);
        int kind = 0;
        if (!bottom_up && (mode == MODE_BOTTOM_UP ||
                           (mode == MODE_AUTO && check && (double)scout_now > (double)edges_to_check / alpha &&
                            (long long)scout_now > min_switch))) {
            if (!gs_queue_to_bitmap(qin, count, front, words, count_out, arrivals, red, ctl)) return;
            bottom_up = 1;
            kind |= KIND_TO_BITMAP;
            ++to_bitmap;
            to_bitmap_vertices += count;
        }
        gs_u64 next_count, nitems = 0, checked = 0;
        if (bottom_up) {
            kind |= KIND_BOTTOM_UP;
            long long found = 0, scout = 0, examined = 0;
            gs_bu_level(offsets, roffsets, rindices, visited, dead, front, next, lp, n, words, L, found, scout,
                        examined, (long long)gwarp, (long long)nwarps, lane);
            next_count = gs_barrier<GS_BOTTOM_UP_SUMS>(count_out, arrivals += gridDim.x, found, scout_out, scout,
                                                       checked_out, examined, red, ctl);
            if (next_count == GS_BFS_ABORT) return;
            if (leader) checked = __ldcg(checked_out);
            ++bu_levels;
            bu_unvisited += (gs_u64)(n - reached);
            bu_checked += checked;
            bu_found += next_count;
            // GAPBS's bottom-up loop condition: stay while the frontier grows or is above n / beta.
            if (mode == MODE_AUTO && next_count > 0 && next_count < count && (double)next_count <= (double)n / beta) {
                gs_bitmap_to_queue(next, words, offsets, qout, ctl + CTL_SCRATCH, 0);
                if (!gs_wait(count_out, arrivals += gridDim.x, red, ctl)) return;
                bottom_up = 0;
                check = 0;
                kind |= KIND_TO_QUEUE;
                ++to_queue;
                to_queue_vertices += next_count;
            }
        } else {
            if (check) edges_to_check -= (long long)scout_now;   // GAPBS: not on the level after bottom-up
            check = 1;
            td_frontier += count;
            td_edges += scout_now;
            if (!gs_td_level<false>(indices, offsets, visited, lp, qin, first, count, qout, count_out, scout_out, items,
                                    items_count, L + 1, count >= GS_BFS_PRECHECK, scout_now < GS_BFS_SPECULATE,
                                    arrivals, next_count, nitems, buf, red, ctl, rank, nwarps, lane, whole)) return;
            td_items += nitems;
            td_claimed += next_count;
        }
        if (leader && rec_base + done < rec_cap) {
            long long* r = rec + rec_base + done;
            r[REC_FRONTIER * (long long)rec_cap] = (long long)count;
            r[REC_EDGES * (long long)rec_cap] = (long long)scout_now;
            r[REC_CLAIMED * (long long)rec_cap] = (long long)next_count;
            r[REC_ITEMS * (long long)rec_cap] = (long long)nitems;
            r[REC_CHECKED * (long long)rec_cap] = (long long)checked;
            r[REC_KIND * (long long)rec_cap] = kind;
            r[REC_TIME * (long long)rec_cap] = (long long)gs_globaltimer();
        }
        reached += (long long)next_count;
        count = next_count;
        ++L;
        ++done;
    }
    if (reason == EXIT_DONE) gs_write_outputs(visited, lp, level, parent, n);
    if (leader) {
        const gs_u64 totals[] = {(gs_u64)L, (gs_u64)edges_to_check, (gs_u64)reason, (gs_u64)done,
                                 (gs_u64)bottom_up, (gs_u64)check, (gs_u64)reached,
                                 td_frontier, td_edges, td_items, td_claimed, bu_levels, bu_unvisited, bu_checked,
                                 bu_found, to_bitmap, to_bitmap_vertices, to_queue, to_queue_vertices};
        for (int k = 0; k < (int)(sizeof(totals) / sizeof(totals[0])); ++k) ctl[CTL_DEPTH + k] = totals[k];
    }
}

// ---- one level of one slice: the steps of kernels/bfs/distributed.py ---------------------------
//
// A partitioned BFS runs a level as a fixed sequence of launches and collectives that the host
// queues without reading anything back: every kernel reads the level's direction and counts from
// the slice control block `dctl` (SLICECTL_*, long long slots, the same on every rank), which the
// level's last kernel (graphsweep_bfs_slice_decide) fills from the counts all ranks gathered, by
// the persistent kernel's switching rule; a kernel with nothing to do this level returns at once.
// The host reads dctl back a level behind, only to know when the search ended.  Per level:
//   to_queue    (a bottom-up level just handed over to top-down) this slice's frontier words as its queue
//   top_down    the slice's queue expanded: its own vertices claimed into the next queue and the next
//               frontier's bitmap, other slices' as pairs into their owners' outboxes (past an
//               outbox's capacity: as bits of `claims`)
//   bottom_up   the slice's unvisited vertices look for a parent in the frontier bitmap (every vertex's)
//   (all-to-all of the outboxes and of the claims' words, slice j's to rank j: one NCCL group)
//   claim       the pairs other ranks sent, claimed as top-down claims its own
//   unclaimed, resolve, found
//               the claims' bits other ranks sent: each new vertex takes a parent among its
//               neighbours in the frontier bitmap (one exists: the claimer's vertex), a bottom-up
//               step over those vertices alone
//   counts      this rank's row of the counts table
//   (all-gather of the next frontier's words and of the counts table)
//   decide      the next level's direction and counts, the step counters cleared
// sctl, the step counters (uint64): [0] the next queue's count (low 40 bits) and the top-down
// launch's barrier arrivals (above), [1] the claimed vertices' out-edges (Beamer's m_f), [2] work
// items, [3] edges bottom-up examined, [4] the bitmap-to-queue cursor.

enum { GS_SCTL_COUNT = 0, GS_SCTL_SCOUT = 1, GS_SCTL_ITEMS = 2, GS_SCTL_CHECKED = 3, GS_SCTL_CURSOR = 4,
       GS_SCTL_SIZE = 5 };

__device__ __forceinline__ bool gs_slice_idle(const long long* dctl, int direction)
{
    return dctl[SLICECTL_DONE] || dctl[SLICECTL_DIRECTION] != direction;
}

// A search's start: every visited and claims bit cleared, the root (when this slice holds it)
// visited, reached at level 0 and alone in queue0; the root alone in the frontier bitmap (every
// rank knows it); this rank's row of the counts table; dctl and sctl cleared (the first decide
// makes level 0's).
extern "C" __global__ void graphsweep_bfs_slice_start(unsigned* __restrict__ visited, unsigned* __restrict__ front,
                                                      unsigned* __restrict__ claims, int words, int2* lp,
                                                      longlong2* __restrict__ queue0,
                                                      const long long* __restrict__ offsets, int root, int mine,
                                                      long long* table, int row, long long* dctl, gs_u64* sctl,
                                                      long long edges_to_check)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = tid; i < words; i += stride) {
        const unsigned bit = i == (root >> 5) ? 1u << (root & 31) : 0u;
        visited[i] = mine ? bit : 0u;
        front[i] = bit;
        claims[i] = 0u;
    }
    if (tid == 0) {
        const long long degree = mine ? offsets[root + 1] - offsets[root] : 0;
        if (mine) {
            lp[root] = make_int2(0, root);
            queue0[0] = gs_entry(root, offsets[root], offsets[root + 1]);
        }
        table[2 * row] = mine;
        table[2 * row + 1] = degree;
        for (int k = 0; k < SLICECTL_SIZE; ++k) dctl[k] = 0;
        dctl[SLICECTL_DEPTH] = -1;
        dctl[SLICECTL_CHECK] = 1;
        dctl[SLICECTL_EDGES] = edges_to_check;
        for (int k = 0; k < GS_SCTL_SIZE; ++k) sctl[k] = 0;
    }
}

// A bottom-up level just handed over to top-down: this slice's words of the frontier bitmap become
// its queue (global ids lo + bit, rows from the slice's own offsets).
extern "C" __global__ void graphsweep_bfs_slice_to_queue(const unsigned* bitmap, int words,
                                                         const long long* __restrict__ offsets, longlong2* queue,
                                                         gs_u64* sctl, int base, const long long* dctl)
{
    if (!dctl[SLICECTL_TO_QUEUE] || dctl[SLICECTL_DONE]) return;
    gs_bitmap_to_queue(bitmap, words, offsets, queue, sctl + GS_SCTL_CURSOR, base);
}

// A top-down level over the slice's frontier queue (launched cooperatively, as many blocks as can
// be resident): its own vertices claimed and queued, other slices' into `claims`; hubs' work items
// after a grid barrier, as in graphsweep_bfs_levels.
extern "C" __global__ void __launch_bounds__(GS_BFS_MAX_THREADS, GS_BFS_MIN_BLOCKS)
graphsweep_bfs_slice_top_down(const long long* __restrict__ offsets, const int* __restrict__ indices,
                              unsigned* visited, int2* lp, const longlong2* qin, longlong2* qout, gs_u64* items,
                              gs_u64* sctl, gs_u64* ctl, const long long* dctl, long long lo, long long hi,
                              const long long* __restrict__ bounds, int k, int2* outbox, int cap, unsigned* claims,
                              unsigned* next)
{
    if (gs_slice_idle(dctl, 0)) return;
    extern __shared__ longlong2 gs_smem[];
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    longlong2* buf = gs_smem + (threadIdx.x >> 5) * GS_BFS_BUF;
    long long* red = (long long*)(gs_smem + warps * GS_BFS_BUF);
    const gs_u64 nwarps = ((gs_u64)gridDim.x * blockDim.x) >> 5;
    const gs_u64 rank = gs_spread_rank();
    const gs_u64 mine = rank * 32 + lane;
    const gs_slice sl = {lo, hi, bounds, k, outbox, cap, claims, next};
    const gs_u64 count = (gs_u64)dctl[SLICECTL_LOCAL];
    const long long scout_now = dctl[SLICECTL_SCOUT];
    const int next_depth = (int)dctl[SLICECTL_DEPTH] + 1;
    const longlong2 first = mine < count ? __ldcg(qin + mine) : make_longlong2(0, 0);
    gs_u64 arrivals = 0, next_count, nitems;
    gs_td_level<true>(indices, offsets, visited, lp, qin, first, count, qout, sctl + GS_SCTL_COUNT,
                      sctl + GS_SCTL_SCOUT, items, sctl + GS_SCTL_ITEMS, next_depth,
                      dctl[SLICECTL_COUNT] >= GS_BFS_PRECHECK, scout_now < GS_BFS_SPECULATE, arrivals, next_count,
                      nitems, buf, red, ctl, rank, nwarps, lane, sl);
}

// A bottom-up level over the slice's `words` words of vertices (ids local here: visited, dead and
// next are passed at the slice's first word, lp and the offsets are the slice's own) against the
// frontier bitmap of every vertex; found, their out-edges and the edges examined summed into sctl.
extern "C" __global__ void graphsweep_bfs_slice_bottom_up(const long long* __restrict__ offsets,
                                                          const int* __restrict__ indices, unsigned* visited,
                                                          const unsigned* __restrict__ dead,
                                                          const unsigned* frontier, unsigned* next, int2* lp,
                                                          int size, int words, gs_u64* sctl, const long long* dctl)
{
    if (gs_slice_idle(dctl, 1)) return;
    const int lane = threadIdx.x & 31;
    const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    long long awake = 0, scout = 0, checked = 0;
    gs_bu_level(offsets, offsets, indices, visited, dead, frontier, next, lp, size, words,
                (int)dctl[SLICECTL_DEPTH], awake, scout, checked, gwarp, nwarps, lane);
    scout = gs_warp_sum(scout);
    checked = gs_warp_sum(checked);
    awake = gs_warp_sum(awake);   // lane 0 of each word counted it: the sum over the warp is the warp's
    if (lane == 0) {
        if (awake) atomicAdd(sctl + GS_SCTL_COUNT, (gs_u64)awake);
        if (scout) atomicAdd(sctl + GS_SCTL_SCOUT, (gs_u64)scout);
        if (checked) atomicAdd(sctl + GS_SCTL_CHECKED, (gs_u64)checked);
    }
}

// The (vertex, parent) pairs other ranks sent (pairs: K outboxes of cap + 1 entries, the count in
// the first's .x, row `row` this rank's own and skipped), all this slice's vertices: claimed as a
// top-down level claims its own, into the next queue and bitmap.  Whole warps, GS_BFS_UNROLL pairs
// a lane, over the pairs there are (the boxes' counts end to end), not the boxes' room: with peer
// memory a box holds a whole slice's worth.  The boxes are read through L2: in
// graphsweep_bfs_slice_search peers store them while the launch runs.
__device__ __forceinline__ void gs_claim_pairs(const int2* pairs, int k, int row, int cap,
                                               const long long* __restrict__ offsets, const int* indices,
                                               unsigned* visited, int2* lp, longlong2* qout, gs_u64* count_out,
                                               long long& scout, longlong2* buf, int& fill, int next_depth,
                                               const gs_slice& sl, int lane)
{
    long long total = 0;
    for (int j = 0; j < k; ++j)
        if (j != row) total += min(__ldcg(&pairs[(long long)j * (cap + 1)].x), cap);
    const long long step = (long long)gridDim.x * blockDim.x * GS_BFS_UNROLL;
    for (long long base = ((long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31)) * GS_BFS_UNROLL; base < total;
         base += step) {
        int u[GS_BFS_UNROLL], w[GS_BFS_UNROLL];
        bool valid[GS_BFS_UNROLL];
#pragma unroll
        for (int q = 0; q < GS_BFS_UNROLL; ++q) {
            long long i = base + 32 * q + lane;
            valid[q] = i < total;
            int j = 0;          // the box holding pair i of the boxes laid end to end
            for (; valid[q] && j < k; ++j) {
                const long long c = j == row ? 0 : min(__ldcg(&pairs[(long long)j * (cap + 1)].x), cap);
                if (i < c) break;
                i -= c;
            }
            const int2 p = valid[q] ? __ldcg(pairs + (long long)j * (cap + 1) + 1 + i) : make_int2(0, 0);
            w[q] = p.x;
            u[q] = p.y;
        }
        gs_td_claim<true>(u, w, valid, true, false, next_depth, visited, lp, offsets, indices, scout, buf, fill, qout,
                          count_out, lane, sl);
    }
    gs_flush(buf, fill, qout, count_out, lane);
}

extern "C" __global__ void graphsweep_bfs_slice_claim(const int2* __restrict__ pairs, int k, int row, int cap,
                                                      const long long* __restrict__ offsets, const int* indices,
                                                      unsigned* visited, int2* lp, longlong2* qout, gs_u64* sctl,
                                                      const long long* dctl, long long lo, long long hi,
                                                      unsigned* next)
{
    if (gs_slice_idle(dctl, 0)) return;
    extern __shared__ longlong2 gs_smem[];
    const int lane = threadIdx.x & 31;
    longlong2* buf = gs_smem + (threadIdx.x >> 5) * GS_BFS_BUF;
    const gs_slice sl = {lo, hi, nullptr, k, nullptr, cap, nullptr, next};
    long long scout = 0;
    int fill = 0;
    gs_claim_pairs(pairs, k, row, cap, offsets, indices, visited, lp, qout, sctl + GS_SCTL_COUNT, scout, buf, fill,
                   (int)dctl[SLICECTL_DEPTH] + 1, sl, lane);
    scout = gs_warp_sum(scout);
    if (lane == 0 && scout) atomicAdd(sctl + GS_SCTL_SCOUT, (gs_u64)scout);
}

// The claims' bits other ranks sent (inbox: K rows of this slice's `words` words, row `row` this
// rank's own and skipped), as the words resolve skips: every vertex but those claimed.
extern "C" __global__ void graphsweep_bfs_slice_unclaimed(const unsigned* __restrict__ inbox, int k, int row,
                                                          int words, unsigned* __restrict__ skip, const long long* dctl)
{
    if (gs_slice_idle(dctl, 0)) return;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride) {
        unsigned claimed = 0;
        for (int j = 0; j < k; ++j)
            if (j != row) claimed |= __ldg(inbox + (long long)j * words + w);
        skip[w] = ~claimed;
    }
}

// The claimed vertices not yet visited take a parent among their neighbours in the frontier bitmap
// (one is there: the claimer's vertex, rows being undirected) — a bottom-up step over them alone
// (gs_bu_level, `skip` as its vertices without in-edges; ids local as in graphsweep_bfs_slice_bottom_up),
// its found vertices' bits in `found` (joined to the next frontier by graphsweep_bfs_slice_found).
extern "C" __global__ void graphsweep_bfs_slice_resolve(const long long* __restrict__ offsets,
                                                        const int* __restrict__ indices, unsigned* visited,
                                                        const unsigned* __restrict__ skip,
                                                        const unsigned* frontier, unsigned* found, int2* lp,
                                                        int size, int words, gs_u64* sctl, const long long* dctl)
{
    if (gs_slice_idle(dctl, 0)) return;
    const int lane = threadIdx.x & 31;
    const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    long long awake = 0, scout = 0, checked = 0;
    gs_bu_level(offsets, offsets, indices, visited, skip, frontier, found, lp, size, words,
                (int)dctl[SLICECTL_DEPTH], awake, scout, checked, gwarp, nwarps, lane);
    scout = gs_warp_sum(scout);
    if (lane == 0 && scout) atomicAdd(sctl + GS_SCTL_SCOUT, (gs_u64)scout);
}

// The vertices resolve found joined to the next frontier's words and queue (a thread a word; ids
// local, queued as global ids lo + v).
extern "C" __global__ void graphsweep_bfs_slice_found(const unsigned* __restrict__ found, int words, unsigned* next,
                                                      const long long* __restrict__ offsets, longlong2* qout,
                                                      gs_u64* sctl, long long lo, const long long* dctl)
{
    if (gs_slice_idle(dctl, 0)) return;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride) {
        unsigned bits = __ldg(found + w);
        if (!bits) continue;
        next[w] |= bits;
        gs_u64 at = atomicAdd(sctl + GS_SCTL_COUNT, (gs_u64)__popc(bits)) & GS_BFS_COUNT_MASK;
        while (bits) {
            const int b = __ffs(bits) - 1;
            bits &= bits - 1;
            const long long v = w * 32 + b;
            qout[at++] = gs_entry((int)(lo + v), __ldg(offsets + v), __ldg(offsets + v + 1));
        }
    }
}

// This rank's row of the level's counts table: (the next frontier's vertices here, their
// out-edges), from the step counters (the other ranks' rows come by an all-gather).
extern "C" __global__ void graphsweep_bfs_slice_counts(const gs_u64* __restrict__ sctl, long long* table, int row,
                                                       const long long* dctl)
{
    if (blockIdx.x == 0 && threadIdx.x == 0 && !dctl[SLICECTL_DONE]) {
        table[2 * row] = (long long)(sctl[GS_SCTL_COUNT] & GS_BFS_COUNT_MASK);
        table[2 * row + 1] = (long long)sctl[GS_SCTL_SCOUT];
    }
}

// A sliced search's switching state, the same on every rank.
struct gs_switch {
    long long count, scout, local;   // the frontier: its vertices (all ranks), their out-edges, this slice's share
    long long edges;                 // Beamer's edges_to_check
    int bottom, check, to_queue, bottom_up_levels;
};

// The next level from every rank's counts (the frontier's vertices and out-edges, summed) by the
// persistent kernel's rule (GAPBS's): top-down goes bottom-up when the frontier's out-edges exceed
// edges_to_check / alpha and min_switch (mode AUTO; always in BOTTOM_UP), not on the first level
// after bottom-up; bottom-up goes back when its frontier shrank to at most n / beta (its bitmap
// becomes the queue: to_queue).  `started`: a level was done (false for the root's counts).
__device__ __forceinline__ void gs_switch_next(gs_switch& sw, long long count, long long scout, long long local,
                                               bool started, int mode, long long n, double alpha, double beta,
                                               long long min_switch)
{
    sw.to_queue = 0;
    if (started && sw.bottom) {
        sw.bottom_up_levels += 1;
        if (mode != MODE_BOTTOM_UP && (count == 0 || !(count >= sw.count || (double)count > (double)n / beta))) {
            sw.to_queue = count > 0;
            sw.bottom = 0;
            sw.check = 0;       // GAPBS: the level after bottom-up is top-down
        }
    }
    if (count > 0 && !sw.bottom &&
        (mode == MODE_BOTTOM_UP ||
         (mode == MODE_AUTO && sw.check && (double)scout > (double)sw.edges / alpha && scout > min_switch)))
        sw.bottom = 1;
    if (count > 0 && !sw.bottom) {
        if (sw.check) sw.edges -= scout;
        sw.check = 1;
    }
    sw.count = count;
    sw.scout = scout;
    sw.local = local;
}

// The next level from the table of every rank's counts (all-gathered) by gs_switch_next, on every
// rank alike; the level just done is kept as LAST_DIRECTION and LAST_COUNT (the host's step
// record); a done search stays done (the host queues one level past the end).  One thread.
extern "C" __global__ void graphsweep_bfs_slice_decide(const long long* __restrict__ table, int k, int row,
                                                       long long* dctl, gs_u64* sctl, long long n, int mode,
                                                       double alpha, double beta, long long min_switch)
{
    if (blockIdx.x != 0 || threadIdx.x != 0 || dctl[SLICECTL_DONE]) return;
    long long count = 0, scout = 0;
    for (int j = 0; j < k; ++j) {
        count += table[2 * j];
        scout += table[2 * j + 1];
    }
    gs_switch sw = {dctl[SLICECTL_COUNT], dctl[SLICECTL_SCOUT], dctl[SLICECTL_LOCAL], dctl[SLICECTL_EDGES],
                    (int)dctl[SLICECTL_DIRECTION], (int)dctl[SLICECTL_CHECK], 0, (int)dctl[SLICECTL_BOTTOM_UP_LEVELS]};
    dctl[SLICECTL_LAST_DIRECTION] = sw.bottom;
    dctl[SLICECTL_LAST_COUNT] = sw.count;
    gs_switch_next(sw, count, scout, table[2 * row], dctl[SLICECTL_DEPTH] >= 0, mode, n, alpha, beta, min_switch);
    dctl[SLICECTL_DIRECTION] = sw.bottom;
    dctl[SLICECTL_COUNT] = sw.count;
    dctl[SLICECTL_SCOUT] = sw.scout;
    dctl[SLICECTL_LOCAL] = sw.local;
    dctl[SLICECTL_EDGES] = sw.edges;
    dctl[SLICECTL_CHECK] = sw.check;
    dctl[SLICECTL_TO_QUEUE] = sw.to_queue;
    dctl[SLICECTL_BOTTOM_UP_LEVELS] = sw.bottom_up_levels;
    dctl[SLICECTL_DONE] = count == 0;
    dctl[SLICECTL_DEPTH] += 1;
    for (int s = 0; s < GS_SCTL_SIZE; ++s) sctl[s] = 0;
}

// level and parent of the slice's vertices (visited passed at the slice's first word; lp local).
extern "C" __global__ void graphsweep_bfs_slice_outputs(const unsigned* visited, const int2* lp,
                                                        int* __restrict__ level, int* __restrict__ parent, int size)
{
    gs_write_outputs(visited, lp, level, parent, size);
}

// ---- a whole search of one slice in one launch, its peers met inside it (peer memory) -----------
//
// bfs.distributed over peer memory: the same steps as the launches above, but every level of the
// search runs in one persistent launch per rank, as graphsweep_bfs_levels runs the whole graph's,
// and the ranks meet inside it (`meet`): after a grid barrier (every block's stores done and
// fenced) the leader thread meets the peers (dist/comm/peer.cuh's flags), then a grid barrier.
// What a peer stores into this rank's memory while the launch runs (pairs,
// counts, frontier words) is read through L2 (__ldcg).
//   start      visited and frontier cleared, the root placed; this rank's counts (1 and the root's
//              degree on its owner) into every rank's table; meet; level 0 decided
//   top-down   the slice's own words of this level's bitmap cleared (the next top-down level fills
//              them); the queue expanded (gs_td_queue: own vertices claimed into the next queue and
//              bitmap, other slices' stored as pairs straight into their owners' inboxes); each
//              box's count into its owner's inbox; meet; the pairs received claimed
//   bottom-up  the slice's unvisited vertices against the frontier bitmap of every vertex
//   then       this rank's counts into every rank's table; meet; the next level decided by every
//              block alike (gs_switch_next); before a bottom-up level the slice's words of the
//              frontier into every rank's copy and a meeting; back to top-down, the frontier's
//              slice words made the queue
// Every meeting orders what a peer may store here after it behind what this rank read before it
// (a rank stores into a peer's inbox, table or frontier only past a meeting every rank reached
// after its last read of that buffer).
// A search so costs one launch, two or three grid barriers and two meetings a level, where the
// launch-per-step form paid about a dozen launches and three host-queued barriers.  Level k's
// record as graphsweep_bfs_levels writes it (rec, REC_* fields, its frontier counted over all
// ranks) and beside it xrec[k] the leader's time in meetings (ns), xrec[rec_cap + k] the bytes
// peers stored here and xrec[2 rec_cap + k] when this rank's own step of the level ended (its
// expansion or its rows checked, the grid barrier after it passed: %globaltimer); ctl[CTL_STARTED]
// the start's end; on exit ctl[CTL_DEPTH] the levels and ctl[CTL_BU_LEVELS] the bottom-up ones.
// ctl is cleared by the host before the launch.
extern "C" __global__ void __launch_bounds__(GS_BFS_MAX_THREADS, GS_BFS_MIN_BLOCKS)
graphsweep_bfs_slice_search(const long long* __restrict__ offsets, const long long* __restrict__ goffsets,
                            const int* __restrict__ indices, unsigned* visited, const unsigned* __restrict__ dead,
                            int2* lp, int2* lpg, int* __restrict__ level, int* __restrict__ parent,
                            longlong2* queue0, longlong2* queue1, unsigned* bitmap0, unsigned* bitmap1,
                            gs_u64* items, gs_u64* ctl, int2* outbox, int cap, int2* const* inboxes,
                            long long* const* tables, unsigned* const* fronts0, unsigned* const* fronts1,
                            gs_u64* const* flags, gs_u64* epoch, const volatile int* abort_word, long long timeout_ns,
                            long long* peer_error, const long long* __restrict__ bounds, int k, int me,
                            long long* rec, long long* xrec, int rec_cap, long long n, long long lo, long long hi,
                            int root, long long edges_to_check, int mode, double alpha, double beta,
                            long long min_switch)
{
    extern __shared__ longlong2 gs_smem[];
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    longlong2* buf = gs_smem + (threadIdx.x >> 5) * GS_BFS_BUF;
    long long* red = (long long*)(gs_smem + warps * GS_BFS_BUF);
    const gs_u64 gwarp = ((gs_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const gs_u64 nwarps = ((gs_u64)gridDim.x * blockDim.x) >> 5;
    const gs_u64 rank = gs_spread_rank();
    const gs_u64 mine = rank * 32 + lane;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const long long words = (n + 31) >> 5, first_word = lo >> 5;     // slices start on a word
    const int size = (int)(hi - lo), local_words = (size + 31) >> 5;
    const bool owner = lo <= root && root < hi;
    long long* table = tables[me];
    if (leader) ctl[CTL_T0] = gs_globaltimer();
    gs_u64 arrivals = 0;
    long long waited = 0, received = 0;     // the level's: the leader's ns in meetings, bytes peers stored here
    const gs_u64 meet_timeout = (gs_u64)timeout_ns + GS_BFS_TIMEOUT_NS;   // blocks waiting on the leader's meeting
    __shared__ int sent;                    // the level (+ 1) whose pairs this block last stored into a peer
    if (threadIdx.x == 0) sent = 0;

    // The peers meet: (a grid barrier on `word`, so every block's stores are done and fenced;) the
    // leader meets the peers; a grid barrier (as long as the meeting may wait).  Every block
    // false if either failed.  (Every block's thread 0 waiting on the flags itself, no barrier
    // after, made R-MAT 26's search 3.5x slower on 2 H200s.)
    auto meet = [&](gs_u64* word, bool barrier_first) -> bool {
        if (barrier_first && !gs_wait(word, arrivals += gridDim.x, red, ctl)) return false;
        if (leader) {
            const long long t = gs_peer_now();
            if (!gs_peer_meet(flags, k, me, epoch, abort_word, timeout_ns, peer_error)) atomicExch(ctl + CTL_ERROR, 2ULL);
            waited += gs_peer_now() - t;
        }
        if (!gs_wait(word, arrivals += gridDim.x, red, ctl, meet_timeout)) return false;
        return __ldcg(ctl + CTL_ERROR) == 0;
    };
    // This rank's counts of level `at` (the start's: -1) into every rank's table (the leader; the
    // meeting that follows fences them).  The table has a half for even and one for odd levels: a
    // bottom-up level 0 posts its counts with no meeting after the start's, whose counts a slow
    // block may still be reading.
    auto post = [&](int at, long long count, long long scout) {
        if (!leader) return;
        const long long half = ((at + 2) & 1) * 2LL * k;
        for (int j = 0; j < k; ++j) {
            tables[j][half + 2 * me] = count;
            tables[j][half + 2 * me + 1] = scout;
        }
    };
    // Every rank's counts of level `at`, summed, and this rank's count (after the meeting).
    auto gather = [&](int at, long long& count, long long& scout, long long& here) {
        const long long* half = table + ((at + 2) & 1) * 2LL * k;
        count = scout = 0;
        for (int j = 0; j < k; ++j) {
            count += __ldcg(half + 2 * j);
            scout += __ldcg(half + 2 * j + 1);
        }
        here = __ldcg(half + 2 * me);
    };

    // the start: level 0's barrier word is count slot 1 (cleared by the host)
    for (long long i = tid; i < words; i += stride) {
        const unsigned bit = i == (root >> 5) ? 1u << (root & 31) : 0u;
        visited[i] = owner ? bit : 0u;
        bitmap0[i] = bit;
    }
    for (long long i = tid; i < local_words; i += stride) bitmap1[first_word + i] = 0u;
    const long long root_degree = owner ? goffsets[root + 1] - goffsets[root] : 0;
    if (tid == 0 && owner) {
        lpg[root] = make_int2(0, root);
        queue0[0] = gs_entry(root, goffsets[root], goffsets[root + 1]);
    }
    post(-1, owner, root_degree);
    if (!meet(ctl + CTL_COUNT + 1, true)) return;
    gs_switch sw = {0, 0, 0, edges_to_check, 0, 1, 0, 0};
    {
        long long count, scout, here;
        gather(-1, count, scout, here);
        gs_switch_next(sw, count, scout, here, false, mode, n, alpha, beta, min_switch);
    }
    if (leader) {
        ctl[CTL_STARTED] = gs_globaltimer();
        xrec[0] = waited;
        xrec[rec_cap] = 16LL * (k - 1);
    }
    waited = 0;
    received = 0;
    const gs_slice none = {lo, hi, bounds, k, nullptr, cap, nullptr, nullptr};
    int L = 0;
    for (; sw.count > 0; ++L) {
        if (L > n) {            // a rank lost count: end rather than spin
            if (leader) atomicExch(ctl + CTL_ERROR, 3ULL);
            return;
        }
        const longlong2* qin = (L & 1) ? queue1 : queue0;
        longlong2* qout = (L & 1) ? queue0 : queue1;
        unsigned* front = (L & 1) ? bitmap1 : bitmap0;
        unsigned* next = (L & 1) ? bitmap0 : bitmap1;
        unsigned* const* fronts_next = (L & 1) ? fronts0 : fronts1;
        gs_u64* count_out = ctl + CTL_COUNT + (L + 1) % 3;     // also the level's barrier
        gs_u64* scout_out = ctl + CTL_SCOUT + (L + 1) % 3;
        gs_u64* checked_out = ctl + CTL_CHECKED + (L & 1);
        gs_u64* items_count = ctl + CTL_ITEMS + (L & 1);
        if (L > 0) arrivals = 0;
        if (leader) gs_clear_next_slots(ctl, L);
        int kind = 0;
        gs_u64 next_local, nitems = 0;
        long long checked = 0, stepped = 0;
        if (sw.bottom) {
            kind |= KIND_BOTTOM_UP;
            long long found = 0, scout = 0, examined = 0;
            gs_bu_level(offsets, offsets, indices, visited + first_word, dead, front, next + first_word, lp, size,
                        local_words, L, found, scout, examined, (long long)gwarp, (long long)nwarps, lane);
            next_local = gs_barrier<GS_BOTTOM_UP_SUMS>(count_out, arrivals += gridDim.x, found, scout_out, scout,
                                                       checked_out, examined, red, ctl);
            if (next_local == GS_BFS_ABORT) return;
            if (leader) {
                checked = (long long)__ldcg(checked_out);
                stepped = (long long)gs_globaltimer();
            }
        } else {
            gs_slice sl = none;
            sl.outbox = outbox;
            sl.next = next;
            sl.remote = inboxes;
            sl.me = me;
            sl.sent = &sent;
            // this level's frontier bitmap is the next top-down level's to fill (nothing reads it here)
            for (long long i = tid; i < local_words; i += stride) front[first_word + i] = 0u;
            const longlong2 first = mine < (gs_u64)sw.local ? __ldcg(qin + mine) : make_longlong2(0, 0);
            // the queue expanded: other slices' vertices go as pairs straight into their owners' inboxes
            if (!gs_td_level<true, true>(indices, goffsets, visited, lpg, qin, first, (gs_u64)sw.local, qout,
                                         count_out, scout_out, items, items_count, L + 1, sw.count >= GS_BFS_PRECHECK,
                                         sw.scout < GS_BFS_SPECULATE, arrivals, next_local, nitems, buf, red, ctl,
                                         rank, nwarps, lane, sl)) return;
            if (leader) stepped = (long long)gs_globaltimer();
            // each box's count (its pairs are there already) into box `me` of its owner's inbox
            if (leader)
                for (int j = 0; j < k; ++j) {
                    int* counted = &outbox[j].x;
                    if (j != me) inboxes[j][(long long)me * (cap + 1)].x = min(__ldcg(counted), cap);
                    *counted = 0;
                }
            if (!meet(count_out, false)) return;
            const int2* pairs = inboxes[me];
            if (leader)
                for (int j = 0; j < k; ++j)
                    if (j != me) received += 8LL * (1 + min(__ldcg(&pairs[(long long)j * (cap + 1)].x), cap));
            long long scout = 0;
            int fill = 0;
            gs_claim_pairs(pairs, k, me, cap, goffsets, indices, visited, lpg, qout, count_out, scout, buf, fill,
                           L + 1, sl, lane);
            next_local = gs_barrier<GS_TOP_DOWN_SUMS>(count_out, arrivals += gridDim.x, 0, scout_out, scout, nullptr,
                                                      0, red, ctl);
            if (next_local == GS_BFS_ABORT) return;
        }
        // the counts: every rank's, after the meeting
        post(L, (long long)next_local, leader ? (long long)__ldcg(scout_out) : 0);
        if (!meet(count_out, false)) return;
        received += 16LL * (k - 1);
        long long count, scout, here;
        gather(L, count, scout, here);
        const long long frontier = sw.count, frontier_edges = sw.scout;
        gs_switch_next(sw, count, scout, here, true, mode, n, alpha, beta, min_switch);
        if (sw.count > 0 && sw.bottom) {
            // the slice's words of the next frontier into every rank's copy
            bool stored = false;
            for (long long i = tid; i < local_words; i += stride) {
                const unsigned v = __ldcg(next + first_word + i);
                for (int j = 0; j < k; ++j)
                    if (j != me) fronts_next[j][first_word + i] = v;
                stored = true;
            }
            if (stored) __threadfence_system();
            if (!meet(count_out, true)) return;
            received += 4LL * (words - local_words);
        } else if (sw.to_queue) {
            // back to top-down: the frontier's slice words become its queue
            gs_bitmap_to_queue(next + first_word, local_words, offsets, qout, ctl + CTL_SCRATCH, (int)lo);
            kind |= KIND_TO_QUEUE;
            if (!gs_wait(count_out, arrivals += gridDim.x, red, ctl)) return;
        }
        if (leader && L + 1 < rec_cap) {
            long long* r = rec + L;
            r[REC_FRONTIER * (long long)rec_cap] = frontier;
            r[REC_EDGES * (long long)rec_cap] = frontier_edges;
            r[REC_CLAIMED * (long long)rec_cap] = count;
            r[REC_ITEMS * (long long)rec_cap] = (long long)nitems;
            r[REC_CHECKED * (long long)rec_cap] = checked;
            r[REC_KIND * (long long)rec_cap] = kind;
            r[REC_TIME * (long long)rec_cap] = (long long)gs_globaltimer();
            xrec[1 + L] = waited;
            xrec[rec_cap + 1 + L] = received;
            xrec[2LL * rec_cap + 1 + L] = stepped;
        }
        waited = 0;
        received = 0;
    }
    gs_write_outputs(visited + first_word, lp, level, parent, size);
    if (leader) {
        ctl[CTL_DEPTH] = (gs_u64)L;
        ctl[CTL_BU_LEVELS] = (gs_u64)sw.bottom_up_levels;
    }
}
