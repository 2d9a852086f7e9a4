// What the PageRank kernels share (pull.cu, blocked.cu): the block sum, the initial scores, the
// update of one vertex, and the warp-per-chunk sums of long rows.
//
// Real: the score type (float, GAPBS's; or double), a template parameter of every kernel here.
//
// sums: one (error, dangling) pair of doubles per iteration.  Iteration i reads prev = sums[i]
// (prev[1]: the score held by vertices without edges, spread evenly when `spread`) and adds its
// L1 change and the new dangling score to next = sums[i + 1]; each block adds once.

#pragma once

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
                                         Real* __restrict__ contrib, double* __restrict__ sums, int n, double a,
                                         double c)
{
    __shared__ double shared[32];
    double dangling = 0.0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const long long degree = offsets[v + 1] - offsets[v];
        const Real init = (Real)(a + c * (double)degree);     // the start: a + c x degree (a: no edges)
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

