// cc.distributed: the merge of the ranks' forests (see distributed.py).  Each rank has run
// cc.sampled-union-find over its slice and compressed its forest (parent[v] = v's root there); it
// describes that forest in two parts:
//   bitmap  bit v set when v's root is the rank's giant (the root of the tree its final pass
//           skipped, or -1: none): the most of a skewed graph's vertices, 1 bit each; its words of
//           rank j's range go to rank j (all-to-all);
//   pairs   (v, root) for every other vertex not a root itself: 8 bytes each, all-gathered.
// Each rank then builds the merged forest over its own range only: the pairs' ends replaced by
// their first layer (the smallest giant root holding them, from the bitmaps), which their owners
// know (reps, then an all-reduce min), those stand-ins and the giant roots made roots (seed), the
// giants that share a vertex (shared) joined and the pairs linked (join, link: every rank alike),
// its range's labels set (settle).  parent[v] <= v holds throughout (a root is its component's smallest vertex there, a
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
// root now, climbed to: a hook may have put it under a smaller root) set, before the encode; the
// k x k matrix of giants sharing a vertex (shared's) cleared.
template <typename L>
__global__ void graphsweep_ccd_giant(const long long* __restrict__ state, const L* __restrict__ parent,
                                     long long n, long long* __restrict__ table, int r, unsigned char* shared, int k)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const long long big = state[0];
    table[2 * r] = 0;
    long long g = -1;                               // none, or NO_TREE: no giant
    if (big >= 0 && big < n)
        for (g = big; (long long)parent[g] != g;) g = parent[g];
    table[2 * r + 1] = g;
    for (int i = 0; i < k * k; ++i) shared[i] = 0;
}

// Every vertex its own root (K > 1: the slice's init writes only its rows).
template <typename L>
__global__ void graphsweep_ccd_identity(L* __restrict__ parent, long long n)
{
    GS_CC_GRID_STRIDE(v, n) parent[v] = (L)v;
}

// Bitmap words a warp encodes in one step of graphsweep_ccd_encode: its loads all in flight at once,
// and one atomic for the pairs' slots a block's step (R-MAT 26 at K = 4 on an H200: a warp's atomic
// per 32 vertices and a separate compress pass took 0.23 + 0.6 ms; this encode, compressing, 0.24).
#define GS_CCD_TILE 16

// This rank's part, its forest compressed on the way (parent[v] = v's root, as sampled-union-find's
// compress writes it; no hooks run meanwhile): the bitmap words of its giant (one ballot a word of
// 32 vertices; the words of its own range [own_lo, own_hi) also into its row of the inbox, `own`)
// and its other non-root vertices with their roots, into its block of `pairs` (the first `cap`; the
// count in table[2 r]).  A block's warps each take GS_CCD_TILE words a step, their vertices' roots
// kept in registers while the block's slots are claimed; launched with blockDim.x a multiple of 32,
// <= 1024.
template <typename L>
__global__ void graphsweep_ccd_encode(L* parent, long long n, long long* __restrict__ table, int r,
                                      unsigned* __restrict__ bitmap, L* __restrict__ pairs, long long cap,
                                      unsigned* __restrict__ own, long long own_lo, long long own_hi)
{
    __shared__ unsigned long long warp_at[32], block_at;
    const long long g = table[2 * r + 1];
    unsigned long long* count = (unsigned long long*)(table + 2 * r);
    L* vertices = pairs + 2 * cap * r;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const long long words = (n + 31) >> 5, step = (long long)warps * GS_CCD_TILE;
    for (long long b = (long long)blockIdx.x * step; b < words; b += (long long)gridDim.x * step) {
        const long long w0 = b + (long long)warp * GS_CCD_TILE;
        L kept[GS_CCD_TILE];                    // the parents, then the roots, of the warp's vertices
#pragma unroll
        for (int t = 0; t < GS_CCD_TILE; ++t) {     // all loads issued before any is used: 16 lines in flight a warp
            const long long v = (w0 + t) * 32 + lane;
            kept[t] = v < n ? parent[v] : (L)0;
        }
        unsigned others_of = 0, found = 0;      // lane t: word w0 + t's mask of other vertices
#pragma unroll
        for (int t = 0; t < GS_CCD_TILE; ++t) {
            const long long v = (w0 + t) * 32 + lane;
            L p = kept[t];
            if (v < n && p != (L)v) {               // sampled-union-find's compress: a read-only climb
                L up = parent[p];
                if (up != p) {
                    L q;
                    while ((q = parent[up]) != up) up = q;
                    parent[v] = up;
                    p = up;
                }
            }
            kept[t] = p;
            const bool in_giant = v < n && (long long)p == g;
            const bool other = v < n && (long long)p != v && !in_giant;
            const unsigned bits = __ballot_sync(0xffffffffu, in_giant);
            const unsigned others = __ballot_sync(0xffffffffu, other);
            if (lane == 0 && w0 + t < words) {
                bitmap[w0 + t] = bits;
                if (w0 + t >= own_lo && w0 + t < own_hi) own[w0 + t - own_lo] = bits;
            }
            if (lane == t) others_of = others;
            found += __popc(others);
        }
        if (lane == 0) warp_at[warp] = found;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned long long sum = 0;
            for (int i = 0; i < warps; ++i) {
                const unsigned long long c = warp_at[i];
                warp_at[i] = sum;
                sum += c;
            }
            block_at = sum ? atomicAdd(count, sum) : 0;
        }
        __syncthreads();
        unsigned long long at = block_at + warp_at[warp];
#pragma unroll
        for (int t = 0; t < GS_CCD_TILE; ++t) {
            const unsigned others = __shfl_sync(0xffffffffu, others_of, t);
            if ((others >> lane) & 1u) {
                const unsigned long long slot = at + __popc(others & ((1u << lane) - 1u));
                if (slot < (unsigned long long)cap) {
                    vertices[slot] = (L)((w0 + t) * 32 + lane);
                    vertices[cap + slot] = kept[t];
                }
            }
            at += __popc(others);
        }
    }
}

