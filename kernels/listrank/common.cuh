// Device helpers shared by the list-ranking kernels (each .cu beside this file includes it).
//
// Conventions: a list of m nodes is succ[0..m-1] with the tail pointing to itself; node ids
// fit 32 bits (m < 2^31).  A *packed word* holds two 32-bit fields in one 64-bit value, `lo` in
// bits 0-31 and `hi` in bits 32-63, so one 64-bit load or store moves both fields together
// (000 §3.1's "union", 003 §3.1 Fig. 3).
#pragma once

typedef unsigned long long gs_u64;
typedef unsigned int gs_u32;

#define GS_NONE 0xFFFFFFFFu

__device__ __forceinline__ gs_u64 gs_pack(gs_u32 lo, gs_u32 hi) { return ((gs_u64)hi << 32) | lo; }
__device__ __forceinline__ gs_u32 gs_lo(gs_u64 w) { return (gs_u32)w; }
__device__ __forceinline__ gs_u32 gs_hi(gs_u64 w) { return (gs_u32)(w >> 32); }

// murmur3's 32-bit finaliser: a cheap, well-mixed hash used to draw splitters (000 used KISS).
__device__ __forceinline__ gs_u32 gs_mix32(gs_u32 h)
{
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return h;
}

// A uniform draw from [0, len) for item k under seed (multiply-shift, no division).
__device__ __forceinline__ gs_u32 gs_draw(gs_u32 seed, gs_u32 k, gs_u32 len)
{
    return (gs_u32)(((gs_u64)gs_mix32(k * 0x9E3779B9u ^ seed) * len) >> 32);
}

#define GS_GRID_STRIDE(i, n) \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)gridDim.x * blockDim.x)

// Wyllie's packed word for node i of a list given by succ: lo = links to the next node (1, or 0
// for the tail), hi = next.  After the jumps, lo = links from i to the tail (000 Alg. 2, PJ1).
template <typename S>
__global__ void graphsweep_listrank_jump_init_succ(const S* __restrict__ succ, gs_u64* __restrict__ word,
                                                   long long m)
{
    GS_GRID_STRIDE(i, m) {
        gs_u32 s = (gs_u32)succ[i];
        word[i] = gs_pack(s != (gs_u32)i, s);
    }
}

// Wyllie's packed word for node i of a weighted list of packed nodes (lo = weight, hi = succ):
// lo = weight of the next node (0 for the tail), so after the jumps lo = the weight strictly
// after i (the exclusive suffix sum).
extern "C" __global__ void graphsweep_listrank_jump_init_nodes(const gs_u64* __restrict__ node,
                                                               gs_u64* __restrict__ word, long long m)
{
    GS_GRID_STRIDE(i, m) {
        gs_u32 s = gs_hi(node[i]);
        word[i] = gs_pack(s == (gs_u32)i ? 0u : gs_lo(node[s]), s);
    }
}

// One round of pointer jumping, ping-pong in -> out (000 Alg. 2, PJ2; 003 Listing 1):
//   value[i] += value[next[i]];  next[i] = next[next[i]].
// The tail points to itself with value 0, so jumping past the end changes nothing.
extern "C" __global__ void graphsweep_listrank_jump(const gs_u64* __restrict__ in, gs_u64* __restrict__ out,
                                                    long long m)
{
    GS_GRID_STRIDE(i, m) {
        gs_u64 a = in[i];
        gs_u64 b = in[gs_hi(a)];
        out[i] = gs_pack(gs_lo(a) + gs_lo(b), gs_hi(b));
    }
}

// rank[i] = lo(word[i]) (the links to the tail after the last jump).
template <typename R>
__global__ void graphsweep_listrank_jump_unpack(const gs_u64* __restrict__ word, R* __restrict__ rank, long long m)
{
    GS_GRID_STRIDE(i, m) rank[i] = (R)gs_lo(word[i]);
}

// Inclusive suffix weight of a weighted list: out[i] = lo(word[i]) + weight(i).
extern "C" __global__ void graphsweep_listrank_jump_inclusive(const gs_u64* __restrict__ word,
                                                              const gs_u64* __restrict__ node,
                                                              gs_u32* __restrict__ out, long long m)
{
    GS_GRID_STRIDE(i, m) out[i] = gs_lo(word[i]) + gs_lo(node[i]);
}

// Readers of one node for the sub-list walks: level 0 reads the successor array (every node
// weighs 1); deeper levels read packed nodes (lo = weight, the nodes of the level above that
// the node stands for; hi = successor), one 64-bit load per step.
template <typename S>
struct gs_succ_reader {
    const S* __restrict__ succ;
    __device__ __forceinline__ void get(int j, gs_u32& w, int& nx) const { w = 1u; nx = (int)succ[j]; }
};

struct gs_node_reader {
    const gs_u64* __restrict__ node;
    __device__ __forceinline__ void get(int j, gs_u32& w, int& nx) const
    {
        gs_u64 v = node[j];
        w = gs_lo(v);
        nx = (int)gs_hi(v);
    }
};

// Combine a level with the level below it.  rec[j] = (weight before j in its sub-list, owner
// sub-list k); upper[k] = weight from sub-list k's splitter to the end of the list, inclusive.
// Then the inclusive suffix weight of j is upper[k] - lo(rec[j]) ...
extern "C" __global__ void graphsweep_listrank_expand(const gs_u64* __restrict__ rec, const gs_u32* __restrict__ upper,
                                                      gs_u32* __restrict__ incl, long long m)
{
    GS_GRID_STRIDE(j, m) {
        gs_u64 r = rec[j];
        incl[j] = upper[gs_hi(r)] - gs_lo(r);
    }
}

// ... and at level 0 (every node weighs 1) the links from j to the tail are that minus 1.
extern "C" __global__ void graphsweep_listrank_expand_rank(const gs_u64* __restrict__ rec,
                                                           const gs_u32* __restrict__ upper, int* __restrict__ rank,
                                                           long long m)
{
    GS_GRID_STRIDE(j, m) {
        gs_u64 r = rec[j];
        rank[j] = (int)(upper[gs_hi(r)] - gs_lo(r) - 1u);
    }
}
