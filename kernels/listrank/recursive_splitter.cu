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

// Where a walk step reads its node (weight w, successor nx) and writes the node's record
// (acc = weight before it in its sub-list, k = the sub-list).
//
// fs_beside (level 0's `records=separate`): succ is read and the 64-bit record written to an
// array of its own, in a DRAM sector the walk has not read: the L2 fetches it before it can
// write it back (the chase-with-store floor's pattern).
template <typename S>
struct fs_beside {
    const S* __restrict__ succ;
    gs_u64* __restrict__ rec;
    __device__ __forceinline__ void get(int j, gs_u32& w, int& nx) const
    {
        w = 1u;
        nx = (int)succ[j];
    }
    __device__ __forceinline__ void put(int j, gs_u32 acc, gs_u32 k) const { rec[j] = gs_pack(acc, k); }
};

// fs_over32 (level 0's `records=in-place`): the successors were copied into the rank array and
// the record (k << b) | acc overwrites the successor just read, in the sector that read brought
// into the L2: one DRAM read and one write-back a step.  The walk starts a new sub-list id before
// acc reaches 2^b (see fs_walk), so a record always fits.
struct fs_over32 {
    gs_u32* word;       // read and written through one pointer: never __restrict__
    int b;
    __device__ __forceinline__ void get(int j, gs_u32& w, int& nx) const
    {
        w = 1u;
        nx = (int)word[j];
    }
    __device__ __forceinline__ void put(int j, gs_u32 acc, gs_u32 k) const { word[j] = (k << b) | acc; }
};

// fs_over64 (the reduced lists): packed nodes (weight, next), each overwritten by its record.
struct fs_over64 {
    gs_u64* node;
    __device__ __forceinline__ void get(int j, gs_u32& w, int& nx) const
    {
        gs_u64 v = node[j];
        w = gs_lo(v);
        nx = (int)gs_hi(v);
    }
    __device__ __forceinline__ void put(int j, gs_u32 acc, gs_u32 k) const { node[j] = gs_pack(acc, k); }
};

