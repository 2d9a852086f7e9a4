"""The by-bfs representation: the graph renamed by the levels of a search from a pseudo-peripheral
vertex (the first of the deepest from the first vertex of the largest degree), unreached vertices
last; the same edges and weights under the renaming."""

import numpy as np
import pytest

from graphsweep.core.gpu import to_host
from graphsweep.kernels.bfs import by_bfs  # noqa: F401  (registers "by-bfs")
from graphsweep.kernels.graph import from_edges

from ..conftest import neighbour_sets

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def _levels(adj, root):
    level = {root: 0}
    front = [root]
    while front:
        nxt = []
        for u in front:
            for v in adj[u]:
                if v not in level:
                    level[v] = level[u] + 1
                    nxt.append(v)
        front = nxt
    return level


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", ["single", "edge", "path", "tree", "grid", "components", "messy"])
def test_by_bfs_renames_by_levels_from_a_pseudo_peripheral_vertex(shape, backend, simple_shapes):
    n, src, dst = simple_shapes[shape]()
    weight = np.arange(1, src.size + 1, dtype=np.int32)
    g = from_edges(src, dst, n, weight, backend=backend)
    rows = g.build(["by-bfs"])
    assert rows[0]["phase"] == "by-bfs" and not rows[0]["cached"]
    renamed = g.representation("by-bfs")
    rename, order = to_host(renamed.rename), to_host(renamed.order)
    assert sorted(order.tolist()) == list(range(n)) and (rename[order] == np.arange(n)).all()
    adj = neighbour_sets(n, src, dst)
    loop = src == dst                                           # the CSR's degrees: duplicates kept, loops dropped
    degree = np.bincount(src[~loop], minlength=n) + np.bincount(dst[~loop], minlength=n)
    first = _levels(adj, int(np.argmax(degree)))                # the first vertex of the largest degree
    far = min(v for v, d in first.items() if d == max(first.values()))
    level = _levels(adj, far)
    assert renamed.levels == max(level.values()) + 1
    key = [(level.get(v, n + 1), v) for v in range(n)]          # by level, then id; unreached last
    assert order.tolist() == sorted(range(n), key=lambda v: key[v])
    r_src, r_dst = to_host(renamed.graph.src), to_host(renamed.graph.dst)
    assert (r_src == rename[src]).all() and (r_dst == rename[dst]).all()
    assert (to_host(renamed.graph.weight) == weight).all()
