"""The BFS verifier accepts SciPy's answer and rejects each kind of wrong output, naming it."""

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order

from graphsweep.core.errors import VerificationError
from graphsweep.kernels.bfs import verify as bfs_verify
from graphsweep.kernels.bfs.verify import verify_bfs
from graphsweep.kernels.graph import from_edges

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def adjacency(g):
    n, src, dst = g
    keep = src != dst
    return coo_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n)).tocsr()


def correct(g, root, directed=False):
    """(level, parent) from SciPy's breadth-first order."""
    order, pred = breadth_first_order(adjacency(g), root, directed=directed)
    level = np.full(g[0], -1, np.int32)
    parent = np.where(pred >= 0, pred, -1).astype(np.int32)
    level[root], parent[root] = 0, root
    for v in order[1:]:
        level[v] = level[pred[v]] + 1
    return level, parent


def check(g, root, level, parent, backend, directed=False):
    n, src, dst = g
    inp = from_edges(src, dst, n, directed=directed, backend=backend)
    if backend == "gpu":
        import cupy
        level, parent = cupy.asarray(level), cupy.asarray(parent)
    return verify_bfs(inp, root, level, parent)


@pytest.fixture
def g(graphs):
    return graphs["disconnected"]()       # a component of 1000, a path of 10, 10 isolated vertices


@pytest.mark.parametrize("backend", BACKENDS)
def test_accepts_a_correct_search(g, backend):
    level, parent = correct(g, 3)
    assert check(g, 3, level, parent, backend) == {"reached": 1000, "levels": int(level.max()) + 1}
    level, parent = correct(g, 1002)
    assert check(g, 1002, level, parent, backend) == {"reached": 10, "levels": 8}


