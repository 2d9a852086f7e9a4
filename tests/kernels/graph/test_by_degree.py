"""The by-degree representation: a renaming by degree (descending, ties by id) of the simple graph,
checked against Python sets on every shape, both id widths and sort paths, both devices; and the
same renamed graph, degrees and default blocks whatever order the ids came in."""

import numpy as np
import pytest

from graphsweep.core.gpu import to_host
from graphsweep.kernels import graph
from graphsweep.kernels.graph import from_edges

from ..conftest import neighbour_sets

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("packed", [True, False])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", ["single", "loop-only", "edge", "clique", "star", "components", "messy", "rmat"])
def test_by_degree_renames_the_simple_graph(shape, dtype, packed, backend, simple_shapes, monkeypatch):
    if not packed:  # the lexsort path of graphs of 2^31 vertices or more, on a small one
        monkeypatch.setattr(graph.layout, "PACK_LIMIT", 0)
    n, src, dst = simple_shapes[shape]()
    g = from_edges(src.astype(dtype), dst.astype(dtype), n, backend=backend)
    rows = g.build(["simple", "by-degree"])
    assert [r["phase"] for r in rows] == ["simple", "by-degree"]
    ranked = g.representation("by-degree")
    order, offsets, indices = to_host(ranked.order), to_host(ranked.offsets), to_host(ranked.indices)
    assert sorted(order.tolist()) == list(range(n))             # a permutation
    assert (to_host(ranked.rename)[order] == np.arange(n)).all()   # and its inverse
    adj = neighbour_sets(n, src, dst)
    degree = np.diff(offsets)
    assert degree.tolist() == [len(adj[v]) for v in order]
    # degrees descending, equal degrees by id
    assert [(-len(adj[v]), v) for v in order] == sorted((-len(adj[v]), v) for v in range(n))
    rename = np.empty(n, dtype=np.int64)
    rename[order] = np.arange(n)
    for i, v in enumerate(order):
        row = indices[offsets[i]:offsets[i + 1]].tolist()
        assert row == sorted(rename[u] for u in adj[v])         # the same edges, renamed, sorted
    assert ranked.indices.dtype == g.representation("simple").indices.dtype


@pytest.mark.parametrize("shape", ["uniform", "rmat", "grid"])
def test_by_degree_does_not_depend_on_the_ids_order(shape, simple_shapes):
    """A graph and the same graph with its ids shuffled give renamed graphs of the same degrees, and
    the same default column blocks (PageRank's rule reads the degrees, not the ids)."""
    from graphsweep.kernels.pagerank.blocked import default_blocks
    n, src, dst = simple_shapes[shape]()
    shuffle = np.random.default_rng(5).permutation(n).astype(np.int32)
    plain = from_edges(src, dst, n).representation("by-degree")
    shuffled = from_edges(shuffle[src], shuffle[dst], n).representation("by-degree")
    assert np.array_equal(plain.offsets, shuffled.offsets)
    for l2 in (64, 1024, 10**4, 10**6):
        assert default_blocks(plain, 4, l2) == default_blocks(shuffled, 4, l2)
