// bfs.harish: Harish & Narayanan's level-synchronous BFS (HiPC'07, Algs. 1-2), one thread per
// vertex.  Flags are bytes, as the paper's boolean arrays.  Alg. 2 as printed sets frontier and
// visited inside the same launch that reads them, so a vertex added by one thread can be expanded
// by another in the same launch (a level skipped); the authors' released code splits the step in
// two kernels, which is what runs here: expand writes `updating`, update turns it into the next
// frontier and raises the `over` flag the host reads after each level (Alg. 1's loop test).

// Alg. 2: every frontier vertex leaves the frontier and offers cost + 1 to its unvisited
// neighbours.  Threads that reach the same neighbour write the same cost; any of their ids is a
// valid parent (all are on the same level).
extern "C" __global__ void graphsweep_bfs_harish_expand(const long long* __restrict__ offsets,
                                                        const int* __restrict__ indices,
                                                        unsigned char* __restrict__ frontier,
                                                        const unsigned char* __restrict__ visited,
                                                        int* __restrict__ cost, int* __restrict__ parent,
                                                        unsigned char* __restrict__ updating, int n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int v = (int)i;
        if (!frontier[v]) continue;
        frontier[v] = 0;
        const int next = cost[v] + 1;
        const long long end = offsets[v + 1];
        for (long long e = offsets[v]; e < end; ++e) {
            const int w = indices[e];
            if (!visited[w]) {
                cost[w] = next;
                parent[w] = v;
                updating[w] = 1;
            }
        }
    }
}

// The second half of the level: vertices reached in this level become the frontier and visited.
extern "C" __global__ void graphsweep_bfs_harish_update(unsigned char* __restrict__ frontier,
                                                        unsigned char* __restrict__ visited,
                                                        unsigned char* __restrict__ updating,
                                                        int* __restrict__ over, int n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int v = (int)i;
        if (!updating[v]) continue;
        frontier[v] = 1;
        visited[v] = 1;
        updating[v] = 0;
        *over = 1;
    }
}

// Alg. 1 lines 2-4: frontier and visited hold the root alone, cost (the level) is -1 elsewhere.
extern "C" __global__ void graphsweep_bfs_harish_init(unsigned char* __restrict__ frontier,
                                                      unsigned char* __restrict__ visited,
                                                      unsigned char* __restrict__ updating,
                                                      int* __restrict__ cost, int* __restrict__ parent,
                                                      int n, int root)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int v = (int)i;
        const bool is_root = v == root;
        frontier[v] = is_root;
        visited[v] = is_root;
        updating[v] = 0;
        cost[v] = is_root ? 0 : -1;
        parent[v] = is_root ? root : -1;
    }
}
