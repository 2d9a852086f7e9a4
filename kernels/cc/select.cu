// cc.select's statistic (see select.py): of GS_SEL_SAMPLES sampled vertices, how many lie in a
// small component of nearby ids — one whose breadth-first search from the sample closes within
// GS_SEL_LEVELS levels and GS_SEL_LIMIT vertices, all within GS_SEL_SPAN of each other.  One warp
// a sample: a lane takes one frontier vertex and reads its row (up to GS_SEL_ROW entries at once,
// so a level costs about two dependent loads); a neighbour is new when it enters the warp's hash
// set in shared memory (a CAS into an open-addressed table twice the limit's size: the first lane
// wins, duplicates across lanes included), and new ones are appended to the frontier by a ballot.
// Each block writes its count to partial[blockIdx.x] (mapped host memory: the host reads it as
// soon as this kernel is done).
#include "cc/common.cuh"

#if !defined(GS_SEL_SAMPLES) || !defined(GS_SEL_LIMIT) || !defined(GS_SEL_LEVELS) || !defined(GS_SEL_WARPS) || \
    !defined(GS_SEL_ROW) || !defined(GS_SEL_SPAN)
#error "compile through kernels/cc/select.py, which defines the shared constants"
#endif

#define GS_SEL_TABLE (2 * GS_SEL_LIMIT)       // a power of two: never fuller than 3/4 (64 + 32 entries)

// Puts v into the warp's set; whether it was not there before.
template <typename S>
__device__ __forceinline__ bool gs_sel_insert(S* table, S v)
{
    unsigned h = gs_cc_mix((unsigned)v ^ (unsigned)((unsigned long long)v >> 32)) & (GS_SEL_TABLE - 1);
    for (;;) {
        const S old = gs_cc_cas(table + h, (S)-1, v);
        if (old == (S)-1) return true;
        if (old == v) return false;
        h = (h + 1) & (GS_SEL_TABLE - 1);
    }
}

template <typename O, typename S>
__global__ void __launch_bounds__(GS_SEL_WARPS * 32)
graphsweep_cc_select_small(const O* __restrict__ off, const S* __restrict__ idx, long long n, unsigned seed,
                           int* partial)
{
    __shared__ S list[GS_SEL_WARPS][GS_SEL_LIMIT];
    __shared__ S sets[GS_SEL_WARPS][GS_SEL_TABLE];
    __shared__ int small;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned sample = blockIdx.x * GS_SEL_WARPS + warp;
    S* queue = list[warp];
    S* table = sets[warp];
    if (threadIdx.x == 0) small = 0;
    for (int i = lane; i < GS_SEL_TABLE; i += 32) table[i] = (S)-1;
    const S root = (S)gs_cc_sample(sample, seed, GS_SEL_SAMPLES, n);
    __syncthreads();
    if (lane == 0) {
        queue[0] = root;
        gs_sel_insert(table, root);
    }
    __syncwarp();

    // Warp-uniform state: every lane holds the same count, head and verdict.
    int count = 1, head = 0, closed = 1;
    S lo = root, hi = root;                          // this lane's smallest and largest id found
    for (int level = 0; head < count; ++level) {
        if (level == GS_SEL_LEVELS) { closed = 0; break; }
        const int end = count;                       // this level's frontier is queue[head, end)
        for (int base = head; base < end && closed; base += 32) {
            O first = 0, last = 0;
            if (base + lane < end) {
                const S u = queue[base + lane];
                first = off[u];
                last = off[u + 1];
            }
            for (O at = first; __any_sync(0xffffffffu, at < last) && closed; at += GS_SEL_ROW) {
                S row[GS_SEL_ROW];
#pragma unroll
                for (int k = 0; k < GS_SEL_ROW; ++k) row[k] = at + k < last ? idx[at + k] : (S)-1;
#pragma unroll
                for (int k = 0; k < GS_SEL_ROW; ++k) {
                    const S v = row[k];
                    if (!__any_sync(0xffffffffu, v >= 0)) break;     // rows are read in order: no lane has more
                    const bool fresh = v >= 0 && gs_sel_insert(table, v);
                    const unsigned adds = __ballot_sync(0xffffffffu, fresh);
                    if (count + __popc(adds) > GS_SEL_LIMIT) { closed = 0; break; }
                    if (fresh) {
                        queue[count + __popc(adds & ((1u << lane) - 1))] = v;
                        lo = v < lo ? v : lo;
                        hi = v > hi ? v : hi;
                    }
                    count += __popc(adds);
                    __syncwarp();
                }
            }
        }
        if (!closed) break;
        head = end;
    }
    for (int d = 16; d > 0; d >>= 1) {
        const S l = __shfl_xor_sync(0xffffffffu, lo, d), h = __shfl_xor_sync(0xffffffffu, hi, d);
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    if (lane == 0 && closed && hi - lo < GS_SEL_SPAN) atomicAdd(&small, 1);
    __syncthreads();
    if (threadIdx.x == 0) partial[blockIdx.x] = small;
}
