// listrank.helman-jaja: the recursive Helman-JaJa algorithm (003 Alg. 3, §4.1).  The host keeps
// the recursion stack; each level is a select, a walk and (on the way back) a combine launch.
#include "listrank/common.cuh"

// Step 4-6: no node is a splitter yet ...
extern "C" __global__ void graphsweep_listrank_hj_clear(gs_u64* __restrict__ rec, long long m)
{
    GS_GRID_STRIDE(j, m) rec[j] = gs_pack(0u, GS_NONE);
}

// ... then p splitters at regular index intervals (k * stride); splitter 0 is the head, and the
// slot the head would have taken goes to node 0, so all p are distinct.
extern "C" __global__ void graphsweep_listrank_hj_select(gs_u64* __restrict__ rec, int* __restrict__ spl,
                                                         long long p, long long stride, int head)
{
    GS_GRID_STRIDE(k, p) {
        int s = k == 0 ? head : (int)(k * stride);
        if (k > 0 && s == head) s = 0;
        spl[k] = s;
        rec[s] = gs_pack(0u, (gs_u32)k);
    }
}

// Steps 7-10: one thread per sub-list walks from its splitter until the next splitter (or the
// tail), writing (weight before the node, owner) per node; the reduced list gets one packed
// node per sub-list: (sub-list weight, next sub-list; the last points to itself).
template <class Reader>
__device__ __forceinline__ void hj_walk(Reader rd, gs_u64* __restrict__ rec, const int* __restrict__ spl,
                                        gs_u64* __restrict__ out, long long p)
{
    GS_GRID_STRIDE(k, p) {
        int j = spl[k];
        gs_u32 acc = 0, next;
        while (true) {
            gs_u32 w;
            int nx;
            rd.get(j, w, nx);
            rec[j] = gs_pack(acc, (gs_u32)k);
            acc += w;
            if (nx == j) { next = (gs_u32)k; break; }
            gs_u32 o = gs_hi(rec[nx]);
            if (o != GS_NONE) { next = o; break; }
            j = nx;
        }
        out[k] = gs_pack(acc, next);
    }
}

template <typename S>
__global__ void graphsweep_listrank_hj_walk_succ(const S* __restrict__ succ, gs_u64* __restrict__ rec,
                                                 const int* __restrict__ spl, gs_u64* __restrict__ out, long long p)
{
    hj_walk(gs_succ_reader<S>{succ}, rec, spl, out, p);
}

extern "C" __global__ void graphsweep_listrank_hj_walk_nodes(const gs_u64* __restrict__ node, gs_u64* __restrict__ rec,
                                                             const int* __restrict__ spl, gs_u64* __restrict__ out,
                                                             long long p)
{
    hj_walk(gs_node_reader{node}, rec, spl, out, p);
}
