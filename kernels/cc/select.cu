// cc.select's statistic (see select.py): of GS_SEL_SAMPLES sampled vertices, how many lie in a
// small component — one whose breadth-first search from the sample closes within GS_SEL_LEVELS
// levels and GS_SEL_LIMIT vertices, whatever their ids.  One warp
// a sample: a lane takes one frontier vertex and reads its row (up to GS_SEL_ROW entries at once,
// so a level costs about two dependent loads); a neighbour is new when it enters the warp's hash
// set in shared memory (a CAS into an open-addressed table twice the limit's size: the first lane
// wins, duplicates across lanes included), and new ones are appended to the frontier at each
// lane's place in a prefix sum of the new entries.
// Each block writes its count to partial[blockIdx.x].
#include "cc/common.cuh"

#if !defined(GS_SEL_SAMPLES) || !defined(GS_SEL_LIMIT) || !defined(GS_SEL_LEVELS) || !defined(GS_SEL_WARPS) || \
    !defined(GS_SEL_ROW)
#error "compile through kernels/cc/select.py, which defines the shared constants"
#endif

// The set's slots: a power of two, never more than 5/8 full (a search stops past LIMIT vertices,
// but one step of the warp may insert up to 32 x ROW new entries first).
#define GS_SEL_TABLE 512
static_assert((GS_SEL_TABLE & (GS_SEL_TABLE - 1)) == 0 && GS_SEL_TABLE >= GS_SEL_LIMIT + 32 * GS_SEL_ROW,
              "the hash set must hold a search's entries with room to spare");

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
            for (O at = first; __any_sync(0xffffffffu, at < last); at += GS_SEL_ROW) {
                // This lane's next entries, each put into the set; the new ones go to the
                // frontier at this lane's place in a warp-wide prefix sum of new entries.
                S row[GS_SEL_ROW];
#pragma unroll
                for (int k = 0; k < GS_SEL_ROW; ++k) row[k] = at + k < last ? idx[at + k] : (S)-1;
                unsigned fresh = 0;
#pragma unroll
                for (int k = 0; k < GS_SEL_ROW; ++k)
                    if (row[k] >= 0 && gs_sel_insert(table, row[k])) fresh |= 1u << k;
                const int mine = __popc(fresh);
                int before = mine;                           // inclusive prefix sum over the lanes
                for (int d = 1; d < 32; d <<= 1) {
                    const int up = __shfl_up_sync(0xffffffffu, before, d);
                    if (lane >= d) before += up;
                }
                const int adds = __shfl_sync(0xffffffffu, before, 31);
                if (count + adds > GS_SEL_LIMIT) { closed = 0; break; }
                int at_queue = count + before - mine;
#pragma unroll
                for (int k = 0; k < GS_SEL_ROW; ++k) {
                    if (fresh >> k & 1u) queue[at_queue++] = row[k];
                }
                count += adds;
                __syncwarp();
            }
        }
        if (!closed) break;
        head = end;
    }
    if (lane == 0 && closed) atomicAdd(&small, 1);
    __syncthreads();
    if (threadIdx.x == 0) partial[blockIdx.x] = small;
}
