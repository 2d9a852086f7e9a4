// bc.brandes: Brandes's betweenness from one root, level-synchronous on the GPU.  A warp per
// vertex of the level being expanded (its lanes stride over the row), both directions.
//
// Forward (one launch per level d): the level's vertices are queue[begin, end); for each
// neighbour w, a CAS on level[w] claims it for level d + 1 (the claimer appends w to the queue,
// one atomicAdd per warp for all of a trip's claims), and every lane that sees w at level d + 1 adds
// sigma[v] (the shortest paths to v, final since the previous level) to sigma[w].
// Backward (one launch per level, deepest first): a vertex v of level d sums coef[w] =
// (1 + delta[w]) / sigma[w] over its neighbours at level d + 1 (final: written by the previous
// launch), so delta[v] = sigma[v] * sum needs no atomics; v writes its own coef, and delta[v] as
// its centrality (the root's own dependency is not counted, as Brandes; it stays 0).

#define GRAPHSWEEP_FULL_MASK 0xffffffffu

extern "C" __global__ void graphsweep_bc_forward(const long long* __restrict__ offsets,
                                                 const int* __restrict__ indices, int* __restrict__ level,
                                                 double* __restrict__ sigma, int* __restrict__ queue,
                                                 int* __restrict__ tail, int begin, int end, int depth)
{
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = begin + warp; i < end; i += warps) {
        const int v = queue[i];
        const double paths = sigma[v];
        const long long row_end = offsets[v + 1];
        // Every lane makes the same number of trips over the row, so the ballot sees the whole warp.
        for (long long base = offsets[v]; base < row_end; base += 32) {
            const long long e = base + lane;
            bool claimed = false;
            int w = 0;
            if (e < row_end) {
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
}

extern "C" __global__ void graphsweep_bc_backward(const long long* __restrict__ offsets,
                                                  const int* __restrict__ indices, const int* __restrict__ level,
                                                  const double* __restrict__ sigma, double* __restrict__ coef,
                                                  double* __restrict__ centrality, const int* __restrict__ queue,
                                                  int begin, int end, int depth, int root)
{
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = begin + warp; i < end; i += warps) {
        const int v = queue[i];
        double sum = 0.0;
        for (long long e = offsets[v] + lane; e < offsets[v + 1]; e += 32) {
            const int w = indices[e];
            if (level[w] == depth + 1) sum += coef[w];
        }
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, sum, offset);
        if (lane == 0) {
            const double delta = sigma[v] * sum;
            coef[v] = (1.0 + delta) / sigma[v];
            if (v != root) centrality[v] = delta;
        }
    }
}
