// streams.Feistel.forward / inverse of an array on the GPU: one thread an element (feistel.cuh).

#include "feistel.cuh"

extern "C" __global__ void graphsweep_feistel_walk(const u64* __restrict__ x, u64* __restrict__ y, long long count,
                                                   u64 n, const int* __restrict__ widths,
                                                   const u64* __restrict__ keys, int inverse)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = inverse ? feistel_inverse(x[i], n, widths, keys) : feistel_forward(x[i], n, widths, keys);
}

// lists._part_list: succ[v - start] for the nodes v in [start, stop) of the random list of n > 1
// nodes whose order after node 0 is the Feistel permutation over [0, n - 1) (n_perm = n - 1).
template <typename Index>
__global__ void graphsweep_list_succ(Index* __restrict__ succ, long long start, long long stop, u64 n_perm,
                                     const int* __restrict__ widths, const u64* __restrict__ keys)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < stop - start;
         i += (long long)gridDim.x * blockDim.x) {
        const u64 v = (u64)(start + i);
        const u64 pos = v == 0 ? 0 : 1 + feistel_inverse(v - 1, n_perm, widths, keys);
        succ[i] = (Index)(pos == n_perm ? v : 1 + feistel_forward(pos < n_perm - 1 ? pos : n_perm - 1, n_perm,
                                                                     widths, keys));
    }
}
