"""listrank.parallel-splitter — multi-threaded random-splitter ranking on the CPU (Numba prange).

Returns rank[i] = links from i to the tail.  The thesis' pthreads baseline (002 §5.1): p random
splitters (one per equal chunk of node indices, the head standing for its chunk) are marked in
an owner array; the threads walk the sub-lists in parallel writing owner and local rank; one
thread ranks the short splitter list by walking it; the threads add each splitter's rank to
its nodes.  ``p`` defaults to 64 sub-lists per thread, enough to even out the random lengths.
"""

import numba
import numpy as np

from ..contract import Kernel, Param
from . import LISTRANK
from .cpu import rank_inclusive, sublist_stats
from .random_splitter import _rs1, _rs2, _rs3, _rs5

PARAMS = {
    "p": Param(None, minimum=1, help="splitters (default: 64 per thread, at most n)"),
    "seed": Param(1, minimum=0, help="seed of the splitter draw"),
}


def run_cpu(inp, params, timer):
    n = inp.n
    p = min(n, params["p"] or 64 * numba.get_num_threads())
    rec = np.empty(n, np.int64)
    spl, length, nxt, incl = (np.empty(p, np.int64) for _ in range(4))
    rank = np.empty(n, dtype=inp.rank_dtype)
    with timer.phase("mark", written=8 * n + 16 * p, random=p):
        _rs1(rec)
        _rs2(rec, spl, n, inp.head, params["seed"], spl, False)  # random splitters, as RS2
    with timer.phase("walk", read=n * (inp.succ.itemsize + 8), written=8 * n + 16 * p, random=3 * n):
        _rs3(inp.succ, rec, spl, length, nxt)
    first = int(rec[inp.head] >> 32)
    with timer.phase("splitters", read=32 * p, written=8 * p, random=2 * p):
        rank_inclusive(nxt, length, first, incl)
    with timer.phase("aggregate", read=16 * n, written=n * rank.itemsize, random=n):
        _rs5(rec, incl, rank)
    timer.stat("p", p)
    timer.stat("threads", numba.get_num_threads())
    timer.stat("sublists", lambda: sublist_stats(length))
    return rank


KERNEL = Kernel(name="listrank.parallel-splitter", problem=LISTRANK,
                summary="CPU multi-threaded random splitters (Numba prange), the thesis' pthreads baseline",
                cpu=run_cpu, params=PARAMS, walk_phase="walk")
