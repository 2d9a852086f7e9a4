"""sssp.harish — Harish & Narayanan's SSSP: mask, cost and updating cost, two kernels per iteration.

Returns dist (int64, -1 unreached) and parent (int64, -1 unreached, parent[root] = root).

Algorithm (HiPC'07 §3.3, Algs 3-5): one thread per vertex.  Kernel 1 (Alg. 4): every masked
vertex u clears its mask and lowers the updating cost U[v] of each out-neighbour v to
C[u] + w(u, v).  Kernel 2 (Alg. 5): every vertex whose U is below its cost C takes it, is masked
for the next iteration and raises the flag; U = C.  The host launches both and reads the flag
back each iteration until no mask is set (Alg. 3): a Bellman-Ford whose iterations number the
most edges on any shortest path, each touching all V vertices.  Departure: Alg. 4's compare-then-
store on U is a race; it is one 64-bit atomicMin on a packed (dist, parent) word here (the paper
names atomics as the fix), which also gives the parent.  Kernel 2 also counts the masked
vertices and their edges (read back with the flag) for the next iteration's byte model.
The CPU twin runs the same iterations vectorised with NumPy (np.minimum.at on U), under the same
host loop (``_run`` over ``GpuHarish`` or ``CpuHarish``).
"""

from functools import partial

import numpy as np

from graphsweep.core.errors import ParameterError

from ..contract import Kernel, Param
from ..cuda import blocks_for, check_threads, module
from . import ROOT_PARAM, SSSP
from .gpu import check_gpu_graph

PARAMS = {
    **ROOT_PARAM,
    "threads": Param(256, int, minimum=32, help="threads per block (a multiple of 32)"),
    "blocks": Param(None, int, minimum=1, help="thread blocks (default: one thread per vertex)"),
}


def _run(passes, inp, params, timer):
    """Alg. 3: dist and parent from the root, over either backend's ``passes``; one step row per
    iteration."""
    csr, root = inp.csr(), params["root"]
    n, sssp = csr.n, passes(csr, params)
    with timer.phase("init", written=17 * n):                   # Alg. 3 lines 2-4
        sssp.init(root)
    active, active_edges, iteration = 1, int(csr.offsets[root + 1] - csr.offsets[root]), 0
    while active:                                                 # Alg. 3 line 5: while the mask is not empty
        with timer.phase("relax", read=n + 24 * active + 16 * active_edges, written=active + 8 * active_edges,
                         random=active + active_edges, step=iteration,
                         info={"frontier": active, "frontier_edges": active_edges}):
            sssp.relax()
        with timer.phase("update", read=16 * n, written=8 * n, step=iteration) as traffic:
            sssp.update()
        active, active_edges = sssp.masked()
        traffic.add(**sssp.counting_traffic(active))
        iteration += 1
        if iteration > n + 1:
            raise RuntimeError("sssp.harish did not converge in n + 1 iterations")
    dist, parent = sssp.result(timer)
    timer.stat("iterations", iteration)
    return {"dist": dist, "parent": parent}


# ctl words: flag, masked vertices, their edges (u64 in words 2-3), overflow
CTL_WORDS = 6


