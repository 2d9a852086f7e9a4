// PageRank, pull direction (GAPBS's pr, as Jacobi sweeps): every vertex sums its neighbours'
// contributions score[u] / degree[u] and writes its new score, the L1 change and its own next
// contribution in the same pass, so an iteration is one launch over the CSR.  LANES threads share
// a vertex (1: a thread per vertex, GAPBS's loop; 2..32: a group of lanes strides over the row,
// coalescing the index reads, and sums by shuffles).  Contributions are double-buffered (a vertex
// reads its neighbours' old ones while others write new ones).
//
// The block sum, the initial scores, one vertex's update and the long rows' chunk sums are in
// common.cuh (shared with blocked.cu).

#include "pagerank/common.cuh"

// Rows longer than `split` edges are left to the two kernels below (heavy_sums, heavy_update):
// a lane group walking a hub's row alone would finish long after every other group.
template <typename Real, int LANES>
__global__ void graphsweep_pagerank_pull(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                         const Real* __restrict__ contrib_in, Real* __restrict__ contrib_out,
                                         Real* __restrict__ score, const double* __restrict__ prev,
                                         double* __restrict__ next, int n, Real base, Real damping, int spread,
                                         long long split)
{
    __shared__ double shared[32];
    const Real share = spread ? (Real)(prev[1] / n) : Real(0);
    constexpr int PER_WARP = 32 / LANES;  // vertices a warp takes at a time
    const int lane = threadIdx.x % LANES;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    double error = 0.0, dangling = 0.0;
    // The whole warp runs every trip (a trip's vertices may lie past n), so the shuffles see all lanes.
    for (long long first = warp * PER_WARP; first < n; first += warps * PER_WARP) {
        const long long v = first + (threadIdx.x & 31) / LANES;
        Real sum = 0;
        long long begin = 0, end = 0;
        bool mine = v < n;
        if (mine) {
            begin = offsets[v];
            end = offsets[v + 1];
            mine = end - begin <= split;
        }
        if (mine) {
#pragma unroll 4
            for (long long e = begin + lane; e < end; e += LANES)
                sum += __ldg(&contrib_in[indices[e]]);
        }
        for (int offset = LANES / 2; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset, LANES);
        if (mine && lane == 0)
            error += graphsweep_pagerank_update((int)v, sum, end - begin, score, contrib_out, base, damping, share,
                                                &dangling);
    }
    error = graphsweep_pagerank_block_sum(error, shared);
    dangling = graphsweep_pagerank_block_sum(dangling, shared);
    if (threadIdx.x == 0) {
        atomicAdd(&next[0], error);
        atomicAdd(&next[1], dangling);
    }
}

// A thread per long row: its new score from the chunks' sums (then cleared for the next iteration).
template <typename Real>
__global__ void graphsweep_pagerank_heavy_update(const long long* __restrict__ offsets, const int* __restrict__ heavy,
                                                 int count, Real* __restrict__ partial, Real* __restrict__ score,
                                                 Real* __restrict__ contrib_out, const double* __restrict__ prev,
                                                 double* __restrict__ next, int n, Real base, Real damping,
                                                 int spread)
{
    __shared__ double shared[32];
    const Real share = spread ? (Real)(prev[1] / n) : Real(0);
    double error = 0.0, dangling = 0.0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const int v = heavy[i];
        error += graphsweep_pagerank_update(v, partial[v], offsets[v + 1] - offsets[v], score, contrib_out, base,
                                            damping, share, &dangling);
        partial[v] = 0;
    }
    error = graphsweep_pagerank_block_sum(error, shared);
    if (threadIdx.x == 0) atomicAdd(&next[0], error);
}

// pagerank.distributed on a slice past cuSPARSE's 32-bit offsets (kernels/dist slices: rows local,
// neighbour ids global, self-loops dropped, duplicates kept, each row sorted): an entry counts
// only where it differs from the one before it in its row, so the simple graph is used without a
// copy of it.  slice_degree (set-up): a warp a row, each row's distinct neighbours as the inverse
// degree (0 for none) and their total.  slice_sum: each row's sum of its distinct neighbours'
// contributions, LANES lanes a row; a row longer than `split` is left at 0 for slice_heavy, a warp
// a chunk of `split` entries of it adding its sum (a group walking a hub's row alone would finish
// long after the rest: R-MAT 27's slices ran 7x slower than cuSPARSE so).
// Whether entry e of a sorted row starting at row_begin names a neighbour not named just before it.
__device__ __forceinline__ bool graphsweep_pagerank_distinct(const int* __restrict__ indices, long long row_begin,
                                                             long long e)
{
    return e == row_begin || __ldg(indices + e) != __ldg(indices + e - 1);
}

