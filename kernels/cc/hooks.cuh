// Hook and compress kernels of Soman et al. and of Sutton et al. (004 Figs 2-3), on the edge list
// as loaded; cc.hook-compress and cc.adaptive are built from them.  pi is the forest of labels
// (parent[x] <= x throughout: every hook writes the smaller label under the larger).
#pragma once
#include "cc/common.cuh"

// pi(v) = v: every vertex its own tree.
template <typename L>
__global__ void graphsweep_cc_identity(L* __restrict__ pi, long long n)
{
    GS_CC_GRID_STRIDE(v, n) {
        pi[v] = (L)v;
    }
}

// Soman's Hook over edges [first, last) (004 Fig. 2): H = max(pi(u), pi(v)), L = min(...);
// pi(H) = L.  Atomic-free: concurrent writes to pi(H) leave one of them; the host loop repeats
// hooking until a round changes nothing.  *changed = 1 when any edge still joins two labels.
template <typename S, typename L>
__global__ void graphsweep_cc_hook(const S* __restrict__ src, const S* __restrict__ dst, L* pi, int* changed,
                                   long long first, long long last)
{
    int any = 0;
    for (long long e = first + blockIdx.x * (long long)blockDim.x + threadIdx.x; e < last;
         e += (long long)gridDim.x * blockDim.x) {
        L pu = pi[src[e]], pv = pi[dst[e]];
        if (pu != pv) {
            pi[pu > pv ? pu : pv] = pu > pv ? pv : pu;
            any = 1;
        }
    }
    if (any) *changed = 1;
}

// Soman's Jump (004 Fig. 2): pi(v) = pi(pi(v)), in place; *changed = 1 when any label moved.
template <typename L>
__global__ void graphsweep_cc_jump(L* pi, int* changed, long long n)
{
    int any = 0;
    GS_CC_GRID_STRIDE(v, n) {
        L p = pi[v], g = pi[p];
        if (g != p) {
            pi[v] = g;
            any = 1;
        }
    }
    if (any) *changed = 1;
}

// Sutton et al.'s Atomic-Hook over edges [first, last) (004 Fig. 3): while pi(u) != pi(v), try to
// hook H = max under L = min with one CAS that succeeds only if H is a root; otherwise continue
// from (pi(H), L).  One pass links every edge, so no host-side convergence loop.  The CAS is
// tried only when a plain read finds H a root (common.cuh's gs_cc_hook), so a walk up a tree
// reads instead of queueing atomics on vertices that are no longer roots.
template <typename S, typename L>
__global__ void graphsweep_cc_atomic_hook(const S* __restrict__ src, const S* __restrict__ dst, L* pi,
                                          long long first, long long last)
{
    for (long long e = first + blockIdx.x * (long long)blockDim.x + threadIdx.x; e < last;
         e += (long long)gridDim.x * blockDim.x) {
        gs_cc_hook((L)src[e], (L)dst[e], pi);
    }
}

// Sutton et al.'s Multi-Jump (004 Fig. 3): while pi(pi(v)) != pi(v): pi(v) = pi(pi(v)), writing
// every step; threads take vertices in increasing order, so the parents (smaller labels, nearer
// the roots) are mostly flat already when their children are reached.
template <typename L>
__global__ void graphsweep_cc_multi_jump(L* pi, long long n)
{
    GS_CC_GRID_STRIDE(v, n) {
        L p = pi[v], g = pi[p];
        while (g != p) {
            pi[v] = g;
            p = g;
            g = pi[p];
        }
    }
}
