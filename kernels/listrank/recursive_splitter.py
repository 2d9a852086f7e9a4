"""listrank.recursive-splitter — random splitters (000) in the recursion of 003, tuned for Hopper.

Returns rank[i] = links from i to the tail.  The list is cut into chunks of C = ``sublist``
consecutive node indices and chunk k's splitter is a random node of it (000 Alg. 3 RS2; the
head stands for its chunk), drawn by a hash of k.  Because the splitter of a chunk is a pure
function of the chunk, a walk knows whether the node it reached is a splitter from the node's
index alone: there is no marking pass (RS1/RS2) and each walk step is one dependent 4-byte read
of succ plus one independent packed 64-bit store of (links from the splitter, owner) — the
dependent pointer chase the device can do, and little more.  The walks run on a persistent grid
(blocks default: one full load of every SM) in one flat loop: a lane whose sub-list ends takes
the next unclaimed one from an atomic counter at once, so a warp is not held by its longest
walk (003 §4.2's warp imbalance).  The p = n/C sub-lists form a reduced list of packed (weight,
next) nodes that is ranked the same way, recursively (003 Alg. 3), while it has more than
``limit`` nodes (at C = 32 the reduced lists are L2-resident); the last is ranked by Wyllie's
jumping; each level then adds its sub-list's rank in one coalesced pass, whose gather of
sub-list ranks stays in L2 because C grows with n past 2^27 nodes (at most 2^22 sub-lists).
"""

import numba
import numpy as np

from graphsweep.datasets.errors import ParameterError
from graphsweep.datasets.gpu import to_host

from ..contract import Kernel, Param
from ..cuda import check_threads, module, resident_blocks
from . import LISTRANK
from .cpu import rank_by_levels, sublist_stats
from .gpu import U64, check_gpu_size, combine_levels, rank_small, small_names, succ_type

PARAMS = {
    "sublist": Param(None, minimum=2, help="chunk size C (a power of two): the mean sub-list length (default: "
                                           "32, raised for n > 2^27 so at most 2^22 sub-lists keep their ranks in L2)"),
    "limit": Param(8192, minimum=16, help="lists of at most this many nodes are ranked by Wyllie's jumping"),
    "seed": Param(1, minimum=0, help="seed of the splitter draw"),
    "threads": Param(256, minimum=32, help="threads per block"),
    "blocks": Param(None, minimum=1, help="thread blocks (default: the walk fills every SM once; "
                                          "the other passes cover their arrays)"),
}


L2_SUBLISTS = 1 << 22          # 16 MB of sub-list ranks: the level-0 combine gathers them from L2


def log_chunk(params, n: int) -> int:
    c = params["sublist"]
    if c is None:
        c = max(32, 1 << max(0, -(-n // L2_SUBLISTS) - 1).bit_length())
    if c & (c - 1):
        raise ParameterError(f"parameter 'sublist': {c} is not a power of two")
    return c.bit_length() - 1


def plan(n: int, head: int, log_c: int, limit: int) -> list[tuple[int, int, int]]:
    """(nodes, sub-lists, head) of each level that is reduced; the last list is the base."""
    levels, m = [], n
    while m > limit:
        p = -(-m // (1 << log_c))
        levels.append((m, p, head))
        m, head = p, head >> log_c
    return levels


def run_gpu(inp, params, timer):
    import cupy
    check_gpu_size(inp)
    n, threads = inp.n, check_threads(params["threads"])
    blocks, log_c, seed = params["blocks"], log_chunk(params, inp.n), params["seed"]
    levels = plan(n, inp.head, log_c, params["limit"])
    walk0 = f"graphsweep_listrank_fs_walk_succ<{succ_type(inp.succ)}>"
    mod = module("listrank/recursive_splitter.cu", name_expressions=(walk0, *small_names(inp.succ)))
    rank = cupy.empty(n, dtype=np.int32)
    timer.stat("depth", len(levels))
    timer.stat("level_sizes", [m for m, *_ in levels] + [levels[-1][1] if levels else n])
    if not levels:
        rank_small(mod, timer, inp.succ, rank, threads, blocks)
        return rank
    rec = [cupy.empty(m, dtype=U64) for m, *_ in levels]
    node = [cupy.empty(p, dtype=U64) for _, p, _ in levels]      # node[l]: the list of level l + 1
    incl = [cupy.empty(p, dtype=np.uint32) for _, p, _ in levels]
    words = cupy.empty((2, levels[-1][1]), dtype=U64)
    counters = cupy.empty(len(levels), dtype=np.uint32)
    walk_blocks = blocks or resident_blocks(threads)
    for level, (m, p, head) in enumerate(levels):
        width = inp.succ.itemsize if level == 0 else 8
        if level == 0:
            counters.fill(0)  # the walks' work counters; outside the timed walk
        with timer.phase("walk", read=m * width, written=8 * m + 8 * p, random=2 * m + p):
            if level == 0:
                fn, src = mod.get_function(walk0), inp.succ
            else:
                fn, src = mod.get_function("graphsweep_listrank_fs_walk_nodes"), node[level - 1]
            fn((walk_blocks,), (threads,), (src, rec[level], node[level], counters[level:], np.int32(m),
                                            np.int32(log_c), np.int32(head), np.uint32(seed + level)))
    combine_levels(mod, timer, rec, node, words, incl, rank, threads, blocks)
    timer.stat("sublists", lambda: sublist_stats(to_host(node[0].view(np.uint32)[::2])))
    return rank


# --- CPU twin: the same chunked random splitters and levels (cpu.rank_by_levels).

@numba.njit(cache=True, parallel=True)
def _select(rec, spl, log_c, head, seed):
    m = rec.shape[0]
    for j in numba.prange(m):
        rec[j] = -1 << 32
    for k in numba.prange(spl.shape[0]):
        lo = k << log_c
        hi = min(lo + (1 << log_c), m)
        s = head if lo <= head < hi else lo + (((k * 0x5851F42D4C957F2D + seed) >> 11) & 0xFFFFFFFF) % (hi - lo)
        spl[k] = s
        rec[s] = k << 32


def run_cpu(inp, params, timer):
    log_c, seed = log_chunk(params, inp.n), params["seed"]
    levels = plan(inp.n, inp.head, log_c, params["limit"])

    def select(level, rec, spl):
        _select(rec, spl, log_c, levels[level][2], seed + level)

    return rank_by_levels(inp, levels, select, levels[-1][2] >> log_c if levels else inp.head, timer)


KERNEL = Kernel(name="listrank.recursive-splitter", problem=LISTRANK,
                summary="recursive random splitters, no marking pass, persistent dynamic walks (000 + 003, tuned)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, walk_phase="walk", walk_bytes=lambda params: 12)
