// R-MAT edges on the GPU, bit for bit the values of generators/graphs.py's NumPy path.
//
// NumPy's block generator is Philox4x64-10 with key K(seed, edges stream) and counter
// (0, block, 0, 0); each draw increments counter word 0 first, then yields the four words of
// philox(counter, key) in order.  A block of R rows draws rng.random((scale, R)): uniform
// double j (C order: level l, row i -> j = l*R + i) is (word_j >> 11) * 2^-53.  So a row's draws
// are a pure function of (key, block, R, j): every thread computes its own.  A thread takes four
// rows of one block and computes each Philox output once for the rows that share it.
// Vertex ids are then scrambled by the plan's keyed Feistel permutation (feistel.cuh).

#include "feistel.cuh"

#define PHILOX_M0 0xD2E7470EE14C6C93ULL
#define PHILOX_M1 0xCA5A826395121157ULL
#define PHILOX_W0 0x9E3779B97F4A7C15ULL
#define PHILOX_W1 0xBB67AE8584CAA73BULL
#define BLOCK_SHIFT 16

__device__ __forceinline__ void philox4x64_10(u64 c[4], u64 k0, u64 k1)
{
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        if (r) { k0 += PHILOX_W0; k1 += PHILOX_W1; }
        const u64 lo0 = PHILOX_M0 * c[0], hi0 = __umul64hi(PHILOX_M0, c[0]);
        const u64 lo1 = PHILOX_M1 * c[2], hi1 = __umul64hi(PHILOX_M1, c[2]);
        const u64 n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
    }
}

// Rows [start, stop) of a dataset of `total` rows; row e goes to src[e - start], dst[e - start].
template <typename Index>
__global__ void graphsweep_rmat_edges(Index* __restrict__ src, Index* __restrict__ dst, long long start,
                                      long long stop, long long total, u64 key0, u64 key1, int scale, double a,
                                      double ab, double abc, u64 n, const int* __restrict__ widths,
                                      const u64* __restrict__ keys)
{
    // Quads of rows aligned within their block, so the four rows of a thread share a block.
    const long long first_quad = start >> 2, quads = ((stop + 3) >> 2) - first_quad;
    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < quads;
         q += (long long)gridDim.x * blockDim.x) {
        const long long row0 = (first_quad + q) << 2;
        const u64 block = (u64)(row0 >> BLOCK_SHIFT);
        const long long first = (long long)block << BLOCK_SHIFT;
        const long long rows = min((long long)1 << BLOCK_SHIFT, total - first);  // R of this block
        u64 s[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};
        u64 cached = ~0ULL, words[4];
        for (int l = 0; l < scale; ++l) {
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const long long i = row0 + k - first;
                if (i >= rows) break;
                const u64 j = (u64)l * (u64)rows + (u64)i;
                const u64 counter = (j >> 2) + 1;
                if (counter != cached) {
                    words[0] = counter; words[1] = block; words[2] = 0; words[3] = 0;
                    philox4x64_10(words, key0, key1);
                    cached = counter;
                }
                const double u = (double)(words[j & 3] >> 11) * (1.0 / 9007199254740992.0);
                s[k] = (s[k] << 1) | (u >= ab);
                d[k] = (d[k] << 1) | ((u >= a && u < ab) || u >= abc);
            }
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const long long e = row0 + k;
            if (e < start || e >= stop) continue;
            src[e - start] = (Index)feistel_forward(s[k], n, widths, keys);
            dst[e - start] = (Index)feistel_forward(d[k], n, widths, keys);
        }
    }
}
