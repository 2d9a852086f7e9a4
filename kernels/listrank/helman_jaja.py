"""listrank.helman-jaja — recursive Helman-JáJá list ranking (RHJ), 003 Alg. 3 and §4.

Returns rank[i] = links from i to the tail.  While the list has more than ``limit`` nodes: pick
p splitters at regular index intervals n/p (on a random list these are random nodes of the
list; the head is always one), walk each sub-list from its splitter with one thread, writing
every node's weight-before-it and owner, and make the reduced list of p nodes (sub-list weight,
next sub-list); recurse on it.  The last list is ranked by Wyllie's jumping on the GPU (003
§5 hands it to Wyllie or the CPU).  On the way back each level adds its sub-list's rank.  The
host keeps the recursion stack; all levels' memory is allocated before the first kernel (003
§4.1).  ``rule`` picks p: ``log`` = n/log2 n, ``2log2`` = n/(2 log2² n), ``mixed`` = 2log2 on the
first level and log below (what 003 used for large lists, §4.2).  Reports the recursion depth,
the level sizes and level-0 sub-list statistics.
"""

import math

import numba
import numpy as np

from graphsweep.datasets.gpu import to_host

from ..contract import Kernel, Param
from ..cuda import check_threads, launch, module
from . import LISTRANK
from .cpu import rank_by_levels, sublist_stats
from .gpu import U64, check_gpu_size, combine_levels, rank_small, small_names, succ_type

RULES = ("log", "2log2", "mixed")
PARAMS = {
    "rule": Param("log", type=str, choices=RULES, help="splitters per level: n/log n, n/(2 log^2 n), or mixed"),
    "limit": Param(32768, minimum=16, help="lists of at most this many nodes are ranked directly"),
    "threads": Param(512, minimum=32, help="threads per block (003 used 512)"),
    "blocks": Param(None, minimum=1, help="thread blocks (default: one thread per splitter or node)"),
}


def splitters_for(m: int, rule: str, level: int) -> int:
    lg = math.log2(m)
    p = m / lg if rule == "log" or (rule == "mixed" and level > 0) else m / (2 * lg * lg)
    return max(1, int(p))


def plan(n: int, head: int, rule: str, limit: int) -> list[tuple[int, int, int, int]]:
    """(nodes, splitters, stride, head) of each level that is reduced; the last list is the base."""
    levels, m = [], n
    while m > limit:
        p = splitters_for(m, rule, len(levels))
        levels.append((m, p, m // p, head))
        m, head = p, 0
    return levels


def run_gpu(inp, params, timer):
    import cupy
    check_gpu_size(inp)
    n, threads, blocks = inp.n, check_threads(params["threads"]), params["blocks"]
    levels = plan(n, inp.head, params["rule"], params["limit"])
    walk0 = f"graphsweep_listrank_hj_walk_succ<{succ_type(inp.succ)}>"
    mod = module("listrank/helman_jaja.cu", name_expressions=(walk0, *small_names(inp.succ)))
    fn = mod.get_function
    rank = cupy.empty(n, dtype=np.int32)
    timer.stat("depth", len(levels))
    timer.stat("level_sizes", [m for m, *_ in levels] + [levels[-1][1] if levels else n])
    if not levels:
        rank_small(mod, timer, inp.succ, rank, threads, blocks)
        return rank
    rec = [cupy.empty(m, dtype=U64) for m, *_ in levels]
    spl = [cupy.empty(p, dtype=np.int32) for _, p, *_ in levels]
    node = [cupy.empty(p, dtype=U64) for _, p, *_ in levels]      # node[l]: the list of level l + 1
    incl = [cupy.empty(p, dtype=np.uint32) for _, p, *_ in levels]
    base = levels[-1][1]
    words = cupy.empty((2, base), dtype=U64)
    for level, (m, p, stride, head) in enumerate(levels):
        with timer.phase("HJ1", written=8 * m + 12 * p, random=p):
            launch(fn("graphsweep_listrank_hj_clear"), m, threads, blocks, rec[level], np.int64(m))
            launch(fn("graphsweep_listrank_hj_select"), p, threads, blocks, rec[level], spl[level], np.int64(p),
                   np.int64(stride), np.int32(head))
        width = inp.succ.itemsize if level == 0 else 8
        with timer.phase("HJ2", read=m * (width + 8) + 4 * p, written=8 * m + 8 * p, random=3 * m):
            if level == 0:
                launch(fn(walk0), p, threads, blocks, inp.succ, rec[0], spl[0], node[0], np.int64(p))
            else:
                launch(fn("graphsweep_listrank_hj_walk_nodes"), p, threads, blocks, node[level - 1], rec[level],
                       spl[level], node[level], np.int64(p))
    combine_levels(mod, timer, rec, node, words, incl, rank, threads, blocks)
    timer.stat("sublists", lambda: sublist_stats(to_host(node[0].view(np.uint32)[::2])))
    return rank


# --- CPU twin: the same levels (cpu.rank_by_levels), splitters at regular index intervals.

@numba.njit(cache=True, parallel=True)
def _select(rec, spl, stride, head):
    for j in numba.prange(rec.shape[0]):
        rec[j] = -1 << 32
    for k in range(spl.shape[0]):
        s = head if k == 0 else k * stride
        if k > 0 and s == head:
            s = 0
        spl[k] = s
        rec[s] = k << 32


def run_cpu(inp, params, timer):
    levels = plan(inp.n, inp.head, params["rule"], params["limit"])

    def select(level, rec, spl):
        _select(rec, spl, levels[level][2], levels[level][3])

    return rank_by_levels(inp, levels, select, 0 if levels else inp.head, timer, select_phase="HJ1",
                          walk_phase="HJ2")


KERNEL = Kernel(name="listrank.helman-jaja", problem=LISTRANK,
                summary="recursive Helman-JáJá: regular splitters n/log n or n/(2 log² n), recursion limit (003 Alg. 3)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, walk_phase="HJ2", walk_bytes=lambda params: 12)
