"""The partitioned verifiers (kernels/dist/verify.py) on outputs kept on the workers by hand: the
right BFS levels and parents, CC labels and PageRank scores pass, with the one-worker verifiers'
facts; each kind
of fault the one-GPU verifiers catch is caught here too, in one error naming its slice — over the
Dask transport on CPU workers (CI)."""

import sys

import numpy as np
import pytest
from graphsweep.core.errors import VerificationError
from graphsweep.kernels import harness
from graphsweep.kernels.dist import Remote, driver
from graphsweep.kernels.dist import verify as partitioned_verify
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components, shortest_path

from ..conftest import SHAPES, dataset
from .conftest import by_value

by_value(sys.modules[__name__])

K = 3


def _graph():
    """R-MAT 10 with a separate triangle on three isolated vertices (two components to tell apart)."""
    n, src, dst = SHAPES["rmat"]()
    degree = np.bincount(np.concatenate([src, dst]), minlength=n)
    a, b, c = (int(v) for v in np.flatnonzero(degree == 0)[-3:])
    return n, np.concatenate([src, [a, b]]).astype(np.int32), np.concatenate([dst, [b, c]]).astype(np.int32)


_PART = {}


def _partition(address):
    if "part" not in _PART:
        graph = _graph()
        inp = harness.prepared(harness.registry.get("cc.distributed"), dataset(graph))
        _PART["part"] = driver.partitioned(inp, {"partitions": K, "scheduler": address, "comms": "auto"}, "cpu")
        _PART["graph"] = graph
    return _PART["part"], _PART["graph"]


def _keep(rank, outputs: dict) -> dict:
    """Keep on this rank its slice of every whole-graph array of ``outputs``."""
    s = rank.slice
    rank.keep(**{name: np.asarray(values[s.lo:s.hi]) for name, values in outputs.items()})
    return {}


