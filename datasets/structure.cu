// The list-structure check of datasets/structure.py on the device: the same counts and walks as
// its Numba twin.  T is the successor type (int or long long).

// stats: [0] tails, [1] min tail, [2] max tail, [3] min node of in-degree >= 2, [4] min node of
//        in-degree 0 (the head, once the rest is known good).  `seen` holds one bit per node.
template <typename T>
__global__ void graphsweep_structure_degrees(const T* __restrict__ succ, long long n,
                                             unsigned int* __restrict__ seen,
                                             unsigned long long* __restrict__ stats)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long s = succ[i];
        if (s == i) {
            atomicAdd(&stats[0], 1ULL);
            atomicMin(&stats[1], (unsigned long long)i);
            atomicMax(&stats[2], (unsigned long long)i);
            continue;
        }
        unsigned int bit = 1u << (s & 31);
        if (atomicOr(&seen[s >> 5], bit) & bit)
            atomicMin(&stats[3], (unsigned long long)s);
    }
}

// The smallest node nobody points to: the head (the tail too, when nothing precedes it).
extern "C" __global__ void graphsweep_structure_heads(const unsigned int* __restrict__ seen, long long n,
                                                     unsigned long long* __restrict__ stats)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        if (!(seen[i >> 5] & (1u << (i & 31))))
            atomicMin(&stats[4], (unsigned long long)i);
    }
}

#define GRAPHSWEEP_GOLDEN 0x9E3779B97F4A7C15ULL

// About one node in 2^bits is a splitter, chosen by a multiplicative hash of its index.
__device__ __forceinline__ bool graphsweep_structure_is_splitter(long long x, int bits)
{
    return (((unsigned long long)x * GRAPHSWEEP_GOLDEN) >> (64 - bits)) == 0;
}

extern "C" __global__ void graphsweep_structure_splitters(bool* __restrict__ flags, long long n, int bits)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        flags[i] = graphsweep_structure_is_splitter(i, bits);
}

// Walk j starts at starts[j] (the last walk at the head) and follows succ until the next
// splitter or the tail: where it stopped and how many links it took.
template <typename T>
__global__ void graphsweep_structure_walks(const T* __restrict__ succ, const long long* __restrict__ starts,
                                           long long nstarts, int bits, long long* __restrict__ stop,
                                           long long* __restrict__ length)
{
    long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= nstarts) return;
    long long x = starts[j];
    long long steps = 0;
    for (;;) {
        long long nxt = succ[x];
        if (nxt == x) break;
        ++steps;
        x = nxt;
        if (graphsweep_structure_is_splitter(x, bits)) break;
    }
    stop[j] = x;
    length[j] = steps;
}
