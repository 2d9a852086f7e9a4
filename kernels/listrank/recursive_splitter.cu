// listrank.recursive-splitter: recursive random splitters with splitters chosen by arithmetic,
// walked by a persistent grid that hands out sub-lists dynamically.
#include "listrank/common.cuh"

// The splitter of chunk k (nodes [k C, k C + C), C = 2^log_c): a random node of the chunk, or
// the head in the head's chunk.  A pure function of k, so whether node x is a splitter is
// known from x alone: no marking pass, and a walk step touches only the node it reads.
__device__ __forceinline__ int fs_pick(gs_u32 k, int m, int log_c, int head, gs_u32 seed)
{
    long long lo = (long long)k << log_c;
    long long hi = min(lo + (1LL << log_c), (long long)m);
    if (head >= lo && head < hi) return head;
    return (int)(lo + gs_draw(seed, k, (gs_u32)(hi - lo)));
}

// Walk sub-lists until none is left: each thread starts on sub-list (thread id) and then takes
// the next unclaimed one from *counter, in one flat loop so a lane that finishes early starts
// its next sub-list at once instead of idling until its warp's longest walk ends.
template <class Reader>
__device__ __forceinline__ void fs_walk(Reader rd, gs_u64* __restrict__ rec, gs_u64* __restrict__ out,
                                        gs_u32* __restrict__ counter, int m, int log_c, int head, gs_u32 seed)
{
    const gs_u32 p = (gs_u32)(((long long)m + (1LL << log_c) - 1) >> log_c);
    const gs_u32 threads = gridDim.x * blockDim.x;
    gs_u32 k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= p) return;
    int j = fs_pick(k, m, log_c, head, seed);
    gs_u32 acc = 0;
    while (true) {
        gs_u32 w;
        int nx;
        rd.get(j, w, nx);
        rec[j] = gs_pack(acc, k);
        acc += w;
        gs_u32 next = GS_NONE;
        if (nx == j)
            next = k;
        else if (fs_pick((gs_u32)nx >> log_c, m, log_c, head, seed) == nx)
            next = (gs_u32)nx >> log_c;
        if (next == GS_NONE) {
            j = nx;
            continue;
        }
        out[k] = gs_pack(acc, next);
        k = threads + atomicAdd(counter, 1u);
        if (k >= p) break;
        j = fs_pick(k, m, log_c, head, seed);
        acc = 0;
    }
}

template <typename S>
__global__ void graphsweep_listrank_fs_walk_succ(const S* __restrict__ succ, gs_u64* __restrict__ rec,
                                                 gs_u64* __restrict__ out, gs_u32* __restrict__ counter, int m,
                                                 int log_c, int head, gs_u32 seed)
{
    fs_walk(gs_succ_reader<S>{succ}, rec, out, counter, m, log_c, head, seed);
}

extern "C" __global__ void graphsweep_listrank_fs_walk_nodes(const gs_u64* __restrict__ node, gs_u64* __restrict__ rec,
                                                             gs_u64* __restrict__ out, gs_u32* __restrict__ counter,
                                                             int m, int log_c, int head, gs_u32 seed)
{
    fs_walk(gs_node_reader{node}, rec, out, counter, m, log_c, head, seed);
}
