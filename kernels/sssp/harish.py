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
The CPU twin runs the same iterations vectorised with NumPy (np.minimum.at on U).
"""

import numpy as np

from graphsweep.datasets.errors import ParameterError

from ..contract import Kernel, Param
from ..cuda import blocks_for, check_threads, module
from . import ROOT_PARAM, SSSP
from .gpu import check_gpu_graph

PARAMS = {
    **ROOT_PARAM,
    "threads": Param(256, int, minimum=32, help="threads per block (a multiple of 32)"),
    "blocks": Param(None, int, minimum=1, help="thread blocks (default: one thread per vertex)"),
}

# ctl words: flag, masked vertices, their edges (u64 in words 2-3), overflow
CTL_WORDS = 6


def search_gpu(csr, root: int, threads: int, blocks, timer):
    """(dist, parent, facts) from ``root`` on the device CSR ``csr``; one step row per iteration."""
    import cupy
    check_gpu_graph(csr)
    threads = check_threads(threads)
    n = csr.n
    grid = blocks_for(n, threads, blocks)
    mod = module("sssp/harish.cu")
    relax = mod.get_function("graphsweep_sssp_harish_relax")
    update = mod.get_function("graphsweep_sssp_harish_update")
    cost = cupy.empty(n, dtype=np.uint64)
    upd = cupy.empty(n, dtype=np.uint64)
    mask = cupy.empty(n, dtype=np.uint8)
    ctl = cupy.empty(CTL_WORDS, dtype=np.uint32)
    host_ctl = cupy.cuda.alloc_pinned_memory(CTL_WORDS * 4)
    flags = np.frombuffer(host_ctl, dtype=np.uint32, count=CTL_WORDS)
    dist = cupy.empty(n, dtype=np.int64)
    parent = cupy.empty(n, dtype=np.int64)
    init = mod.get_function("graphsweep_sssp_init_words")
    with timer.phase("init", written=17 * n):                   # Alg. 3 lines 2-4
        init((grid,), (threads,), (cost, np.int64(n), np.int32(root)))
        upd[...] = cost
        mask.fill(0)
        mask[root] = 1
    active, active_edges, iteration, overflow = 1, int(csr.offsets[root + 1] - csr.offsets[root]), 0, False
    while active:                                                 # Alg. 3 line 5: while the mask is not empty
        with timer.phase("relax", read=n + 24 * active + 16 * active_edges, written=active + 8 * active_edges,
                         random=active + active_edges, step=iteration,
                         info={"frontier": active, "frontier_edges": active_edges}):
            ctl.fill(0)                                           # the flag and counts
            relax((grid,), (threads,), (csr.offsets, csr.indices, csr.weights, mask, cost, upd, ctl, np.int64(n)))
        with timer.phase("update", read=16 * n, written=8 * n, step=iteration) as traffic:
            update((grid,), (threads,), (csr.offsets, mask, cost, upd, ctl, np.int64(n)))
        ctl.data.copy_to_host_async(host_ctl.ptr, CTL_WORDS * 4)  # the paper's flag, read back each iteration
        cupy.cuda.get_current_stream().synchronize()
        active = int(flags[1])
        active_edges = int(flags[2:4].view(np.uint64)[0])
        overflow |= bool(flags[4])
        traffic.add(read=16 * active, written=9 * active)        # the masked vertices' costs, masks, offsets
        iteration += 1
        if iteration > n + 1:
            raise RuntimeError("sssp.harish did not converge in n + 1 iterations")
    if overflow:
        raise ParameterError("sssp.harish keeps distances in 32 bits: a path of length >= 2^32 - 1 was found "
                             "(use --backend cpu)")
    with timer.phase("unpack", read=8 * n, written=16 * n):
        mod.get_function("graphsweep_sssp_unpack")((grid,), (threads,), (cost, dist, parent, np.int64(n)))
    return dist, parent, {"iterations": iteration}


# --- CPU twin: the same iterations, vectorised --------------------------------------------------

def search_cpu(csr, root: int, timer):
    n, off, idx, wt = csr.n, csr.offsets, csr.indices, csr.weights.astype(np.int64)
    inf = np.iinfo(np.int64).max
    with timer.phase("init", written=17 * n):
        cost = np.full(n, inf, np.int64)
        cost[root] = 0
        parent = np.full(n, -1, np.int64)
        parent[root] = root
        mask = np.zeros(n, dtype=bool)
        mask[root] = True
    iteration = 0
    while True:
        active = np.flatnonzero(mask)
        if active.size == 0:
            break
        starts, ends = off[active], off[active + 1]
        counts = ends - starts
        total = int(counts.sum())
        with timer.phase("relax", read=n + 24 * active.size + 16 * total, written=active.size + 8 * total,
                         random=active.size + total, step=iteration,
                         info={"frontier": int(active.size), "frontier_edges": total}):
            mask[active] = False
            # edge positions of every masked vertex, in order: e = start(u) + rank within u
            owner = np.repeat(np.arange(active.size), counts)
            edge = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts) + starts[owner]
            heads = idx[edge]
            cand = cost[active[owner]] + wt[edge]
            upd = cost.copy()
            np.minimum.at(upd, heads, cand)
        with timer.phase("update", read=16 * n, written=8 * n, step=iteration):
            better = upd < cost
            # a parent: any masked vertex whose candidate equals the new cost (its cost was set earlier)
            hit = cand == upd[heads]
            hit &= better[heads]
            parent[heads[hit]] = active[owner[hit]]
            cost[better] = upd[better]
            mask |= better
        iteration += 1
    dist = np.where(cost == inf, -1, cost)
    return dist, parent, {"iterations": iteration}


# --- registration -------------------------------------------------------------------------------

def run_gpu(inp, params, timer):
    dist, parent, facts = search_gpu(inp.csr(), params["root"], params["threads"], params["blocks"], timer)
    timer.stat("iterations", facts["iterations"])
    return {"dist": dist, "parent": parent}


def run_cpu(inp, params, timer):
    dist, parent, facts = search_cpu(inp.csr(), params["root"], timer)
    timer.stat("iterations", facts["iterations"])
    return {"dist": dist, "parent": parent}


KERNEL = Kernel(name="sssp.harish", problem=SSSP,
                summary="Harish & Narayanan: mask / cost / updating cost, two kernels per iteration over all "
                        "vertices (HiPC'07 Algs 3-5)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, needs=("csr",))
