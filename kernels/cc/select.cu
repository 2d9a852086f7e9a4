// cc.select's statistic (see select.py): of GS_SEL_SAMPLES sampled vertices, how many lie in a
// small component — one whose breadth-first search from the sample closes within GS_SEL_LEVELS
// levels and GS_SEL_LIMIT vertices.  One warp a sample, the search's vertices in shared memory;
// a lane takes one frontier vertex and reads its row (up to GS_SEL_ROW entries at once, so a level
// costs about two dependent loads), new neighbours are deduplicated across the warp and appended.
// Each block writes its count to partial[blockIdx.x] (mapped host memory: the host reads it as
// soon as this kernel is done, without a copy queued behind later work).
#include "cc/common.cuh"

#if !defined(GS_SEL_SAMPLES) || !defined(GS_SEL_LIMIT) || !defined(GS_SEL_LEVELS) || !defined(GS_SEL_WARPS) || \
    !defined(GS_SEL_ROW)
#error "compile through kernels/cc/select.py, which defines the shared constants"
#endif

// Whether v is among the first `count` entries of the search (every lane scans the warp's list).
template <typename S>
__device__ __forceinline__ bool gs_sel_seen(const S* seen, int count, S v)
{
    for (int i = 0; i < count; ++i)
        if (seen[i] == v) return true;
    return false;
}

template <typename O, typename S>
__global__ void __launch_bounds__(GS_SEL_WARPS * 32)
graphsweep_cc_select_small(const O* __restrict__ off, const S* __restrict__ idx, long long n, unsigned seed,
                           int* partial)
{
    __shared__ S seen[GS_SEL_WARPS][GS_SEL_LIMIT];
    __shared__ int small;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned sample = blockIdx.x * GS_SEL_WARPS + warp;
    if (threadIdx.x == 0) small = 0;
    S* list = seen[warp];
    if (lane == 0) list[0] = (S)gs_cc_sample(sample, seed, GS_SEL_SAMPLES, n);
    __syncthreads();

    // Warp-uniform state: every lane holds the same count, head and verdict.
    int count = 1, head = 0, closed = 1;
    for (int level = 0; head < count; ++level) {
        if (level == GS_SEL_LEVELS) { closed = 0; break; }
        const int end = count;                       // this level's frontier is list[head, end)
        for (int base = head; base < end && closed; base += 32) {
            const bool mine = base + lane < end;
            O first = 0, last = 0;
            if (mine) {
                const S u = list[base + lane];
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
                    bool fresh = v >= 0 && !gs_sel_seen(list, count, v);
                    // The same new neighbour read by several lanes is appended once, by the lowest.
                    const unsigned same = __match_any_sync(0xffffffffu, fresh ? v : (S)-1);
                    fresh = fresh && (__ffs(same) - 1 == lane);
                    const unsigned adds = __ballot_sync(0xffffffffu, fresh);
                    if (count + __popc(adds) > GS_SEL_LIMIT) { closed = 0; break; }
                    if (fresh) list[count + __popc(adds & ((1u << lane) - 1))] = v;
                    count += __popc(adds);
                    __syncwarp();
                }
            }
        }
        if (!closed) break;
        head = end;
    }
    if (lane == 0 && closed) atomicAdd(&small, 1);
    __syncthreads();
    if (threadIdx.x == 0) partial[blockIdx.x] = small;
}
