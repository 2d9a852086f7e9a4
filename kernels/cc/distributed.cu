// cc.distributed: the merge of the ranks' forests (see distributed.py).  Each rank has run
// cc.sampled-union-find over its slice and compressed its forest (parent[v] = v's root there); it
// describes that forest in two parts:
//   bitmap  bit v set when v's root is the rank's giant (the root of the tree its final pass
//           skipped, or -1: none): the most of a skewed graph's vertices, 1 bit each; its words of
//           rank j's range go to rank j (all-to-all);
//   pairs   (v, root) for every other vertex not a root itself: 8 bytes each, all-gathered.
// Each rank then builds the merged forest over its own range only: the first layer from the
// bitmaps (layer), the pairs' ends replaced by their first-layer parents, which their owners know
// (reps, then an all-reduce min), those stand-ins and the giant roots made roots (seed), the giants
// that share a vertex joined and the pairs linked (join, link: every rank alike), its range
// compressed.  parent[v] <= v holds throughout (a root is its component's smallest vertex there, a
// giant's root too), so the merged roots are the canonical labels.
#include "cc/common.cuh"

// The exchange has a size fixed before the run (no count read on the host between the ranks'
// forests and the merged one): each rank's pairs go in a block of `cap` vertices then `cap` roots,
// and table[2 j] / table[2 j + 1] hold rank j's count of pairs and its giant (-1: none).  A rank
// whose count passed `cap` wrote only the first `cap`: every kernel that changes the forest then
// does nothing (the forest stays the rank's own; the host sees the counts and merges again with
// room).
__device__ __forceinline__ bool gs_ccd_overflow(const long long* __restrict__ table, int k, long long cap)
{
    for (int j = 0; j < k; ++j)
        if (table[2 * j] > cap) return true;
    return false;
}

// One thread: this rank's row of the table, its count zeroed and its giant (the skipped tree's
// root now: a hook may have put it under a smaller root) set, before the encode; the k x k matrix
// of giants sharing a vertex (layer's) cleared.
template <typename L>
__global__ void graphsweep_ccd_giant(const long long* __restrict__ state, const L* __restrict__ parent,
                                     long long n, long long* __restrict__ table, int r, unsigned char* shared, int k)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const long long big = state[0];
    table[2 * r] = 0;
    table[2 * r + 1] = big >= 0 && big < n ? (long long)parent[big] : -1;   // none, or NO_TREE: no giant
    for (int i = 0; i < k * k; ++i) shared[i] = 0;
}

// This rank's part: the bitmap words of its giant (a warp per 32 vertices, one ballot a word; the
// words of its own range [own_lo, own_hi) also into its row of the inbox, `own`) and its other
// non-root vertices with their roots, into its block of `pairs` (the first `cap`; the count in
// table[2 r]).
template <typename L>
__global__ void graphsweep_ccd_encode(const L* __restrict__ parent, long long n, long long* __restrict__ table, int r,
                                      unsigned* __restrict__ bitmap, L* __restrict__ pairs, long long cap,
                                      unsigned* __restrict__ own, long long own_lo, long long own_hi)
{
    const long long g = table[2 * r + 1];
    unsigned long long* count = (unsigned long long*)(table + 2 * r);
    L* vertices = pairs + 2 * cap * r;
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * 32 < n; w += warps) {
        const long long v = w * 32 + lane;
        L p = v < n ? parent[v] : (L)v;
        const bool in_giant = v < n && (long long)p == g;
        const bool other = v < n && p != (L)v && !in_giant;
        const unsigned bits = __ballot_sync(0xffffffffu, in_giant);
        const unsigned others = __ballot_sync(0xffffffffu, other);
        if (lane == 0) {
            bitmap[w] = bits;
            if (w >= own_lo && w < own_hi) own[w - own_lo] = bits;
        }
        unsigned long long base = 0;
        if (lane == 0 && others) base = atomicAdd(count, (unsigned long long)__popc(others));
        base = __shfl_sync(0xffffffffu, base, 0);
        const long long at = (long long)base + __popc(others & ((1u << lane) - 1u));
        if (other && at < cap) {
            vertices[at] = (L)v;
            vertices[cap + at] = p;
        }
    }
}

