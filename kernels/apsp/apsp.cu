// APSP kernels: the distance matrix (int32, AP_INF = 2^30 - 1 for "no path"), Harish's one-launch-
// per-k Floyd-Warshall, the blocked (tiled) Floyd-Warshall, and one SSSP per thread block for the
// repeated-SSSP rows.
//
// AP_INF + AP_INF < 2^31, so a + b never overflows for entries in [0, AP_INF]; the launchers refuse
// graphs whose distances could reach AP_INF ((V - 1) x the largest weight), so "min(c, a + b)" needs
// no saturation: a candidate through an unreachable entry is >= AP_INF >= c and never wins.
#include "sssp/sssp.cuh"

#define AP_INF 0x3FFFFFFF

// One min-plus step: min(c, a + b).  Hopper's DPX turns it into one VIADDMNMX.
__device__ __forceinline__ int ap_addmin(int a, int b, int c) { return __viaddmin_s32(a, b, c); }

// ---------------------------------------------------------------------------------------------
// The matrix: 0 on the diagonal, AP_INF elsewhere, then each edge's lightest weight (atomicMin, so
// duplicates keep the smallest; a self-loop never beats the diagonal's 0).

extern "C" __global__ void graphsweep_apsp_fill(int* __restrict__ mat, long long rows, long long stride)
{
    SP_GRID_STRIDE(e, rows * stride) {
        const long long i = e / stride, j = e - i * stride;
        mat[e] = i == j ? 0 : AP_INF;
    }
}

template <typename I>
__global__ void graphsweep_apsp_edges(int* __restrict__ mat, long long stride, const I* __restrict__ src,
                                      const I* __restrict__ dst, const int* __restrict__ w, long long m, int both)
{
    SP_GRID_STRIDE(e, m) {
        const long long u = src[e], v = dst[e];
        atomicMin(mat + u * stride + v, w[e]);
        if (both) atomicMin(mat + v * stride + u, w[e]);
    }
}

// Unreachable pairs as -1 (the output's convention).
extern "C" __global__ void graphsweep_apsp_unpack(int* __restrict__ mat, long long total)
{
    SP_GRID_STRIDE(e, total) {
        if (mat[e] >= AP_INF) mat[e] = -1;
    }
}

// ---------------------------------------------------------------------------------------------
// apsp.floyd-warshall (Harish & Narayanan Alg. 6): one thread per (i, j), one launch per k.  Row k
// and column k do not change during step k (A[k][k] = 0), so the update is in place.

extern "C" __global__ void graphsweep_apsp_fw_step(int* __restrict__ mat, long long V, long long k)
{
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
    if (i >= V || j >= V) return;
    const int via = mat[i * V + k] + mat[k * V + j];
    int* c = mat + i * V + j;
    if (via < *c) *c = via;
}

// ---------------------------------------------------------------------------------------------
// apsp.blocked-floyd-warshall: k-blocks of FB = 128 vertices, the matrix in 128 x 128 tiles.
// Round kb (panel p0 = 128 kb):
//   1. the diagonal tile (kb, kb) is closed by Floyd-Warshall over its 128 k (one block, the tile in
//      shared memory);
//   2. the other tiles of row kb and column kb become min-plus products with the closed diagonal
//      D*: T = D* (x) T and T = T (x) D*.  No sequential k is needed: a path from the k-block to a
//      vertex outside leaves it after its last k-block vertex x, so its length is D*[r][x] + T[x][c]
//      with T from before the round; D*[r][r] = 0 keeps T's own value;
//   3. every tile outside row and column kb takes min(A, column panel (x) row panel).
// Phases 2 and 3 share one min-plus tile routine: C (128 x 128) = min(C, A (128 x 128) (x) B), 256
// threads each holding an 8 x 8 block of C in registers, A and B through shared memory 32 k at a
// time (A transposed), each k costing a thread 4 LDS.128 for 64 VIADDMNMX.  A block reads only
// its own C as A or B in phase 2, and phase 3 never writes the panels it reads, so all is in place.
// The matrix is padded to a multiple of 128 (padding rows and columns unreachable).

#define FB 128
#define TK 32

