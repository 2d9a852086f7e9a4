"""Why does bc.batched's settle cost ~0.6 ns a queue entry?  Synthetic: n = 2^24 vertices, K = 4
slots, a slice of S vertices at depth 6 for 1-2 slots each; variants of the settle leave pieces out."""
import cupy, numpy as np
src = r'''
template <int K> struct alignas(4 * K) Levels { int at[K]; };
template <int MODE>
__global__ void settle(const int* __restrict__ rows, int count, const int* __restrict__ level,
                       const double* __restrict__ sigma, double* __restrict__ coef,
                       double* __restrict__ centrality, double* __restrict__ partial, int depth)
{
    const int K = 4;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const long long v = rows[i];
        const Levels<K> lv = reinterpret_cast<const Levels<K>*>(level)[v];
        unsigned mask = 0;
        for (int s = 0; s < K; ++s) if (lv.at[s] == depth) mask |= 1u << s;
        if (!mask) continue;
        if (MODE == 1) { if (mask == 99) coef[v] = 1.0; continue; }          // levels only
        double total = 0.0;
#pragma unroll
        for (int s = 0; s < K; ++s) {
            if (!(mask >> s & 1)) continue;
            const double sum = partial[v * K + s];
            if (MODE != 3) partial[v * K + s] = 0.0;
            const double paths = sigma[v * K + s];
            const double delta = paths * sum;
            if (MODE == 4) coef[v * K + s] = (1.0 + delta) * paths;        // no division
            else coef[v * K + s] = (1.0 + delta) / paths;
            total += delta;
        }
        if (MODE != 2 && depth > 0) centrality[v] += total;
    }
}
'''
names = {m: f"settle<{m}>" for m in range(5)}
mod = cupy.RawModule(code=src, options=("-std=c++17",), name_expressions=tuple(names.values()))
n, K = 1 << 24, 4
rng = np.random.default_rng(1)
level = np.full((n, K), 3, np.int32)
for S in (6_000_000, 16_000_000):
    chosen = np.sort(rng.choice(n, S, replace=False)).astype(np.int32)
    level[:] = 3
    level[chosen, rng.integers(0, K, S)] = 6
    level[chosen[::3], rng.integers(0, K, S)[::3]] = 6
    d_level = cupy.asarray(level.ravel())
    sigma = cupy.asarray(rng.uniform(1, 1e6, n * K))
    coef = cupy.zeros(n * K); partial = cupy.asarray(rng.uniform(0, 1, n * K)); cent = cupy.zeros(n)
    for order in ("sorted", "shuffled"):
        rows = cupy.asarray(chosen if order == "sorted" else rng.permutation(chosen))
        for threads, blocks in ((256, 1056), (256, -(-S // 256)), (128, 2112)):
            for m in range(5):
                fn = mod.get_function(names[m])
                args = (rows, np.int32(S), d_level, sigma, coef, cent, partial, np.int32(6))
                fn((blocks,), (threads,), args)
                a, b = cupy.cuda.Event(), cupy.cuda.Event()
                a.record()
                for _ in range(5):
                    fn((blocks,), (threads,), args)
                b.record(); b.synchronize()
                ms = cupy.cuda.get_elapsed_time(a, b) / 5
                print(f"S={S:>9} {order:8s} {threads}x{blocks:<6} mode {m}: {ms:7.3f} ms  {ms * 1e6 / S:6.3f} ns/entry", flush=True)
