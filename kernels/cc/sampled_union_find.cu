// cc.sampled-union-find: union-find over the CSR (see sampled_union_find.py):
// init -> probe -> flatten (long chains) -> link2 -> largest -> compress (skip mode) -> final (+ spread)
// -> label.  How an edge is linked is state[5], set by the probe: 0 = find both roots with path
// halving and CAS (ECL-CC), 1 = Atomic-Hook from the two parents without compression (004 Fig. 3).
// Compiled with GS_CC_LOAD_CACHED, loads of `parent` may hit the SM's L1 (common.cuh).  Rows are sorted, so a
// vertex's neighbours smaller than itself are a prefix of its row.  CSR offsets have type O: int
// when the CSR has fewer than 2^31 entries (a narrowed copy, half the bytes of every pass over
// them), else long long.
#include "cc/common.cuh"

// state[0]: the root of the sampled largest tree, or -1 (ECL mode: no tree is skipped);
// state[1]: how many of the samples it holds; state[2]: chunks queued for the spread kernel;
// state[3], state[4]: edges linked by link2 and by final + spread (statistics, one atomic per warp);
// state[5]: 1 to link by Atomic-Hook, 0 by finds; state[6]: steps the probe's samples climbed;
// state[7]: 1 when init's chains are long (the flatten pass runs).
// GS_SUF_SAMPLES (the largest kernel's block), GS_SUF_CHUNK (edges of a long row per queued chunk,
// one warp each) and GS_SUF_PROBE_STEPS (the probe stops a climb after this many steps) come with
// -D from sampled_union_find.py, which shares them.
#if !defined(GS_SUF_SAMPLES) || !defined(GS_SUF_CHUNK) || !defined(GS_SUF_PROBE_STEPS)
#error "compile through kernels/cc/sampled_union_find.py, which defines the shared constants"
#endif

template <typename L>
__device__ __forceinline__ void gs_suf_join(L a, L b, L* parent, int hook)
{
    if (hook) gs_cc_hook(a, b, parent);
    else gs_cc_link(a, b, parent);
}

// Rows: the passes over rows (init, link2, final) take the `rows` rows from vertex `lo` on, `off`
// indexed by vertex id: the whole CSR (lo = 0, rows = n), or one slice of a partitioned graph (its
// rows' offsets passed as a pointer moved back by lo, so off[v] is v's row; ids global; the forest
// over every vertex: kernels/cc/distributed.py).

// init: parent[v] = v's smallest neighbour if smaller than v, else v.  This links, with no random
// access, every edge (a, b), a < b, in which a is b's smallest neighbour.  Also clears the state
// (no tree to skip until the largest kernel finds one).
template <typename O, typename S, typename L>
__global__ void graphsweep_cc_suf_init(const O* __restrict__ off, const S* __restrict__ idx, L* __restrict__ parent,
                                       long long* __restrict__ state, long long rows, long long lo)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) { state[0] = -1; state[1] = state[2] = state[3] = state[4] = 0; }
    GS_CC_GRID_STRIDE(i, rows) {
        const long long v = lo + i;
        long long b = off[v];
        L p = (L)v;
        if (b < off[v + 1]) {
            L u = (L)idx[b];
            if (u < p) p = u;
        }
        parent[v] = p;
    }
}

// link2: hook v with its second neighbour when that is smaller than v, so every edge (a, b), a < b,
// in which a is one of b's two smallest neighbours is now linked, exactly once.  `both` (a slice of
// a partitioned graph, whose larger ends' rows may be another rank's): the first two neighbours
// whatever their order — without it the slice of the smallest ids links almost nothing here, and
// its forest has no tree worth skipping (kernels/cc/distributed.py).
template <typename O, typename S, typename L>
__global__ void graphsweep_cc_suf_link2(const O* __restrict__ off, const S* __restrict__ idx, L* parent,
                                        long long* __restrict__ state, long long rows, long long lo, int both)
{
    const int hook = (int)state[5];
    long long links = 0;
    GS_CC_GRID_STRIDE(i, rows) {
        const long long v = lo + i;
        long long b = off[v], e = off[v + 1];
        if (both && e > b && (long long)idx[b] > v) {
            gs_suf_join((L)v, (L)idx[b], parent, hook);
            links++;
        }
        if (e - b >= 2) {
            L u = (L)idx[b + 1];
            if (both || u < (L)v) {
                gs_suf_join((L)v, u, parent, hook);
                links++;
            }
        }
    }
    gs_cc_count(state + 3, links);
}

