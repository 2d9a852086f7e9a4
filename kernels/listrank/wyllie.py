"""listrank.wyllie — pointer jumping (Wyllie), the papers' simplest parallel list ranking.

Returns rank[i] = links from i to the tail.  Every node holds (rank, next), rank 1 (0 for the
tail, which points to itself); ceil(log2(n - 1)) rounds each set rank[i] += rank[next[i]] and
next[i] = next[next[i]].  O(n log n) work.  000 Alg. 2 (PJ1 init, PJ2 one launch per round)
with 003 §3.1's packing: rank and next share one 64-bit word, so each node is one 64-bit load
and one 64-bit store.  Where 003 overwrites the words in place and relies on 64-bit stores
being atomic, rounds here read one buffer and write the other (ping-pong), so every round reads
a consistent state.  The CPU twin does the same rounds with NumPy gathers, under the same host
loop (``_run`` over ``GpuWyllie`` or ``CpuWyllie``).
"""

from functools import partial

import numpy as np

from ..contract import Kernel
from ..cuda import GRID_PARAMS, c_type, check_threads, launch, module
from . import LISTRANK
from .cpu import jump as jump_cpu
from .gpu import check_gpu_size, jump, jump_rounds


def _run(passes, inp, params, timer):
    """PJ1, then Wyllie's rounds (one PJ2 phase each), over either backend's ``passes``; ``width`` is
    the bytes a node's (rank, next) state takes."""
    n, pj = inp.n, passes(inp, params)
    with timer.phase("PJ1", read=n * inp.succ.itemsize, written=n * pj.width):
        pj.init()
    rank = pj.ranks(timer, "PJ2")
    timer.stat("rounds", jump_rounds(n))
    return rank


class GpuWyllie:
    """PJ1 and the rounds (gpu.jump) as launches on packed (rank, next) words, then the ranks unpacked."""

    width = 8

    def __init__(self, inp, params):
        import cupy
        check_gpu_size(inp)
        self.succ, self.n = inp.succ, inp.n
        self.threads, self.blocks = check_threads(params["threads"]), params["blocks"]
        self.names = (f"graphsweep_listrank_jump_init_succ<{c_type(inp.succ.dtype)}>",
                      "graphsweep_listrank_jump_unpack<int>")
        self.mod = module("listrank/wyllie.cu", name_expressions=self.names)
        self.a = cupy.empty(self.n, dtype=np.uint64)
        self.b = cupy.empty(self.n, dtype=np.uint64)
        self.rank = cupy.empty(self.n, dtype=inp.rank_dtype)

    def init(self):
        launch(self.mod.get_function(self.names[0]), self.n, self.threads, self.blocks, self.succ, self.a,
               np.int64(self.n))

    def ranks(self, timer, phase: str):
        """The rounds, one ``phase`` each, then the ranks unpacked from the words."""
        done = jump(self.mod, timer, phase, self.a, self.b, self.n, self.threads, self.blocks)
        with timer.phase("unpack", read=8 * self.n, written=self.n * self.rank.itemsize):
            launch(self.mod.get_function(self.names[1]), self.n, self.threads, self.blocks, done, self.rank,
                   np.int64(self.n))
        return self.rank


class CpuWyllie:
    """The same rounds with NumPy gathers on separate rank and next arrays (cpu.jump)."""

    def __init__(self, inp, params):
        self.succ = inp.succ
        self.rank, self.nxt = np.empty(inp.n, dtype=inp.rank_dtype), np.empty_like(inp.succ)
        self.index = np.arange(inp.n, dtype=inp.succ.dtype)
        self.width = self.succ.itemsize + self.rank.itemsize

    def init(self):
        np.not_equal(self.succ, self.index, out=self.rank, casting="unsafe")     # rank 1, 0 at the tail
        self.nxt[:] = self.succ

    def ranks(self, timer, phase: str):
        return jump_cpu(self.rank, self.nxt, timer, phase)


KERNEL = Kernel(name="listrank.wyllie", problem=LISTRANK,
                summary="Wyllie pointer jumping on packed 64-bit (rank, next) words, O(n log n) (000 Alg. 2, 003 §3.1)",
                gpu=partial(_run, GpuWyllie), cpu=partial(_run, CpuWyllie), params=GRID_PARAMS,
                walk_phase="PJ2", walk_bytes=lambda params: 20)
