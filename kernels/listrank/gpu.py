"""What the list-ranking GPU launchers share (the device code is in common.cuh); generic launch
helpers are in ``kernels/cuda.py``.

``jump`` runs Wyllie's pointer jumping on packed (value, next) words; the random-splitter family
uses it to rank its short splitter lists, and listrank.wyllie is nothing but it.
"""

import numpy as np

from graphsweep.core.errors import ParameterError

from ..cuda import c_type, launch

U64 = np.uint64


def check_gpu_size(inp) -> None:
    if inp.n >= 2**31:
        raise ParameterError(f"GPU list ranking packs node ids into 32 bits: n = {inp.n} must be below 2^31 "
                             "(use --backend cpu)")


def jump_rounds(m: int) -> int:
    """Rounds of pointer jumping that rank any list of m nodes: the least k with 2^k >= m - 1."""
    return max(0, m - 2).bit_length()


def jump(mod, timer, phase: str, a, b, m: int, threads: int, blocks) -> object:
    """Rank the packed words ``a`` (ping-pong with ``b``) in place; returns the buffer holding the result.

    Each round is one launch (a grid-wide barrier between rounds, 000 Alg. 2's multi-kernel form)
    and one call of ``phase``: 8m bytes read in order, 8m at random, 8m written.
    """
    fn = mod.get_function("graphsweep_listrank_jump")
    for _ in range(jump_rounds(m)):
        with timer.phase(phase, read=16 * m, written=8 * m, random=m):
            launch(fn, m, threads, blocks, a, b, np.int64(m))
        a, b = b, a
    return a


def rank_small(mod, timer, succ, rank, threads: int, blocks) -> None:
    """Rank a whole (short) list by Wyllie's jumping: the recursion's base when n is at most its limit."""
    n = succ.shape[0]
    words = cupy_empty((2, n), U64)
    st = c_type(succ.dtype)
    with timer.phase("base", read=n * succ.itemsize, written=8 * n):
        launch(mod.get_function(f"graphsweep_listrank_jump_init_succ<{st}>"), n, threads, blocks, succ, words[0],
               np.int64(n))
    done = jump(mod, timer, "base", words[0], words[1], n, threads, blocks)
    with timer.phase("base", read=8 * n, written=4 * n):
        launch(mod.get_function("graphsweep_listrank_jump_unpack<int>"), n, threads, blocks, done, rank, np.int64(n))


def rank_weighted(mod, timer, node, words, incl, threads: int, blocks) -> None:
    """incl[i] = weight from node i to the end of the packed-node list ``node`` (Wyllie; ``words``: 2 x m scratch)."""
    m = node.shape[0]
    with timer.phase("base", read=16 * m, written=8 * m, random=m):
        launch(mod.get_function("graphsweep_listrank_jump_init_nodes"), m, threads, blocks, node, words[0],
               np.int64(m))
    done = jump(mod, timer, "base", words[0], words[1], m, threads, blocks)
    with timer.phase("base", read=16 * m, written=4 * m):
        launch(mod.get_function("graphsweep_listrank_jump_inclusive"), m, threads, blocks, done, node, incl,
               np.int64(m))


def expand(mod, timer, rec, upper, out, threads: int, blocks) -> None:
    """One level back up the recursion: out[j] from j's record and its sub-list's upper value.

    ``out`` int32 is the final rank (level 0), uint32 a deeper level's inclusive suffix weights.
    """
    m = rec.shape[0]
    name = "graphsweep_listrank_expand_rank" if out.dtype == np.int32 else "graphsweep_listrank_expand"
    with timer.phase("expand", read=12 * m, written=4 * m, random=m):
        launch(mod.get_function(name), m, threads, blocks, rec, upper, out, np.int64(m))


def combine_levels(mod, timer, rec, node, words, incl, rank, threads: int, blocks) -> None:
    """The way back up a recursion of reduced lists: rank the last level's packed nodes, then give
    every level its sub-lists' ranks, down to ``rank`` at level 0."""
    rank_weighted(mod, timer, node[-1], words, incl[-1], threads, blocks)
    for level in reversed(range(len(rec))):
        expand(mod, timer, rec[level], incl[level], rank if level == 0 else incl[level - 1], threads, blocks)


class GpuLevels:
    """The device arrays and the way back up of a recursion of reduced lists (cpu.rank_levels): per
    reduced level packed records ``rec``, the next list's packed nodes ``node`` and their inclusive
    weights ``incl`` (and, with ``splitters``, the splitter ids ``spl``), allocated before the first
    kernel (003 §4.1).  A kernel adds its ``select`` and ``walk`` launches and their byte models."""

    def __init__(self, mod, inp, levels, threads: int, blocks, splitters: bool = False):
        self.mod, self.succ, self.levels, self.threads, self.blocks = mod, inp.succ, levels, threads, blocks
        self.rank = cupy_empty(inp.n, np.int32)
        if not levels:
            return
        self.rec = [cupy_empty(m, U64) for m, *_ in levels]
        if splitters:
            self.spl = [cupy_empty(p, np.int32) for _, p, *_ in levels]
        self.node = [cupy_empty(p, U64) for _, p, *_ in levels]      # node[l]: the list of level l + 1
        self.incl = [cupy_empty(p, np.uint32) for _, p, *_ in levels]
        self.words = cupy_empty((2, levels[-1][1]), U64)

    def combine(self, timer):
        """Rank the last list by Wyllie's jumping, then every level from its sub-lists' ranks (a list
        never reduced is ranked whole)."""
        if not self.levels:
            rank_small(self.mod, timer, self.succ, self.rank, self.threads, self.blocks)
        else:
            combine_levels(self.mod, timer, self.rec, self.node, self.words, self.incl, self.rank, self.threads,
                           self.blocks)
        return self.rank

    def sublist_lengths(self):
        """Level 0's sub-list lengths (the weights of the first reduced list), on the device."""
        return self.node[0].view(np.uint32)[::2]


def cupy_empty(shape, dtype):
    import cupy
    return cupy.empty(shape, dtype=dtype)


def small_names(succ) -> tuple:
    """Template instances ``rank_small`` needs in a module."""
    return (f"graphsweep_listrank_jump_init_succ<{c_type(succ.dtype)}>", "graphsweep_listrank_jump_unpack<int>")