// compress: parent[v] = the root of v.  No hooks run meanwhile, so a read-only climb finds the
// root; only v's own entry is written (a path-halving store into another vertex could overwrite
// its finished label with a mere ancestor).  Threads take v in increasing order and parent[v] < v,
// so the parent is usually finished already: one dependent read.  `when`: 0 always; 1 only if the
// final pass runs in skip mode (which checks parent[v] == L); 2 only if the probe found init's
// chains long (flatten: later finds then start one step from a root).
template <typename L>
__global__ void graphsweep_cc_suf_compress(L* parent, long long n, const long long* __restrict__ state, int when)
{
    if ((when == 1 && state[0] < 0) || (when == 2 && !state[7])) return;
    GS_CC_GRID_STRIDE(v, n) {
        L p = parent[v];
        if (p == (L)v) continue;
        L g = parent[p];
        if (g == p) continue;
        L q;
        while ((q = parent[g]) != g) g = q;
        parent[v] = g;
    }
}

// probe (one block of GS_SUF_SAMPLES threads), right after init: how far random vertices climb
// init's trees to their roots (at most GS_SUF_PROBE_STEPS steps each).  Ids with locality (a
// grid's row-major ids: each vertex's smallest neighbour is the one above it) make long chains;
// random ids make short ones (a descending run of a random order, under two steps on average).
// Long chains are flattened before any link (state[7]) and never linked by Atomic-Hook, which
// climbs them uncompressed edge after edge.  link: 0 find, 1 hook, 2 auto = hook when `sparse`
// (average degree below 4, from the host) and the chains are short.
template <typename L>
__global__ void graphsweep_cc_suf_probe(const L* parent, long long n, unsigned seed, int link, int sparse,
                                        long long long_steps, long long* __restrict__ state)
{
    __shared__ unsigned long long total;
    const int t = threadIdx.x;
    if (t == 0) total = 0;
    __syncthreads();
    if (n > 0) {
        unsigned long long h = ((unsigned long long)gs_cc_mix(t * 0x9E3779B9u ^ seed ^ 0x5bd1e995u) << 32) |
                               gs_cc_mix((t + GS_SUF_SAMPLES) * 0x9E3779B9u ^ seed);
        L v = (L)(h % (unsigned long long)n);
        L p = gs_cc_load(parent + v);
        int steps = 0;
        while (p != v && steps < GS_SUF_PROBE_STEPS) {
            v = p;
            p = gs_cc_load(parent + v);
            steps++;
        }
        unsigned long long sum = (unsigned long long)steps;
        for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, d);
        if ((t & 31) == 0) atomicAdd(&total, sum);
    }
    __syncthreads();
    if (t == 0) {
        const int longer = (long long)total > long_steps;
        state[6] = (long long)total;
        state[7] = longer;
        state[5] = link == 2 ? (sparse && !longer) : link;
    }
}

// largest (one block of GS_SUF_SAMPLES threads): the roots of the neighbours in sampled CSR slots
// (a vertex drawn with probability proportional to its degree), and the most frequent of them.
// state[0] = that root when it holds at least min_count samples, else -1.  The CPU twin draws the
// same slots (sampled_union_find.py: sample_slot).
template <typename S, typename L>
__global__ void graphsweep_cc_suf_largest(const S* __restrict__ idx, L* parent, long long nnz, unsigned seed,
                                          int min_count, long long* __restrict__ state)
{
    __shared__ L roots[GS_SUF_SAMPLES];
    __shared__ int warp_count[GS_SUF_SAMPLES / 32];
    __shared__ L warp_root[GS_SUF_SAMPLES / 32];
    const int t = threadIdx.x;
    if (nnz == 0) {
        if (t == 0) { state[0] = -1; state[1] = 0; }
        return;
    }
    L r = gs_cc_find((L)idx[gs_cc_sample(t, seed, GS_SUF_SAMPLES, nnz)], parent);
    roots[t] = r;
    __syncthreads();
    int count = 0;
    for (int j = 0; j < GS_SUF_SAMPLES; j++) count += (roots[j] == r);
    // block arg-max of (count, -root): warps first, then warp 0 over the warps.
    for (int d = 16; d > 0; d >>= 1) {
        int c = __shfl_down_sync(0xffffffffu, count, d);
        L q = __shfl_down_sync(0xffffffffu, r, d);
        if (c > count || (c == count && q < r)) { count = c; r = q; }
    }
    if ((t & 31) == 0) { warp_count[t >> 5] = count; warp_root[t >> 5] = r; }
    __syncthreads();
    if (t < 32) {
        count = warp_count[t];
        r = warp_root[t];
        for (int d = 16; d > 0; d >>= 1) {
            int c = __shfl_down_sync(0xffffffffu, count, d);
            L q = __shfl_down_sync(0xffffffffu, r, d);
            if (c > count || (c == count && q < r)) { count = c; r = q; }
        }
        if (t == 0) {
            state[0] = count >= min_count ? (long long)r : -1LL;
            state[1] = count;
        }
    }
}