// Phase 1: 1024 threads, a 4 x 4 block each; the tile in dynamic shared memory (64 KB).
extern "C" __global__ void __launch_bounds__(1024) graphsweep_apsp_bfw_diag(int* __restrict__ mat, long long stride, int kb)
{
    extern __shared__ __align__(16) int D[];  // FB x FB
    const int t = threadIdx.x, ty = t >> 5, tx = t & 31;
    int* tile = mat + (long long)kb * FB * (stride + 1);
    {
        const int r = t >> 3, c = (t & 7) * 16;
#pragma unroll
        for (int q = 0; q < 4; ++q)
            *(int4*)&D[r * FB + c + 4 * q] = *(const int4*)(tile + r * stride + c + 4 * q);
    }
    __syncthreads();
    const int r0 = ty * 4, c0 = tx * 4;
    int acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
        *(int4*)&acc[i][0] = *(const int4*)&D[(r0 + i) * FB + c0];
    for (int k = 0; k < FB; ++k) {
        int a[4], b[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) a[i] = D[(r0 + i) * FB + k];
        *(int4*)&b[0] = *(const int4*)&D[k * FB + c0];
        __syncthreads();  // row and column k read by all before step k writes
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] = ap_addmin(a[i], b[j], acc[i][j]);
            *(int4*)&D[(r0 + i) * FB + c0] = *(int4*)&acc[i][0];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) *(int4*)(tile + (r0 + i) * stride + c0) = *(int4*)&acc[i][0];
}

