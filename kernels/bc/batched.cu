// bc.batched: Brandes's betweenness from K roots in one level-synchronous traversal.  Per vertex v
// and source slot s the arrays are interleaved [n][K]: level[v * K + s] (-1 unreached, -2 a slot no
// root fills: a short group's padding, never claimed, never pulled for), sigma (shortest paths)
// and coef = (1 + delta) / sigma, so a vertex's K levels are one vector load.
//
// One queue holds every vertex once per distinct depth among its sources, in depth order; the
// slice of depth d is the frontier of level d.  control[0] is the queue's tail, control[1] the sum
// of the queued vertices' degrees (the host reads both after each level and picks the next
// level's direction from the frontier's edges).
//
// Forward, per level d, either
// - top-down (push): a warp per frontier vertex u, lanes striding over its row; for each neighbour
//   w and each source s with level[u][s] == d, a CAS on level[w][s] claims w for d + 1, and every
//   lane that sees w at d + 1 adds sigma[u][s] to sigma[w][s] (atomics); w is queued once per
//   level: the lane whose exchange of queued[w] (the last depth w was queued at) finds another
//   depth appends it (per warp trip one atomicAdd for its lanes' slots, one for their degrees); or
// - bottom-up (pull): a warp per 32 vertices, walking the row of each vertex with a source still
//   unreached in turn; for each such source s it sums sigma[u][s] over the neighbours u at d and
//   joins d + 1 with a positive sum.  Only v's owner writes v's slots, and a slot changes from
//   -1 to d + 1 while others read it for d: neither is d, so no atomics.
// Backward, per depth d, deepest first: a warp per vertex v of the slice, for each source s with
// level[v][s] == d, sums coef[w][s] over neighbours w at d + 1 (final since the step before);
// delta = sigma[v][s] * sum, coef[v][s] = (1 + delta) / sigma[v][s], and centrality[v] += the
// deltas summed over those sources but at d = 0, where every such s is v's own root (Brandes leaves
// a root's own dependency out).  A vertex is in a slice once, so one thread writes its centrality
// per step; a vertex at several depths is added to at several steps, launch after launch.  Or,
// when the slice at d + 1 has far fewer edges than the slice at d (kron's levels past its hubs; the
// deepest slice, whose next is empty), pushed: each vertex w of the slice at d + 1 adds coef[w][s]
// to coef[u][s] of its neighbours u at d (double atomics into slots init zeroed), and a thread per
// vertex of the slice at d settles it: the sum there is delta / sigma, so coef = 1 / sigma + sum.
//
// Rows longer than `split` entries are left to the *_long kernels in every phase: a warp per chunk
// of `split` entries (chunk c: vertex chunk_vertex[c], entries from chunk_begin[c]; a chunk whose
// vertex has nothing to do returns at once).  Top-down chunks push as the short rows do; pull and
// backward chunks add their sums into partial[v][s] by atomics and a thread per long row settles
// them (and zeroes the slots it read, ready for the next level).

#define GRAPHSWEEP_FULL_MASK 0xffffffffu