extern "C" __global__ void graphsweep_pagerank_slice_degree(const long long* __restrict__ offsets,
                                                            const int* __restrict__ indices, long long rows,
                                                            float* __restrict__ inverse,
                                                            unsigned long long* __restrict__ total)
{
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    unsigned long long mine = 0;
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; v < rows; v += warps) {
        const long long begin = offsets[v], end = offsets[v + 1];
        unsigned long long count = 0;
        for (long long e = begin + lane; e < end; e += 32)
            count += graphsweep_pagerank_distinct(indices, begin, e);
        for (int offset = 16; offset > 0; offset >>= 1)
            count += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, count, offset);
        if (lane == 0) {
            inverse[v] = count ? 1.0f / (float)count : 0.0f;
            mine += count;
        }
    }
    if (lane == 0 && mine) atomicAdd(total, mine);
}

// A neighbour's contribution.  COLD_FLAGGED: an id with its sign bit set lies outside the hot
// front of the renamed contributions (pagerank.distributed's renamed product), read with
// evict-first (ld.global.cs) so the lines read once do not push the hot front out of the L2.
template <bool COLD_FLAGGED>
__device__ __forceinline__ float graphsweep_pagerank_gather(const float* __restrict__ contrib, int id)
{
    if (COLD_FLAGGED && id < 0) return __ldcs(contrib + (id & 0x7fffffff));
    return __ldg(contrib + id);
}

template <bool COLD_FLAGGED>
__device__ __forceinline__ float graphsweep_pagerank_distinct_sum(const int* __restrict__ indices,
                                                                  const float* __restrict__ contrib,
                                                                  long long row_begin, long long from,
                                                                  long long to, int lane, int lanes)
{
    float sum = 0.0f;
#pragma unroll 4
    for (long long e = from + lane; e < to; e += lanes) {
        if (graphsweep_pagerank_distinct(indices, row_begin, e))
            sum += graphsweep_pagerank_gather<COLD_FLAGGED>(contrib, __ldg(indices + e));
    }
    return sum;
}

template <int LANES, bool COLD_FLAGGED>
__global__ void graphsweep_pagerank_slice_sum(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                              const float* __restrict__ contrib, long long rows, long long split,
                                              float* __restrict__ incoming)
{
    constexpr int PER_WARP = 32 / LANES;
    const int lane = threadIdx.x % LANES;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    // The whole warp runs every trip (a trip's rows may lie past the slice), so the shuffles see all lanes.
    for (long long first = warp * PER_WARP; first < rows; first += warps * PER_WARP) {
        const long long v = first + (threadIdx.x & 31) / LANES;
        float sum = 0.0f;
        if (v < rows) {
            const long long begin = offsets[v], end = offsets[v + 1];
            if (end - begin <= split)
                sum = graphsweep_pagerank_distinct_sum<COLD_FLAGGED>(indices, contrib, begin, begin, end, lane, LANES);
        }
        for (int offset = LANES / 2; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset, LANES);
        if (v < rows && lane == 0) incoming[v] = sum;
    }
}

template <bool COLD_FLAGGED>
__global__ void graphsweep_pagerank_slice_heavy(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                                const float* __restrict__ contrib, const int* __restrict__ chunk_row,
                                                const long long* __restrict__ chunk_begin, long long chunks,
                                                long long split, float* __restrict__ incoming)
{
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks; c += warps) {
        const int v = chunk_row[c];
        const long long from = chunk_begin[c], to = min(from + split, offsets[v + 1]);
        float sum = graphsweep_pagerank_distinct_sum<COLD_FLAGGED>(indices, contrib, offsets[v], from, to, lane, 32);
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset);
        if (lane == 0) atomicAdd(incoming + v, sum);
    }
}
