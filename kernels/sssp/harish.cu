// sssp.harish: Harish & Narayanan's two-kernel SSSP (HiPC'07 Algs 3-5), one thread per vertex.
//
// cost C and updating cost U are packed (dist, parent) words.  Kernel 1 relaxes the out-edges of
// every masked vertex into U; kernel 2 takes U into C where it is shorter, masks those vertices for
// the next iteration and resets U to C.  The paper's "U[v] > C[u] + w then U[v] = C[u] + w" is a
// read-then-write race (8800 GTX had no atomics; the paper names atomics as the fix): here it is
// one 64-bit atomicMin, which also keeps a parent.  U may take an equal distance with a smaller
// parent, but C changes only on a strictly shorter U, so parents still form a tree.
#include "sssp/sssp.cuh"

// ctl[0]: a mask was set (the paper's flag); ctl[1]: vertices masked; ctl[2..3]: their out-edges
// (64-bit), for the next iteration's byte model.
extern "C" __global__ void graphsweep_sssp_harish_relax(const long long* __restrict__ off, const int* __restrict__ idx,
                                                        const int* __restrict__ wt, unsigned char* __restrict__ mask,
                                                        const sp_u64* __restrict__ cost, sp_u64* __restrict__ upd,
                                                        sp_u32* __restrict__ ctl, long long n)
{
    SP_GRID_STRIDE(u, n) {
        if (!mask[u]) continue;
        mask[u] = 0;
        const sp_u64 du = sp_dist(cost[u]);
        for (long long e = off[u], end = off[u + 1]; e < end; ++e) {
            const sp_u64 nd = du + (sp_u32)wt[e];
            if (nd >= SP_INF) {
                ctl[4] = 1;  // overflow: the launcher refuses the input
                continue;
            }
            atomicMin(upd + idx[e], sp_pack((sp_u32)nd, (sp_u32)u));
        }
    }
}

extern "C" __global__ void graphsweep_sssp_harish_update(const long long* __restrict__ off, unsigned char* __restrict__ mask,
                                                         sp_u64* __restrict__ cost, sp_u64* __restrict__ upd,
                                                         sp_u32* __restrict__ ctl, long long n)
{
    // Grid-stride with a warp-uniform trip count (the loop test uses the warp's first lane), so the
    // warp-wide counts below see all 32 lanes.
    const long long stride = (long long)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & 31;
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v - lane < n; v += stride) {
        bool set = false;
        long long deg = 0;
        if (v < n) {
            const sp_u64 c = cost[v], u = upd[v];
            if (sp_dist(u) < sp_dist(c)) {
                cost[v] = u;
                mask[v] = 1;
                set = true;
                deg = off[v + 1] - off[v];
            } else {
                upd[v] = c;
            }
        }
        const unsigned ballot = __ballot_sync(SP_FULL, set);
        if (ballot) {
            long long edges = deg;
#pragma unroll
            for (int o = 16; o; o >>= 1) edges += __shfl_down_sync(SP_FULL, edges, o);
            if (lane == 0) {
                ctl[0] = 1;
                atomicAdd(ctl + 1, (sp_u32)__popc(ballot));
                atomicAdd((sp_u64*)(ctl + 2), (sp_u64)edges);
            }
        }
    }
}