class GpuHarish:
    """Kernels 1 and 2 as launches of harish.cu on packed (dist, parent) words; the flag and the next
    mask's counts are read back after each iteration."""

    def __init__(self, csr, params):
        import cupy
        check_gpu_graph(csr)
        self.threads = check_threads(params["threads"])
        self.csr, self.n = csr, csr.n
        self.grid = blocks_for(self.n, self.threads, params["blocks"])
        self.mod = module("sssp/harish.cu")
        self.relax_fn = self.mod.get_function("graphsweep_sssp_harish_relax")
        self.update_fn = self.mod.get_function("graphsweep_sssp_harish_update")
        self.cost = cupy.empty(self.n, dtype=np.uint64)
        self.upd = cupy.empty(self.n, dtype=np.uint64)
        self.mask = cupy.empty(self.n, dtype=np.uint8)
        self.ctl = cupy.empty(CTL_WORDS, dtype=np.uint32)
        self.host_ctl = cupy.cuda.alloc_pinned_memory(CTL_WORDS * 4)
        self.flags = np.frombuffer(self.host_ctl, dtype=np.uint32, count=CTL_WORDS)
        self.dist = cupy.empty(self.n, dtype=np.int64)
        self.parent = cupy.empty(self.n, dtype=np.int64)
        self.overflow = False

    def _launch(self, fn, *args):
        fn((self.grid,), (self.threads,), (*args, np.int64(self.n)))

    def init(self, root: int):
        init = self.mod.get_function("graphsweep_sssp_init_words")
        init((self.grid,), (self.threads,), (self.cost, np.int64(self.n), np.int32(root)))
        self.upd[...] = self.cost
        self.mask.fill(0)
        self.mask[root] = 1

    def relax(self):
        self.ctl.fill(0)                                          # the flag and counts
        self._launch(self.relax_fn, self.csr.offsets, self.csr.indices, self.csr.weights, self.mask, self.cost,
                     self.upd, self.ctl)

    def update(self):
        self._launch(self.update_fn, self.csr.offsets, self.mask, self.cost, self.upd, self.ctl)

    def masked(self) -> tuple[int, int]:
        """The paper's flag, read back each iteration: the masked vertices and their edges."""
        import cupy
        self.ctl.data.copy_to_host_async(self.host_ctl.ptr, CTL_WORDS * 4)
        cupy.cuda.get_current_stream().synchronize()
        self.overflow |= bool(self.flags[4])
        return int(self.flags[1]), int(self.flags[2:4].view(np.uint64)[0])

    @staticmethod
    def counting_traffic(active: int) -> dict:
        """Kernel 2 also counts the next mask: the masked vertices' costs, masks and offsets."""
        return {"read": 16 * active, "written": 9 * active}

    def result(self, timer):
        if self.overflow:
            raise ParameterError("sssp.harish keeps distances in 32 bits: a path of length >= 2^32 - 1 was found "
                                 "(use --backend cpu)")
        with timer.phase("unpack", read=8 * self.n, written=16 * self.n):
            self._launch(self.mod.get_function("graphsweep_sssp_unpack"), self.cost, self.dist, self.parent)
        return self.dist, self.parent


# --- CPU twin: the same iterations, vectorised --------------------------------------------------

class CpuHarish:
    """The same iterations vectorised with NumPy: np.minimum.at on U."""

    def __init__(self, csr, params):
        self.n, self.off, self.idx, self.wt = csr.n, csr.offsets, csr.indices, csr.weights.astype(np.int64)
        self.inf = np.iinfo(np.int64).max

    def init(self, root: int):
        self.cost = np.full(self.n, self.inf, np.int64)
        self.cost[root] = 0
        self.parent = np.full(self.n, -1, np.int64)
        self.parent[root] = root
        self.mask = np.zeros(self.n, dtype=bool)
        self.mask[root] = True
        self._take(np.array([root]))

    def _take(self, active):
        """The masked vertices of the next relax, and where their edges start."""
        self.active, self.starts = active, self.off[active]
        self.counts = self.off[active + 1] - self.starts
        self.total = int(self.counts.sum())

    def relax(self):
        active, counts = self.active, self.counts
        self.mask[active] = False
        # edge positions of every masked vertex, in order: e = start(u) + rank within u
        self.owner = np.repeat(np.arange(active.size), counts)
        edge = np.arange(self.total) - np.repeat(np.cumsum(counts) - counts, counts) + self.starts[self.owner]
        self.heads = self.idx[edge]
        self.cand = self.cost[active[self.owner]] + self.wt[edge]
        self.upd = self.cost.copy()
        np.minimum.at(self.upd, self.heads, self.cand)

    def update(self):
        upd, heads = self.upd, self.heads
        better = upd < self.cost
        # a parent: any masked vertex whose candidate equals the new cost (its cost was set earlier)
        hit = self.cand == upd[heads]
        hit &= better[heads]
        self.parent[heads[hit]] = self.active[self.owner[hit]]
        self.cost[better] = upd[better]
        self.mask |= better

    def masked(self) -> tuple[int, int]:
        self._take(np.flatnonzero(self.mask))
        return int(self.active.size), self.total

    @staticmethod
    def counting_traffic(active: int) -> dict:
        """Nothing: the twin counts the mask between iterations, outside the phases."""
        return {}

    def result(self, timer):
        return np.where(self.cost == self.inf, -1, self.cost), self.parent


KERNEL = Kernel(name="sssp.harish", problem=SSSP,
                summary="Harish & Narayanan: mask / cost / updating cost, two kernels per iteration over all "
                        "vertices (HiPC'07 Algs 3-5)",
                gpu=partial(_run, GpuHarish), cpu=partial(_run, CpuHarish), params=PARAMS, needs=("csr",))
