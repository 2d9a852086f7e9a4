"""The simple and oriented representations: the rules of the module doc checked against Python
sets on every shape, both id widths, both sort paths, both devices; builds timed once."""

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import to_host
from graphsweep.kernels import graph
from graphsweep.kernels.graph import from_edges
from graphsweep.kernels.graph.simple import long_rows

from ..conftest import neighbour_sets

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def _rows(csr):
    offsets, indices = to_host(csr.offsets), to_host(csr.indices)
    return [indices[offsets[v]:offsets[v + 1]].tolist() for v in range(csr.n)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("packed", [True, False])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", ["single", "loop-only", "edge", "clique", "star", "components", "messy", "rmat"])
def test_simple_and_oriented_rules(shape, dtype, packed, backend, simple_shapes, monkeypatch):
    if not packed:  # the lexsort path of graphs of 2^31 vertices or more, on a small one
        monkeypatch.setattr(graph.layout, "PACK_LIMIT", 0)
    n, src, dst = simple_shapes[shape]()
    g = from_edges(src.astype(dtype), dst.astype(dtype), n, backend=backend)
    rows = g.build(["simple", "oriented"])
    assert [r["phase"] for r in rows] == ["simple", "oriented"] and not any(r["cached"] for r in rows)
    adj = neighbour_sets(n, src, dst)
    simple = g.representation("simple")
    assert simple.indices.dtype == np.int32 and simple.offsets.dtype == np.int64 and simple.weights is None
    assert _rows(simple) == [sorted(a) for a in adj]           # each edge once per direction, sorted
    degree = [len(a) for a in adj]
    oriented = g.representation("oriented")
    higher = [sorted(w for w in adj[v] if (degree[v], v) < (degree[w], w)) for v in range(n)]
    assert _rows(oriented) == higher
    sources = to_host(oriented.sources)
    assert sources.tolist() == [v for v in range(n) for _ in higher[v]]
    assert max(map(len, higher), default=0) <= int(np.sqrt(2 * sum(degree) / 2)) + 1
    again = g.build(["oriented", "simple"])                      # cached: built once per graph
    assert all(r["cached"] for r in again) and g.representation("simple") is simple


def test_unknown_representation_is_named():
    g = from_edges(np.array([0], np.int32), np.array([1], np.int32), 2)
    with pytest.raises(ParameterError, match=r"unknown graph representation 'dual' \(known: csr, rcsr, simple, oriented"):
        g.build(["dual"])


@pytest.mark.gpu
def test_gpu_builds_equal_cpu_builds(simple_shapes):
    n, src, dst = simple_shapes["rmat"]()
    cpu, gpu = from_edges(src, dst, n), from_edges(src, dst, n, backend="gpu")
    for name in ("simple", "oriented"):
        a, b = cpu.representation(name), gpu.representation(name)
        assert (to_host(b.offsets) == a.offsets).all() and (to_host(b.indices) == a.indices).all()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("split", [1, 7, 40, 10_000])
def test_long_rows_cover_each_long_row_once(split, backend, simple_shapes):
    n, src, dst = simple_shapes["rmat"]()
    g = from_edges(src, dst, n, backend=backend)
    rows, vertex, begin = (to_host(a) for a in long_rows(g, split))
    csr = g.representation("simple")
    offsets, degree = to_host(csr.offsets), to_host(csr.degree())
    assert rows.tolist() == np.flatnonzero(degree > split).tolist()
    cover = np.zeros(csr.nnz, dtype=int)
    for v, b in zip(vertex.tolist(), begin.tolist()):
        assert offsets[v] <= b < offsets[v + 1] and (b - offsets[v]) % split == 0
        cover[b:min(b + split, offsets[v + 1])] += 1
    in_long = np.isin(np.repeat(np.arange(n), degree), rows)
    assert (cover[in_long] == 1).all() and (cover[~in_long] == 0).all()
    assert long_rows(g, split)[0] is long_rows(g, split)[0]     # made once per graph and split


def test_verifiers_unique_edges_are_found_by_sorting_not_hashing(monkeypatch):
    """``unique_edges`` equals NumPy's unique pairs, found without ``np.unique`` (NumPy 2.3+ hashes
    integers there: 50x a sort's time, the first PageRank or TC verification's 2.2 s of 2.3 on an
    R-MAT 16 graph)."""
    from graphsweep.kernels.graph import unique_edges
    rng = np.random.default_rng(3)
    n = 1 << 10
    src, dst = rng.integers(0, n, 5000), rng.integers(0, n, 5000)
    src[:10] = dst[:10]                                                  # self-loops are dropped
    pairs = np.unique(np.c_[np.minimum(src, dst), np.maximum(src, dst)][src != dst], axis=0)
    monkeypatch.setattr(np, "unique", lambda *a, **k: pytest.fail("np.unique hashes integers: slow"))
    lo, hi = unique_edges.unique_edges(from_edges(src, dst, n))
    np.testing.assert_array_equal(np.c_[lo, hi], pairs)
    assert [a.tolist() for a in unique_edges.unique_edges(from_edges(src[:0], dst[:0], n))] == [[], []]
    assert unique_edges.distinct(np, np.array([3, 1, 3, 2, 1])).tolist() == [1, 2, 3]
