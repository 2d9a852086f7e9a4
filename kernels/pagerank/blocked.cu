// PageRank on the by-degree graph, its columns cut into blocks (pagerank/blocked.py): an iteration
// sums each vertex's incoming contributions block after block (blocked_sum, once per block and
// degree class; long rows by heavy_sums), then updates every vertex in one pass (blocked_update).
// The sums of a block gather from that block's columns only, a window that stays in the L2.
// Sums and update are separate launches, so one contribution array serves both.

#include "pagerank/common.cuh"

// Rows [lo, hi) of one block with LANES lanes a row; each lane loads four of its indices before
// gathering any, so four gathers are in flight per lane.  A row longer than `split` is summed by
// heavy_sums afterwards: the first block (add = 0) sets its sum to 0 for it, later ones leave it.
template <typename Real, int LANES>
__global__ void graphsweep_pagerank_blocked_sum(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                                const Real* __restrict__ contrib, Real* __restrict__ incoming,
                                                long long lo, long long hi, long long split, int add)
{
    constexpr int PER_WARP = 32 / LANES;
    const int lane = threadIdx.x % LANES;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    // The whole warp runs every trip (a trip's rows may lie past hi), so the shuffles see all lanes.
    for (long long first = lo + warp * PER_WARP; first < hi; first += warps * PER_WARP) {
        const long long v = first + (threadIdx.x & 31) / LANES;
        Real sum = 0;
        long long begin = 0, end = 0;
        if (v < hi) {
            begin = offsets[v];
            end = offsets[v + 1];
        }
        const bool summed = end - begin <= split;
        if (summed) {
            long long e = begin + lane;
            for (; e + 3 * LANES < end; e += 4 * LANES) {
                const int a = __ldg(indices + e), b = __ldg(indices + e + LANES), c = __ldg(indices + e + 2 * LANES),
                          d = __ldg(indices + e + 3 * LANES);
                sum += __ldg(contrib + a) + __ldg(contrib + b) + __ldg(contrib + c) + __ldg(contrib + d);
            }
            for (; e < end; e += LANES)
                sum += __ldg(contrib + __ldg(indices + e));
        }
        for (int offset = LANES / 2; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset, LANES);
        if (v < hi && lane == 0) {
            if (summed)
                incoming[v] = add ? incoming[v] + sum : sum;
            else if (!add)
                incoming[v] = 0;
        }
    }
}

// Every vertex's new score from its sum, its next contribution, the L1 change and the dangling score.
template <typename Real>
__global__ void graphsweep_pagerank_blocked_update(const long long* __restrict__ offsets,
                                                   const Real* __restrict__ incoming, Real* __restrict__ score,
                                                   Real* __restrict__ contrib, const double* __restrict__ prev,
                                                   double* __restrict__ next, int n, Real base, Real damping,
                                                   int spread)
{
    __shared__ double shared[32];
    const Real share = spread ? (Real)(prev[1] / n) : Real(0);
    double error = 0.0, dangling = 0.0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride)
        error += graphsweep_pagerank_update((int)v, incoming[v], offsets[v + 1] - offsets[v], score, contrib, base,
                                            damping, share, &dangling);
    error = graphsweep_pagerank_block_sum(error, shared);
    dangling = graphsweep_pagerank_block_sum(dangling, shared);
    if (threadIdx.x == 0) {
        atomicAdd(&next[0], error);
        atomicAdd(&next[1], dangling);
    }
}
