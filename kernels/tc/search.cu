// tc.search: triangles by intersecting the oriented adjacency lists of each oriented edge (u, v).
// A group of LANES threads takes an edge; the lanes read the shorter of N+(u), N+(v) LANES entries
// at a time (coalesced) and each binary-searches its entry w in the longer list.  A lane's
// entries increase, so each search starts where its previous one ended.  Each hit w closes the
// triangle (u, v, w): w's count is incremented at once, u's and v's by the group's total.
// Counts are 64-bit (a hub of a Kronecker graph lies on more than 2^32 triangles).

#define GRAPHSWEEP_FULL_MASK 0xffffffffu

template <int LANES>
__global__ void graphsweep_tc_search(const long long* __restrict__ offsets, const int* __restrict__ indices,
                                     const int* __restrict__ sources, long long nnz,
                                     unsigned long long* __restrict__ count)
{
    constexpr int PER_WARP = 32 / LANES;   // edges a warp takes at a time
    const int lane = threadIdx.x % LANES;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    // The whole warp runs every trip (a trip's edges may lie past nnz), so the shuffles see all lanes.
    for (long long first = warp * PER_WARP; first < nnz; first += warps * PER_WARP) {
        const long long e = first + (threadIdx.x & 31) / LANES;
        unsigned long long found = 0;
        int u = 0, v = 0;
        if (e < nnz) {
            u = sources[e];
            v = indices[e];
            long long s_begin = offsets[u], s_end = offsets[u + 1];
            long long l_begin = offsets[v], l_end = offsets[v + 1];
            if (s_end - s_begin > l_end - l_begin) {
                long long t = s_begin; s_begin = l_begin; l_begin = t;
                t = s_end; s_end = l_end; l_end = t;
            }
            long long low = l_begin;
            for (long long i = s_begin + lane; i < s_end && low < l_end; i += LANES) {
                const int w = indices[i];
                long long high = l_end;
                while (low < high) {
                    const long long mid = (low + high) >> 1;
                    if (indices[mid] < w) low = mid + 1; else high = mid;
                }
                if (low < l_end && indices[low] == w) {
                    ++found;
                    atomicAdd(&count[w], 1ull);
                }
            }
        }
        for (int offset = LANES / 2; offset > 0; offset >>= 1)
            found += __shfl_down_sync(GRAPHSWEEP_FULL_MASK, found, offset, LANES);
        if (lane == 0 && found) {
            atomicAdd(&count[u], found);
            atomicAdd(&count[v], found);
        }
    }
}
