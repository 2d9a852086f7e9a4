"""apsp.repeated-sssp — SSSP from every source (Alg. 7), many sources per launch, rows in blocks.

Returns dist (n x n int32, -1 where there is no path).

Algorithm (HiPC'07 §3.4, Alg. 7): one SSSP per source, each writing its row of the output.
Where the paper runs its V-thread SSSP once per source from the host, a launch here takes a
block of ``batch`` sources (a phase per block, with a step row each: the rows stream out block by
block) and each thread block runs one source's SSSP at a time, alone, straight into that
source's row (apsp.cu): a frontier Bellman-Ford (Alg. 4-5's mask as a queue) with __syncthreads
between rounds instead of launches, atomicMin on the row (no parents), a shared bitmap that
queues a vertex once per round, and sssp.near-far's warp-cooperative edge gather.  Work is about
n x m relaxations (x the re-relaxations of Bellman-Ford), so it beats Floyd-Warshall's n^3 on
sparse graphs and loses on dense ones: benchmarks/apsp.py reports where they cross.
The CPU twin runs Dijkstra with a binary heap from every source (Numba, sources in parallel).
"""

import numba
import numpy as np


from ..contract import Kernel, Param
from ..cuda import check_threads, resident_blocks, resident_blocks_of
from . import APSP
from .matrix import AP_INF, apsp_module, check_fits, unpack_cpu, unpack_gpu

PARAMS = {
    "batch": Param(None, int, minimum=1, help="sources per launch (default: n / 8, at least one per block)"),
    "threads": Param(256, int, minimum=32, help="threads per block (one source per block at a time)"),
    "blocks": Param(None, int, minimum=1, help="thread blocks per launch (default: as many as are resident)"),
}


def setup(inp, params) -> None:
    scratch = 0
    if inp.backend == "gpu":
        # the queue pairs of the resident blocks: an SM's thread slots' worth of blocks per SM
        blocks = params["blocks"] or resident_blocks(params["threads"])
        scratch = 8 * inp.n * blocks
    check_fits(inp, "apsp.repeated-sssp", 4 * inp.n * inp.n, scratch)


def run_gpu(inp, params, timer):
    import cupy
    n, threads = inp.n, check_threads(params["threads"])
    csr = inp.csr()
    fn = apsp_module(inp).get_function("graphsweep_apsp_sssp_rows")
    shared = 4 * (-(-n // 32))
    grid = params["blocks"] or resident_blocks_of(fn, threads, shared)
    batch = params["batch"] or max(grid, -(-n // 8))
    batches = -(-n // batch)
    out = cupy.empty((n, n), dtype=np.int32)
    scratch = cupy.empty(2 * n * min(grid, batch), dtype=np.int32)
    relaxed = cupy.zeros(batches, dtype=np.uint64)
    traffic = []
    for step, first in enumerate(range(0, n, batch)):
        count = min(batch, n - first)
        blocks = min(grid, count)
        with timer.phase("rows", written=4 * n * count, step=step, info={"sources": count}) as t:
            fn((blocks,), (threads,), (csr.offsets, csr.indices, csr.weights, out, np.int64(n), np.int32(n),
                                       np.int32(first), np.int32(count), scratch, relaxed[step:]),
               shared_mem=shared)
        traffic.append(t)
    unpack_gpu(inp, out, timer)
    edges = relaxed.get()             # after the phases: the relaxations of each block of rows
    for t, e in zip(traffic, edges):
        # per relaxation: 8 B (index, weight) and a 4 B row entry read and atomically lowered
        t.add(read=12 * int(e), written=4 * int(e), random=int(e))
    timer.stat("relaxations", int(edges.sum()))
    timer.stat("batches", batches)
    timer.stat("blocks", grid)
    return {"dist": out}


# --- CPU twin: Dijkstra with a binary heap from every source ---------------------------------------

@numba.njit(cache=True)
def _dijkstra_row(off, idx, wt, s, row, heap_d, heap_v):
    for v in range(row.shape[0]):
        row[v] = AP_INF
    row[s] = 0
    heap_d[0], heap_v[0] = 0, s
    size, relaxed = 1, 0
    while size:
        d, u = heap_d[0], heap_v[0]
        size -= 1
        # pop: move the last entry to the root and sift it down
        ld, lv, i = heap_d[size], heap_v[size], 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and heap_d[c + 1] < heap_d[c]:
                c += 1
            if heap_d[c] >= ld:
                break
            heap_d[i], heap_v[i] = heap_d[c], heap_v[c]
            i = c
        heap_d[i], heap_v[i] = ld, lv
        if d > row[u]:
            continue                    # a stale entry: u was settled closer
        for e in range(off[u], off[u + 1]):
            relaxed += 1
            v = idx[e]
            nd = d + wt[e]
            if nd < row[v]:
                row[v] = nd
                i = size                # push: sift up
                size += 1
                while i > 0:
                    p = (i - 1) // 2
                    if heap_d[p] <= nd:
                        break
                    heap_d[i], heap_v[i] = heap_d[p], heap_v[p]
                    i = p
                heap_d[i], heap_v[i] = nd, v
    return relaxed


@numba.njit(parallel=True, cache=True)
def _repeated_dijkstra(off, idx, wt, out):
    n = out.shape[0]
    relaxed = np.zeros(n, np.int64)
    for s in numba.prange(n):
        heap_d = np.empty(idx.shape[0] + 1, np.int64)
        heap_v = np.empty(idx.shape[0] + 1, np.int64)
        relaxed[s] = _dijkstra_row(off, idx, wt, s, out[s], heap_d, heap_v)
    return relaxed.sum()


def run_cpu(inp, params, timer):
    n = inp.n
    csr = inp.csr()
    out = np.empty((n, n), dtype=np.int32)
    with timer.phase("rows", written=4 * n * n) as traffic:
        relaxed = _repeated_dijkstra(csr.offsets, csr.indices, csr.weights, out)
    traffic.add(read=12 * int(relaxed), written=4 * int(relaxed), random=int(relaxed))
    unpack_cpu(out, timer)
    timer.stat("relaxations", int(relaxed))
    return {"dist": out}


KERNEL = Kernel(name="apsp.repeated-sssp", problem=APSP,
                summary="SSSP from every source (HiPC'07 Alg. 7): one source per thread block, many per launch, "
                        "rows in blocks",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup, needs=("csr",))
