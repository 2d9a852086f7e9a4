// Ceilings of the device, measured by graphsweep.kernels.ceilings.

// A keyed bijection on [0, n) (multiply / xor-shift rounds on b bits, cycle walking), n <= 2^b.
__device__ unsigned long long gs_ceiling_perm(unsigned long long x, unsigned long long n, int b,
                                              unsigned long long seed)
{
    const unsigned long long mask = (1ULL << b) - 1;
    const int h = (b + 1) / 2;
    do {
        for (int r = 0; r < 4; ++r) {
            x = (x ^ ((seed * (2 * r + 1)) & mask)) & mask;
            x = (x * 0x9E3779B97F4A7C15ULL) & mask;
            x ^= x >> h;
        }
    } while (x >= n);
    return x;
}

// next[] as one random cycle through all n entries: next[perm(i)] = perm(i + 1 mod n).
extern "C" __global__ void graphsweep_ceiling_cycle(int* __restrict__ next, long long n, int b, unsigned long long seed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        next[gs_ceiling_perm(i, n, b, seed)] = (int)gs_ceiling_perm((i + 1) % n, n, b, seed);
}

// Dependent pointer chase, one chain per thread as in a sub-list walk (000 RS3): thread t walks
// its own segment of the cycle (no two chains touch the same entry), each step's address being
// the value the previous step read.  The end of each chain is stored so every step is kept.
extern "C" __global__ void graphsweep_ceiling_chase(const int* __restrict__ next, int* __restrict__ end,
                                                    long long chains, int steps, long long n, int b,
                                                    unsigned long long seed)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= chains) return;
    int x = (int)gs_ceiling_perm(t * (long long)steps, n, b, seed);
    for (int s = 0; s < steps; ++s) x = next[x];
    end[t] = x;
}

// The chase with a store per step (what a list walk does: follow succ, write the node's record):
// each step reads next[x] (the dependent load) and stores at out[x] (an independent random store),
// 4 bytes as rank[x] = r, or 8 bytes of a packed (owner, rank) record as the splitter walks write.
// kernels/ceilings.py measures them beside the plain chase, on the same cycle, and every result row carries them.
__device__ __forceinline__ int gs_ceiling_record(int*, long long, int s) { return s; }
__device__ __forceinline__ unsigned long long gs_ceiling_record(unsigned long long*, long long t, int s)
{
    return ((unsigned long long)t << 32) | (unsigned)s;
}

template <typename R>
__device__ __forceinline__ void gs_ceiling_chase_store(const int* __restrict__ next, R* __restrict__ out,
                                                       long long chains, int steps, long long n, int b,
                                                       unsigned long long seed)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= chains) return;
    int x = (int)gs_ceiling_perm(t * (long long)steps, n, b, seed);
    for (int s = 0; s < steps; ++s) {
        int y = next[x];
        out[x] = gs_ceiling_record(out, t, s);
        x = y;
    }
}

extern "C" __global__ void graphsweep_ceiling_chase_store4(const int* __restrict__ next, int* __restrict__ out,
                                                           long long chains, int steps, long long n, int b,
                                                           unsigned long long seed)
{
    gs_ceiling_chase_store(next, out, chains, steps, n, b, seed);
}

extern "C" __global__ void graphsweep_ceiling_chase_store8(const int* __restrict__ next,
                                                           unsigned long long* __restrict__ rec,
                                                           long long chains, int steps, long long n, int b,
                                                           unsigned long long seed)
{
    gs_ceiling_chase_store(next, rec, chains, steps, n, b, seed);
}

// The host-device link, read by kernels from pinned, device-mapped host memory (zero-copy).

// Sequential: consecutive threads read consecutive 16-byte words, so a warp asks for whole
// 128-byte lines (512 bytes) at a time.  The xor of what was read is kept so no load is dropped.
extern "C" __global__ void graphsweep_link_read_sequential(const int4* __restrict__ in, long long words,
                                                           unsigned int* __restrict__ sink)
{
    unsigned int x = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < words; i += (long long)gridDim.x * blockDim.x) {
        const int4 v = in[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x9E3779B9u) sink[0] = x;
}

// Random aligned 128-byte lines, a warp reading a line together (a lane a 4-byte word), as a
// traversal that reads an adjacency list a line at a time does (EMOGI's coalesced access).
extern "C" __global__ void graphsweep_link_read_lines(const int* __restrict__ in, long long lines, long long reads,
                                                      unsigned long long seed, unsigned int* __restrict__ sink)
{
    const int lane = threadIdx.x & 31;
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const int b = 64 - __clzll(lines - 1);
    unsigned int x = 0;
    for (long long r = warp; r < reads; r += warps) {
        const long long line = (long long)gs_ceiling_perm(r % lines, lines, b, seed);
        x ^= in[line * 32 + lane];
    }
    if (x == 0x9E3779B9u) sink[0] = x;
}

// The naive shape: every thread reads its own random 128-byte line (eight 16-byte words), so a
// warp's loads touch 32 lines at once and the link carries many small requests.
extern "C" __global__ void graphsweep_link_read_lines_naive(const int4* __restrict__ in, long long lines, long long reads,
                                                            unsigned long long seed, unsigned int* __restrict__ sink)
{
    const int b = 64 - __clzll(lines - 1);
    unsigned int x = 0;
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < reads; r += (long long)gridDim.x * blockDim.x) {
        const long long line = (long long)gs_ceiling_perm(r % lines, lines, b, seed);
        for (int w = 0; w < 8; ++w) {
            const int4 v = in[line * 8 + w];
            x ^= v.x ^ v.y ^ v.z ^ v.w;
        }
    }
    if (x == 0x9E3779B9u) sink[0] = x;
}
