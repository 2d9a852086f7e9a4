// cc.distributed: the merge of the ranks' forests (see distributed.py).  Each rank has run
// cc.sampled-union-find over its slice and compressed its forest (parent[v] = v's root there); it
// describes that forest in two parts, which every rank all-gathers:
//   bitmap  bit v set when v's root is the rank's giant (the root of the tree its final pass
//           skipped, or -1: none): the most of a skewed graph's vertices, 1 bit each;
//   pairs   (v, root) for every other vertex not a root itself: 8 bytes each.
// Every rank then builds the same merged forest from all ranks' parts (giants, join, link) and
// compresses it.  parent[v] <= v holds throughout (a root is its component's smallest vertex
// there, a giant's root too), so the merged roots are the canonical labels.
#include "cc/common.cuh"

// This rank's part: the bitmap words of its giant (a warp per 32 vertices, one ballot a word) and
// its other non-root vertices, appended to `vertices` (count in *count; their roots are gathered
// by the caller).
template <typename L>
__global__ void graphsweep_ccd_encode(const L* __restrict__ parent, long long n, const long long* __restrict__ giant,
                                      unsigned* __restrict__ bitmap, L* __restrict__ vertices,
                                      unsigned long long* __restrict__ count)
{
    const long long g = *giant;
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * 32 < n; w += warps) {
        const long long v = w * 32 + lane;
        L p = v < n ? parent[v] : (L)v;
        const bool in_giant = v < n && (long long)p == g;
        const bool other = v < n && p != (L)v && !in_giant;
        const unsigned bits = __ballot_sync(0xffffffffu, in_giant);
        const unsigned others = __ballot_sync(0xffffffffu, other);
        if (lane == 0) bitmap[w] = bits;
        unsigned long long base = 0;
        if (lane == 0 && others) base = atomicAdd(count, (unsigned long long)__popc(others));
        base = __shfl_sync(0xffffffffu, base, 0);
        if (other) vertices[base + __popc(others & ((1u << lane) - 1u))] = (L)v;
    }
}

// The merged forest's first layer, from every rank's bitmap (maps[r * words + w]): v goes under
// the smallest giant root among the ranks whose giant holds it (each such root is <= v), else
// stays a root.  A vertex in the giants of several ranks joins them: the ranks' bit mask is OR-ed
// into adj[r] of the first of them (k <= 64), only where it adds a bit (an atomic per vertex on one
// word took R-MAT 26's merge 4.9 ms at K = 4 on H200s).
template <typename L>
__global__ void graphsweep_ccd_giants(const unsigned* __restrict__ maps, int k, long long words,
                                      const long long* __restrict__ giants, L* __restrict__ parent, long long n,
                                      unsigned long long* __restrict__ adj)
{
    GS_CC_GRID_STRIDE(v, n) {
        long long best = v;
        unsigned long long mask = 0;
        for (int r = 0; r < k; ++r) {
            if ((__ldg(maps + r * words + (v >> 5)) >> (v & 31)) & 1u) {
                mask |= 1ULL << r;
                const long long g = __ldg(giants + r);
                if (g < best) best = g;
            }
        }
        parent[v] = (L)best;
        if (mask & (mask - 1)) {      // R-MAT: most vertices, the same few masks: read before the atomic
            unsigned long long* to = adj + (__ffsll(mask) - 1);
            if ((__ldcg(to) & mask) != mask) atomicOr(to, mask);
        }
    }
}

// One thread: the giants that share a vertex joined (k^2 links at most).
template <typename L>
__global__ void graphsweep_ccd_join(const long long* __restrict__ giants, const unsigned long long* __restrict__ adj,
                                    int k, L* parent)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int r = 0; r < k; ++r)
        for (unsigned long long m = adj[r]; m; m &= m - 1)
            gs_cc_link((L)giants[r], (L)giants[__ffsll(m) - 1], parent);
}

// Every rank's pairs linked: rank j's region of `pairs` starts at 2 * first[j] and holds its
// first[j + 1] - first[j] vertices, then their roots.
template <typename L>
__global__ void graphsweep_ccd_link(const L* __restrict__ pairs, const long long* __restrict__ first, int k,
                                    L* parent)
{
    const long long total = first[k];
    GS_CC_GRID_STRIDE(t, total) {
        int j = 0;
        while (first[j + 1] <= t) ++j;
        const long long c = first[j + 1] - first[j], at = 2 * first[j] + (t - first[j]);
        gs_cc_link(__ldg(pairs + at), __ldg(pairs + at + c), parent);
    }
}
