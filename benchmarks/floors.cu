// Floors measured by benchmarks/floors.py beside graphsweep.kernels.ceilings: the dependent
// pointer chase with a store per step (what a list walk does: follow succ, write the node's record),
// on the same random cycle as graphsweep_ceiling_chase (kernels/ceilings.cu), so the two compare.

// A keyed bijection on [0, n) (multiply / xor-shift rounds on b bits, cycle walking), n <= 2^b:
// the same as gs_ceiling_perm, so the table built by graphsweep_ceiling_cycle is walked the same way.
__device__ unsigned long long gs_floor_perm(unsigned long long x, unsigned long long n, int b,
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

// One chain per thread on its own segment of the cycle; each step reads next[x] (the dependent
// load) and stores a 4-byte value at out[x] (an independent random store, as rank[x] = r).
extern "C" __global__ void graphsweep_floor_chase_store4(const int* __restrict__ next, int* __restrict__ out,
                                                         long long chains, int steps, long long n, int b,
                                                         unsigned long long seed)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= chains) return;
    int x = (int)gs_floor_perm(t * (long long)steps, n, b, seed);
    for (int s = 0; s < steps; ++s) {
        int y = next[x];
        out[x] = s;
        x = y;
    }
}

// The same with an 8-byte store of a packed (owner, rank) record, as the splitter walks write.
extern "C" __global__ void graphsweep_floor_chase_store8(const int* __restrict__ next,
                                                         unsigned long long* __restrict__ rec,
                                                         long long chains, int steps, long long n, int b,
                                                         unsigned long long seed)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= chains) return;
    int x = (int)gs_floor_perm(t * (long long)steps, n, b, seed);
    for (int s = 0; s < steps; ++s) {
        int y = next[x];
        rec[x] = ((unsigned long long)t << 32) | (unsigned)s;
        x = y;
    }
}

// The plain chase (as graphsweep_ceiling_chase) on any table and chain count: chase vs table size
// (the L2 and TLB reach) and vs the number of chains (latency- vs throughput-bound).
extern "C" __global__ void graphsweep_floor_chase(const int* __restrict__ next, int* __restrict__ end,
                                                  long long chains, int steps, long long n, int b,
                                                  unsigned long long seed)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= chains) return;
    int x = (int)gs_floor_perm(t * (long long)steps, n, b, seed);
    for (int s = 0; s < steps; ++s) x = next[x];
    end[t] = x;
}

// A random cycle through all n entries: next[perm(i)] = perm(i + 1 mod n) (as graphsweep_ceiling_cycle).
extern "C" __global__ void graphsweep_floor_cycle(int* __restrict__ next, long long n, int b, unsigned long long seed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        next[gs_floor_perm(i, n, b, seed)] = (int)gs_floor_perm((i + 1) % n, n, b, seed);
}
