// bfs.emogi: top-down BFS levels that read the adjacency of a graph in host memory as whole,
// aligned 128-byte lines, a warp reading a line together (EMOGI, Min et al., VLDB 2021), and a
// streaming level that reads the whole CSR in blocks copied over the link.  Vertex ids and CSR
// indices are int (GPU BFS holds ids in 32 bits); WIDTH = entries per 128-byte line.
#define WIDTH 32

// lines[i] = the 128-byte lines that row frontier[i] spans.
extern "C" __global__ void graphsweep_bfs_emogi_lines(const int* __restrict__ frontier, long long size,
                                                      const long long* __restrict__ offsets, long long* lines)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < size;
         i += (long long)gridDim.x * blockDim.x) {
        const int u = frontier[i];
        const long long s = offsets[u], e = offsets[u + 1];
        lines[i] = e > s ? (e + WIDTH - 1) / WIDTH - s / WIDTH : 0;
    }
}

// Appends the value of every lane that has one to out[*size...] with one atomic per warp; all 32
// lanes must call it.
__device__ __forceinline__ void append(bool mine, int value, int* out, unsigned long long* size)
{
    const unsigned mask = __ballot_sync(0xffffffffu, mine);
    if (!mask) return;
    const int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(size, (unsigned long long)__popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (mine) out[base + __popc(mask & ((1u << lane) - 1))] = value;
}

// Claims v for the next level from u and appends it to the next frontier (warp-collective).
__device__ __forceinline__ void visit(bool claim, int v, int u, int* level, int* parent, int next_level,
                                      int* next, unsigned long long* next_size)
{
    const bool won = claim && level[v] == -1 && atomicCAS(level + v, -1, next_level) == -1;
    if (won) parent[v] = u;
    append(won, v, next, next_size);
}

// Line `line` of the CSR's indices was read: with `mark` (a host-placed CSR), sets its bit in `seen`
// and returns 1 if it was not set, the first read of the line in this run (the bytes that surely
// crossed the link: rows sharing a line, or a line read again, are served by the L2 or cross
// again, and neither may be counted twice).  Called by one lane per line.
__device__ __forceinline__ unsigned long long first_read(int mark, unsigned* seen, long long line)
{
    if (!mark) return 0;
    const unsigned bit = 1u << (line & 31);
    return (atomicOr(seen + (line >> 5), bit) & bit) ? 0 : 1;
}

// One warp per line: line w belongs to frontier[i] with first[i] <= w < first[i + 1] (first is the
// exclusive scan of lines); lane j reads entry (line start) + j if it lies in the row.  fresh: lines
// read for the first time in this run (first_read).
extern "C" __global__ void graphsweep_bfs_emogi_expand(const int* __restrict__ indices, const long long* __restrict__ offsets,
                                                       const int* __restrict__ frontier, const long long* __restrict__ first,
                                                       long long size, long long total, int* level, int* parent,
                                                       int next_level, int* next, unsigned long long* next_size,
                                                       int mark, unsigned* seen, unsigned long long* fresh)
{
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    unsigned long long new_lines = 0;
    for (long long w = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32; w < total; w += warps) {
        long long a = 0, b = size - 1;
        while (a < b) {
            const long long mid = (a + b + 1) >> 1;
            if (first[mid] <= w) a = mid; else b = mid - 1;
        }
        const int u = frontier[a];
        const long long s = offsets[u], e = offsets[u + 1];
        const long long line = s / WIDTH + (w - first[a]);
        const long long entry = line * WIDTH + lane;
        const bool mine = entry >= s && entry < e;
        const int v = mine ? indices[entry] : 0;
        if (lane == 0) new_lines += first_read(mark, seen, line);
        visit(mine, v, u, level, parent, next_level, next, next_size);
    }
    if (new_lines) atomicAdd(fresh, new_lines);
}

// Streaming level: entries [lo, lo + count) of rows [r0, r1) in `block`; an entry of a row on the
// current level claims its neighbour.  Each thread walks RUN consecutive entries after one binary
// search for the row of its first (as cc.streaming).
extern "C" __global__ void graphsweep_bfs_emogi_stream(const int* __restrict__ block, const long long* __restrict__ offsets,
                                                       long long r0, long long r1, long long lo, long long count,
                                                       int* level, int* parent, int current, int* next,
                                                       unsigned long long* next_size)
{
    const long long stride = (long long)gridDim.x * blockDim.x * RUN;
    // The loop test is the warp's first entry, so every lane takes the same trips (visit() is
    // warp-collective).
    for (long long first = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * RUN;
         first - (threadIdx.x & 31) * RUN < count; first += stride) {
        long long row = 0, end = 0;
        const bool any = first < count;
        if (any) {
            const long long e = lo + first;
            long long a = r0, b = r1 - 1;
            while (a < b) {
                const long long mid = (a + b + 1) >> 1;
                if (offsets[mid] <= e) a = mid; else b = mid - 1;
            }
            row = a;
            end = offsets[a + 1];
        }
        for (int k = 0; k < RUN; ++k) {
            const long long i = first + k;
            bool claim = any && i < count;
            int v = 0;
            if (claim) {
                while (lo + i >= end) end = offsets[++row + 1];
                claim = level[row] == current;
                v = block[i];
            }
            visit(claim, v, (int)row, level, parent, current + 1, next, next_size);
        }
    }
}

// The vertices not reached yet that have an edge (the candidates of a bottom-up level).
extern "C" __global__ void graphsweep_bfs_emogi_unvisited(const int* __restrict__ level, const long long* __restrict__ offsets,
                                                          long long n, int* out, unsigned long long* size)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = blockIdx.x * (long long)blockDim.x; base < n; base += stride) {
        const long long v = base + threadIdx.x;
        append(v < n && level[v] == -1 && offsets[v + 1] > offsets[v], (int)v, out, size);
    }
}

// Bottom-up level: a warp per candidate v reads v's row a whole aligned line at a time and stops at
// the first line holding a vertex of the current level, which becomes v's parent.  A row is read
// only as far as its first parent: on the big middle levels of a small-world graph that is one line.
extern "C" __global__ void graphsweep_bfs_emogi_bottom_up(const int* __restrict__ indices, const long long* __restrict__ offsets,
                                                          const int* __restrict__ candidates, long long size, int* level,
                                                          int* parent, int current, int* next,
                                                          unsigned long long* next_size, unsigned long long* lines,
                                                          int mark, unsigned* seen, unsigned long long* fresh)
{
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    unsigned long long read = 0, new_lines = 0;
    for (long long w = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32; w < size; w += warps) {
        const int v = candidates[w];
        const long long s = offsets[v], e = offsets[v + 1];
        for (long long base = s / WIDTH * WIDTH; base < e; base += WIDTH) {
            const long long entry = base + lane;
            const int u = entry >= s && entry < e ? indices[entry] : -1;
            const bool hit = u >= 0 && level[u] == current;
            const unsigned mask = __ballot_sync(0xffffffffu, hit);
            ++read;
            if (lane == 0) new_lines += first_read(mark, seen, base / WIDTH);
            if (mask) {
                visit(lane == __ffs(mask) - 1, v, u, level, parent, current + 1, next, next_size);
                break;
            }
        }
    }
    if (lane == 0 && read) atomicAdd(lines, read);
    if (new_lines) atomicAdd(fresh, new_lines);
}

extern "C" __global__ void graphsweep_bfs_emogi_init(int* level, int* parent, long long n, int root)
{
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < n; v += (long long)gridDim.x * blockDim.x) {
        level[v] = v == root ? 0 : -1;
        parent[v] = v == root ? root : -1;
    }
}
