"""List generators: ``list`` (genList), ``ordered-list`` and ``list-graph`` (genListGraph).

``list`` returns succ[0..n-1] of one random list through all n nodes, the worst case for parallel
list ranking.  As in genList (Yogaratnam's thesis, Appendix A) the list starts at node 0 and the
remaining n-1 nodes follow in random order: the node at list position p >= 1 is 1 + σ(p-1) for a
keyed Feistel permutation σ of [0, n-1) (see ``streams``).  So succ[v] is a pure function of v:
p = π⁻¹(v), succ[v] = π(p+1), and the tail points to itself, which lets every part be computed
on its own, on the CPU (Numba) or the GPU (one kernel, ``feistel.cu``) with the same values.

``ordered-list`` returns succ[i] = i+1 with the tail n-1 pointing to itself: the best case
(Rehman et al. compare ordered and random lists).

``list-graph`` returns the edges of ``count`` random lists that together cover all n vertices
(genListGraph): the vertices in the order π(0), π(1), ... of a keyed Feistel permutation π of
[0, n) are cut into ``count`` consecutive runs of n // count or n // count + 1 vertices (the
longer runs first), and each run is a path.  Edge row e maps in closed form to its list position
p, the edge is (π(p), π(p+1)); n - count edges, stored once each (undirected).
"""

import numpy as np

from graphsweep.core.params import Param

from .registry import WEIGHTS, Generator, Plan, n_param, need, parse_weights, permutable
from .streams import Feistel, cuda_kernel


def _rows(start: int, stop: int, xp):
    return xp.arange(start, stop, dtype=xp.uint64)


def _plan_list(params: dict, seed: int) -> Plan:
    n = params["n"]
    perm = Feistel.for_seed(n - 1, seed) if n > 1 else None
    tail = 1 + int(perm.forward(np.array([n - 2], dtype=np.uint64))[0]) if n > 1 else 0
    return Plan("list", n, n, seed, stats={"head": 0, "tail": tail}, state={"perm": perm})


def _part_list(plan: Plan, start: int, stop: int, xp) -> dict:
    n, perm = plan.n, plan.state["perm"]
    v = _rows(start, stop, xp)
    if perm is None:  # n == 1: the single node is head and tail
        return {"succ": v.astype(plan.index_dtype)}
    if xp is not np:  # the same arithmetic in one kernel (feistel.cu)
        return {"succ": _succ_gpu(plan, start, stop, xp)}
    one, last = xp.uint64(1), xp.uint64(n - 1)
    # Node 0 heads the list (genList starts at index 0); node v >= 1 sits at position 1 + σ⁻¹(v-1).
    pos = xp.where(v == 0, xp.uint64(0), perm.inverse(xp.maximum(v, one) - one, xp) + one)
    # The node after position p is 1 + σ(p); the tail (p = n-1) points to itself.
    after = perm.forward(xp.minimum(pos, last - one), xp) + one
    return {"succ": xp.where(pos == last, v, after).astype(plan.index_dtype)}


def _succ_gpu(plan: Plan, start: int, stop: int, xp):
    perm, index = plan.state["perm"], plan.index_dtype
    succ = xp.empty(stop - start, dtype=index)
    if stop > start:
        cuda_kernel("feistel.cu", "graphsweep_list_succ", index)(
            (min(-(-(stop - start) // 256), 1 << 16),), (256,),
            (succ, np.int64(start), np.int64(stop), *perm.device_args(xp)))
    return succ


def _plan_ordered(params: dict, seed: int) -> Plan:
    n = params["n"]
    return Plan("list", n, n, seed, stats={"head": 0, "tail": n - 1})


def _part_ordered(plan: Plan, start: int, stop: int, xp) -> dict:
    v = _rows(start, stop, xp)
    return {"succ": xp.minimum(v + xp.uint64(1), xp.uint64(plan.n - 1)).astype(plan.index_dtype)}


def _plan_list_graph(params: dict, seed: int) -> Plan:
    n, count = params["n"], params["count"]
    need(count <= n, "count", count, f"1 <= count <= n = {n}")
    q, r = divmod(n, count)
    return Plan("graph", n, n - count, seed, weights=parse_weights(params["weights"]),
                stats={"lists": count, "components": count, "list_sizes": [q, q + (r > 0)]},
                state={"perm": Feistel.for_seed(n, seed), "q": q, "r": r})


def _part_list_graph(plan: Plan, start: int, stop: int, xp) -> dict:
    dtype = plan.index_dtype
    if start == stop:
        return {"src": xp.empty(0, dtype), "dst": xp.empty(0, dtype)}
    q, r = plan.state["q"], plan.state["r"]
    e = xp.arange(start, stop, dtype=xp.int64)
    # Lists 0..r-1 hold q+1 vertices (q edges), the others q vertices (q-1 edges).
    long_edges = r * q
    j_long = e // q
    e_short = e - long_edges
    j_short = e_short // max(q - 1, 1)
    pos = xp.where(e < long_edges,
                   j_long * (q + 1) + (e - j_long * q),
                   r * (q + 1) + j_short * q + (e_short - j_short * max(q - 1, 1)))
    first = int(pos[0])
    order = plan.state["perm"].forward(xp.arange(first, int(pos[-1]) + 2, dtype=xp.uint64), xp)
    local = pos - first
    return {"src": order[local].astype(dtype), "dst": order[local + 1].astype(dtype)}


LIST = Generator(
    "list", "list", "one random list through all n nodes, head 0 (genList)",
    {"n": n_param("list nodes")}, _plan_list, _part_list, gpu=True)

ORDERED_LIST = Generator(
    "ordered-list", "list", "the ordered list succ[i] = i+1 (best case for list ranking)",
    {"n": n_param("list nodes")}, _plan_ordered, _part_ordered, gpu=True)

LIST_GRAPH = permutable(Generator(
    "list-graph", "graph", "COUNT random lists covering n vertices, as graph edges (genListGraph)",
    {"n": n_param(), "count": Param(1, int, minimum=1, help="number of lists (components)"),
     "weights": WEIGHTS},
    _plan_list_graph, _part_list_graph, gpu=True))
