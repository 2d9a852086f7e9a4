"""Graphs for the connected-components tests (edge lists on the host, from graphsweep's own
generators where one exists) and SciPy's canonical labels as the reference."""

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from graphsweep.datasets.reader import Dataset

from ..conftest import generated, with_loops_and_duplicates


def star(n=3000, hub=1700):
    """One hub joined to every other vertex, half the edges stored hub-first, plus a hub self-loop."""
    leaves = np.r_[np.arange(hub), np.arange(hub + 1, n)].astype(np.int32)
    hubs = np.full(leaves.shape, hub, np.int32)
    odd = leaves % 2 == 1
    return n, np.r_[np.where(odd, hubs, leaves), hub], np.r_[np.where(odd, leaves, hubs), hub]


def reversed_path(n=2000):
    """The path n-1 - n-2 - ... - 0, edges listed from the high end: every hook meets a long chain."""
    v = np.arange(n - 1, 0, -1, dtype=np.int32)
    return n, v, v - 1


def isolated(n=1500, seed=8):
    """A sparse random graph on a third of the ids, and the other two thirds isolated."""
    rng = np.random.default_rng(seed)
    used = rng.choice(n, n // 3, replace=False).astype(np.int32)
    pick = rng.integers(0, used.size, (2, n // 4))
    return n, used[pick[0]], used[pick[1]]


def messy(seed=6):
    """Self-loops and duplicate edges (both orientations) in a random graph."""
    return with_loops_and_duplicates(generated("uniform", seed, n=800, degree=3), seed, 100, 300)


def two_hubs(n=5000, seed=9):
    """Two stars whose hubs have rows of ~2500 edges (past the GPU's 1024-edge chunks) joined by a
    random path, so long rows are linked in both final-pass modes."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n).astype(np.int32)
    half = n // 2
    a, b = order[:half], order[half:]
    src = np.r_[np.full(half - 1, a[0]), np.full(n - half - 1, b[0]), order[:-1:97]]
    dst = np.r_[a[1:], b[1:], order[1::97]]
    return n, src.astype(np.int32), dst.astype(np.int32)


def small_components(n=4000, largest=64, seed=12):
    """Many components of 1 ... ``largest`` vertices (random trees plus as many random extra edges
    inside each), ids permuted: no giant component to skip."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, largest + 1, n)
    sizes = sizes[:np.searchsorted(np.cumsum(sizes), n)]
    sizes = np.r_[sizes, n - sizes.sum()] if sizes.sum() < n else sizes
    start = np.repeat(np.cumsum(sizes) - sizes, sizes)
    size = np.repeat(sizes, sizes)
    pos = np.arange(n)
    child = pos[pos > start]
    parent = start[child] + (rng.random(child.size) * (child - start[child])).astype(np.int64)
    extra = rng.integers(0, n, n // 2)
    mate = start[extra] + rng.integers(0, size[extra])
    perm = rng.permutation(n).astype(np.int32)
    return n, perm[np.r_[child, extra]], perm[np.r_[parent, mate]]


def one_vertex():
    return 1, np.zeros(0, np.int32), np.zeros(0, np.int32)


def one_vertex_loop():
    return 1, np.zeros(1, np.int32), np.zeros(1, np.int32)


def no_edges(n=300):
    return n, np.zeros(0, np.int32), np.zeros(0, np.int32)


def as_int64(graph):
    n, src, dst = graph()
    return n, src.astype(np.int64), dst.astype(np.int64)


GRAPHS = {
    "random-list": lambda: generated("list-graph", 1, n=3000, count=1),
    "many-lists": lambda: generated("list-graph", 2, n=3000, count=37),
    **{f"tree-k{k}": (lambda k=k: generated("tree", 10 + k, n=2000, k=k, count=1 + k % 3))
       for k in (1, 2, 3, 5, 8, 13, 20)},
    "density-0.001": lambda: generated("density", 3, m=2000, density=0.001, count=3),
    "density-0.01": lambda: generated("density", 4, m=2000, density=0.01),
    **{f"uniform-d{d}": (lambda d=d: generated("uniform", 20 + d, n=1500, degree=float(d))) for d in (1, 2, 6, 16, 40)},
    "rmat": lambda: generated("rmat", 5, scale=10, edge_factor=16),
    "grid": lambda: generated("grid", 5, rows=40, cols=60, keep=0.7),
    "small-components": lambda: small_components(),
    "scale-free": lambda: generated("scale-free", 6, n=3000, max_degree=1200),
    "star": star,
    "two-hubs": two_hubs,
    "reversed-path": reversed_path,
    "isolated": isolated,
    "messy": messy,
    "n=1": one_vertex,
    "n=1-self-loop": one_vertex_loop,
    "no-edges": no_edges,
    "int64-uniform": lambda: as_int64(lambda: generated("uniform", 7, n=1200, degree=3.0)),
    "int64-tree": lambda: as_int64(lambda: generated("tree", 8, n=1200, k=4)),
}

# The k-ary random trees k = 1 ... 20 and uniform degrees 1 ... 40, every one, for the kernels'
# default parameters (the table above samples them for the parameter variants).
ALL_TREES = {f"tree-k{k}": (lambda k=k: generated("tree", 100 + k, n=600, k=k)) for k in range(1, 21)}
ALL_DEGREES = {f"uniform-d{d}": (lambda d=d: generated("uniform", 200 + d, n=400, degree=float(d)))
               for d in range(1, 41)}


def dataset(graph, directed=False) -> Dataset:
    n, src, dst = graph
    return Dataset.in_memory("graph", n, name="cc-test", directed=directed, src=src, dst=dst)


def reference_labels(graph) -> np.ndarray:
    """SciPy's components, relabelled canonically: each vertex gets its component's smallest id."""
    n, src, dst = graph
    _, comp = connected_components(coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)
    _, first = np.unique(comp, return_index=True)     # first occurrence = smallest vertex id
    return first[comp]


@pytest.fixture
def make_dataset():
    return dataset


@pytest.fixture
def reference():
    return reference_labels
