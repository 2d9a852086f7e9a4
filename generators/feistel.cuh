// streams.Feistel on the GPU, bit for bit its Numba twin (_walk_nb): alternating Feistel rounds over
// [0, 2^bits), halves of widths[r] (left) and widths[r + 1] (right) bits before round r, the round
// function SplitMix64's finaliser of one half xor the round key; cycle-walked into [0, n).
// FEISTEL_ROUNDS comes from the compile options (streams.ROUNDS).

typedef unsigned long long u64;

__device__ __forceinline__ u64 splitmix_finaliser(u64 z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ __forceinline__ u64 feistel_forward(u64 v, u64 n, const int* __restrict__ widths,
                                               const u64* __restrict__ keys)
{
    do {
#pragma unroll
        for (int r = 0; r < FEISTEL_ROUNDS; ++r) {
            const int lw = widths[r], rw = widths[r + 1];
            const u64 left = v >> rw, right = v & ((1ULL << rw) - 1);
            v = (right << lw) | (left ^ (splitmix_finaliser(right ^ keys[r]) & ((1ULL << lw) - 1)));
        }
    } while (v >= n);
    return v;
}

__device__ __forceinline__ u64 feistel_inverse(u64 v, u64 n, const int* __restrict__ widths,
                                               const u64* __restrict__ keys)
{
    do {
#pragma unroll
        for (int r = FEISTEL_ROUNDS - 1; r >= 0; --r) {
            // after round r: left (rw bits) = the old right, right (lw bits) = the old left ^ F
            const int lw = widths[r], rw = widths[r + 1];
            const u64 left = v >> lw, right = v & ((1ULL << lw) - 1);
            v = ((right ^ (splitmix_finaliser(left ^ keys[r]) & ((1ULL << lw) - 1))) << rw) | left;
        }
    } while (v >= n);
    return v;
}
