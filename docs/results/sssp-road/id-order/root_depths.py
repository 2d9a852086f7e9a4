"""How deep the shortest-path trees of sssp-road's two root sets are on the 4096^2 grid (CPU, SciPy).

The sweep draws 4 roots from roots_seed among each dataset's vertices with an edge, so the grid in
row order and the grid with permuted ids are searched from different places.  This maps both root
sets to grid positions and measures each tree's depth in hops (the critical path's length for
sssp.strips) and its largest distance, on the grid in row order (the same graph).

    python3 docs/results/sssp-road/id-order/root_depths.py > root-depths.txt
"""
import time

import numba
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from graphsweep.core.params import resolve
from graphsweep.generators import GENERATORS
from graphsweep.generators.registry import weight_column
from graphsweep.generators.streams import STREAM_IDS, Feistel

SIDE, SEED, ROOTS = 4096, 24301, 4
PARAMS = dict(rows=SIDE, cols=SIDE, keep=0.8, weights="1:300")


def edges(permute: bool):
    gen = GENERATORS["grid"]
    plan = gen.plan(resolve("grid", gen.params, {**PARAMS, "permute_ids": permute}), SEED)
    cols = gen.part(plan, 0, plan.rows, np)
    return plan, cols["src"].astype(np.int64), cols["dst"].astype(np.int64)


def roots_of(n, src, dst):
    """graphsweep's pick_roots: ROOTS draws from roots_seed among the vertices with an edge."""
    with_edges = np.flatnonzero(np.bincount(src, minlength=n) + np.bincount(dst, minlength=n))
    return with_edges[np.random.default_rng(SEED).choice(with_edges.size, size=ROOTS, replace=False)]


@numba.njit(cache=True)
def hop_depth(parent_place):
    """Depth of each vertex, given in distance order with its parent's place in that order."""
    depth = np.zeros(parent_place.size, np.int32)
    for i in range(1, parent_place.size):
        depth[i] = depth[parent_place[i]] + 1
    return depth


def main():
    plan, src, dst = edges(False)
    n = plan.n
    weight = weight_column(plan, 0, plan.rows).astype(np.float64)
    graph = csr_matrix((np.concatenate([weight, weight]), (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                       shape=(n, n))
    graph.sum_duplicates()
    _, psrc, pdst = edges(True)
    permuted_roots = roots_of(n, psrc, pdst)
    physical = Feistel.for_seed(n, SEED, STREAM_IDS).inverse(permuted_roots.astype(np.uint64)).astype(np.int64)
    for name, roots in (("row order's roots", roots_of(n, src, dst)), ("permuted ids' roots", physical)):
        for r in roots:
            began = time.time()
            dist, pred = dijkstra(graph, indices=int(r), return_predecessors=True)
            order = np.argsort(dist, kind="stable")
            order = order[np.isfinite(dist[order])]
            place = np.empty(n, np.int64)
            place[order] = np.arange(order.size)
            depth = hop_depth(np.where(pred[order] >= 0, place[np.maximum(pred[order], 0)], 0))
            print(f"{name:20s} vertex {r:9d} at ({r // SIDE:4d},{r % SIDE:4d}): largest distance "
                  f"{dist[order[-1]]:.0f}, tree depth {depth.max()} hops  [{time.time() - began:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