// The merged forest's first layer over this rank's range [lo, hi), from every rank's bitmap words
// of that range (inbox[r * words + w], w counted from lo / 32: lo is a multiple of 32): v goes
// under the smallest giant root among the ranks whose giant holds it (each such root is <= v), else
// stays a root.  A vertex in the giants of several ranks joins them: the ranks' bit mask is OR-ed
// into the first of them's row (k <= 64), gathered per block in shared memory (R-MAT: most
// vertices, the same few masks; one global word read by every vertex was a hot spot), then set
// in `shared` (k x k bytes, cleared by giant: shared[r * k + s] when giants r and s share one).
template <typename L>
__global__ void graphsweep_ccd_layer(const unsigned* __restrict__ inbox, int k, long long words,
                                     const long long* __restrict__ table, long long cap, L* __restrict__ parent,
                                     long long lo, long long hi, unsigned char* __restrict__ shared)
{
    if (gs_ccd_overflow(table, k, cap)) return;
    __shared__ unsigned long long block_adj[64];
    for (int r = threadIdx.x; r < k; r += blockDim.x) block_adj[r] = 0;
    __syncthreads();
    GS_CC_GRID_STRIDE(i, hi - lo) {
        const long long v = lo + i;
        long long best = v;
        unsigned long long mask = 0;
        for (int r = 0; r < k; ++r) {
            if ((__ldg(inbox + r * words + (i >> 5)) >> (i & 31)) & 1u) {
                mask |= 1ULL << r;
                const long long g = __ldg(table + 2 * r + 1);
                if (g < best) best = g;
            }
        }
        parent[v] = (L)best;
        if (mask & (mask - 1)) {
            unsigned long long* to = block_adj + (__ffsll(mask) - 1);
            if ((*to & mask) != mask) atomicOr(to, mask);
        }
    }
    __syncthreads();
    for (int r = threadIdx.x; r < k; r += blockDim.x)
        for (unsigned long long m = block_adj[r]; m; m &= m - 1) shared[r * k + __ffsll(m) - 1] = 1;
}

// What each pair's ends stand for in the merged forest: an end in this rank's range [lo, hi) its
// first-layer parent (its giant root, or itself), any other end, and every unused slot of a block,
// `none` (the ranks' answers meet in an all-reduce min: every end has one owner).
template <typename L>
__global__ void graphsweep_ccd_reps(const L* __restrict__ pairs, const long long* __restrict__ table, int k,
                                    long long cap, const L* __restrict__ parent, long long lo, long long hi, L none,
                                    L* __restrict__ rep)
{
    GS_CC_GRID_STRIDE(t, 2 * cap * k) {
        const long long at = t % cap, used = table[2 * (t / (2 * cap))];
        const L x = __ldg(pairs + t);
        rep[t] = at < used && x >= lo && x < hi ? __ldg(parent + x) : none;
    }
}

// The forest's other nodes made roots before the links: every pair end's stand-in and every giant
// root (a giant root of this range loses its first-layer parent here; the giants' join restores
// the link, since that root is a vertex of both giants).
template <typename L>
__global__ void graphsweep_ccd_seed(const L* __restrict__ rep, long long total, const long long* __restrict__ table,
                                    int k, long long cap, long long n, L* __restrict__ parent)
{
    if (gs_ccd_overflow(table, k, cap)) return;
    GS_CC_GRID_STRIDE(t, total + k) {
        const long long x = t < total ? (long long)__ldg(rep + t) : __ldg(table + 2 * (t - total) + 1);
        if (x >= 0 && x < n) parent[x] = (L)x;
    }
}

// Every vertex of [lo, hi) pointed at its root.
template <typename L>
__global__ void graphsweep_ccd_compress_range(L* parent, long long lo, long long hi)
{
    GS_CC_GRID_STRIDE(i, hi - lo) {
        const L v = (L)(lo + i);
        parent[v] = gs_cc_find(v, parent);
    }
}

// One thread: each rank's count of pairs (out[j]) and its giant's root in the merged forest
// (out[k + j], -1 for none): what the host reads at the end of the merge.
template <typename L>
__global__ void graphsweep_ccd_roots(const long long* __restrict__ table, int k, L* parent, long long* out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int r = 0; r < k; ++r) {
        const long long g = table[2 * r + 1];
        out[r] = table[2 * r];
        out[k + r] = g >= 0 ? (long long)gs_cc_find((L)g, parent) : -1;
    }
}

// One thread: the giants that share a vertex joined (k^2 links at most; shared[r * k + s] != 0 when
// giants r and s share one, the ranks' adj masks OR-ed by an all-reduce max).
template <typename L>
__global__ void graphsweep_ccd_join(const long long* __restrict__ table, long long cap,
                                    const unsigned char* __restrict__ shared, int k, L* parent)
{
    if (blockIdx.x != 0 || threadIdx.x != 0 || gs_ccd_overflow(table, k, cap)) return;
    for (int r = 0; r < k; ++r)
        for (int s = 0; s < k; ++s)
            if (shared[r * k + s]) gs_cc_link((L)table[2 * r + 1], (L)table[2 * s + 1], parent);
}

// Every rank's pairs linked, by their stand-ins: rank j's block of `rep` holds its vertices' in its
// first `cap` slots and their roots' in the next `cap`, table[2 j] of them used.
template <typename L>
__global__ void graphsweep_ccd_link(const L* __restrict__ rep, const long long* __restrict__ table, int k,
                                    long long cap, L* parent)
{
    if (gs_ccd_overflow(table, k, cap)) return;
    GS_CC_GRID_STRIDE(t, cap * k) {
        const long long j = t / cap, at = t % cap;
        if (at < table[2 * j]) gs_cc_link(__ldg(rep + 2 * cap * j + at), __ldg(rep + 2 * cap * j + cap + at), parent);
    }
}