def _csr(graph):
    n, src, dst = graph
    return coo_matrix((np.ones(2 * src.size), (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                      shape=(n, n)).tocsr()


def _search(graph, root):
    """Levels and parents of a BFS from ``root`` (SciPy)."""
    csr = _csr(graph)
    hops = shortest_path(csr, unweighted=True, directed=False, indices=root)
    level = np.where(np.isinf(hops), -1, hops).astype(np.int64)
    _, pred = breadth_first_order(csr, root, directed=False, return_predecessors=True)
    parent = np.where(level >= 0, pred, -1).astype(np.int64)
    parent[root] = root
    return level, parent


def _labels(graph):
    _, comp = connected_components(_csr(graph), directed=False)
    _, first = np.unique(comp, return_index=True)
    return first[comp].astype(np.int64)


def _check_bfs(part, root, level, parent):
    part.spmd(_keep, {"level": level, "parent": parent}, name="keep")
    return partitioned_verify.check(Remote(part, ("level", "parent"), "cpu"), partitioned_verify.bfs, root)


def _check_cc(part, label):
    part.spmd(_keep, {"label": label}, name="keep")
    return partitioned_verify.check(Remote(part, ("label",), "cpu"), partitioned_verify.cc)


def _check_pagerank(part, score, tolerance=1e-4):
    part.spmd(_keep, {"score": score}, name="keep")
    return partitioned_verify.check(Remote(part, ("score",), "cpu"), partitioned_verify.pagerank, tolerance, True, 0.85)


def _scores(graph, damping=0.85):
    """PageRank of the simple graph to 1e-12 in L1 (float64 power iteration, dangling score spread)."""
    n = graph[0]
    a = _csr(graph)
    a.data[:] = 1.0
    a.setdiag(0)
    a.eliminate_zeros()
    degree = np.asarray(a.sum(axis=1)).ravel()
    score = np.full(n, 1.0 / n)
    for _ in range(1000):
        contrib = np.where(degree > 0, score / np.maximum(degree, 1), 0.0)
        nxt = (1 - damping) / n + damping * (a.T @ contrib + score[degree == 0].sum() / n)
        if np.abs(nxt - score).sum() < 1e-12:
            return nxt
        score = nxt
    raise AssertionError("no convergence")


def _root(graph) -> int:
    n, src, dst = graph
    return int(np.bincount(np.concatenate([src, dst]), minlength=n).argmax())


def test_a_right_search_passes_with_the_one_worker_facts(workers4):
    part, graph = _partition(workers4)
    root = _root(graph)
    level, parent = _search(graph, root)
    facts = _check_bfs(part, root, level, parent)
    assert facts == {"reached": int((level >= 0).sum()), "levels": int(level.max()) + 1}


def test_right_labels_pass_with_the_component_count(workers4):
    part, graph = _partition(workers4)
    label = _labels(graph)
    assert _check_cc(part, label) == {"components": np.unique(label).size}


def _far_vertex(part, level, slice_index):
    """A vertex of slice ``slice_index`` at the search's deepest level there (a leaf of the tree)."""
    lo, hi = (int(x) for x in part.bounds[slice_index:slice_index + 2])
    here = np.arange(lo, hi)
    return int(here[np.argmax(level[lo:hi])])


@pytest.mark.parametrize("fault,message", [
    ("level", r"slice \d of 3, vertices \[\d+, \d+\): edge \(\d+, \d+\) joins level"),
    ("parent", r"slice 1 of 3.*no edge"),
    ("unreached", r"slice \d of 3.*(unreached|-1 in one|joins level)"),
])
def test_each_search_fault_is_caught_naming_its_slice(workers4, fault, message):
    part, graph = _partition(workers4)
    root = _root(graph)
    level, parent = _search(graph, root)
    v = _far_vertex(part, level, 1)
    if fault == "level":
        level[v] += 2
    elif fault == "parent":        # a vertex one level up that is not v's neighbour
        up = np.flatnonzero(level == level[v] - 1)
        neighbours = set(_csr(graph)[v].indices.tolist())
        parent[v] = int(next(u for u in up if u not in neighbours))
    else:
        level[v], parent[v] = -1, -1
    with pytest.raises(VerificationError, match=message):
        _check_bfs(part, root, level, parent)


@pytest.mark.parametrize("fault,message", [
    ("root", r"root \d+: level\[root\] is 1 and parent\[root\] is \d+, expected 0"),
    ("parent outside", r"slice 2 of 3.*parent\[{v}\] is {n}, not a vertex"),
    ("level past n", r"slice 2 of 3.*level\[{v}\] is {big}, not below n"),
    ("one unreached", r"slice 2 of 3.*vertex {v} has level -1 but parent \d+"),
])
def test_a_malformed_search_tree_is_caught_on_its_slice_by_global_ids(workers4, fault, message):
    """The tree's shape is checked where each vertex lies (the parents are never gathered), faults
    named by global vertex ids."""
    part, graph = _partition(workers4)
    n, root = graph[0], _root(graph)
    level, parent = _search(graph, root)
    v = _far_vertex(part, level, 2)
    big = 1 << 40
    if fault == "root":
        level[root] = 1
    elif fault == "parent outside":
        parent[v] = n
    elif fault == "level past n":
        level[v] = big
    else:
        level[v] = -1
    with pytest.raises(VerificationError, match=message.format(v=v, n=n, big=big)):
        _check_bfs(part, root, level, parent)


def test_a_search_that_misses_a_component_part_is_counted(workers4):
    """The triangle reached as if it belonged to the root's search: levels consistent along its own
    edges but its vertices are not reachable — the parent edges fail, or the count does."""
    part, graph = _partition(workers4)
    root = _root(graph)
    level, parent = _search(graph, root)
    a, b, c = (int(x) for x in graph[1][-2:].tolist() + graph[2][-1:].tolist())
    level[[a, b, c]], parent[[a, b, c]] = 1, root
    with pytest.raises(VerificationError, match="no edge|reachable"):
        _check_bfs(part, root, level, parent)


def test_a_split_component_and_two_components_sharing_a_label_are_caught(workers4):
    part, graph = _partition(workers4)
    label = _labels(graph)
    split = label.copy()
    v = int(np.flatnonzero(split == split[_root(graph)])[-1])
    split[v] = v
    with pytest.raises(VerificationError, match="joins labels"):
        _check_cc(part, split)
    merged = label.copy()
    a = int(graph[1][-2])                      # the triangle takes the giant's label
    merged[merged == merged[a]] = merged[_root(graph)]
    with pytest.raises(VerificationError, match="distinct labels for .* components"):
        _check_cc(part, merged)


def test_scores_pass_and_scores_off_the_fixed_point_are_caught(workers4):
    part, graph = _partition(workers4)
    score = _scores(graph)
    facts = _check_pagerank(part, score)
    assert facts["l1_next"] < 1e-10 and abs(facts["score_sum"] - 1) < 1e-9
    moved = score.copy()
    moved[_root(graph)], moved[0] = moved[0], moved[_root(graph)]     # the sum kept, the fixed point lost
    with pytest.raises(VerificationError, match="one more iteration changes the scores by"):
        _check_pagerank(part, moved)
    with pytest.raises(VerificationError, match="scores sum to"):
        _check_pagerank(part, score * 1.01)
    negative = score.copy()
    negative[1] = -1e-3
    with pytest.raises(VerificationError, match=r"score\[1\] is -0.001: values are finite"):
        _check_pagerank(part, negative)
    last = score.shape[0] - 1         # in the last slice: named by its global id, before any other fault
    broken = score.copy()
    broken[last] = np.nan
    with pytest.raises(VerificationError, match=rf"score\[{last}\] is nan: values are finite"):
        _check_pagerank(part, broken)


def test_a_run_verifies_on_the_workers_not_in_the_driver(workers4, monkeypatch):
    """A partitioned kernel's run checks its output where it lies: the problem's whole-graph
    verifier is not called."""
    from graphsweep.kernels import bfs, cc, pagerank
    for module, name in ((bfs, "verify_bfs"), (cc, "verify_graph_labels"), (pagerank, "verify_scores")):
        monkeypatch.setattr(module, name, lambda *a, **k: pytest.fail("the whole-graph verifier ran"))
    graph = _graph()
    res = harness.run("cc.distributed", dataset(graph), backend="cpu", reps=1, warmup=0, partitions=2,
                      scheduler=workers4)
    assert res.verified and res.instance_stats[0]["components"] == np.unique(_labels(graph)).size
    res = harness.run("bfs.distributed", dataset(graph), backend="cpu", reps=1, warmup=0, partitions=2,
                      scheduler=workers4, root=_root(graph))
    assert res.verified and res.instance_stats[0]["reached"] == int((_search(graph, _root(graph))[0] >= 0).sum())
    res = harness.run("pagerank.distributed", dataset(graph), backend="cpu", reps=1, warmup=0, partitions=2,
                      scheduler=workers4)
    assert res.verified and res.instance_stats[0]["l1_next"] < 1e-4
