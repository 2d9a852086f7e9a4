// cc.streaming: union-find over a CSR streamed in blocks of entries (graphsweep_cc_stream_link
// runs on one block while the next is copied over the link).  Each undirected edge is linked
// once, from its larger end (an entry u of row v with u < v); the forest is flattened at the end.
// Template arguments: S, the CSR index type; L, the label type (see common.cuh).
#include "cc/common.cuh"

template <typename L>
__global__ void graphsweep_cc_stream_init(L* parent, long long n)
{
    GS_CC_GRID_STRIDE(v, n) parent[v] = (L)v;
}

// Entries [lo, lo + count) of the CSR, held in `block` (block[i] is entry lo + i), belong to rows
// [r0, r1).  Each thread takes RUN consecutive entries: one binary search over the rows' offsets
// finds the row of its first, then the row advances as the entries pass its end.
template <typename S, typename L>
__global__ void graphsweep_cc_stream_link(const S* __restrict__ block, const long long* __restrict__ offsets,
                                          long long r0, long long r1, long long lo, long long count, L* parent)
{
    const long long stride = (long long)gridDim.x * blockDim.x * RUN;
    for (long long first = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * RUN; first < count;
         first += stride) {
        const long long e = lo + first;
        long long a = r0, b = r1 - 1;
        while (a < b) {
            const long long mid = (a + b + 1) >> 1;
            if (offsets[mid] <= e) a = mid; else b = mid - 1;
        }
        long long row = a, end = offsets[a + 1];
        const long long last = first + RUN < count ? first + RUN : count;
        for (long long i = first; i < last; ++i) {
            while (lo + i >= end) end = offsets[++row + 1];
            const L u = (L)block[i];
            if (u < (L)row) gs_cc_link((L)row, u, parent);
        }
    }
}

// Every vertex points at its root (the smallest vertex of its component: links hook larger roots
// under smaller ones).
template <typename L>
__global__ void graphsweep_cc_stream_flatten(L* parent, long long n)
{
    GS_CC_GRID_STRIDE(v, n) {
        L r = gs_cc_load(parent + v);
        for (L up = gs_cc_load(parent + r); up != r; up = gs_cc_load(parent + r)) r = up;
        parent[v] = r;
    }
}