namespace graphsweep_bc {

template <int K> struct alignas(4 * K) Levels { int at[K]; };
template <int K> struct alignas(8 * K) Paths { double at[K]; };

template <int K> __device__ __forceinline__ Levels<K> levels_of(const int* level, long long v)
{
    return reinterpret_cast<const Levels<K>*>(level)[v];
}

template <int K> __device__ __forceinline__ Paths<K> paths_of(const double* sigma, long long v)
{
    return reinterpret_cast<const Paths<K>*>(sigma)[v];
}

// The sources whose slot of `levels` holds `value`, as a bit mask.
template <int K> __device__ __forceinline__ unsigned sources_at(const Levels<K>& levels, int value)
{
    unsigned mask = 0;
#pragma unroll
    for (int s = 0; s < K; ++s)
        if (levels.at[s] == value) mask |= 1u << s;
    return mask;
}

// Each lane's `sum[s]` for the sources in `mask` (the same on every lane) summed over the warp, on every lane.
template <int K> __device__ __forceinline__ void warp_sums(double (&sum)[K], unsigned mask)
{
#pragma unroll
    for (int s = 0; s < K; ++s)
        if (mask >> s & 1)
            for (int offset = 16; offset > 0; offset >>= 1)
                sum[s] += __shfl_xor_sync(GRAPHSWEEP_FULL_MASK, sum[s], offset);
}

// Appends the vertex `v` of every lane whose `mine` is set to the queue, one atomicAdd per warp for
// the slots and one for their degrees (`degree`: the lane's vertex's).  Every lane of the warp calls it.
__device__ __forceinline__ void append(bool mine, int v, long long degree, int* queue,
                                       unsigned long long* control)
{
    const int lane = threadIdx.x & 31;
    const unsigned ballot = __ballot_sync(GRAPHSWEEP_FULL_MASK, mine);
    if (!ballot) return;                                 // the same on every lane
    unsigned long long edges = mine ? degree : 0;
    for (int offset = 16; offset > 0; offset >>= 1)
        edges += __shfl_xor_sync(GRAPHSWEEP_FULL_MASK, edges, offset);
    const int leader = __ffs(ballot) - 1;
    unsigned long long slot = 0;
    if (lane == leader) {
        slot = atomicAdd(&control[0], (unsigned long long)__popc(ballot));
        atomicAdd(&control[1], edges);
    }
    slot = __shfl_sync(GRAPHSWEEP_FULL_MASK, slot, leader);
    if (mine) queue[slot + __popc(ballot & ((1u << lane) - 1))] = v;
}

// Top-down over the entries [begin, end) of a vertex with `active` sources at `depth`, whose path
// counts are `paths`, by one warp.
template <int K>
__device__ void push(long long begin, long long end, unsigned active, const Paths<K>& paths,
                     const long long* __restrict__ offsets, const int* __restrict__ indices, int* __restrict__ level,
                     double* __restrict__ sigma, int* __restrict__ queued, int* __restrict__ queue,
                     unsigned long long* __restrict__ control, int depth)
{
    const int lane = threadIdx.x & 31;
    // Every lane makes the same number of trips, so the ballot in append sees the whole warp.
    for (long long base = begin; base < end; base += 32) {
        const long long e = base + lane;
        bool fresh = false;
        int w = 0;
        if (e < end) {
            w = indices[e];
            const Levels<K> seen = levels_of<K>(level, w);
            bool claimed = false;
#pragma unroll
            for (int s = 0; s < K; ++s) {
                if (!(active >> s & 1)) continue;
                int at = seen.at[s];
                if (at == -1) {                          // stale or not, the CAS says who claimed it
                    at = atomicCAS(&level[(long long)w * K + s], -1, depth + 1);
                    claimed |= at == -1;
                    if (at == -1) at = depth + 1;
                }
                if (at == depth + 1) atomicAdd(&sigma[(long long)w * K + s], paths.at[s]);
            }
            fresh = claimed && atomicExch(&queued[w], depth + 1) != depth + 1;
        }
        append(fresh, w, fresh ? offsets[w + 1] - offsets[w] : 0, queue, control);
    }
}

// The sums over the entries [begin, end) of `value[u][s]` for neighbours u with level[u][s] ==
// `at`, for the sources in `mask` (the same on every lane), by one warp: on every lane.
template <int K>
__device__ void pull(long long begin, long long end, unsigned mask, int at, const int* __restrict__ indices,
                     const int* level, const double* __restrict__ value, double (&sum)[K])
{
#pragma unroll
    for (int s = 0; s < K; ++s) sum[s] = 0.0;
    for (long long e = begin + (threadIdx.x & 31); e < end; e += 32) {
        const int u = indices[e];
        const Levels<K> there = levels_of<K>(level, u);
#pragma unroll
        for (int s = 0; s < K; ++s)
            if ((mask >> s & 1) && there.at[s] == at) sum[s] += value[(long long)u * K + s];
    }
    warp_sums<K>(sum, mask);
}

// Backward for vertex v at `depth` (its sources there: `mask`) given its sums of coef over the
// children: writes coef[v][s] and adds the deltas to centrality[v] (not at depth 0: v's own roots).
template <int K>
__device__ void settle_backward(long long v, unsigned mask, const double (&sum)[K], const double* __restrict__ sigma,
                                double* __restrict__ coef, double* __restrict__ centrality, int depth)
{
    double total = 0.0;
#pragma unroll
    for (int s = 0; s < K; ++s) {
        if (!(mask >> s & 1)) continue;
        const double paths = sigma[v * K + s];
        const double delta = paths * sum[s];
        coef[v * K + s] = (1.0 + delta) / paths;
        total += delta;
    }
    if (depth > 0) centrality[v] += total;
}

}  // namespace graphsweep_bc

