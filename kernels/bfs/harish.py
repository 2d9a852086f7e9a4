"""bfs.harish — Harish & Narayanan's level-synchronous BFS: one thread per vertex, every level.

Returns ``{"level", "parent"}`` (see the package doc; ``levels`` = max level + 1 as a statistic).
Algorithm (001 §3.2, Algs. 1-2): boolean frontier / visited arrays and the cost array (the
level).  Each level runs one thread per vertex twice: *expand* (Alg. 2) takes every frontier
vertex out of the frontier and gives cost + 1 to its unvisited neighbours, marking them in an
updating array; *update* makes the vertices so reached the next frontier and visited and raises
the flag that the host reads after the level (Alg. 1's loop test).  Alg. 2 as printed does both
in one launch, where a vertex added by one thread can be expanded by another in the same launch;
the authors' released code splits it in these two kernels.  Parents are not in the paper: a
thread that sets a neighbour's cost also writes itself as the parent (every writer sits on the
level above, so any of them is right).

Work is O(levels x n + m): every level reads all n flags twice, so it falls behind a queue-based
BFS by about levels x n / (n + m), and one thread walks a hub's whole list (001 Fig. 5, Table 1).
The CPU twin runs the same two passes per level with Numba prange.
"""

from contextlib import contextmanager

import numba
import numpy as np

from ..contract import Kernel
from ..cuda import GRID_PARAMS, check_threads, launch, module
from . import BFS, ROOT_PARAM
from .gpu import LevelSizes, check_gpu_graph

PARAMS = {**ROOT_PARAM, **GRID_PARAMS}


@contextmanager
def _level_phase(timer, n: int, depth: int, sizes: LevelSizes):
    """One level's phase.  Both passes read every vertex's flag (2n bytes); the frontier (f
    vertices, e edges, d reached) adds offsets and cost 20f, edges and visited flags 5e, and writes
    frontier flags f, cost + parent + updating 9d and the update pass's 3d; random: the offsets,
    the visited flags and the scattered writes.  f, e and d are known from the levels after timing."""
    def f():
        return sizes.frontier(depth)

    def e():
        return sizes.edges(depth)

    def d():
        return sizes.frontier(depth + 1)

    with timer.phase("level", read=2 * n, written=4, step=depth, info={"frontier": f, "edges": e}) as traffic:
        traffic.add(read=lambda: 20 * f() + 5 * e(), written=lambda: f() + 12 * d(), random=lambda: f() + e() + d())
        yield


def run_gpu(inp, params, timer):
    import cupy
    csr = inp.csr()
    check_gpu_graph(csr)
    n, root = csr.n, params["root"]
    threads, blocks = check_threads(params["threads"]), params["blocks"]
    mod = module("bfs/harish.cu")
    expand, update = mod.get_function("graphsweep_bfs_harish_expand"), mod.get_function("graphsweep_bfs_harish_update")
    frontier, visited, updating = (cupy.empty(n, dtype=np.uint8) for _ in range(3))
    cost, parent = cupy.empty(n, dtype=np.int32), cupy.empty(n, dtype=np.int32)
    over = cupy.zeros(1, dtype=np.int32)
    sizes = LevelSizes(cost, csr)
    with timer.phase("init", written=11 * n):
        launch(mod.get_function("graphsweep_bfs_harish_init"), n, threads, blocks, frontier, visited, updating,
               cost, parent, np.int32(n), np.int32(root))
    depth = 0
    while True:
        with _level_phase(timer, n, depth, sizes):
            over.fill(0)
            launch(expand, n, threads, blocks, csr.offsets, csr.indices, frontier, visited, cost, parent, updating,
                   np.int32(n))
            launch(update, n, threads, blocks, frontier, visited, updating, over, np.int32(n))
        depth += 1
        if not int(over.get()[0]):     # Alg. 1 line 5: the host tests the flag after every level
            break
        if depth > n:
            raise RuntimeError(f"bfs.harish: level {depth} on {n} vertices (the flag never clears)")
    timer.stat("levels", depth)
    return {"level": cost, "parent": parent}


# --- CPU twin: the same two passes per level over all vertices.

@numba.njit(cache=True, parallel=True)
def _expand(offsets, indices, frontier, visited, cost, parent, updating):
    for v in numba.prange(frontier.shape[0]):
        if frontier[v]:
            frontier[v] = 0
            nxt = cost[v] + 1
            for e in range(offsets[v], offsets[v + 1]):
                w = indices[e]
                if not visited[w]:
                    cost[w] = nxt
                    parent[w] = v
                    updating[w] = 1


@numba.njit(cache=True, parallel=True)
def _update(frontier, visited, updating):
    over = 0
    for v in numba.prange(frontier.shape[0]):
        if updating[v]:
            frontier[v] = 1
            visited[v] = 1
            updating[v] = 0
            over += 1
    return over


def run_cpu(inp, params, timer):
    csr = inp.csr()
    n, root = csr.n, params["root"]
    frontier, visited, updating = (np.empty(n, dtype=np.uint8) for _ in range(3))
    cost = np.empty(n, dtype=np.int32)
    parent = np.empty(n, dtype=csr.indices.dtype)
    sizes = LevelSizes(cost, csr)
    with timer.phase("init", written=sum(a.nbytes for a in (cost, parent, frontier, visited, updating))):
        cost.fill(-1)
        parent.fill(-1)
        for flags in (frontier, visited, updating):
            flags.fill(0)
        cost[root], parent[root], frontier[root], visited[root] = 0, root, 1, 1
    depth = 0
    while True:
        with _level_phase(timer, n, depth, sizes):
            _expand(csr.offsets, csr.indices, frontier, visited, cost, parent, updating)
            over = _update(frontier, visited, updating)
        depth += 1
        if not over:
            break
    timer.stat("levels", depth)
    return {"level": cost, "parent": parent}


KERNEL = Kernel(name="bfs.harish", problem=BFS,
                summary="level-synchronous BFS, one thread per vertex per level, frontier/visited/cost flags "
                        "(001 §3.2, Algs. 1-2)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, needs=("csr",))
