"""Graphs for the BFS tests (edge lists on the host) and the SciPy reference levels."""

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from graphsweep.datasets.reader import Dataset

from ..conftest import generated, with_loops_and_duplicates


def uniform(n=2000, degree=6.0, seed=1):
    return generated("uniform", seed, n=n, degree=degree)


def scale_free(n=3000, seed=2):
    return generated("scale-free", seed, n=n, max_degree=400)     # hubs of degree 400: GPU work items


def rmat(scale=11, seed=3):
    return generated("rmat", seed, scale=scale, edge_factor=16)


def path(n=600, seed=4):
    order = np.random.default_rng(seed).permutation(n).astype(np.int32)
    return n, order[:-1], order[1:]


def grid2d(rows=30, cols=40):
    ids = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    src = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    dst = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    return rows * cols, src, dst


def star(leaves=1500):
    """A hub of degree `leaves` (well past the GPU's 256-edge work items) and a tail behind one leaf."""
    n = leaves + 21
    src = np.r_[np.zeros(leaves, np.int32), np.arange(leaves, n - 1, dtype=np.int32)]
    dst = np.r_[np.arange(1, leaves + 1, dtype=np.int32), np.arange(leaves + 1, n, dtype=np.int32)]
    return n, src, dst


def disconnected(seed=5):
    """A big random component and a small path component [1000, 1010), plus isolated vertices."""
    n, src, dst = uniform(n=1000, degree=8, seed=seed)
    small = np.arange(1000, 1010, dtype=np.int32)
    return 1020, np.r_[src, small[:-1]], np.r_[dst, small[1:]]


def messy(seed=6):
    """Self-loops and duplicate edges (both orientations) in a random graph."""
    return with_loops_and_duplicates(uniform(n=800, degree=5, seed=seed), seed, 100, 300)


GRAPHS = {
    **{f"uniform-d{d}": (lambda d=d: uniform(degree=d, seed=d)) for d in (1, 2, 6, 16, 40)},
    "scale-free": scale_free, "rmat": rmat, "path": path, "grid": grid2d, "star": star,
    "disconnected": disconnected, "messy": messy,
}


def dataset(graph, directed=False) -> Dataset:
    n, src, dst = graph
    return Dataset.in_memory("graph", n, name="bfs-test", directed=directed, src=src, dst=dst)


def reference_levels(graph, root: int, directed=False) -> np.ndarray:
    """Unweighted shortest-path lengths from SciPy, -1 where unreachable."""
    n, src, dst = graph
    keep = src != dst
    adj = coo_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n)).tocsr()
    dist = shortest_path(adj, directed=directed, unweighted=True, indices=root)
    return np.where(np.isinf(dist), -1, dist).astype(np.int64)


@pytest.fixture
def graphs():
    return GRAPHS


@pytest.fixture
def make_dataset():
    return dataset


@pytest.fixture
def reference():
    return reference_levels
