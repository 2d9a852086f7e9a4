"""Weighted graphs for the SSSP and APSP tests (edge lists on the host) and the SciPy reference.

SciPy's csgraph reads a sparse matrix's explicit zeros as missing edges and sums duplicate
entries, so the reference first keeps the lightest copy of each edge and then runs Dijkstra on
weights w' = w (n + 1) + 1: no weight is zero, a lightest w'-path is a lightest w-path (the hop
count, at most n - 1, only breaks ties), and dist = floor(dist' / (n + 1)), exact in float64 here.
"""

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from graphsweep.core.params import resolve
from graphsweep.datasets.reader import Dataset
from graphsweep.generators import GENERATORS
from graphsweep.kernels.apsp.verify import dijkstra_rows, lightest_edges


def _weights(m: int, lo: int, hi: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed + 1000).integers(lo, hi, m, endpoint=True).astype(np.int32)


def _generated(name: str, seed: int, lo=1, hi=10, **params):
    gen = GENERATORS[name]
    plan = gen.plan(resolve(name, gen.params, params), seed)
    cols = gen.part(plan, 0, plan.rows, np)
    src, dst = cols["src"].astype(np.int32), cols["dst"].astype(np.int32)
    return plan.n, src, dst, _weights(src.size, lo, hi, seed)


def uniform(n=2000, degree=6.0, seed=1, lo=1, hi=10):
    return _generated("uniform", seed, lo, hi, n=n, degree=degree)


def scale_free(n=3000, seed=2):
    return _generated("scale-free", seed, n=n, max_degree=400)


def rmat(scale=11, seed=3):
    return _generated("rmat", seed, 1, 255, scale=scale, edge_factor=16)


def path(n=600, seed=4):
    order = np.random.default_rng(seed).permutation(n).astype(np.int32)
    return n, order[:-1], order[1:], _weights(n - 1, 1, 10, seed)


def grid2d(rows=30, cols=40, seed=5):
    ids = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    return rows * cols, src, dst, _weights(src.size, 1, 10, seed)


def star(leaves=1500, seed=6):
    """A hub of degree `leaves` (many GPU work chunks) and a tail of 20 behind the last leaf."""
    n = leaves + 21
    src = np.r_[np.zeros(leaves, np.int32), np.arange(leaves, n - 1, dtype=np.int32)]
    dst = np.r_[np.arange(1, leaves + 1, dtype=np.int32), np.arange(leaves + 1, n, dtype=np.int32)]
    return n, src, dst, _weights(src.size, 1, 100, seed)


def disconnected(seed=7):
    """A random component on [0, 1000), a path component [1000, 1010), isolated [1010, 1020)."""
    n, src, dst, w = uniform(n=1000, degree=8, seed=seed)
    small = np.arange(1000, 1010, dtype=np.int32)
    return 1020, np.r_[src, small[:-1]], np.r_[dst, small[1:]], np.r_[w, _weights(9, 1, 10, seed)]


def zero_weights(seed=8):
    """Weights 0..3, a third of them zero: zero-weight cycles everywhere (the parent-tree trap)."""
    return uniform(n=1500, degree=6, seed=seed, lo=0, hi=3)


def messy(seed=9):
    """Self-loops (some of weight 0) and duplicate edges in both orientations with other weights."""
    n, src, dst, w = uniform(n=800, degree=5, seed=seed)
    rng = np.random.default_rng(seed)
    loops = rng.integers(0, n, 100).astype(np.int32)
    dup = rng.integers(0, src.size, 600)
    rev = dup[: dup.size // 2]
    return (n, np.r_[src, loops, src[dup], dst[rev]], np.r_[dst, loops, dst[dup], src[rev]],
            np.r_[w, _weights(100, 0, 5, seed), _weights(dup.size + rev.size, 1, 20, seed + 1)])


def heavy_path(n=5, weight=2**31 - 1):
    """Weights at the int32 maximum: distances pass 2^32 after three edges."""
    ids = np.arange(n, dtype=np.int32)
    return n, ids[:-1], ids[1:], np.full(n - 1, weight, np.int32)


GRAPHS = {
    **{f"uniform-d{d}": (lambda d=d: uniform(degree=d, seed=d)) for d in (1, 2, 6, 16, 40)},
    "scale-free": scale_free, "rmat": rmat, "path": path, "grid": grid2d, "star": star,
    "disconnected": disconnected, "zero-weights": zero_weights, "messy": messy,
}


def dataset(graph, directed=False) -> Dataset:
    n, src, dst, w = graph
    return Dataset.in_memory("graph", n, name="sssp-test", directed=directed, src=src, dst=dst, weight=w)


def reference(graph, roots, directed=False) -> np.ndarray:
    """Distances (int64, -1 unreachable) from each of ``roots`` (one row each), by SciPy's Dijkstra
    (the APSP verifier's sampled rows, kernels/apsp/verify.py)."""
    n, src, dst, w = graph
    return dijkstra_rows(n, src, dst, w, directed, np.atleast_1d(roots))


def reference_tree(graph, root: int, directed=False):
    """(dist, parent) from ``root``: SciPy's predecessors on the w' weights are tight edges of w
    (d'(v) = d'(u) + w'(u, v) gives d(v) = d(u) + w(u, v), the hop counts being below n + 1)."""
    n, src, dst, w = graph
    rows, cols, weights = lightest_edges(n, src, dst, w, directed)
    scale = n + 1
    mat = csr_matrix((weights.astype(np.float64) * scale + 1, (rows, cols)), shape=(n, n))
    d, pred = dijkstra(mat, directed=True, indices=root, return_predecessors=True)
    dist = np.where(np.isfinite(d), np.floor(np.where(np.isfinite(d), d, 0) / scale), -1).astype(np.int64)
    parent = np.where(pred >= 0, pred, -1).astype(np.int64)
    parent[root] = root
    return dist, parent


def root_of(graph, seed=0) -> int:
    """A vertex with an edge other than a self-loop (a seeded pick)."""
    n, src, dst, _ = graph
    deg = np.bincount(np.r_[src, dst][np.r_[src != dst, src != dst]], minlength=n)
    return int(np.random.default_rng(seed).choice(np.flatnonzero(deg)))
