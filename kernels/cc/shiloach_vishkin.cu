// cc.shiloach-vishkin: the kernels SV0-SV5 of 000 Alg. 4 (002 Listings 6.3-6.7), striding over
// vertices or edges.  D = D(s), Dp = D(s-1), Q[v] = the last step that marked v.  An edge (a, b)
// of the edge list is both directed edges of the PRAM algorithm: a thread applies the step to
// (a, b) and then to (b, a) (two PRAM processors run one after the other, which the "arbitrary"
// concurrent-write model allows).  Values read from global memory are kept in registers so each
// address is read once per kernel (000 §4 "Memory Access Optimization").
#include "cc/common.cuh"

// SV0: D(0)[j] = j, Q[j] = 0.
template <typename L>
__global__ void graphsweep_cc_sv0(L* __restrict__ Dp, int* __restrict__ Q, long long n)
{
    GS_CC_GRID_STRIDE(j, n) {
        Dp[j] = (L)j;
        Q[j] = 0;
    }
}

// SV1a (short-cut): D(s)[j] = D(s-1)[D(s-1)[j]].  Thread 0 also clears the step-5 flag w, which
// nothing reads before SV5.
template <typename L>
__global__ void graphsweep_cc_sv1a(L* __restrict__ D, const L* __restrict__ Dp, int* __restrict__ w, long long n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) *w = 0;
    GS_CC_GRID_STRIDE(j, n) {
        D[j] = Dp[Dp[j]];
    }
}

// SV1b (mark): Q[D(s)[j]] = s where the short-cut changed D[j].  A separate kernel because marking
// needs every short-cut done (the 1a/1b split of 000 §4).
template <typename L>
__global__ void graphsweep_cc_sv1b(const L* __restrict__ D, const L* __restrict__ Dp, int* __restrict__ Q, int s,
                                   long long n)
{
    GS_CC_GRID_STRIDE(j, n) {
        L d = D[j];
        if (d != Dp[j]) Q[d] = s;
    }
}

// SV2 (hook edges): if D(s)[a] = D(s-1)[a] and D(s)[b] < D(s)[a]: D(s)[D(s)[a]] = D(s)[b] and
// Q[D(s)[b]] = s.  Concurrent writes: one of them survives (CRCW "arbitrary").
template <typename S, typename L>
__global__ void graphsweep_cc_sv2(const S* __restrict__ src, const S* __restrict__ dst, L* D, const L* __restrict__ Dp,
                                  int* Q, int s, long long m)
{
    GS_CC_GRID_STRIDE(e, m) {
        L a = (L)src[e], b = (L)dst[e];
        L da = D[a], db = D[b];
        if (db < da) {
            if (da == Dp[a]) { D[da] = db; Q[db] = s; }
        } else if (da < db) {
            if (db == Dp[b]) { D[db] = da; Q[da] = s; }
        }
    }
}

// SV3 (hook stagnant roots): if Q[D(s)[a]] < s and D(s)[a] = D(s)[D(s)[a]] and D(s)[a] != D(s)[b]:
// D(s)[D(s)[a]] = D(s)[b].  The conditions are a conjunction; they are tested cheapest first.
template <typename L>
__device__ __forceinline__ void gs_cc_sv3_one(L da, L db, L* D, const int* Q, int s)
{
    if (da != db && D[da] == da && Q[da] < s) D[da] = db;
}

template <typename S, typename L>
__global__ void graphsweep_cc_sv3(const S* __restrict__ src, const S* __restrict__ dst, L* D, const int* __restrict__ Q,
                                  int s, long long m)
{
    GS_CC_GRID_STRIDE(e, m) {
        L a = (L)src[e], b = (L)dst[e];
        L da = D[a], db = D[b];
        gs_cc_sv3_one(da, db, D, Q, s);
        gs_cc_sv3_one(db, D[a], D, Q, s);   // (b, a): D[a] reread, the first half may have moved it
    }
}

// SV4 (short-cut again): D(s)[j] = D(s)[D(s)[j]], in place.
template <typename L>
__global__ void graphsweep_cc_sv4(L* D, long long n)
{
    GS_CC_GRID_STRIDE(j, n) {
        D[j] = D[D[j]];
    }
}

// SV5 (more work?): every thread counts the vertices it strides over that were marked in this
// step and, if any, writes 1 to w: a parallel OR by concurrent writes (000 §4).
extern "C" __global__ void graphsweep_cc_sv5(const int* __restrict__ Q, int s, int* w, long long n)
{
    int work = 0;
    GS_CC_GRID_STRIDE(j, n) {
        work += (Q[j] == s);
    }
    if (work > 0) *w = 1;
}
