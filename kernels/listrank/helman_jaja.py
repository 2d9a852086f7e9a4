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
the level sizes and level-0 sub-list statistics.  Both backends run the levels through one host
loop (``cpu.rank_levels`` over ``GpuHJ`` or ``cpu.CpuLevels``); the CPU twin ranks the last list
sequentially.
"""

import math

import numba
import numpy as np

from ..contract import Kernel, Param
from ..cuda import c_type, check_threads, launch, module
from . import LISTRANK
from .cpu import CpuLevels, rank_levels
from .gpu import GpuLevels, check_gpu_size, small_names

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


class GpuHJ(GpuLevels):
    """A level's select (clear the records, mark the regular splitters) and walk as launches of
    helman_jaja.cu; the last list and the way back up are the shared ones (gpu.GpuLevels)."""

    def __init__(self, inp, levels, params):
        check_gpu_size(inp)
        threads, blocks = check_threads(params["threads"]), params["blocks"]
        self.walk0 = f"graphsweep_listrank_hj_walk_succ<{c_type(inp.succ.dtype)}>"
        mod = module("listrank/helman_jaja.cu", name_expressions=(self.walk0, *small_names(inp.succ)))
        super().__init__(mod, inp, levels, threads, blocks, splitters=True)

    def select_traffic(self, level: int) -> dict:
        m, p, *_ = self.levels[level]
        return {"written": 8 * m + 12 * p, "random": p}

    def select(self, level: int):
        m, p, stride, head = self.levels[level]
        fn, threads, blocks = self.mod.get_function, self.threads, self.blocks
        launch(fn("graphsweep_listrank_hj_clear"), m, threads, blocks, self.rec[level], np.int64(m))
        launch(fn("graphsweep_listrank_hj_select"), p, threads, blocks, self.rec[level], self.spl[level], np.int64(p),
               np.int64(stride), np.int32(head))

    def walk_traffic(self, level: int) -> dict:
        m, p, *_ = self.levels[level]
        width = self.succ.itemsize if level == 0 else 8
        return {"read": m * (width + 8) + 4 * p, "written": 8 * m + 8 * p, "random": 3 * m}

    def walk(self, level: int):
        p = self.levels[level][1]
        if level == 0:
            fn, src = self.mod.get_function(self.walk0), self.succ
        else:
            fn, src = self.mod.get_function("graphsweep_listrank_hj_walk_nodes"), self.node[level - 1]
        launch(fn, p, self.threads, self.blocks, src, self.rec[level], self.spl[level], self.node[level], np.int64(p))


def run_gpu(inp, params, timer):
    levels = plan(inp.n, inp.head, params["rule"], params["limit"])
    return rank_levels(GpuHJ(inp, levels, params), inp.n, levels, timer, select_phase="HJ1", walk_phase="HJ2")


# --- CPU twin: the same levels (cpu.CpuLevels), splitters at regular index intervals.

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

    passes = CpuLevels(inp, levels, select, 0 if levels else inp.head)
    return rank_levels(passes, inp.n, levels, timer, select_phase="HJ1", walk_phase="HJ2")


KERNEL = Kernel(name="listrank.helman-jaja", problem=LISTRANK,
                summary="recursive Helman-JáJá: regular splitters n/log n or n/(2 log² n), recursion limit (003 Alg. 3)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, walk_phase="HJ2", walk_bytes=lambda params: 12)