using namespace graphsweep_bc;

// Every slot unreached (-1, or -2 past the group's `count` roots) but each root's own (level 0,
// one path), coefs 0, no vertex queued, centrality 0; the roots (distinct) are the queue's first entries
// (control: zeroed by the host).
template <int K>
__global__ void graphsweep_bc_batched_init(const long long* __restrict__ offsets, const int* __restrict__ roots,
                                           int count, int* __restrict__ level, double* __restrict__ sigma,
                                           double* __restrict__ coef, int* __restrict__ queued,
                                           double* __restrict__ centrality,
                                           int* __restrict__ queue, unsigned long long* __restrict__ control,
                                           long long n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        Levels<K> at;
        Paths<K> paths;
#pragma unroll
        for (int s = 0; s < K; ++s) {
            const bool root = s < count && roots[s] == v;
            at.at[s] = root ? 0 : (s < count ? -1 : -2);
            paths.at[s] = root ? 1.0 : 0.0;
        }
        reinterpret_cast<Levels<K>*>(level)[v] = at;
        reinterpret_cast<Paths<K>*>(sigma)[v] = paths;
        reinterpret_cast<Paths<K>*>(coef)[v] = Paths<K>{};      // a pushed step's sums start at 0
        queued[v] = -1;
        centrality[v] = 0.0;
    }
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) {
        queue[t] = roots[t];
        atomicAdd(&control[1], (unsigned long long)(offsets[roots[t] + 1] - offsets[roots[t]]));
        if (t == 0) atomicAdd(&control[0], (unsigned long long)count);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_push(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                           int* __restrict__ level, double* __restrict__ sigma,
                                           int* __restrict__ queued, int* __restrict__ queue,
                                           unsigned long long* __restrict__ control, long long begin, long long end,
                                           int depth, long long split)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = begin + warp; i < end; i += warps) {
        const int u = queue[i];
        const long long row_begin = offsets[u], row_end = offsets[u + 1];
        if (row_end - row_begin > split) continue;
        // u's slots at depth are final (only -1 slots change this level); its paths too
        const unsigned active = sources_at<K>(levels_of<K>(level, u), depth);
        push<K>(row_begin, row_end, active, paths_of<K>(sigma, u), offsets, indices, level, sigma, queued, queue,
                control, depth);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_push_long(const long long* __restrict__ offsets,
                                                const int* __restrict__ indices, int* __restrict__ level,
                                                double* __restrict__ sigma, int* __restrict__ queued,
                                                int* __restrict__ queue, unsigned long long* __restrict__ control,
                                                const int* __restrict__ chunk_vertex,
                                                const long long* __restrict__ chunk_begin, long long chunks,
                                                long long split, int depth)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = warp; c < chunks; c += warps) {
        const int u = chunk_vertex[c];
        const unsigned active = sources_at<K>(levels_of<K>(level, u), depth);
        if (!active) continue;
        const long long begin = chunk_begin[c];
        push<K>(begin, min(begin + split, offsets[u + 1]), active, paths_of<K>(sigma, u), offsets, indices, level,
                sigma, queued, queue, control, depth);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_pull(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                           int* __restrict__ level, double* __restrict__ sigma,
                                           int* __restrict__ queue, unsigned long long* __restrict__ control,
                                           long long n, int depth, long long split)
{
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long first = warp * 32; first < n; first += warps * 32) {
        const long long v = first + lane;
        unsigned open = 0;                               // v's sources still unreached
        long long row_begin = 0, row_end = 0;
        if (v < n) {
            open = sources_at<K>(levels_of<K>(level, v), -1);
            if (open) {
                row_begin = offsets[v];
                row_end = offsets[v + 1];
                if (row_end - row_begin > split) open = 0;
            }
        }
        bool joined = false;
        for (unsigned todo = __ballot_sync(GRAPHSWEEP_FULL_MASK, open != 0); todo; todo &= todo - 1) {
            const int owner = __ffs(todo) - 1;
            const unsigned mask = __shfl_sync(GRAPHSWEEP_FULL_MASK, open, owner);
            double sum[K];
            pull<K>(__shfl_sync(GRAPHSWEEP_FULL_MASK, row_begin, owner),
                    __shfl_sync(GRAPHSWEEP_FULL_MASK, row_end, owner), mask, depth, indices, level, sigma, sum);
            if (lane == owner) {
#pragma unroll
                for (int s = 0; s < K; ++s)
                    if ((mask >> s & 1) && sum[s] > 0.0) {
                        level[v * K + s] = depth + 1;
                        sigma[v * K + s] = sum[s];
                        joined = true;
                    }
            }
        }
        append(joined, (int)v, row_end - row_begin, queue, control);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_pull_long_sums(const long long* __restrict__ offsets,
                                                     const int* __restrict__ indices, const int* __restrict__ level,
                                                     const double* __restrict__ sigma,
                                                     const int* __restrict__ chunk_vertex,
                                                     const long long* __restrict__ chunk_begin, long long chunks,
                                                     long long split, int depth, double* __restrict__ partial)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = warp; c < chunks; c += warps) {
        const int v = chunk_vertex[c];
        const unsigned open = sources_at<K>(levels_of<K>(level, v), -1);
        if (!open) continue;
        const long long begin = chunk_begin[c];
        double sum[K];
        pull<K>(begin, min(begin + split, offsets[v + 1]), open, depth, indices, level, sigma, sum);
        if ((threadIdx.x & 31) == 0) {
#pragma unroll
            for (int s = 0; s < K; ++s)
                if ((open >> s & 1) && sum[s] > 0.0) atomicAdd(&partial[(long long)v * K + s], sum[s]);
        }
    }
}

