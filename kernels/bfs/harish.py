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
The CPU twin runs the same two passes per level with Numba prange, under the same host loop
(``_run`` over ``GpuHarish`` or ``CpuHarish``).
"""

from contextlib import contextmanager
from functools import partial

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


def _run(passes, inp, params, timer):
    """Alg. 1: the levels, over either backend's ``passes``, until a level reaches no vertex."""
    csr, root = inp.csr(), params["root"]
    n, bfs = csr.n, passes(csr, params)
    sizes = LevelSizes(bfs.cost, csr)
    with timer.phase("init", written=sum(a.nbytes for a in (bfs.cost, bfs.parent, *bfs.flags))):
        bfs.init(root)
    depth = 0
    while True:
        with _level_phase(timer, n, depth, sizes):
            reached = bfs.level()
        depth += 1
        if not reached():     # Alg. 1 line 5: the host tests the flag after every level
            break
        if depth > n:
            raise RuntimeError(f"bfs.harish: level {depth} on {n} vertices (the flag never clears)")
    timer.stat("levels", depth)
    return {"level": bfs.cost, "parent": bfs.parent}


class GpuHarish:
    """The passes as launches of harish.cu on a device CSR; the flag is read back after each level."""

    def __init__(self, csr, params):
        import cupy
        check_gpu_graph(csr)
        self.csr, self.n = csr, csr.n
        self.threads, self.blocks = check_threads(params["threads"]), params["blocks"]
        mod = module("bfs/harish.cu")
        self.init_fn = mod.get_function("graphsweep_bfs_harish_init")
        self.expand, self.update = (mod.get_function("graphsweep_bfs_harish_expand"),
                                    mod.get_function("graphsweep_bfs_harish_update"))
        self.flags = tuple(cupy.empty(self.n, dtype=np.uint8) for _ in range(3))   # frontier, visited, updating
        self.cost, self.parent = cupy.empty(self.n, dtype=np.int32), cupy.empty(self.n, dtype=np.int32)
        self.over = cupy.zeros(1, dtype=np.int32)

    def init(self, root: int):
        launch(self.init_fn, self.n, self.threads, self.blocks, *self.flags, self.cost, self.parent,
               np.int32(self.n), np.int32(root))

    def level(self):
        """Alg. 2 as the expand and update launches; returns a callable: did the level reach a vertex?
        (read back only when called, after the level's phase)."""
        (frontier, visited, updating), n = self.flags, np.int32(self.n)
        self.over.fill(0)
        launch(self.expand, self.n, self.threads, self.blocks, self.csr.offsets, self.csr.indices, frontier, visited,
               self.cost, self.parent, updating, n)
        launch(self.update, self.n, self.threads, self.blocks, frontier, visited, updating, self.over, n)
        return lambda: int(self.over.get()[0])


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


class CpuHarish:
    """The same passes as Numba ``prange`` loops; parents in the CSR's index type."""

    def __init__(self, csr, params):
        self.csr, n = csr, csr.n
        self.flags = tuple(np.empty(n, dtype=np.uint8) for _ in range(3))        # frontier, visited, updating
        self.cost, self.parent = np.empty(n, dtype=np.int32), np.empty(n, dtype=csr.indices.dtype)

    def init(self, root: int):
        self.cost.fill(-1)
        self.parent.fill(-1)
        for flags in self.flags:
            flags.fill(0)
        frontier, visited, _ = self.flags
        self.cost[root], self.parent[root], frontier[root], visited[root] = 0, root, 1, 1

    def level(self):
        frontier, visited, updating = self.flags
        _expand(self.csr.offsets, self.csr.indices, frontier, visited, self.cost, self.parent, updating)
        over = _update(frontier, visited, updating)
        return lambda: over


KERNEL = Kernel(name="bfs.harish", problem=BFS,
                summary="level-synchronous BFS, one thread per vertex per level, frontier/visited/cost flags "
                        "(001 §3.2, Algs. 1-2)",
                gpu=partial(_run, GpuHarish), cpu=partial(_run, CpuHarish), params=PARAMS, needs=("csr",))
