// Device helpers shared by the SSSP kernels (and APSP's repeated SSSP).
//
// A vertex's state is one packed 64-bit word: dist in bits 32-63, parent in bits 0-31
// (SP_INF = 0xFFFFFFFF: not reached), so a relaxation reads and replaces (dist, parent) together
// and the parent always belongs to the distance next to it.  Vertex ids fit 31 bits (n < 2^31).
// Distances are kept in 32 bits: a candidate of 2^32 - 1 or more raises the overflow flag and is
// dropped (the launcher then refuses the input).
#pragma once

typedef unsigned long long sp_u64;
typedef unsigned int sp_u32;

#define SP_INF 0xFFFFFFFFu
#define SP_FULL 0xFFFFFFFFu

__device__ __forceinline__ sp_u64 sp_pack(sp_u32 dist, sp_u32 parent) { return ((sp_u64)dist << 32) | parent; }
__device__ __forceinline__ sp_u32 sp_dist(sp_u64 w) { return (sp_u32)(w >> 32); }
__device__ __forceinline__ sp_u32 sp_parent(sp_u64 w) { return (sp_u32)w; }

// The lane that owns a warp's k-th gathered edge, given each lane's exclusive edge count: the
// last lane whose count is <= k (lanes without edges share their successor's count, so the last
// one is the owner).  A binary search over the 32 counts.
__device__ __forceinline__ int sp_warp_owner(const sp_u32* excl, sp_u32 k)
{
    int j = 0;
#pragma unroll
    for (int step = 16; step; step >>= 1)
        if (excl[j + step] <= k) j += step;
    return j;
}

#define SP_GRID_STRIDE(i, n) \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)gridDim.x * blockDim.x)

// Replace v's word by (nd, u) only if nd is strictly shorter.  A plain 64-bit atomicMin would also
// replace an equal distance by a smaller parent id, and with zero-weight edges two vertices could
// then adopt each other (a parent cycle); with strict improvement a vertex's final word is written
// after its parent's final word, so parents form a tree.  The first read goes to L2 (ld.cg): an L1
// copy may be stale inside a persistent kernel; a stale value only costs a failed CAS.
__device__ __forceinline__ bool sp_relax(sp_u64* __restrict__ word, sp_u32 v, sp_u32 nd, sp_u32 u)
{
    sp_u64 old = __ldcg(word + v);
    const sp_u64 want = sp_pack(nd, u);
    while (sp_dist(old) > nd) {
        const sp_u64 seen = atomicCAS(word + v, old, want);
        if (seen == old) return true;
        old = seen;
    }
    return false;
}

// Every word (INF, INF); the root (0, root).
extern "C" __global__ void graphsweep_sssp_init_words(sp_u64* __restrict__ word, long long n, int root)
{
    SP_GRID_STRIDE(i, n) word[i] = i == root ? sp_pack(0u, (sp_u32)root) : sp_pack(SP_INF, SP_INF);
}

// The outputs: dist int64 (-1 unreached) and parent int64 (-1 unreached).
extern "C" __global__ void graphsweep_sssp_unpack(const sp_u64* __restrict__ word, long long* __restrict__ dist,
                                                  long long* __restrict__ parent, long long n)
{
    SP_GRID_STRIDE(i, n) {
        const sp_u64 w = word[i];
        const bool reached = sp_dist(w) != SP_INF;
        dist[i] = reached ? (long long)sp_dist(w) : -1LL;
        parent[i] = reached ? (long long)sp_parent(w) : -1LL;
    }
}

// Warp-wide inclusive scan (all 32 lanes must take part).
__device__ __forceinline__ sp_u32 sp_warp_scan(sp_u32 x)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const sp_u32 y = __shfl_up_sync(SP_FULL, x, o);
        if (lane >= o) x += y;
    }
    return x;
}

// Warp-aggregated reservation of `count` slots per lane in a queue whose length is *tail: one
// atomic per warp; returns the lane's first slot.  All 32 lanes must take part.
__device__ __forceinline__ sp_u32 sp_warp_reserve(sp_u32* tail, sp_u32 count)
{
    const int lane = threadIdx.x & 31;
    const sp_u32 incl = sp_warp_scan(count);
    const sp_u32 total = __shfl_sync(SP_FULL, incl, 31);
    sp_u32 base = 0;
    if (lane == 31 && total) base = atomicAdd(tail, total);
    base = __shfl_sync(SP_FULL, base, 31);
    return base + incl - count;
}
