"""Premises of a cell-based SSSP for road-like graphs: landmark-coordinate cells (two BFS from
well-separated vertices, binned), their sizes and edge cut, and how many cell crossings the deepest
shortest path makes, on the grid generator's graph in order and permuted."""
import sys, time
import numpy as np, scipy.sparse as sp
from scipy.sparse import csgraph
from graphsweep.generators import memory

side = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
for permute in (False, True):
    d = memory.generate("grid", seed=9, backend="cpu", params={"rows": side, "cols": side, "keep": 0.8,
                                                               "permute_ids": permute, "weights": "1:300"})
    n = d.n
    src, dst, w = d.src.astype(np.int64), d.dst.astype(np.int64), d.weight.astype(np.float64)
    A = sp.coo_matrix((np.ones(2 * len(src)), (np.r_[src, dst], np.r_[dst, src])), shape=(n, n)).tocsr()
    deg = np.diff(A.indptr)
    def bfs(r): return csgraph.shortest_path(A, unweighted=True, indices=r, method="D")
    l0 = bfs(int(np.argmax(deg)))
    a = int(np.argmax(np.where(np.isinf(l0), -1, l0)))
    da = bfs(a); far = int(np.argmax(np.where(np.isinf(da), -1, da))); df = bfs(far)
    b = int(np.argmax(np.where(np.isinf(da) | np.isinf(df), -1, np.minimum(da, df))))
    db = bfs(b)
    reached = ~np.isinf(da)
    for target in (1024, 4096):
        s = max(1, int(round(np.sqrt(2 * target))))          # a (d_a, d_b) bin of s x s holds ~s^2/2 vertices
        ca = np.where(reached, da // s, -1).astype(np.int64); cb = np.where(reached, db // s, -1).astype(np.int64)
        cell = ca * (cb.max() + 2) + cb
        _, cell = np.unique(cell, return_inverse=True)
        sizes = np.bincount(cell)
        cut = (cell[src] != cell[dst]).mean()
        # shortest-path tree from a random root: crossings along the deepest paths
        root = int(np.random.default_rng(1).integers(n))
        W = sp.coo_matrix((np.r_[w, w], (np.r_[src, dst], np.r_[dst, src])), shape=(n, n)).tocsr()
        dist, pred = csgraph.dijkstra(W, indices=root, return_predecessors=True)
        order = np.argsort(dist); hops = np.zeros(n, np.int64); cross = np.zeros(n, np.int64)
        for v in order[1:]:
            p = pred[v]
            if p < 0: continue
            hops[v] = hops[p] + 1; cross[v] = cross[p] + (cell[p] != cell[v])
        print(f"grid {side}^2 permuted={permute} cells~{target}: {len(sizes)} cells, sizes {sizes.min()}-{sizes.max()} "
              f"(mean {sizes.mean():.0f}), edge cut {cut:.3f}; deepest path {hops.max()} hops, "
              f"{cross[np.argmax(hops)]} crossings (most crossings {cross.max()})", flush=True)
