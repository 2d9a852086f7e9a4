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
    middle = sorted(v for v, d in level.items() if d == renamed.levels // 2)
    across = {}
    if len(middle) >= 2:                                        # along the front: from an end of the middle level
        from_first = _levels(adj, middle[0])
        across = _levels(adj, max(middle, key=lambda v: (from_first[v], -v)))
    key = [(level.get(v, n + 1), across.get(v, 0), v) for v in range(n)]   # unreached last, by id
    assert order.tolist() == sorted(range(n), key=lambda v: key[v])
    r_src, r_dst = to_host(renamed.graph.src), to_host(renamed.graph.dst)
    assert (r_src == rename[src]).all() and (r_dst == rename[dst]).all()
    assert (to_host(renamed.graph.weight) == weight).all()


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_by_bfs_orders_each_level_along_its_front_whatever_the_ids(backend):
    """A full grid, in row order and with its ids shuffled: every level (a diagonal from a corner)
    is renamed from one side to the other, so consecutive renamed ids of a level are neighbours on
    the grid in both cases."""
    side = 24
    r, c = np.divmod(np.arange(side * side), side)
    right, down = (c < side - 1), (r < side - 1)
    src = np.concatenate([np.flatnonzero(right), np.flatnonzero(down)])
    dst = np.concatenate([np.flatnonzero(right) + 1, np.flatnonzero(down) + side])
    shuffle = np.random.default_rng(5).permutation(side * side)
    for ids in (np.arange(side * side), shuffle):
        g = from_edges(ids[src], ids[dst], side * side, backend=backend)
        g.build(["by-bfs"])
        order = to_host(g.representation("by-bfs").order)
        place = np.argsort(ids)[order]                           # grid position of each renamed id
        row, col = np.divmod(place, side)
        level = np.abs(row - row[0]) + np.abs(col - col[0])     # the renaming starts at a corner
        assert (np.diff(level) >= 0).all()
        same = level[1:] == level[:-1]
        steps = np.abs(np.diff(row)) + np.abs(np.diff(col))
        assert (steps[same] == 2).all(), "a level's consecutive vertices are diagonal neighbours"
