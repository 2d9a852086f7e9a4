"""``tree``: a forest of ``count`` random trees over n vertices, each node with at most k children
(genTreeGraph, Yogaratnam's thesis, Appendix A), stored as undirected parent-child edges.

The thesis' procedure: pick ``count`` random roots into the set P; then until |P| = n, (a) pick a
random x in P with fewer than k children, (b) pick a random y outside P, (c) make y a child of x
and add y to P.  Picking y at random from the rest is the same as taking the vertices in a random
order, so here vertex π(i) of a keyed Feistel permutation π (see ``streams``) is the i-th to join
P; the first ``count`` are the roots.  The attachment process is inherently sequential, so the
plan runs it once, in list-position space, with Numba: an array of the open positions (fewer than
k children) gives (a) in O(1) by a uniform draw from a Philox stream (draw i belongs to the i-th
attachment, in fixed blocks), and a position is swapped out of it when it reaches k children.
The plan keeps parent[i] (the position of the parent of the vertex joining i-th); a part of
rows [a, b) emits the edges (π(parent[e]), π(count + e)), so the dataset is the same for any
part size.  Memory: three arrays of n integers while building, the parent array after.
"""

import numba
import numpy as np

from graphsweep.datasets.format import index_dtype_for
from graphsweep.core.params import Param

from .registry import WEIGHTS, Generator, Plan, n_param, need, parse_weights, permutable
from .streams import BLOCK_ROWS, STREAM_TREE, Feistel, block_rng, stream_key


@numba.njit(nogil=True, cache=True)
def _attach(u, first, open_pos, n_open, children, k, parent, count):
    """Attach the vertices at positions first, first+1, ... (one per draw in ``u``); returns the
    new number of open positions."""
    for t in range(u.shape[0]):
        i = first + t
        j = min(int(u[t] * n_open), n_open - 1)
        x = open_pos[j]
        parent[i - count] = x
        children[x] += 1
        if children[x] == k:  # x is full: swap it out of the open set
            n_open -= 1
            open_pos[j] = open_pos[n_open]
        open_pos[n_open] = i
        n_open += 1
    return n_open


def build_parents(n: int, count: int, k: int, seed: int) -> tuple[np.ndarray, int]:
    """(parent position of each non-root position, largest child count) of the thesis' process."""
    dtype = np.dtype(index_dtype_for(n))
    open_pos = np.empty(n, dtype=dtype)
    open_pos[:count] = np.arange(count, dtype=dtype)
    children = np.zeros(n, dtype=np.int32)
    parent = np.empty(n - count, dtype=dtype)
    key = stream_key(seed, STREAM_TREE)
    n_open = count
    for block in range(-(-(n - count) // BLOCK_ROWS)):
        draws = min(BLOCK_ROWS, n - count - block * BLOCK_ROWS)
        u = block_rng(key, block).random(draws)
        n_open = _attach(u, count + block * BLOCK_ROWS, open_pos, n_open, children, k, parent, count)
    return parent, int(children.max())


def _plan(params: dict, seed: int) -> Plan:
    n, count, k = params["n"], params["count"], params["k"]
    need(count <= n, "count", count, f"1 <= count <= n = {n}")
    parent, max_children = build_parents(n, count, k, seed)
    return Plan("graph", n, n - count, seed, weights=parse_weights(params["weights"]),
                stats={"trees": count, "components": count, "k": k, "max_children": max_children},
                state={"perm": Feistel.for_seed(n, seed), "parent": parent, "count": count})


def _part(plan: Plan, start: int, stop: int, xp) -> dict:
    perm, count = plan.state["perm"], plan.state["count"]
    parent = plan.state["parent"][start:stop].astype(np.uint64)
    child = np.arange(count + start, count + stop, dtype=np.uint64)
    return {"src": perm.forward(parent).astype(plan.index_dtype),
            "dst": perm.forward(child).astype(plan.index_dtype)}


TREE = permutable(Generator(
    "tree", "graph", "COUNT random trees over n vertices, at most K children each (genTreeGraph)",
    {"n": n_param(), "count": Param(1, int, minimum=1, help="number of trees (components)"),
     "k": Param(2, int, minimum=1, help="most children of any node"), "weights": WEIGHTS},
    _plan, _part))
