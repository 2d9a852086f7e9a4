"""tc.search — triangle counting by intersecting oriented adjacency lists, binary search of the
shorter list's entries in the longer.

Returns ``{"triangles"}`` (see the package doc; ``triangles`` = the total as a statistic).
Algorithm: on the oriented graph (each edge from lower to higher (degree, id), rows sorted), the
triangles are exactly the pairs of an edge (u, v) and a vertex w in N+(u) ∩ N+(v), each found
once (Schank & Wagner's "forward" algorithm; GAPBS's src/tc.cc OrderedCount with its degree
relabelling).  GPU: ``lanes`` threads per edge read the shorter list in coalesced chunks, each lane
binary-searches its entry in the longer list from where its previous search ended; a hit adds one
to w's count at once and the group's hits to u's and v's.  The orientation bounds every list by
sqrt(2m), so no group meets a hub's whole row.
``lanes`` defaults to the oriented graph's edge-weighted mean out-degree (sum d^2 / sum d: the
out-degree an edge's end has, a pass over the degrees in the untimed setup) over 8, rounded to a
power of two and kept within 2-32 (its row's stat ``lanes``).  Long lists want wide groups (their
entries are read LANES at a time), short ones narrow groups (idle lanes otherwise); the mean
out-degree cannot tell them apart (kron and urand 22: 15.3 and 16.0), the edge-weighted one can
(226 and 19).  Measured (``benchmarks/best_rules.py``, H100, 2026-11-25; ms at 1/2/4/8/16/32 lanes):
kron 22 625/267/136/129/125/119 (rule: 32), urand 22 6.82/6.78/7.22/8.72/11.8/18.3 (2), R-MAT 20
(157: 16, 1.00), R-MAT 22 of edge factor 4 (64: 8, 1.00), uniform 2^20 of degree 128 (80: 8, 1.00).
One lane is never chosen: on the degree-6 uniform and scale-free graphs of 2^24 vertices
(edge-weighted out-degree 3.5-3.7) it is 1.27-1.29x the best (4 lanes; 2 lanes 1.02-1.06x); it
wins only on the 4096^2 grid (0.30 ms, 2 lanes 0.44).
CPU twin: Numba prange over the edges, a merge of the two sorted lists, atomic adds (CAS).
"""

import numba
import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.params import Param

from ..cc.cpu import cas, load
from ..contract import Kernel, nearest_power_of_two
from ..cuda import GRID_PARAMS, check_threads, module, resident_blocks
from . import TC

PARAMS = {**GRID_PARAMS,
          "lanes": Param(None, int, minimum=1, help="threads per edge, a power of two up to 32 (default: from the "
                                                    "oriented graph's edge-weighted mean out-degree)")}
LANES_PER = 8                    # edge-weighted mean out-degree per lane
FEWEST_LANES, MOST_LANES = 2, 32


def lanes_statistics(oriented) -> dict:
    """What ``lanes_rule`` reads: the oriented graph's edge-weighted mean out-degree, sum d^2 / sum d."""
    degree = oriented.degree().astype(np.float64)
    return {"out_degree_edge_mean": float((degree * degree).sum()) / max(oriented.nnz, 1)}


def lanes_rule(stats: dict) -> int:
    """Threads per edge from ``lanes_statistics`` (see the module doc)."""
    return min(MOST_LANES, max(FEWEST_LANES, nearest_power_of_two(stats["out_degree_edge_mean"] / LANES_PER)))


def setup(inp, params) -> None:
    """The default lanes need a pass over the oriented degrees: made once per input, untimed."""
    if params.get("lanes") is None and "tc.lanes" not in inp.cache:
        inp.cache["tc.lanes"] = lanes_rule(lanes_statistics(inp.representation("oriented")))


def lanes_for(inp, params) -> int:
    if params.get("lanes") is not None:
        return int(params["lanes"])
    setup(inp, params)
    return inp.cache["tc.lanes"]


def _traffic(xp, oriented) -> dict:
    """Per edge: its source and target (8 B) and both rows' offsets (32 B); the shorter row read
    once (4 B per entry) and log2 of the longer row's length random probes per entry (evaluated
    after timing: the lengths are the oriented graph's)."""
    def work():
        degree = oriented.degree()
        if oriented.nnz == 0:
            return 0.0, 0.0
        du, dv = degree[oriented.sources], degree[oriented.indices]
        shorter, longer = xp.minimum(du, dv), xp.maximum(du, dv)
        probes = (shorter * xp.ceil(xp.log2(longer + 1.0))).sum()
        return float(shorter.sum()), float(probes)
    cached = {}

    def get(i):
        if not cached:
            cached["work"] = work()
        return cached["work"][i]
    return {"read": lambda: 40 * oriented.nnz + 4 * get(0), "random": lambda: get(1)}


def run_gpu(inp, params, timer):
    import cupy
    oriented = inp.representation("oriented")
    if oriented.indices.dtype != np.int32:
        raise ParameterError(f"GPU triangle counting takes graphs of fewer than 2^31 vertices (n = {inp.n})")
    lanes, threads = lanes_for(inp, params), check_threads(params["threads"])
    if lanes not in (1, 2, 4, 8, 16, 32):
        raise ParameterError(f"parameter 'lanes': {lanes} is not a power of two up to 32")
    nnz = oriented.nnz
    blocks = params["blocks"] or max(1, min(resident_blocks(threads) * 4, -(-nnz * lanes // threads)))
    name = f"graphsweep_tc_search<{lanes}>"
    search = module("tc/search.cu", name_expressions=(name,)).get_function(name)
    count = cupy.zeros(inp.n, dtype=np.uint64)
    with timer.phase("intersect", written=8 * inp.n, **_traffic(cupy, oriented)):
        search((blocks,), (threads,), (oriented.offsets, oriented.indices, oriented.sources, np.int64(nnz), count))
    triangles = count.view(np.int64)
    timer.stat("lanes", lanes)
    timer.stat("triangles", lambda: int(triangles.sum()) // 3)
    return {"triangles": triangles}


@numba.njit(cache=True)
def _add(count, i, value):
    while True:
        old = load(count, i)
        if cas(count, i, old, old + value) == old:
            return


@numba.njit(cache=True, parallel=True)
def _intersect(offsets, indices, sources, count):
    for e in numba.prange(indices.shape[0]):
        u, v = sources[e], indices[e]
        i, i_end = offsets[u], offsets[u + 1]
        j, j_end = offsets[v], offsets[v + 1]
        found = 0
        while i < i_end and j < j_end:
            a, b = indices[i], indices[j]
            if a < b:
                i += 1
            elif b < a:
                j += 1
            else:
                found += 1
                _add(count, a, 1)
                i += 1
                j += 1
        if found:
            _add(count, u, found)
            _add(count, v, found)


def run_cpu(inp, params, timer):
    oriented = inp.representation("oriented")
    count = np.zeros(inp.n, dtype=np.int64)
    with timer.phase("intersect", written=8 * inp.n, **_traffic(np, oriented)):
        _intersect(oriented.offsets, oriented.indices, oriented.sources, count)
    timer.stat("triangles", lambda: int(count.sum()) // 3)
    return {"triangles": count}


KERNEL = Kernel(name="tc.search", problem=TC,
                summary="triangle counting on the degree-oriented simple graph: a group of lanes per edge, "
                        "binary search of the shorter list's entries in the longer (GAPBS tc OrderedCount)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup, needs=("simple", "oriented"))
