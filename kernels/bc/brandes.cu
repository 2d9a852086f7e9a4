// bc.brandes: Brandes's betweenness from one root, level-synchronous on the GPU.  A warp per
// vertex of the level being expanded (its lanes stride over the row), both directions; rows
// longer than `split` edges go to the *_long kernels instead, a warp per chunk of `split` edges
// (chunk c: vertex chunk_vertex[c], edges from chunk_begin[c]), so no warp walks a hub's row alone.
//
// Forward (per level d): the level's vertices are queue[begin, end); for each neighbour w, a CAS
// on level[w] claims it for level d + 1 (the claimer appends w to the queue, one atomicAdd per
// warp for all of a trip's claims), and every lane that sees w at level d + 1 adds sigma[v] (the
// shortest paths to v, final since the previous level) to sigma[w].
// Backward (per level, deepest first): a vertex v of level d sums coef[w] = (1 + delta[w]) /
// sigma[w] over its neighbours at level d + 1 (final: written by the previous level), so
// delta[v] = sigma[v] * sum needs no atomics but the long rows' chunk sums; v writes its own coef,
// and delta[v] as its centrality (the root's own dependency is not counted, as Brandes; it stays 0).

#define GRAPHSWEEP_FULL_MASK 0xffffffffu

// The edges [begin, end) of a vertex of level `depth` with `paths` shortest paths, by one warp.
__device__ void graphsweep_bc_expand(long long begin, long long end, double paths, const int* __restrict__ indices,
                                     int* __restrict__ level, double* __restrict__ sigma, int* __restrict__ queue,
                                     int* __restrict__ tail, int depth)
{
    const int lane = threadIdx.x & 31;
    // Every lane makes the same number of trips, so the ballot sees the whole warp.
    for (long long base = begin; base < end; base += 32) {
        const long long e = base + lane;
        bool claimed = false;
        int w = 0;
        if (e < end) {
            w = indices[e];
            int seen = level[w];
            if (seen == -1) {
                seen = atomicCAS(&level[w], -1, depth + 1);
                claimed = seen == -1;
                if (claimed) seen = depth + 1;
            }
            if (seen == depth + 1) atomicAdd(&sigma[w], paths);
        }
        const unsigned ballot = __ballot_sync(GRAPHSWEEP_FULL_MASK, claimed);
        if (ballot) {                                // the same on every lane of the warp
            const int leader = __ffs(ballot) - 1;
            int slot = 0;
            if (lane == leader) slot = atomicAdd(tail, __popc(ballot));
            slot = __shfl_sync(GRAPHSWEEP_FULL_MASK, slot, leader);
            if (claimed) queue[slot + __popc(ballot & ((1u << lane) - 1))] = w;
        }
    }
}

extern "C" __global__ void graphsweep_bc_forward(const long long* __restrict__ offsets,
                                                 const int* __restrict__ indices, int* __restrict__ level,
                                                 double* __restrict__ sigma, int* __restrict__ queue,
                                                 int* __restrict__ tail, int begin, int end, int depth,
                                                 long long split)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = begin + warp; i < end; i += warps) {
        const int v = queue[i];
        const long long row_begin = offsets[v], row_end = offsets[v + 1];
        if (row_end - row_begin <= split)
            graphsweep_bc_expand(row_begin, row_end, sigma[v], indices, level, sigma, queue, tail, depth);
    }
}

extern "C" __global__ void graphsweep_bc_forward_long(const long long* __restrict__ offsets,
                                                      const int* __restrict__ indices, int* __restrict__ level,
                                                      double* __restrict__ sigma, int* __restrict__ queue,
                                                      int* __restrict__ tail, const int* __restrict__ chunk_vertex,
                                                      const long long* __restrict__ chunk_begin, long long chunks,
                                                      long long split, int depth)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = warp; c < chunks; c += warps) {
        const int v = chunk_vertex[c];
        if (level[v] != depth) continue;   // v's level is settled: only level d + 1 is being claimed
        const long long begin = chunk_begin[c];
        graphsweep_bc_expand(begin, min(begin + split, offsets[v + 1]), sigma[v], indices, level, sigma, queue, tail,
                             depth);
    }
}

// The sum of coef over the neighbours at level depth + 1 among the edges [begin, end), by one warp
// (valid in lane 0).
__device__ double graphsweep_bc_pull(long long begin, long long end, const int* __restrict__ indices,
                                     const int* __restrict__ level, const double* __restrict__ coef, int depth)
{
    const int lane = threadIdx.x & 31;
    double sum = 0.0;
    for (long long e = begin + lane; e < end; e += 32) {
        const int w = indices[e];
        if (level[w] == depth + 1) sum += coef[w];
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset);
    return sum;
}

__device__ void graphsweep_bc_settle(int v, double sum, const double* __restrict__ sigma, double* __restrict__ coef,
                                     double* __restrict__ centrality, int root)
{
    const double delta = sigma[v] * sum;
    coef[v] = (1.0 + delta) / sigma[v];
    if (v != root) centrality[v] = delta;
}

extern "C" __global__ void graphsweep_bc_backward(const long long* __restrict__ offsets,
                                                  const int* __restrict__ indices, const int* __restrict__ level,
                                                  const double* __restrict__ sigma, double* __restrict__ coef,
                                                  double* __restrict__ centrality, const int* __restrict__ queue,
                                                  int begin, int end, int depth, int root, long long split)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = begin + warp; i < end; i += warps) {
        const int v = queue[i];
        const long long row_begin = offsets[v], row_end = offsets[v + 1];
        if (row_end - row_begin > split) continue;
        const double sum = graphsweep_bc_pull(row_begin, row_end, indices, level, coef, depth);
        if ((threadIdx.x & 31) == 0) graphsweep_bc_settle(v, sum, sigma, coef, centrality, root);
    }
}

extern "C" __global__ void graphsweep_bc_backward_long_sums(const long long* __restrict__ offsets,
                                                            const int* __restrict__ indices,
                                                            const int* __restrict__ level,
                                                            const double* __restrict__ coef,
                                                            const int* __restrict__ chunk_vertex,
                                                            const long long* __restrict__ chunk_begin,
                                                            long long chunks, long long split, int depth,
                                                            double* __restrict__ partial)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = warp; c < chunks; c += warps) {
        const int v = chunk_vertex[c];
        if (level[v] != depth) continue;
        const long long begin = chunk_begin[c];
        const double sum = graphsweep_bc_pull(begin, min(begin + split, offsets[v + 1]), indices, level, coef, depth);
        if ((threadIdx.x & 31) == 0) atomicAdd(&partial[v], sum);
    }
}

extern "C" __global__ void graphsweep_bc_backward_long_settle(const int* __restrict__ rows, int count,
                                                              const int* __restrict__ level,
                                                              const double* __restrict__ sigma,
                                                              double* __restrict__ coef,
                                                              double* __restrict__ centrality,
                                                              const double* __restrict__ partial, int depth, int root)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const int v = rows[i];
        if (level[v] == depth) graphsweep_bc_settle(v, partial[v], sigma, coef, centrality, root);
    }
}
