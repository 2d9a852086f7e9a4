"""bc.brandes — Brandes's betweenness from one root: a level-synchronous forward sweep counting
shortest paths, then a backward sweep accumulating dependencies, level by level.

Returns ``{"centrality"}`` (see the package doc; ``levels`` as a statistic).  Algorithm (Brandes
2001; GAPBS src/bc.cc, which also runs the forward sweep top-down by levels and the backward
sweep from the deepest level): forward, the vertices of level d (a slice of one queue that holds
every reached vertex in level order) claim their unreached neighbours for level d + 1 and add
their path counts sigma to every neighbour at level d + 1; backward, each vertex of level d pulls
(1 + delta[w]) / sigma[w] from its neighbours at level d + 1, so delta[v] = sigma[v] * sum needs
no atomics (GAPBS pulls too, over a successor bitmap its forward sweep records).

GPU (``brandes.cu``): a warp per vertex of the level, lanes striding over its row; claims by CAS
on the level array and warp-aggregated queue appends; path counts added by double atomics.  Rows
longer than ``split`` edges (a Kronecker graph's hubs) are cut in chunks of ``split`` edges, a warp
each, every level (a chunk whose vertex is not on the level returns at once); backward, the chunks'
sums meet by atomics and a thread per long row settles it (the chunk list: ``graph.simple.long_rows``,
made once per graph by ``setup``).  One
launch per level and direction; the host reads the queue's length after each forward level.
CPU twin: the same levels with Numba prange, race-free by pulling: forward, every unreached
vertex sums sigma over its neighbours at level d; backward, as on the GPU.  Each level of each
sweep is a step row (its frontier and edges).
"""

import numba
import numpy as np

from graphsweep.core.errors import ParameterError

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS, check_threads, module, resident_blocks
from ..graph import ROOT_PARAM
from ..graph.simple import long_rows
from . import BC

NO_SPLIT = np.iinfo(np.int64).max


def _level_traffic(xp, csr, queue, bounds, depth: int, forward: bool) -> dict:
    """A level's bytes: per vertex its queue entry, offsets, sigma (and coef, centrality written
    backward); per edge its index and the neighbour's level, plus sigma (forward, atomics) or
    coef (backward) at the neighbours one level down.  Edges are the level's degrees, summed
    after timing."""
    size = bounds[depth + 1] - bounds[depth]

    def edges():
        vertices = queue[bounds[depth]:bounds[depth + 1]]
        return int(csr.degree()[vertices].sum()) if size else 0
    vertex = 4 + 16 + 8
    return {"read": lambda: vertex * size + 8 * edges() + (8 * edges() if not forward else 0),
            "written": lambda: 8 * edges() if forward else 16 * size,
            "random": lambda: 2 * edges()}


