// The list-ranking verifier's GPU pass (verify.py): one read of succ and rank, one gather of
// rank[succ[i]], one bit set per node.  Shares nothing with the ranking kernels.

// bad: the least node index whose rank breaks a rule (n when none); seen: a bitmap of ranks.
template <typename S, typename R>
__global__ void graphsweep_listrank_verify(const S* succ, const R* rank, long long n, long long tail,
                                           unsigned int* seen, unsigned long long* bad) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long r = rank[i];
        bool ok = r >= 0 && r < n;
        if (ok) ok = (i == tail) ? r == 0 : (long long)rank[succ[i]] + 1 == r;
        if (ok) {
            atomicOr(&seen[r >> 5], 1u << (r & 31));
        } else {
            atomicMin(bad, (unsigned long long)i);
        }
    }
}