// Which slots of v's row [b, e) the final pass links.  Skip mode: all but the ones init and link2
// linked from v (its first two slots, where smaller than v).  ECL mode: slots from b + first on
// (first = 2 after link2, 1 when no link2 ran) whose neighbour is smaller than v (each remaining
// edge once, from its larger end); the row is sorted, so the caller stops at the first neighbour >= v.
// first = 0: every slot in either mode (a partitioned graph's rounds after the forests' merge, which
// may have undone a link made here).
template <typename S>
__device__ __forceinline__ long long gs_suf_start(const S* __restrict__ idx, long long v, long long b, long long e,
                                                  bool skip_mode, int first)
{
    if (!skip_mode || first == 0) return b + first;
    long long s = b;
    if (s < e && (long long)idx[s] < v) s++;
    if (s < e && s == b + 1 && (long long)idx[s] < v) s++;
    return s;
}

// The end of v's neighbours below v among the sorted slots [s, e) of its row: a long row in ECL
// mode links only those.
template <typename S>
__device__ __forceinline__ long long gs_suf_below(const S* __restrict__ idx, long long v, long long s, long long e)
{
    while (s < e) {
        long long mid = (s + e) >> 1;
        if ((long long)idx[mid] < v) s = mid + 1; else e = mid;
    }
    return s;
}

// Queue `slots` slots of v's row for the spread kernel, in chunks of GS_SUF_CHUNK.
template <typename L>
__device__ __forceinline__ void gs_suf_queue(long long* state, L* __restrict__ chunk_vertex,
                                             int* __restrict__ chunk_index, long long v, long long slots)
{
    long long chunks = (slots + GS_SUF_CHUNK - 1) / GS_SUF_CHUNK;
    long long at = (long long)atomicAdd((unsigned long long*)(state + 2), (unsigned long long)chunks);
    for (long long k = 0; k < chunks; k++) {
        chunk_vertex[at + k] = (L)v;
        chunk_index[at + k] = (int)k;
    }
}

// final: link the edges not linked yet.  Skip mode: a vertex of the largest tree has nothing to
// do (after the compress it points at the root; the other end of any edge leaving the tree links
// that edge itself).  ECL mode: the trees are as link2 left them (a link climbs them).  A row with more than thread_max slots to link is cut into chunks of
// GS_SUF_CHUNK slots queued for the spread kernel, so one long row does not hold up its warp.
template <typename O, typename S, typename L>
__global__ void graphsweep_cc_suf_final(const O* __restrict__ off, const S* __restrict__ idx, L* parent,
                                        long long* state, L* __restrict__ chunk_vertex, int* __restrict__ chunk_index,
                                        long long rows, int thread_max, int first, long long lo)
{
    const int hook = (int)state[5];
    const long long big = state[0];
    const bool skip_mode = big >= 0;
    long long links = 0;
    GS_CC_GRID_STRIDE(i, rows) {
        const long long v = lo + i;
        if (skip_mode && (long long)gs_cc_load(parent + v) == big) continue;
        long long b = off[v], e = off[v + 1];
        if (b == e) continue;
        long long s = gs_suf_start(idx, v, b, e, skip_mode, first);
        if (!skip_mode && e - s > thread_max) e = gs_suf_below(idx, v, s, e);
        if (s >= e) continue;
        if (e - s > thread_max) {
            gs_suf_queue(state, chunk_vertex, chunk_index, v, e - s);
            continue;
        }
        for (long long i = s; i < e; i++) {
            L u = (L)idx[i];
            if (!skip_mode && u >= (L)v) break;
            gs_suf_join((L)v, u, parent, hook);
            links++;
        }
    }
    gs_cc_count(state + 4, links);
}

