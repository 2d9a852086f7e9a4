// listrank.random-splitter: Reid-Miller's random splitters on the GPU, kernels RS1-RS5 of
// 000 Alg. 3, one thread per splitter (grid-stride when fewer threads are launched).
//
// Two layouts of the per-node state (000 §3.2, 002 Table 5.1):
//   64-bit: rec[j] = packed word, lo = local rank (links from the owning splitter), hi = owner
//           splitter (GS_NONE until owned): one 64-bit word read and written per step;
//   48-bit: owner[j] (16-bit, -1 until owned) and loc[j] (32-bit) in two arrays; at most 32767
//           splitters.  RS5 turns loc into the final rank in place.
#include "listrank/common.cuh"

// RS1: no node has an owner yet.
extern "C" __global__ void graphsweep_listrank_rs1_64(gs_u64* __restrict__ rec, long long n)
{
    GS_GRID_STRIDE(j, n) rec[j] = gs_pack(0u, GS_NONE);
}

extern "C" __global__ void graphsweep_listrank_rs1_48(short* __restrict__ owner, long long n)
{
    GS_GRID_STRIDE(j, n) owner[j] = -1;
}

// The splitter of chunk i: a random node in [i n/p, (i+1) n/p) (000 Alg. 3 RS2), the head in
// the head's chunk (so every node lies after some splitter), or even[i] when given.
__device__ __forceinline__ int rs_splitter(long long i, long long n, long long p, int head, gs_u32 seed,
                                           const int* even, int use_even)
{
    if (use_even) return even[i];
    long long lo = i * n / p, hi = (i + 1) * n / p;
    if (head >= lo && head < hi) return head;
    return (int)(lo + gs_draw(seed, (gs_u32)i, (gs_u32)(hi - lo)));
}

// RS2: choose the splitters and make each its own owner with local rank 0.
extern "C" __global__ void graphsweep_listrank_rs2_64(gs_u64* __restrict__ rec, int* __restrict__ spl,
                                                      long long n, long long p, int head, gs_u32 seed,
                                                      const int* __restrict__ even, int use_even)
{
    GS_GRID_STRIDE(i, p) {
        int s = rs_splitter(i, n, p, head, seed, even, use_even);
        spl[i] = s;
        rec[s] = gs_pack(0u, (gs_u32)i);
    }
}

extern "C" __global__ void graphsweep_listrank_rs2_48(short* __restrict__ owner, int* __restrict__ loc,
                                                      int* __restrict__ spl, long long n, long long p, int head,
                                                      gs_u32 seed, const int* __restrict__ even, int use_even)
{
    GS_GRID_STRIDE(i, p) {
        int s = rs_splitter(i, n, p, head, seed, even, use_even);
        spl[i] = s;
        owner[s] = (short)i;
        loc[s] = 0;
    }
}

// RS3: walk each sub-list from its splitter until a node owned by another splitter (or the
// tail), marking and counting; record the splitter list as packed nodes (lo = sub-list length,
// hi = next splitter; the last splitter points to itself).
template <typename S>
__global__ void graphsweep_listrank_rs3_64(const S* __restrict__ succ, gs_u64* __restrict__ rec,
                                           const int* __restrict__ spl, gs_u64* __restrict__ node, long long p)
{
    GS_GRID_STRIDE(i, p) {
        int prev = spl[i];
        int j = (int)succ[prev];
        gs_u32 dist = 1;
        gs_u64 r;
        while (gs_hi(r = rec[j]) == GS_NONE && prev != j) {
            rec[j] = gs_pack(dist, (gs_u32)i);
            prev = j;
            j = (int)succ[j];
            ++dist;
        }
        node[i] = gs_pack(dist, gs_hi(r) == GS_NONE ? (gs_u32)i : gs_hi(r));
    }
}

template <typename S>
__global__ void graphsweep_listrank_rs3_48(const S* __restrict__ succ, short* __restrict__ owner,
                                           int* __restrict__ loc, const int* __restrict__ spl,
                                           gs_u64* __restrict__ node, long long p)
{
    GS_GRID_STRIDE(i, p) {
        int prev = spl[i];
        int j = (int)succ[prev];
        gs_u32 dist = 1;
        short o;
        while ((o = owner[j]) == -1 && prev != j) {
            loc[j] = (int)dist;
            owner[j] = (short)i;
            prev = j;
            j = (int)succ[j];
            ++dist;
        }
        node[i] = gs_pack(dist, o == -1 ? (gs_u32)i : (gs_u32)o);
    }
}

// RS5: rank[j] = (nodes from j's splitter to the tail) - 1 - (links from the splitter to j);
// incl[k] is the inclusive suffix of sub-list lengths that RS4 computed.
extern "C" __global__ void graphsweep_listrank_rs5_64(const gs_u64* __restrict__ rec, const gs_u32* __restrict__ incl,
                                                      int* __restrict__ rank, long long n)
{
    GS_GRID_STRIDE(j, n) {
        gs_u64 r = rec[j];
        rank[j] = (int)(incl[gs_hi(r)] - 1u - gs_lo(r));
    }
}

extern "C" __global__ void graphsweep_listrank_rs5_48(const short* __restrict__ owner, const gs_u32* __restrict__ incl,
                                                      int* __restrict__ loc, long long n)
{
    GS_GRID_STRIDE(j, n) loc[j] = (int)(incl[owner[j]] - 1u - (gs_u32)loc[j]);
}