// A thread per long row: its open sources with a positive sum join depth + 1.
template <int K>
__global__ void graphsweep_bc_batched_pull_long_settle(const long long* __restrict__ offsets,
                                                       const int* __restrict__ rows, int count,
                                                       int* __restrict__ level, double* __restrict__ sigma,
                                                       double* __restrict__ partial, int* __restrict__ queue,
                                                       unsigned long long* __restrict__ control, int depth)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const long long v = rows[i];
        const unsigned open = sources_at<K>(levels_of<K>(level, v), -1);
        bool joined = false;
#pragma unroll
        for (int s = 0; s < K; ++s) {
            if (!(open >> s & 1)) continue;
            const double sum = partial[v * K + s];
            if (sum > 0.0) {
                level[v * K + s] = depth + 1;
                sigma[v * K + s] = sum;
                partial[v * K + s] = 0.0;
                joined = true;
            }
        }
        if (joined) {
            const unsigned long long slot = atomicAdd(&control[0], 1ull);
            atomicAdd(&control[1], (unsigned long long)(offsets[v + 1] - offsets[v]));
            queue[slot] = (int)v;
        }
    }
}

template <int K>
__global__ void graphsweep_bc_batched_backward(const long long* __restrict__ offsets,
                                               const int* __restrict__ indices, const int* __restrict__ level,
                                               const double* __restrict__ sigma, double* __restrict__ coef,
                                               double* __restrict__ centrality, const int* __restrict__ queue,
                                               long long begin, long long end, int depth, long long split)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = begin + warp; i < end; i += warps) {
        const int v = queue[i];
        const long long row_begin = offsets[v], row_end = offsets[v + 1];
        if (row_end - row_begin > split) continue;
        const unsigned mask = sources_at<K>(levels_of<K>(level, v), depth);
        double sum[K];
        pull<K>(row_begin, row_end, mask, depth + 1, indices, level, coef, sum);
        if ((threadIdx.x & 31) == 0) settle_backward<K>(v, mask, sum, sigma, coef, centrality, depth);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_backward_long_sums(const long long* __restrict__ offsets,
                                                         const int* __restrict__ indices,
                                                         const int* __restrict__ level,
                                                         const double* __restrict__ coef,
                                                         const int* __restrict__ chunk_vertex,
                                                         const long long* __restrict__ chunk_begin, long long chunks,
                                                         long long split, int depth, double* __restrict__ partial)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = warp; c < chunks; c += warps) {
        const int v = chunk_vertex[c];
        const unsigned mask = sources_at<K>(levels_of<K>(level, v), depth);
        if (!mask) continue;
        const long long begin = chunk_begin[c];
        double sum[K];
        pull<K>(begin, min(begin + split, offsets[v + 1]), mask, depth + 1, indices, level, coef, sum);
        if ((threadIdx.x & 31) == 0) {
#pragma unroll
            for (int s = 0; s < K; ++s)
                if ((mask >> s & 1) && sum[s] != 0.0) atomicAdd(&partial[(long long)v * K + s], sum[s]);
        }
    }
}