__device__ __forceinline__ gs_u64 fs_now()
{
    gs_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Walk sub-lists until none is left: each thread starts on sub-list (thread id) and then takes
// the next unclaimed one from counter[0], in one flat loop so a lane that finishes early starts
// its next sub-list at once instead of idling until its warp's longest walk ends.
// A sub-list whose weight reaches `segment` before its end goes on under a new id, p +
// counter[1] (the reduced list has room for them); out[k] = (weight of k, next sub-list).
// A step stores its record only once its read has returned (after the splitter test, which
// needs the value): a store issued while the read of the same word is in flight made the
// in-place walk 2.2x slower on an H100 (docs/results/listrank-floor).
// Each thread stores when it ran out of work in exits[thread] (the walk's tail, a statistic).
template <class Node>
__device__ __forceinline__ void fs_walk(Node nd, gs_u64* __restrict__ out, gs_u32* __restrict__ counter,
                                        gs_u64* __restrict__ exits, int m, int log_c, int head, gs_u32 seed,
                                        gs_u32 segment)
{
    const gs_u32 p = (gs_u32)(((long long)m + (1LL << log_c) - 1) >> log_c);
    const gs_u32 threads = gridDim.x * blockDim.x;
    const gs_u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    gs_u32 k = tid;
    if (k >= p) return;
    int j = fs_pick(k, m, log_c, head, seed);
    gs_u32 acc = 0;
    while (true) {
        gs_u32 w;
        int nx;
        nd.get(j, w, nx);
        gs_u32 next = GS_NONE;
        bool goes_on = false;
        if (nx == j) {
            next = k;
        } else if (fs_pick((gs_u32)nx >> log_c, m, log_c, head, seed) == nx) {
            next = (gs_u32)nx >> log_c;
        } else if (acc + w == segment) {
            next = p + atomicAdd(counter + 1, 1u);
            goes_on = true;
        }
        nd.put(j, acc, k);
        acc += w;
        if (next == GS_NONE) {
            j = nx;
            continue;
        }
        out[k] = gs_pack(acc, next);
        acc = 0;
        if (goes_on) {
            k = next;
            j = nx;
            continue;
        }
        k = threads + atomicAdd(counter, 1u);
        if (k >= p) break;
        j = fs_pick(k, m, log_c, head, seed);
    }
    exits[tid] = fs_now();
}

#define FS_NO_SEGMENT 0xFFFFFFFFu   // weights stay below 2^31: no sub-list is cut

template <typename S>
__global__ void graphsweep_listrank_fs_walk_succ(const S* __restrict__ succ, gs_u64* __restrict__ rec,
                                                 gs_u64* __restrict__ out, gs_u32* __restrict__ counter,
                                                 gs_u64* __restrict__ exits, int m, int log_c, int head, gs_u32 seed)
{
    fs_walk(fs_beside<S>{succ, rec}, out, counter, exits, m, log_c, head, seed, FS_NO_SEGMENT);
}

extern "C" __global__ void graphsweep_listrank_fs_walk_over32(gs_u32* word, int b, gs_u64* __restrict__ out,
                                                              gs_u32* __restrict__ counter, gs_u64* __restrict__ exits,
                                                              int m, int log_c, int head, gs_u32 seed)
{
    fs_walk(fs_over32{word, b}, out, counter, exits, m, log_c, head, seed, 1u << b);
}

extern "C" __global__ void graphsweep_listrank_fs_walk_over64(gs_u64* node, gs_u64* __restrict__ out,
                                                              gs_u32* __restrict__ counter, gs_u64* __restrict__ exits,
                                                              int m, int log_c, int head, gs_u32 seed)
{
    fs_walk(fs_over64{node}, out, counter, exits, m, log_c, head, seed, FS_NO_SEGMENT);
}

// Level 0's successors where the in-place walk reads them, 32-bit in the rank array (int64
// ones; int32 ones are copied as they are); and the reduced list's room for continued
// sub-lists, [p, cap), as tails of weight 0 until a walk writes one.
template <typename S>
__global__ void graphsweep_listrank_fs_load32(const S* __restrict__ succ, gs_u32* __restrict__ word, long long m)
{
    GS_GRID_STRIDE(i, m) word[i] = (gs_u32)succ[i];
}

extern "C" __global__ void graphsweep_listrank_fs_spare_tails(gs_u64* __restrict__ node, long long p, long long cap)
{
    GS_GRID_STRIDE(i, cap - p) node[p + i] = gs_pack(0u, (gs_u32)(p + i));
}

// The first reduced list into the L2 before its walk: the level-0 walk wrote it over
// milliseconds and most of it has left the L2 since; its walk would fetch it from DRAM a random
// 8-byte node at a time.
extern "C" __global__ void graphsweep_listrank_fs_prefetch(const char* __restrict__ base, long long bytes)
{
    GS_GRID_STRIDE(line, (bytes + 127) >> 7) asm volatile("prefetch.global.L2 [%0];" ::"l"(base + (line << 7)));
}

// A reduced level back from its records: incl[j] = upper[owner] - weight before j (common.cuh's
// graphsweep_listrank_expand, but the spare nodes that no walk reached hold no record: the min
// keeps their (unused) gather inside upper).
extern "C" __global__ void graphsweep_listrank_fs_expand(const gs_u64* __restrict__ rec,
                                                         const gs_u32* __restrict__ upper, gs_u32* __restrict__ incl,
                                                         long long p, long long m)
{
    GS_GRID_STRIDE(j, m) {
        gs_u64 r = rec[j];
        incl[j] = upper[min((long long)gs_hi(r), p - 1)] - gs_lo(r);
    }
}

// Level 0 back from its 32-bit records, in place: rank = (sub-list's inclusive weight) - acc - 1.
extern "C" __global__ void graphsweep_listrank_fs_expand32(gs_u32* __restrict__ word, const gs_u32* __restrict__ upper,
                                                           int b, long long m)
{
    const gs_u32 mask = (1u << b) - 1u;
    GS_GRID_STRIDE(j, m) {
        gs_u32 r = word[j];
        word[j] = upper[r >> b] - (r & mask) - 1u;
    }
}

// The last (short) list ranked by one block: Wyllie's jumping on (value, next) in shared memory,
// a __syncthreads between the gathers and the writes of a round, all in one launch (a
// multi-launch Wyllie spends ~4 us a round on launches).  out[i] = weight strictly after i,
// plus i's own weight when `inclusive` (reduced nodes), or links to the tail (a whole short list).
#define FS_BASE_NODES 6144        // 48 KB of static shared memory
#define FS_BASE_THREADS 1024
#define FS_BASE_ITEMS (FS_BASE_NODES / FS_BASE_THREADS)

template <class Reader>
__device__ __forceinline__ void fs_base(Reader rd, gs_u32* __restrict__ out, int m, int rounds, bool inclusive)
{
    __shared__ gs_u32 val[FS_BASE_NODES];
    __shared__ gs_u32 nxt[FS_BASE_NODES];
    gs_u32 v[FS_BASE_ITEMS], s[FS_BASE_ITEMS];
    for (int r = 0; r < FS_BASE_ITEMS; ++r) {
        int i = threadIdx.x + r * FS_BASE_THREADS;
        if (i < m) {
            gs_u32 w;
            int nx;
            rd.get(i, w, nx);
            val[i] = w;
            nxt[i] = (gs_u32)nx;
        }
    }
    __syncthreads();
    for (int r = 0; r < FS_BASE_ITEMS; ++r) {   // value = the weight of the next node (0 at a tail)
        int i = threadIdx.x + r * FS_BASE_THREADS;
        if (i < m) v[r] = nxt[i] == (gs_u32)i ? 0u : val[nxt[i]];
    }
    __syncthreads();
    for (int r = 0; r < FS_BASE_ITEMS; ++r) {
        int i = threadIdx.x + r * FS_BASE_THREADS;
        if (i < m) val[i] = v[r];
    }
    __syncthreads();
    for (int round = 0; round < rounds; ++round) {
        for (int r = 0; r < FS_BASE_ITEMS; ++r) {
            int i = threadIdx.x + r * FS_BASE_THREADS;
            if (i < m) {
                gs_u32 a = nxt[i];
                v[r] = val[i] + val[a];
                s[r] = nxt[a];
            }
        }
        __syncthreads();
        for (int r = 0; r < FS_BASE_ITEMS; ++r) {
            int i = threadIdx.x + r * FS_BASE_THREADS;
            if (i < m) {
                val[i] = v[r];
                nxt[i] = s[r];
            }
        }
        __syncthreads();
    }
    for (int r = 0; r < FS_BASE_ITEMS; ++r) {
        int i = threadIdx.x + r * FS_BASE_THREADS;
        if (i < m) {
            gs_u32 w = 0;
            int nx;
            if (inclusive) rd.get(i, w, nx);
            out[i] = val[i] + w;
        }
    }
}

template <typename S>
__global__ void __launch_bounds__(FS_BASE_THREADS) graphsweep_listrank_fs_base_succ(const S* __restrict__ succ,
                                                                                    gs_u32* __restrict__ rank, int m,
                                                                                    int rounds)
{
    fs_base(gs_succ_reader<S>{succ}, rank, m, rounds, false);
}

extern "C" __global__ void __launch_bounds__(FS_BASE_THREADS)
graphsweep_listrank_fs_base_nodes(const gs_u64* __restrict__ node, gs_u32* __restrict__ incl, int m, int rounds)
{
    fs_base(gs_node_reader{node}, incl, m, rounds, true);
}