def run_gpu(inp, params, timer):
    import cupy
    csr = inp.representation("simple")
    if csr.indices.dtype != np.int32:
        raise ParameterError(f"GPU betweenness takes graphs of fewer than 2^31 vertices (n = {inp.n})")
    n, root = inp.n, params["root"]
    threads = check_threads(params["threads"])
    most = params["blocks"] or resident_blocks(threads)
    mod = module("bc/brandes.cu")
    fn = {name: mod.get_function(f"graphsweep_bc_{name}")
          for name in ("forward", "forward_long", "backward", "backward_long_sums", "backward_long_settle")}
    split = params["split"]
    rows, chunk_vertex, chunk_begin = long_rows(inp, split) if split else (None, None, None)
    chunks = 0 if rows is None else int(chunk_vertex.shape[0])
    chunk_blocks = min(most, -(-chunks // (threads // 32))) if chunks else 0
    row_split = np.int64(split if chunks else NO_SPLIT)
    partial = cupy.zeros(n, dtype=np.float64) if chunks else None
    level = cupy.full(n, -1, dtype=np.int32)
    sigma = cupy.zeros(n, dtype=np.float64)
    coef = cupy.empty(n, dtype=np.float64)
    centrality = cupy.zeros(n, dtype=np.float64)
    queue = cupy.empty(n, dtype=np.int32)
    tail = cupy.ones(1, dtype=np.int32)
    with timer.phase("init", written=24 * n):
        level[root], sigma[root], queue[0] = 0, 1.0, root
    bounds = [0, 1]
    warps_per_block = threads // 32
    while True:
        depth = len(bounds) - 2
        size = bounds[-1] - bounds[-2]
        blocks = min(most, -(-size // warps_per_block))
        with timer.phase("forward", step=depth, info={"frontier": size},
                         **_level_traffic(cupy, csr, queue, bounds, depth, True)):
            fn["forward"]((blocks,), (threads,), (csr.offsets, csr.indices, level, sigma, queue, tail,
                                                  np.int32(bounds[-2]), np.int32(bounds[-1]), np.int32(depth), row_split))
            if chunks:
                fn["forward_long"]((chunk_blocks,), (threads,), (csr.offsets, csr.indices, level, sigma, queue, tail,
                                                                 chunk_vertex, chunk_begin, np.int64(chunks),
                                                                 row_split, np.int32(depth)))
        end = int(tail.get()[0])          # the next level's size: a host read per level
        if end == bounds[-1]:
            break
        bounds.append(end)
    for depth in range(len(bounds) - 2, -1, -1):
        size = bounds[depth + 1] - bounds[depth]
        blocks = min(most, -(-size // warps_per_block))
        with timer.phase("backward", step=depth, info={"frontier": size},
                         **_level_traffic(cupy, csr, queue, bounds, depth, False)):
            if chunks:
                fn["backward_long_sums"]((chunk_blocks,), (threads,), (csr.offsets, csr.indices, level, coef,
                                                                       chunk_vertex, chunk_begin, np.int64(chunks),
                                                                       row_split, np.int32(depth), partial))
            fn["backward"]((blocks,), (threads,), (csr.offsets, csr.indices, level, sigma, coef, centrality, queue,
                                                   np.int32(bounds[depth]), np.int32(bounds[depth + 1]),
                                                   np.int32(depth), np.int32(root), row_split))
            if chunks:
                fn["backward_long_settle"]((-(-int(rows.shape[0]) // threads),), (threads,),
                                           (rows, np.int32(rows.shape[0]), level, sigma, coef, centrality, partial,
                                            np.int32(depth), np.int32(root)))
    timer.stat("levels", len(bounds) - 1)
    timer.stat("reached", bounds[-1])
    timer.stat("split_rows", 0 if rows is None else int(rows.shape[0]))
    return {"centrality": centrality}


def setup(inp, params) -> None:
    if inp.backend == "gpu" and params["split"]:
        long_rows(inp, params["split"])


# --- CPU twin: the same levels, pulling (race-free under prange).

@numba.njit(cache=True, parallel=True)
def _forward(offsets, indices, level, sigma, depth):
    """Every unreached vertex with neighbours at ``depth`` joins level depth + 1 with their path
    counts summed; returns how many joined."""
    joined = 0
    for v in numba.prange(level.shape[0]):
        if level[v] != -1:
            continue
        paths = 0.0
        for e in range(offsets[v], offsets[v + 1]):
            if level[indices[e]] == depth:
                paths += sigma[indices[e]]
        if paths > 0.0:
            level[v] = depth + 1
            sigma[v] = paths
            joined += 1
    return joined


@numba.njit(cache=True, parallel=True)
def _backward(offsets, indices, level, sigma, coef, centrality, depth, root):
    for v in numba.prange(level.shape[0]):
        if level[v] != depth:
            continue
        total = 0.0
        for e in range(offsets[v], offsets[v + 1]):
            w = indices[e]
            if level[w] == depth + 1:
                total += coef[w]
        delta = sigma[v] * total
        coef[v] = (1.0 + delta) / sigma[v]
        if v != root:
            centrality[v] = delta


def run_cpu(inp, params, timer):
    csr = inp.representation("simple")
    n, root = inp.n, params["root"]
    level = np.full(n, -1, dtype=np.int32)
    sigma = np.zeros(n, dtype=np.float64)
    coef = np.zeros(n, dtype=np.float64)
    centrality = np.zeros(n, dtype=np.float64)
    with timer.phase("init", written=28 * n):
        level[root], sigma[root] = 0, 1.0
    sizes = [1]
    while True:
        depth = len(sizes) - 1
        with timer.phase("forward", step=depth, info={"frontier": sizes[-1]}, read=lambda: 4 * n + 4 * csr.nnz):
            joined = _forward(csr.offsets, csr.indices, level, sigma, depth)
        if not joined:
            break
        sizes.append(joined)
    for depth in range(len(sizes) - 1, -1, -1):
        with timer.phase("backward", step=depth, info={"frontier": sizes[depth]}, read=4 * n + 4 * csr.nnz):
            _backward(csr.offsets, csr.indices, level, sigma, coef, centrality, depth, root)
    timer.stat("levels", len(sizes))
    timer.stat("reached", sum(sizes))
    return {"centrality": centrality}


KERNEL = Kernel(name="bc.brandes", problem=BC,
                summary="Brandes betweenness from each root: level-synchronous forward path counts, backward "
                        "dependency pulls, a warp per vertex of the level (GAPBS bc)",
                gpu=run_gpu, cpu=run_cpu, setup=setup, needs=("simple",),
                params={**ROOT_PARAM, **GRID_PARAMS,
                        "split": Param(4096, minimum=0, help="rows longer than this are cut in chunks of this many "
                                                             "edges, a warp each (0: never; GPU only)")})