// The first layer of the merged forest at vertex v = lo + i of this rank's range, from every
// rank's bitmap words of the range (inbox[r * words + w], w counted from lo / 32: lo is a multiple
// of 32): the smallest giant root among the ranks whose giant holds v (each such root is <= v), and
// that rank in *giant (-1 and v itself when none does).
__device__ __forceinline__ long long gs_ccd_first(const unsigned* __restrict__ inbox, int k, long long words,
                                                  const long long* __restrict__ table, long long i, long long v,
                                                  int* giant)
{
    long long best = v;
    *giant = -1;
    for (int r = 0; r < k; ++r)
        if ((__ldg(inbox + r * words + (i >> 5)) >> (i & 31)) & 1u) {
            const long long g = __ldg(table + 2 * r + 1);
            if (g < best) { best = g; *giant = r; }
        }
    return best;
}

// Which giants share a vertex of this rank's range, a word of 32 vertices at a time:
// shared[r * k + s] = 1 when some word of giant r's bitmap and of giant s's have a bit in common
// (k x k bytes, cleared by giant; gathered per block in shared memory: on R-MAT most words, the same
// few pairs).
__global__ void graphsweep_ccd_shared(const unsigned* __restrict__ inbox, int k, long long words,
                                      const long long* __restrict__ table, long long cap,
                                      unsigned char* __restrict__ shared)
{
    if (gs_ccd_overflow(table, k, cap)) return;
    __shared__ unsigned long long block_adj[64];
    for (int r = threadIdx.x; r < k; r += blockDim.x) block_adj[r] = 0;
    __syncthreads();
    GS_CC_GRID_STRIDE(w, words) {
        for (int r = 0; r < k; ++r) {
            const unsigned a = __ldg(inbox + r * words + w);
            if (!a) continue;
            unsigned long long mask = 0;
            for (int s = r + 1; s < k; ++s)
                if (a & __ldg(inbox + s * words + w)) mask |= 1ULL << s;
            if (mask && (block_adj[r] & mask) != mask) atomicOr(block_adj + r, mask);
        }
    }
    __syncthreads();
    for (int r = threadIdx.x; r < k; r += blockDim.x)
        for (unsigned long long m = block_adj[r]; m; m &= m - 1) shared[r * k + __ffsll(m) - 1] = 1;
}

// What each pair's ends stand for in the merged forest: an end in this rank's range [lo, hi) its
// first layer (a giant root, or itself), any other end, and every unused slot of a block, `none`
// (the ranks' answers meet in an all-reduce min: every end has one owner).
template <typename L>
__global__ void graphsweep_ccd_reps(const L* __restrict__ pairs, const long long* __restrict__ table, int k,
                                    long long cap, const unsigned* __restrict__ inbox, long long words, long long lo,
                                    long long hi, L none, L* __restrict__ rep)
{
    GS_CC_GRID_STRIDE(t, 2 * cap * k) {
        const long long at = t % cap, used = table[2 * (t / (2 * cap))];
        const long long x = (long long)__ldg(pairs + t);
        int giant;
        rep[t] = at < used && x >= lo && x < hi ? (L)gs_ccd_first(inbox, k, words, table, x - lo, x, &giant) : none;
    }
}

// The forest's other nodes made roots before the links: every pair end's stand-in and every giant
// root (the links then run over these nodes only: each is a root or was linked under another).
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

// Every vertex of this rank's range [lo, hi) pointed at its root in the merged forest, after the
// links: a vertex in some giant under its first layer's root (each giant root's, climbed once a
// block); any other is a root of this rank's forest or a pair's end (made a root by seed, then
// linked), so it climbs from itself.  The climbs read only; each thread writes its own vertices.
template <typename L>
__global__ void graphsweep_ccd_settle(const unsigned* __restrict__ inbox, int k, long long words,
                                      const long long* __restrict__ table, long long cap, L* parent, long long lo,
                                      long long hi)
{
    if (gs_ccd_overflow(table, k, cap)) return;
    __shared__ long long giant_root[64];
    for (int r = threadIdx.x; r < k; r += blockDim.x) {
        long long g = table[2 * r + 1];
        if (g >= 0)
            for (long long up; (up = (long long)parent[g]) != g;) g = up;
        giant_root[r] = g;
    }
    __syncthreads();
    GS_CC_GRID_STRIDE(i, hi - lo) {
        const long long v = lo + i;
        int giant;
        gs_ccd_first(inbox, k, words, table, i, v, &giant);
        L root;
        if (giant >= 0) {
            root = (L)giant_root[giant];
        } else {
            root = (L)v;
            for (L up; (up = parent[root]) != root;) root = up;
        }
        parent[v] = root;
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
