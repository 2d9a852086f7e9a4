"""Graph shapes shared by the tests of the problems that run on the simple undirected graph
(PageRank, triangle counting, betweenness): edge lists on the host, with self-loops, duplicate
edges, isolated vertices, hubs, cliques and many small components among them."""

import numpy as np
import pytest

from graphsweep.core.params import resolve
from graphsweep.datasets.reader import Dataset
from graphsweep.generators import GENERATORS


def generated(name: str, seed: int, **params):
    """(n, src, dst) of generator ``name``, all rows made in one part on the CPU, int32 ids (the
    graph makers of every kernel's tests start from it)."""
    gen = GENERATORS[name]
    plan = gen.plan(resolve(name, gen.params, params), seed)
    cols = gen.part(plan, 0, plan.rows, np)
    return plan.n, cols["src"].astype(np.int32), cols["dst"].astype(np.int32)


def with_loops_and_duplicates(graph, seed: int, loops: int, duplicates: int):
    """``graph`` with ``loops`` random self-loops and ``duplicates`` random edges repeated in both
    orientations."""
    n, src, dst = graph
    rng = np.random.default_rng(seed)
    loop = rng.integers(0, n, loops).astype(np.int32)
    dup = rng.integers(0, src.size, duplicates)
    return n, np.r_[src, loop, src[dup], dst[dup]], np.r_[dst, loop, dst[dup], src[dup]]


def _edges(pairs):
    pairs = np.asarray(pairs, dtype=np.int32).reshape(-1, 2)
    return pairs[:, 0].copy(), pairs[:, 1].copy()


def _clique(k, offset=0):
    return [(offset + i, offset + j) for i in range(k) for j in range(i + 1, k)]


def _dense(n=40, p=0.5, seed=7):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)) < p, 1)
    src, dst = np.nonzero(upper)
    return n, src.astype(np.int32), dst.astype(np.int32)


def _components(count=60, seed=8):
    """Triangles, paths and single edges side by side, then isolated vertices."""
    rng = np.random.default_rng(seed)
    pairs, base = [], 0
    for kind in rng.integers(0, 3, count):
        size = (3, 4, 2)[kind]
        pairs += _clique(3, base) if kind == 0 else [(base + i, base + i + 1) for i in range(size - 1)]
        base += size
    src, dst = _edges(pairs)
    return base + 25, src, dst


def _messy(seed=9):
    """Self-loops and duplicate edges in both orientations on a random graph."""
    return with_loops_and_duplicates(generated("uniform", seed, n=300, degree=6), seed, 40, 200)


def _grid(rows=12, cols=15):
    ids = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    return rows * cols, np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()], np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]


def _star(leaves=700):
    """A hub (past any group's share of one row) whose leaves are paired by edges: triangles through it."""
    leaf = np.arange(1, leaves + 1, dtype=np.int32)
    return leaves + 1, np.r_[np.zeros(leaves, np.int32), leaf[0::2]], np.r_[leaf, leaf[1::2]]


def _tree(n=400, seed=10):
    parent = np.random.default_rng(seed).integers(0, np.arange(1, n))
    return n, np.arange(1, n, dtype=np.int32), parent.astype(np.int32)


SHAPES = {
    "single": lambda: (1, *_edges([])),
    "loop-only": lambda: (3, *_edges([(1, 1)])),
    "edge": lambda: (2, *_edges([(1, 0), (0, 1), (0, 1)])),
    "triangle": lambda: (3, *_edges([(0, 1), (1, 2), (2, 0)])),
    "clique": lambda: (9, *_edges(_clique(8))),          # vertex 8 isolated
    "path": lambda: (50, *_edges([(i, i + 1) for i in range(49)])),
    "tree": _tree,
    "star": _star,
    "grid": _grid,
    "dense": _dense,
    "components": _components,
    "messy": _messy,
    "uniform": lambda: generated("uniform", 3, n=2000, degree=8),
    "rmat": lambda: generated("rmat", 4, scale=10, edge_factor=16),
}


BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def every_shape_variant_and_backend(variants: dict):
    """Parametrise a test over every shape above, every variant in ``variants`` (its name -> (kernel,
    params)) and both backends: the test takes ``shape``, ``variant`` and ``backend`` (ids
    shape-variant-backend)."""
    def parametrised(test):
        for arg, values in (("shape", list(SHAPES)), ("variant", list(variants)), ("backend", BACKENDS)):
            test = pytest.mark.parametrize(arg, values)(test)
        return test
    return parametrised


def neighbour_sets(n, src, dst) -> list:
    """Each vertex's neighbours as a Python set (both directions, self-loops and duplicates gone): the
    simple graph, built the plainest way, for references."""
    adj = [set() for _ in range(n)]
    for u, v in zip(src.tolist(), dst.tolist()):
        if u != v:
            adj[u].add(v)
            adj[v].add(u)
    return adj


def dataset(shape, directed=False, dtype=np.int32) -> Dataset:
    n, src, dst = shape
    return Dataset.in_memory("graph", n, name="simple-test", directed=directed, src=src.astype(dtype),
                             dst=dst.astype(dtype))


@pytest.fixture
def simple_shapes():
    return SHAPES


@pytest.fixture
def simple_dataset():
    return dataset