@pytest.mark.parametrize("backend", BACKENDS)
def test_rejects_each_kind_of_wrong_output(g, backend):
    root = 3
    level, parent = correct(g, root)
    n, src, dst = g
    far = int(np.argmax(level))                      # a deepest vertex: no child hangs on it
    mid = int(np.flatnonzero(level == 2)[0])

    def rejects(pattern, lv, pa):
        with pytest.raises(VerificationError, match=pattern):
            check(g, root, lv, pa, backend)

    lv = level.copy()
    lv[far] += 1                                     # a level one too deep
    rejects(f"joins level {level[far] + 1} to level {level[far] - 1}|joins level {level[far] - 1} to level", lv, parent)
    lv = level.copy()
    lv[root] = 1
    rejects(f"root {root}: level\\[root\\] is 1 and parent\\[root\\] is {root}", lv, parent)
    pa = parent.copy()
    pa[root] = 0
    rejects(f"root {root}: level\\[root\\] is 0 and parent\\[root\\] is 0", level, pa)
    near = set(dst[src == mid].tolist()) | set(src[dst == mid].tolist())
    stranger = next(int(v) for v in np.flatnonzero(level == 1) if v not in near)
    pa = parent.copy()
    pa[mid] = stranger                               # one level up, but no such edge
    rejects(f"parent\\[{mid}\\] is {stranger} but there is no edge {stranger} - {mid}", level, pa)
    sibling = int(np.flatnonzero(level == 2)[1])
    pa = parent.copy()
    pa[mid] = sibling                                # on the same level
    rejects(f"vertex {mid} at level 2 has parent {sibling} at level 2", level, pa)
    lv, pa = level.copy(), parent.copy()
    lv[far], pa[far] = -1, -1                        # a reachable vertex left out
    rejects("to level -1|joins level -1", lv, pa)
    lv, pa = level.copy(), parent.copy()
    lv[1015], pa[1015] = level[far] + 1, far         # an isolated vertex claimed
    rejects(f"parent\\[1015\\] is {far} but there is no edge", lv, pa)
    pa = parent.copy()
    pa[far] = -1
    rejects(f"vertex {far} has level {level[far]} but parent -1", level, pa)
    lv = level.copy()
    lv[1015] = -2
    rejects("level\\[1015\\] is -2, below -1", lv, parent)
    pa = parent.copy()
    pa[far] = n
    rejects(f"parent\\[{far}\\] is {n}, not a vertex", level, pa)
    rejects("level has shape", level[:-1], parent)
    rejects("parent has dtype float64", level, parent.astype(np.float64))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_self_loop_is_no_parent_edge(backend):
    g = (3, np.array([0, 1], np.int32), np.array([1, 1], np.int32))    # 0 - 1 and a loop at 1
    assert check(g, 0, np.array([0, 1, -1], np.int32), np.array([0, 0, -1], np.int32), backend)["reached"] == 2
    loop_only = (2, np.array([1, 0], np.int32), np.array([1, 0], np.int32))   # loops at 1 and at the root
    assert check(loop_only, 0, np.array([0, -1], np.int32), np.array([0, -1], np.int32), backend)["reached"] == 1
    with pytest.raises(VerificationError, match="vertex 1 at level 1 has parent 1 at level 1"):
        check(loop_only, 0, np.array([0, 1], np.int32), np.array([0, 1], np.int32), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_directed_rules(backend):
    g = (4, np.array([0, 1, 3], np.int32), np.array([1, 2, 1], np.int32))   # 0 -> 1 -> 2, 3 -> 1
    level, parent = correct(g, 0, directed=True)
    assert level.tolist() == [0, 1, 2, -1]
    assert check(g, 0, level, parent, backend, directed=True) == {"reached": 3, "levels": 3}
    with pytest.raises(VerificationError, match=r"edge \(1, 2\) joins level 1 to level -1"):
        check(g, 0, np.array([0, 1, -1, -1], np.int32), np.array([0, 0, -1, -1], np.int32), backend, directed=True)
    with pytest.raises(VerificationError, match="parent\\[3\\] is 1 but there is no edge 1 -> 3"):
        check(g, 0, np.array([0, 1, 2, 2], np.int32), np.array([0, 0, 1, 1], np.int32), backend, directed=True)
    back = (2, np.array([0], np.int32), np.array([1], np.int32))            # 0 -> 1 only
    with pytest.raises(VerificationError, match="parent\\[0\\] is 1 but there is no edge 1 -> 0"):
        check(back, 1, np.array([1, 0], np.int32), np.array([1, 1], np.int32), backend, directed=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("graph", ["uniform-d1", "path", "grid", "disconnected", "rmat"])
def test_reachable_counts_match_scipy(graph, backend, graphs):
    """The count behind rule 4 (on the GPU: min-label hooking with pointer jumping) against SciPy."""
    n, src, dst = graphs[graph]()
    inp = from_edges(src, dst, n, backend=backend)
    order = breadth_first_order(adjacency((n, src, dst)), 0, directed=False, return_predecessors=False)
    assert bfs_verify._reachable_count(inp, 0) == order.size
    labels = bfs_verify.component_labels(inp)
    assert labels is bfs_verify.component_labels(inp)          # cached per graph
    directed = from_edges(src, dst, n, directed=True, backend=backend)
    order = breadth_first_order(adjacency((n, src, dst)), 0, directed=True, return_predecessors=False)
    assert bfs_verify._reachable_count(directed, 0) == order.size


def test_count_mismatch_is_reported(g, monkeypatch):
    level, parent = correct(g, 3)
    monkeypatch.setattr(bfs_verify, "_reachable_count", lambda inp, root: 999)
    with pytest.raises(VerificationError, match="1000 vertices reached from root 3, but 999 are reachable"):
        check(g, 3, level, parent, "cpu")


def test_a_directed_reachable_count_is_counted_once_per_graph_and_root(graphs, monkeypatch):
    """Rule 4's count from a root is the graph's own: a sweep's next BFS task from the root compares
    with it (a wrong output still fails); another root or graph counts its own."""
    counted = []
    reachable = bfs_verify._directed_reachable
    monkeypatch.setattr(bfs_verify, "_directed_reachable",
                        lambda inp, root: counted.append(root) or reachable(inp, root))
    g = graphs["rmat"]()
    n, src, dst = g
    inp = from_edges(src, dst, n, directed=True)
    first, second = (int(v) for v in np.argsort(-np.bincount(src, minlength=n))[:2])   # the most out-edges
    level, parent = correct(g, first, directed=True)
    facts = verify_bfs(inp, first, level, parent)
    assert facts["reached"] > 2 and verify_bfs(inp, first, level, parent) == facts
    leaf = int(np.argmax(level))
    level[leaf], parent[leaf] = -1, -1
    with pytest.raises(VerificationError):
        verify_bfs(inp, first, level, parent)
    verify_bfs(inp, second, *correct(g, second, directed=True))
    verify_bfs(from_edges(src, dst, n, directed=True), first, *correct(g, first, directed=True))
    assert counted == [first, second, first]