// C[ci.., cj..] = min(C, A[ai.., aj..] (x) B[bi.., bj..]), all 128 x 128, K = FB; 256 threads.
__device__ __forceinline__ void ap_minplus_tile(int* __restrict__ mat, long long stride, long long ci, long long cj,
                                                long long ai, long long aj, long long bi, long long bj)
{
    __shared__ __align__(16) int As[TK][FB];  // As[kk][r] = A[ai + r][aj + k0 + kk]
    __shared__ __align__(16) int Bs[TK][FB];  // Bs[kk][c] = B[bi + k0 + kk][bj + c]
    const int t = threadIdx.x, ty = t >> 4, tx = t & 15;
    int acc[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        const int* src = mat + (ci + ty * 8 + r) * stride + cj + tx * 8;
        *(int4*)&acc[r][0] = *(const int4*)src;
        *(int4*)&acc[r][4] = *(const int4*)(src + 4);
    }
    for (int k0 = 0; k0 < FB; k0 += TK) {
        {
            const int r = t >> 1, kq = (t & 1) * 16;  // A: row r, k in [kq, kq + 16)
            const int* src = mat + (ai + r) * stride + aj + k0 + kq;
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int4 v = *(const int4*)(src + 4 * q);
                As[kq + 4 * q][r] = v.x;
                As[kq + 4 * q + 1][r] = v.y;
                As[kq + 4 * q + 2][r] = v.z;
                As[kq + 4 * q + 3][r] = v.w;
            }
            const int kk = t >> 3, c = (t & 7) * 16;  // B: k row kk, columns [c, c + 16)
            const int* srb = mat + (bi + k0 + kk) * stride + bj + c;
#pragma unroll
            for (int q = 0; q < 4; ++q) *(int4*)&Bs[kk][c + 4 * q] = *(const int4*)(srb + 4 * q);
        }
        __syncthreads();
#pragma unroll 2
        for (int kk = 0; kk < TK; ++kk) {
            int a[8], b[8];
            *(int4*)&a[0] = *(const int4*)&As[kk][ty * 8];
            *(int4*)&a[4] = *(const int4*)&As[kk][ty * 8 + 4];
            *(int4*)&b[0] = *(const int4*)&Bs[kk][tx * 8];
            *(int4*)&b[4] = *(const int4*)&Bs[kk][tx * 8 + 4];
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[r][c] = ap_addmin(a[r], b[c], acc[r][c]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        int* dst = mat + (ci + ty * 8 + r) * stride + cj + tx * 8;
        *(int4*)dst = *(int4*)&acc[r][0];
        *(int4*)(dst + 4) = *(int4*)&acc[r][4];
    }
}

// Phase 2: blockIdx.x = j (j != kb), blockIdx.y = 0: row panel tile (kb, j) = D* (x) itself;
// 1: column panel tile (j, kb) = itself (x) D*.
extern "C" __global__ void __launch_bounds__(256, 2) graphsweep_apsp_bfw_panels(int* __restrict__ mat, long long stride, int kb)
{
    const int j = blockIdx.x;
    if (j == kb) return;
    const long long p0 = (long long)kb * FB, q0 = (long long)j * FB;
    if (blockIdx.y == 0)
        ap_minplus_tile(mat, stride, p0, q0, p0, p0, p0, q0);
    else
        ap_minplus_tile(mat, stride, q0, p0, q0, p0, p0, p0);
}

// Phase 3: tile (blockIdx.y, blockIdx.x) outside row and column kb = min(itself, column panel (x) row panel).
extern "C" __global__ void __launch_bounds__(256, 2) graphsweep_apsp_bfw_minplus(int* __restrict__ mat, long long stride, int kb)
{
    if ((int)blockIdx.x == kb || (int)blockIdx.y == kb) return;
    const long long p0 = (long long)kb * FB, i0 = (long long)blockIdx.y * FB, j0 = (long long)blockIdx.x * FB;
    ap_minplus_tile(mat, stride, i0, j0, i0, p0, p0, j0);
}

// ---------------------------------------------------------------------------------------------
// apsp.repeated-sssp (Alg. 7, many sources per launch): each thread block runs the SSSP of one
// source at a time straight into its row of the matrix: a frontier Bellman-Ford (Harish's mask
// as a queue) with __syncthreads between rounds, atomicMin on the row (no parents to keep), a
// shared bitmap that queues a vertex once per round, and the warp-cooperative edge gather of
// sssp.near-far (32 consecutive edges of the warp's 32 vertices per step).  Blocks take sources
// first + blockIdx.x, + gridDim.x, ...; each block has a queue pair of 2V ints in `scratch`.

#define AP_WARPS 32

extern "C" __global__ void __launch_bounds__(1024)
graphsweep_apsp_sssp_rows(const long long* __restrict__ off, const int* __restrict__ idx, const int* __restrict__ wt,
                          int* __restrict__ out, long long stride, int V, int first, int count, int* __restrict__ scratch,
                          sp_u64* __restrict__ relaxed)
{
    extern __shared__ sp_u32 queued[];  // ceil(V / 32) words: vertex v queued for the next round
    __shared__ sp_u32 s_len;
    __shared__ sp_u32 s_excl[AP_WARPS][32];
    __shared__ long long s_start[AP_WARPS][32];
    __shared__ int s_dist[AP_WARPS][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int words = (V + 31) >> 5;
    int* qa = scratch + (long long)blockIdx.x * 2 * V;
    int* qb = qa + V;
    sp_u64 edges = 0;
    for (int w = threadIdx.x; w < words; w += blockDim.x) queued[w] = 0;
    for (int s = first + blockIdx.x; s < first + count; s += gridDim.x) {
        int* row = out + (long long)s * stride;
        for (int v = threadIdx.x; v < V; v += blockDim.x) row[v] = v == s ? 0 : AP_INF;
        if (threadIdx.x == 0) qa[0] = s;
        __syncthreads();
        int* qin = qa;
        int* qout = qb;
        sp_u32 nq = 1;
        while (nq) {
            if (threadIdx.x == 0) s_len = 0;
            __syncthreads();
            for (sp_u32 base = warp * 32; base < nq; base += warps * 32) {
                const sp_u32 i = base + lane;
                sp_u32 cnt = 0;
                long long start = 0;
                int du = 0;
                if (i < nq) {
                    const int u = __ldcg(qin + i);
                    du = __ldcg(row + u);
                    start = off[u];
                    cnt = (sp_u32)(off[u + 1] - start);
                }
                const sp_u32 incl = sp_warp_scan(cnt);
                const sp_u32 total = __shfl_sync(SP_FULL, incl, 31);
                edges += lane == 0 ? total : 0;
                s_excl[warp][lane] = incl - cnt;
                s_start[warp][lane] = start;
                s_dist[warp][lane] = du;
                __syncwarp();
                for (sp_u32 kb = 0; kb < total; kb += 32) {
                    const sp_u32 k = kb + lane;
                    bool push = false;
                    int v = 0;
                    if (k < total) {
                        const int j = sp_warp_owner(s_excl[warp], k);
                        const long long e = s_start[warp][j] + (k - s_excl[warp][j]);
                        v = __ldg(idx + e);
                        const int nd = s_dist[warp][j] + __ldg(wt + e);
                        if (nd < __ldcg(row + v) && nd < atomicMin(row + v, nd)) {
                            const sp_u32 bit = 1u << (v & 31);
                            push = !(atomicOr(queued + (v >> 5), bit) & bit);
                        }
                    }
                    const sp_u32 ballot = __ballot_sync(SP_FULL, push);
                    if (ballot) {
                        sp_u32 slot = 0;
                        if (lane == 0) slot = atomicAdd(&s_len, (sp_u32)__popc(ballot));
                        slot = __shfl_sync(SP_FULL, slot, 0);
                        if (push) qout[slot + __popc(ballot & ((1u << lane) - 1))] = v;
                    }
                }
                __syncwarp();
            }
            __syncthreads();
            nq = s_len;
            for (sp_u32 i = threadIdx.x; i < nq; i += blockDim.x) queued[qout[i] >> 5] = 0;
            __syncthreads();
            int* tmp = qin;
            qin = qout;
            qout = tmp;
        }
    }
    if (lane == 0 && edges) atomicAdd(relaxed, edges);
}
