// What the BFS kernels share: integer types, warp sums and the GPU clock.
#pragma once

typedef unsigned long long gs_u64;

#define GS_FULL 0xffffffffu

// Inclusive prefix sum of `x` over the lanes of a full warp.
__device__ __forceinline__ int gs_warp_inclusive_sum(int x, int lane)
{
    for (int s = 1; s < 32; s <<= 1) {
        const int t = __shfl_up_sync(GS_FULL, x, s);
        if (lane >= s) x += t;
    }
    return x;
}

// Sum of `x` over a full warp, in every lane.
__device__ __forceinline__ long long gs_warp_sum(long long x)
{
    for (int s = 16; s > 0; s >>= 1) x += __shfl_xor_sync(GS_FULL, x, s);
    return x;
}

// Nanoseconds of the device's global timer (per-level times inside a persistent kernel).
__device__ __forceinline__ gs_u64 gs_globaltimer()
{
    gs_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
