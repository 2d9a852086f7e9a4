// PageRank, pull direction (GAPBS's pr, as Jacobi sweeps): every vertex sums its neighbours'
// contributions score[u] / degree[u] and writes its new score, the L1 change and its own next
// contribution in the same pass, so an iteration is one launch over the CSR.  LANES threads share
// a vertex (1: a thread per vertex, GAPBS's loop; 2..32: a group of lanes strides over the row,
// coalescing the index reads, and sums by shuffles).  Contributions are double-buffered (a vertex
// reads its neighbours' old ones while others write new ones).
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

extern "C" __global__ void graphsweep_pagerank_init(const long long* __restrict__ offsets,
                                                    float* __restrict__ score, float* __restrict__ contrib,
                                                    double* __restrict__ sums, int n)
{
    __shared__ double shared[32];
    const float init = 1.0f / n;
    double dangling = 0.0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const long long degree = offsets[v + 1] - offsets[v];
        score[v] = init;
        contrib[v] = degree ? init / (float)degree : 0.0f;
        if (!degree) dangling += init;
    }
    dangling = graphsweep_pagerank_block_sum(dangling, shared);
    if (threadIdx.x == 0) atomicAdd(&sums[1], dangling);
}

template <int LANES>
__global__ void graphsweep_pagerank_pull(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                         const float* __restrict__ contrib_in, float* __restrict__ contrib_out,
                                         float* __restrict__ score, const double* __restrict__ prev,
                                         double* __restrict__ next, int n, float base, float damping, int spread)
{
    __shared__ double shared[32];
    const float share = spread ? (float)(prev[1] / n) : 0.0f;
    constexpr int PER_WARP = 32 / LANES;  // vertices a warp takes at a time
    const int lane = threadIdx.x % LANES;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    double error = 0.0, dangling = 0.0;
    // The whole warp runs every trip (a trip's vertices may lie past n), so the shuffles see all lanes.
    for (long long first = warp * PER_WARP; first < n; first += warps * PER_WARP) {
        const long long v = first + (threadIdx.x & 31) / LANES;
        float sum = 0.0f;
        long long begin = 0, end = 0;
        if (v < n) {
            begin = offsets[v];
            end = offsets[v + 1];
            for (long long e = begin + lane; e < end; e += LANES)
                sum += __ldg(&contrib_in[indices[e]]);
        }
        for (int offset = LANES / 2; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset, LANES);
        if (v < n && lane == 0) {
            const float updated = base + damping * (sum + share);
            error += fabsf(updated - score[v]);
            score[v] = updated;
            const long long degree = end - begin;
            contrib_out[v] = degree ? updated / (float)degree : 0.0f;
            if (!degree) dangling += updated;
        }
    }
    error = graphsweep_pagerank_block_sum(error, shared);
    dangling = graphsweep_pagerank_block_sum(dangling, shared);
    if (threadIdx.x == 0) {
        atomicAdd(&next[0], error);
        atomicAdd(&next[1], dangling);
    }
}