// Backward pushed (a level whose next slice has few edges): a warp per vertex w of the slice at
// depth + 1, lanes striding over its row, adds coef[w][s] to coef[u][s] for every neighbour u at
// `depth` for a source s of w's there (double atomics; w's slots are final, u's still sums), then
// backward_settle turns the slice at depth's sums into coefs.  (Sums kept in a separate array,
// zeroed as they were read, made the settle 5x slower on an H200: the stores of zeros.)
template <int K>
__device__ void push_coef(long long begin, long long end, unsigned mask, const Paths<K>& coefs,
                          const int* __restrict__ indices, const int* __restrict__ level, double* coef, int depth)
{
    for (long long e = begin + (threadIdx.x & 31); e < end; e += 32) {
        const int u = indices[e];
        const Levels<K> there = levels_of<K>(level, u);
#pragma unroll
        for (int s = 0; s < K; ++s)
            if ((mask >> s & 1) && there.at[s] == depth) atomicAdd(&coef[(long long)u * K + s], coefs.at[s]);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_backward_push(const long long* __restrict__ offsets,
                                                    const int* __restrict__ indices, const int* __restrict__ level,
                                                    double* coef, const int* __restrict__ queue, long long begin,
                                                    long long end, int depth, long long split)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = begin + warp; i < end; i += warps) {
        const int w = queue[i];
        const long long row_begin = offsets[w], row_end = offsets[w + 1];
        if (row_end - row_begin > split) continue;
        const unsigned mask = sources_at<K>(levels_of<K>(level, w), depth + 1);
        push_coef<K>(row_begin, row_end, mask, paths_of<K>(coef, w), indices, level, coef, depth);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_backward_push_long(const long long* __restrict__ offsets,
                                                         const int* __restrict__ indices,
                                                         const int* __restrict__ level, double* coef,
                                                         const int* __restrict__ chunk_vertex,
                                                         const long long* __restrict__ chunk_begin, long long chunks,
                                                         long long split, int depth)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = warp; c < chunks; c += warps) {
        const int w = chunk_vertex[c];
        const unsigned mask = sources_at<K>(levels_of<K>(level, w), depth + 1);
        if (!mask) continue;
        const long long begin = chunk_begin[c];
        push_coef<K>(begin, min(begin + split, offsets[w + 1]), mask, paths_of<K>(coef, w), indices, level, coef,
                     depth);
    }
}

template <int K>
__global__ void graphsweep_bc_batched_backward_long_settle(const int* __restrict__ rows, int count,
                                                           const int* __restrict__ level,
                                                           const double* __restrict__ sigma,
                                                           double* __restrict__ coef, double* __restrict__ centrality,
                                                           double* __restrict__ partial, int depth)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const long long v = rows[i];
        const unsigned mask = sources_at<K>(levels_of<K>(level, v), depth);
        if (!mask) continue;
        double sum[K];
#pragma unroll
        for (int s = 0; s < K; ++s) {
            sum[s] = (mask >> s & 1) ? partial[v * K + s] : 0.0;
            if (mask >> s & 1) partial[v * K + s] = 0.0;
        }
        settle_backward<K>(v, mask, sum, sigma, coef, centrality, depth);
    }
}

// A thread per vertex of the slice at `depth` (`rows`) after a pushed step: each of its sources
// there holds in coef the sum of its children's coefs, delta / sigma.
template <int K>
__global__ void graphsweep_bc_batched_backward_settle(const int* __restrict__ rows, int count,
                                                      const int* __restrict__ level, const double* __restrict__ sigma,
                                                      double* __restrict__ coef, double* __restrict__ centrality,
                                                      int depth)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const long long v = rows[i];
        const unsigned mask = sources_at<K>(levels_of<K>(level, v), depth);
        double total = 0.0;
#pragma unroll
        for (int s = 0; s < K; ++s) {
            if (!(mask >> s & 1)) continue;
            const double sum = coef[v * K + s], paths = sigma[v * K + s];
            coef[v * K + s] = 1.0 / paths + sum;
            total += paths * sum;
        }
        if (depth > 0) centrality[v] += total;
    }
}
