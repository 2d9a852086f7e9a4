"""listrank.wyllie — pointer jumping (Wyllie), the papers' simplest parallel list ranking.

Returns rank[i] = links from i to the tail.  Every node holds (rank, next), rank 1 (0 for the
tail, which points to itself); ceil(log2(n - 1)) rounds each set rank[i] += rank[next[i]] and
next[i] = next[next[i]].  O(n log n) work.  000 Alg. 2 (PJ1 init, PJ2 one launch per round)
with 003 §3.1's packing: rank and next share one 64-bit word, so each node is one 64-bit load
and one 64-bit store.  Where 003 overwrites the words in place and relies on 64-bit stores
being atomic, rounds here read one buffer and write the other (ping-pong), so every round reads
a consistent state.  The CPU twin does the same rounds with NumPy gathers.
"""

import numpy as np

from ..contract import Kernel
from ..cuda import GRID_PARAMS, check_threads, launch, module
from . import LISTRANK
from .gpu import check_gpu_size, jump, jump_rounds, succ_type


def _module(succ_t: str, rank_t: str):
    names = (f"graphsweep_listrank_jump_init_succ<{succ_t}>", f"graphsweep_listrank_jump_unpack<{rank_t}>")
    return module("listrank/wyllie.cu", name_expressions=names), names


def run_gpu(inp, params, timer):
    import cupy
    check_gpu_size(inp)
    n, threads, blocks = inp.n, check_threads(params["threads"]), params["blocks"]
    mod, (init_name, unpack_name) = _module(succ_type(inp.succ), "int")
    a = cupy.empty(n, dtype=np.uint64)
    b = cupy.empty(n, dtype=np.uint64)
    rank = cupy.empty(n, dtype=inp.rank_dtype)
    with timer.phase("PJ1", read=n * inp.succ.itemsize, written=8 * n):
        launch(mod.get_function(init_name), n, threads, blocks, inp.succ, a, np.int64(n))
    a = jump(mod, timer, "PJ2", a, b, n, threads, blocks)
    with timer.phase("unpack", read=8 * n, written=n * rank.itemsize):
        launch(mod.get_function(unpack_name), n, threads, blocks, a, rank, np.int64(n))
    timer.stat("rounds", jump_rounds(n))
    return rank


def run_cpu(inp, params, timer):
    n, succ = inp.n, inp.succ
    rank, gathered = np.empty(n, dtype=inp.rank_dtype), np.empty(n, dtype=inp.rank_dtype)
    nxt, jumped = np.empty_like(succ), np.empty_like(succ)
    index = np.arange(n, dtype=succ.dtype)
    with timer.phase("PJ1", read=n * succ.itemsize, written=n * (succ.itemsize + rank.itemsize)):
        np.not_equal(succ, index, out=rank, casting="unsafe")
        nxt[:] = succ
    for _ in range(jump_rounds(n)):
        with timer.phase("PJ2", read=2 * n * (succ.itemsize + rank.itemsize),
                         written=n * (succ.itemsize + rank.itemsize), random=n):
            np.take(rank, nxt, out=gathered, mode="clip")   # gathered whole before the add: ping-pong
            rank += gathered
            np.take(nxt, nxt, out=jumped, mode="clip")
            nxt, jumped = jumped, nxt
    timer.stat("rounds", jump_rounds(n))
    return rank


KERNEL = Kernel(name="listrank.wyllie", problem=LISTRANK,
                summary="Wyllie pointer jumping on packed 64-bit (rank, next) words, O(n log n) (000 Alg. 2, 003 §3.1)",
                gpu=run_gpu, cpu=run_cpu, params=GRID_PARAMS, walk_phase="PJ2", walk_bytes=lambda params: 20)
