"""listrank.scan — ranking an ordered list (succ[i] = i + 1, tail n - 1) by a prefix scan.

Returns rank[i] = links from i to the tail.  On an ordered list the links lie in index order,
so the ranks are a suffix sum of link[i] = (succ[i] != i): rank[i] = total - (prefix sum
through i) + link[i], one device scan (cupy.cumsum, CUB-backed) plus two elementwise passes.
This is the comparator 003 §5 sets RHJ against on ordered lists (CUDPP's scan, Fig. 6).  A list
that is not ordered is refused with a ParameterError naming the first node out of order (the
check is the kernel's untimed setup, once per list).
"""

import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import array_module, to_host

from ..contract import Kernel
from . import LISTRANK
from .gpu import check_gpu_size

def check_ordered(inp, params) -> None:
    """Setup: refuse a list that is not ordered (once per list)."""
    if inp.cache.get("ordered"):
        return
    succ = to_host(inp.succ)
    n = succ.shape[0]
    expected = np.minimum(np.arange(1, n + 1, dtype=np.int64), n - 1)
    bad = np.flatnonzero(succ != expected)
    if bad.size:
        i = int(bad[0])
        raise ParameterError(f"listrank.scan needs an ordered list (succ[i] = i + 1, tail n - 1): "
                             f"succ[{i}] is {int(succ[i])}, expected {int(expected[i])}")
    inp.cache["ordered"] = True


def _links_kernel():
    import cupy
    return cupy.ElementwiseKernel("S s", "int32 link", "link = s != (S)i", "graphsweep_listrank_scan_links")


def _finish_kernel():
    import cupy
    return cupy.ElementwiseKernel("raw int32 cum, int32 c, int32 link, int64 n", "int32 rank",
                                  "rank = cum[n - 1] - c + link", "graphsweep_listrank_scan_finish")


def _run(inp, timer, xp, links, finish):
    n = inp.n
    link = xp.empty(n, dtype=inp.rank_dtype)
    cum = xp.empty(n, dtype=inp.rank_dtype)
    rank = xp.empty(n, dtype=inp.rank_dtype)
    with timer.phase("links", read=n * inp.succ.itemsize, written=n * link.itemsize):
        links(inp.succ, link)
    with timer.phase("scan", read=n * link.itemsize, written=n * cum.itemsize):
        xp.cumsum(link, out=cum)
    with timer.phase("finish", read=2 * n * cum.itemsize, written=n * rank.itemsize):
        finish(cum, link, rank)
    return rank


def run_gpu(inp, params, timer):
    check_gpu_size(inp)
    links, finish = _links_kernel(), _finish_kernel()
    return _run(inp, timer, array_module(inp.succ),
                lambda succ, link: links(succ, link),
                lambda cum, link, rank: finish(cum, cum, link, np.int64(inp.n), rank))


def run_cpu(inp, params, timer):
    index = np.arange(inp.n, dtype=inp.succ.dtype)

    def finish(cum, link, rank):
        np.subtract(cum[-1], cum, out=rank)
        rank += link

    return _run(inp, timer, np, lambda succ, link: np.not_equal(succ, index, out=link, casting="unsafe"), finish)


KERNEL = Kernel(name="listrank.scan", problem=LISTRANK,
                summary="ordered lists only: suffix sum by a device prefix scan (003's comparator)",
                gpu=run_gpu, cpu=run_cpu, setup=check_ordered, requires=frozenset({"ordered"}))
