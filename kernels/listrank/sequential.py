"""listrank.sequential — the O(n) walk from the head: the papers' sequential CPU baseline.

Returns rank[i] = links from i to the tail.  One pass follows succ from the head, writing
n-1, n-2, ..., 0: each step is a dependent random access, so this is the latency-bound floor a
parallel CPU or GPU algorithm is compared against (002, §5.1; 000, Fig. 4).
"""

import numba
import numpy as np

from ..contract import Kernel
from . import LISTRANK


@numba.njit(cache=True, nogil=True)
def _walk(succ, head, rank):
    x = head
    r = succ.shape[0] - 1
    while True:
        rank[x] = r
        nxt = succ[x]
        if nxt == x:
            break
        x = nxt
        r -= 1


def run_cpu(inp, params, timer):
    rank = np.empty(inp.n, dtype=inp.rank_dtype)
    with timer.phase("walk", read=inp.n * inp.succ.itemsize, written=inp.n * rank.itemsize, random=inp.n):
        _walk(inp.succ, inp.head, rank)
    return rank


KERNEL = Kernel(name="listrank.sequential", problem=LISTRANK,
                summary="O(n) walk from the head (CPU, Numba)", cpu=run_cpu, walk_phase="walk")