// final, a warp per 32 consecutive vertices (rows=warp): the same links as the thread-per-vertex
// pass, but the lanes take the 32 rows' remaining slots in turn, one slot each, as if the rows
// were one (a scan of their lengths says which row a slot is in).  Reads of the CSR are coalesced
// and no lane idles while another works through a longer row: on sparse graphs with many short
// rows (the rows of many small components) the pass is edge-parallel.  Long rows are queued for
// the spread kernel as in the thread-per-vertex pass.  Called by whole warps (blockDim % 32 == 0).
template <typename O, typename S, typename L>
__global__ void graphsweep_cc_suf_final_warp(const O* __restrict__ off, const S* __restrict__ idx, L* parent,
                                             long long* state, L* __restrict__ chunk_vertex,
                                             int* __restrict__ chunk_index, long long rows, int thread_max, int first,
                                             long long lo)
{
    const int hook = (int)state[5];
    const long long big = state[0];
    const bool skip_mode = big >= 0;
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    long long links = 0;
    for (long long g = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; g * 32 < rows; g += warps) {
        const long long v = lo + g * 32 + lane;
        long long s = 0, e = 0;
        if (g * 32 + lane < rows && !(skip_mode && (long long)gs_cc_load(parent + v) == big)) {
            const long long b = off[v];
            e = off[v + 1];
            s = b < e ? gs_suf_start(idx, v, b, e, skip_mode, first) : e;
            if (!skip_mode && e - s > thread_max) e = gs_suf_below(idx, v, s, e);
            if (e - s > thread_max) {
                gs_suf_queue(state, chunk_vertex, chunk_index, v, e - s);
                e = s;
            }
            if (e < s) e = s;
        }
        // inclusive scan of the row lengths: lane j's slots are [end_j - len_j, end_j) of the 32 rows'
        int end = (int)(e - s);
        for (int d = 1; d < 32; d <<= 1) {
            int x = __shfl_up_sync(0xffffffffu, end, d);
            if (lane >= d) end += x;
        }
        const int total = __shfl_sync(0xffffffffu, end, 31);
        for (int base = 0; base < total; base += 32) {
            const int k = base + lane;
            int row = 0;   // the first lane whose rows end past k
            for (int step = 16; step > 0; step >>= 1) {
                int probe = __shfl_sync(0xffffffffu, end, row + step - 1);
                if (probe <= k) row += step;
            }
            const int row_end = __shfl_sync(0xffffffffu, end, row);
            const int row_len = __shfl_sync(0xffffffffu, (int)(e - s), row);
            const long long row_start = __shfl_sync(0xffffffffu, s, row);
            if (k < total) {
                const L w = (L)(lo + g * 32 + row);
                const L u = (L)idx[row_start + (k - (row_end - row_len))];
                if (skip_mode || u < w) {
                    gs_suf_join(w, u, parent, hook);
                    links++;
                }
            }
        }
    }
    gs_cc_count(state + 4, links);
}

// spread: one warp per queued chunk of a long row; the lanes take its slots in turn.
template <typename O, typename S, typename L>
__global__ void graphsweep_cc_suf_spread(const O* __restrict__ off, const S* __restrict__ idx, L* parent,
                                         long long* __restrict__ state, const L* __restrict__ chunk_vertex,
                                         const int* __restrict__ chunk_index, int first)
{
    const int hook = (int)state[5];
    long long links = 0;
    const bool skip_mode = state[0] >= 0;
    const long long chunks = state[2];
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    for (long long c = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; c < chunks; c += warps) {
        long long v = (long long)chunk_vertex[c];
        long long b = off[v], e = off[v + 1];
        long long s = gs_suf_start(idx, v, b, e, skip_mode, first) + (long long)chunk_index[c] * GS_SUF_CHUNK;
        long long stop = s + GS_SUF_CHUNK < e ? s + GS_SUF_CHUNK : e;
        for (long long i = s + lane; i < stop; i += 32) {
            L u = (L)idx[i];
            if (!skip_mode && u >= (L)v) break;
            gs_suf_join((L)v, u, parent, hook);
            links++;
        }
    }
    gs_cc_count(state + 4, links);
}
