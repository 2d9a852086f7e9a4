// PageRank, pull direction (GAPBS's pr, as Jacobi sweeps): every vertex sums its neighbours'
// contributions score[u] / degree[u] and writes its new score, the L1 change and its own next
// contribution in the same pass, so an iteration is one launch over the CSR.  LANES threads share
// a vertex (1: a thread per vertex, GAPBS's loop; 2..32: a group of lanes strides over the row,
// coalescing the index reads, and sums by shuffles).  Contributions are double-buffered (a vertex
// reads its neighbours' old ones while others write new ones).
//
// Real: the score type (float, GAPBS's; or double), a template parameter of every kernel here.
//
// sums: one (error, dangling) pair of doubles per iteration.  Iteration i reads prev = sums[i]
// (prev[1]: the score held by vertices without edges, spread evenly when `spread`) and adds its
// L1 change and the new dangling score to next = sums[i + 1]; each block adds once.

#define GRAPHSWEEP_FULL_MASK 0xffffffffu

// Sum of x over the block, valid in thread 0.  Every thread of the block must call it.
__device__ double graphsweep_pagerank_block_sum(double x, double* shared)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, x, offset);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();                      // shared may still be read by a previous call
    if (lane == 0) shared[warp] = x;
    __syncthreads();
    x = threadIdx.x < (blockDim.x >> 5) ? shared[threadIdx.x] : 0.0;
    if (warp == 0)
        for (int offset = 16; offset > 0; offset >>= 1)
            x += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, x, offset);
    return x;
}

template <typename Real>
__global__ void graphsweep_pagerank_init(const long long* __restrict__ offsets, Real* __restrict__ score,
                                         Real* __restrict__ contrib, double* __restrict__ sums, int n)
{
    __shared__ double shared[32];
    const Real init = Real(1) / n;
    double dangling = 0.0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const long long degree = offsets[v + 1] - offsets[v];
        score[v] = init;
        contrib[v] = degree ? init / (Real)degree : Real(0);
        if (!degree) dangling += init;
    }
    dangling = graphsweep_pagerank_block_sum(dangling, shared);
    if (threadIdx.x == 0) atomicAdd(&sums[1], dangling);
}

// The new score of v from the sum of its neighbours' contributions: written with its next
// contribution; returns |new - old| (the dangling score is added by the caller).
template <typename Real>
__device__ Real graphsweep_pagerank_update(int v, Real sum, long long degree, Real* score, Real* contrib_out,
                                          Real base, Real damping, Real share, double* dangling)
{
    const Real updated = base + damping * (sum + share);
    const Real change = updated > score[v] ? updated - score[v] : score[v] - updated;
    score[v] = updated;
    contrib_out[v] = degree ? updated / (Real)degree : Real(0);
    if (!degree) *dangling += updated;
    return change;
}

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

// A warp per chunk of a long row (chunk c: edges [chunk_begin[c], min(chunk_begin[c] + split,
// row end)) of vertex chunk_vertex[c]): the chunk's sum is added to partial[v].
template <typename Real>
__global__ void graphsweep_pagerank_heavy_sums(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                               const Real* __restrict__ contrib_in,
                                               const int* __restrict__ chunk_vertex,
                                               const long long* __restrict__ chunk_begin, long long chunks,
                                               long long split, Real* __restrict__ partial)
{
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = warp; c < chunks; c += warps) {
        const int v = chunk_vertex[c];
        const long long begin = chunk_begin[c];
        const long long end = min(begin + split, offsets[v + 1]);
        Real sum = 0;
#pragma unroll 4
        for (long long e = begin + lane; e < end; e += 32)
            sum += __ldg(&contrib_in[indices[e]]);
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset);
        if (lane == 0) atomicAdd(&partial[v], sum);
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

__device__ __forceinline__ float graphsweep_pagerank_distinct_sum(const int* __restrict__ indices,
                                                                  const float* __restrict__ contrib,
                                                                  long long row_begin, long long from,
                                                                  long long to, int lane, int lanes)
{
    float sum = 0.0f;
#pragma unroll 4
    for (long long e = from + lane; e < to; e += lanes) {
        if (graphsweep_pagerank_distinct(indices, row_begin, e)) sum += __ldg(contrib + __ldg(indices + e));
    }
    return sum;
}

template <int LANES>
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
            if (end - begin <= split) sum = graphsweep_pagerank_distinct_sum(indices, contrib, begin, begin, end, lane,
                                                                             LANES);
        }
        for (int offset = LANES / 2; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset, LANES);
        if (v < rows && lane == 0) incoming[v] = sum;
    }
}

extern "C" __global__ void graphsweep_pagerank_slice_heavy(const long long* __restrict__ offsets,
                                                           const int* __restrict__ indices,
                                                           const float* __restrict__ contrib,
                                                           const int* __restrict__ chunk_row,
                                                           const long long* __restrict__ chunk_begin, long long chunks,
                                                           long long split, float* __restrict__ incoming)
{
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks; c += warps) {
        const int v = chunk_row[c];
        const long long from = chunk_begin[c], to = min(from + split, offsets[v + 1]);
        float sum = graphsweep_pagerank_distinct_sum(indices, contrib, offsets[v], from, to, lane, 32);
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset);
        if (lane == 0) atomicAdd(incoming + v, sum);
    }
}
