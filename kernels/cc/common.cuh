// Device helpers shared by the connected-components kernels (each .cu beside this file includes it).
//
// Conventions: the labels are a forest held in one array `parent` (type L: int while n < 2^31,
// else long long), one entry per vertex; a root points to itself.  Every kernel here hooks the
// larger of two roots under the smaller (or, for Shiloach-Vishkin, follows 000 Alg. 4), so in the
// union-find kernels parent[x] <= x always holds and the root of a tree is its smallest vertex.
// Edge endpoints and CSR indices have type S (the dataset's index type: int or long long).
#pragma once

#define GS_CC_GRID_STRIDE(i, n) \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)gridDim.x * blockDim.x)

// Loads of `parent` while other threads hook and compress: cached in L2 only (ld.global.cg), so a
// thread never rereads a stale line of its SM's (non-coherent) L1 in a retry loop.  Compiled with
// GS_CC_LOAD_CACHED they may hit L1 (ld.global.ca), as ECL-CC's plain loads do: neighbouring
// threads climbing neighbouring vertices then share lines.  That is safe for find, link and hook:
// a stale parent is an older ancestor (entries only ever move up the tree, to smaller ids), so a
// climb from it still ends at a root, and a CAS reads L2, so one that fails on a stale root
// returns the current parent and the climb moves strictly up: no loop spins on a stale line.
#ifdef GS_CC_LOAD_CACHED
__device__ __forceinline__ int gs_cc_load(const int* p) { return __ldca(p); }
__device__ __forceinline__ long long gs_cc_load(const long long* p) { return __ldca(p); }
#else
__device__ __forceinline__ int gs_cc_load(const int* p) { return __ldcg(p); }
__device__ __forceinline__ long long gs_cc_load(const long long* p) { return __ldcg(p); }
#endif

// A 32-bit avalanche hash (MurmurHash3's finaliser): where the kernels' samples fall.  The CPU
// twins hash alike (cpu.py: mix32).
__device__ __forceinline__ unsigned gs_cc_mix(unsigned h)
{
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return h;
}

// Sample t of a seeded draw from [0, count), count > 0: two hashes of t (the second offset by
// `spread`, the number of samples) make 64 bits (cpu.py: sample_index).
__device__ __forceinline__ long long gs_cc_sample(unsigned t, unsigned seed, unsigned spread, long long count)
{
    unsigned long long h = ((unsigned long long)gs_cc_mix(t * 0x9E3779B9u ^ seed) << 32) |
                           gs_cc_mix((t + spread) * 0x9E3779B9u ^ seed);
    return (long long)(h % (unsigned long long)count);
}

__device__ __forceinline__ int gs_cc_cas(int* p, int expected, int desired)
{
    return atomicCAS(p, expected, desired);
}

__device__ __forceinline__ long long gs_cc_cas(long long* p, long long expected, long long desired)
{
    return (long long)atomicCAS((unsigned long long*)p, (unsigned long long)expected, (unsigned long long)desired);
}

// The root of x's tree, halving the path on the way (each visited vertex is pointed at its
// grandparent).  The store is plain: it only ever writes an ancestor into a vertex that is not a
// root, and a vertex that is not a root never becomes one, so no hook is lost.
template <typename L>
__device__ __forceinline__ L gs_cc_find(L x, L* parent)
{
    L p = gs_cc_load(parent + x);
    while (p != x) {
        L g = gs_cc_load(parent + p);
        if (g == p) return p;
        parent[x] = g;
        x = g;
        p = gs_cc_load(parent + x);
    }
    return x;
}

// Union of the trees of a and b as ECL-CC does it: find both roots (halving the paths), then CAS the
// larger root under the smaller; the CAS succeeds only while it is still a root, else both ends
// climb from where they are.
template <typename L>
__device__ __forceinline__ void gs_cc_link(L a, L b, L* parent)
{
    L ra = gs_cc_find(a, parent), rb = gs_cc_find(b, parent);
    while (ra != rb) {
        L hi = ra > rb ? ra : rb, lo = ra > rb ? rb : ra;
        L old = gs_cc_cas(parent + hi, hi, lo);
        if (old == hi) return;
        ra = gs_cc_find(old, parent);
        rb = gs_cc_find(lo, parent);
    }
}

// Join the trees of a and b by Sutton et al.'s Atomic-Hook (004 Fig. 3), testing before the CAS:
// while a and b hang from different parents, the larger parent H is hooked under the smaller L if
// it is a root (one CAS, which fails if another thread hooked H first); otherwise the walk goes on
// from H's parent and L.  L is never in H's tree (a root is its tree's smallest vertex and L < H),
// so no cycle forms.  No path is compressed here: a compress pass flattens the trees afterwards.
template <typename L>
__device__ __forceinline__ void gs_cc_hook(L a, L b, L* parent)
{
    L pa = gs_cc_load(parent + a), pb = gs_cc_load(parent + b);
    while (pa != pb) {
        L hi = pa > pb ? pa : pb, lo = pa > pb ? pb : pa;
        L up = gs_cc_load(parent + hi);
        if (up == hi) {
            up = gs_cc_cas(parent + hi, hi, lo);
            if (up == hi) return;
        }
        pa = gs_cc_load(parent + up);
        pb = gs_cc_load(parent + lo);
    }
}

// Adds every thread's value to *counter with one atomic per warp; all 32 lanes must call it.
__device__ __forceinline__ void gs_cc_count(long long* counter, long long value)
{
#ifdef GS_CC_EMULATED
    if (value) atomicAdd((unsigned long long*)counter, (unsigned long long)value);
#else
    for (int d = 16; d > 0; d >>= 1) value += __shfl_down_sync(0xffffffffu, value, d);
    if ((threadIdx.x & 31) == 0 && value) atomicAdd((unsigned long long*)counter, (unsigned long long)value);
#endif
}
