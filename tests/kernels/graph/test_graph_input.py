"""The shared graph input: CSR rules, builds timed once per dataset, roots, and the contract's
graph side (capabilities, instances, per-step rows, input rows, saved output) through the harness."""

import numpy as np
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from graphsweep.core.errors import DatasetError, ParameterError, VerificationError
from graphsweep.datasets.reader import Dataset
from graphsweep.kernels import harness, output, registry
from graphsweep.kernels.contract import Kernel, Param, Problem, capabilities
from graphsweep.kernels import graph
from graphsweep.kernels.graph import from_edges, graph_input, pick_roots, root_instances


def _edges(seed=0, n=60, m=200):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m).astype(np.int32)
    dst = rng.integers(0, n, m).astype(np.int32)
    src[:5] = dst[:5]                      # self-loops
    src[5:8], dst[5:8] = src[8], dst[8]    # duplicates
    return n, src, dst, rng.integers(0, 9, m).astype(np.int32)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("packed", [True, False])
def test_csr_rules(directed, dtype, packed, monkeypatch):
    if not packed:  # the path of graphs of 2^31 vertices or more, on a small one
        monkeypatch.setattr(graph.layout, "PACK_LIMIT", 0)
    n, src, dst, w = _edges()
    g = from_edges(src.astype(dtype), dst.astype(dtype), n, w, directed=directed)
    csr = g.csr()
    assert csr.indices.dtype == np.int32 and csr.offsets.dtype == np.int64 and csr.offsets[0] == 0
    keep = src != dst
    rows, cols, ws = src[keep], dst[keep], w[keep]
    if not directed:
        rows, cols, ws = np.r_[rows, cols], np.r_[cols, rows], np.r_[ws, ws]
    assert csr.nnz == rows.size                       # self-loops dropped, duplicates kept
    expected = sorted(zip(rows.tolist(), cols.tolist(), ws.tolist()))
    got = sorted((int(r), int(c), int(x)) for r in range(n)
                 for c, x in zip(csr.indices[csr.offsets[r]:csr.offsets[r + 1]],
                                 csr.weights[csr.offsets[r]:csr.offsets[r + 1]]))
    assert got == expected                            # each weight stays with its edge
    for r in range(n):                                # neighbours sorted
        row = csr.indices[csr.offsets[r]:csr.offsets[r + 1]]
        assert (np.diff(row) >= 0).all()
    reverse = g.rcsr()
    assert (reverse is csr) == (not directed)
    if directed:
        dense = sp.coo_matrix((np.ones(keep.sum()), (src[keep], dst[keep])), shape=(n, n)).toarray()
        rdense = sp.csr_matrix((np.ones(reverse.nnz), reverse.indices, reverse.offsets), shape=(n, n)).toarray()
        assert (rdense == dense.T).all()


def test_empty_and_single_vertex():
    g = from_edges(np.array([], np.int32), np.array([], np.int32), 1)
    assert g.csr().nnz == 0 and list(g.csr().offsets) == [0, 0]
    assert pick_roots(g, 2, seed=3) == [0]            # no vertex has an edge: any vertex, never twice


def test_builds_are_timed_once_and_shared_between_problems():
    n, src, dst, w = _edges()
    data = Dataset.in_memory("graph", n, src=src, dst=dst, weight=w)
    g = graph_input(data)
    assert graph_input(data) is g
    first = g.build(["csr", "rcsr"])                  # undirected: rcsr is csr, one build, one row
    assert [r["phase"] for r in first] == ["csr"] and not first[0]["cached"] and first[0]["ms"] >= 0
    assert first[0]["bytes_read"] == 200 * (4 + 4 + 4) and first[0]["bytes_written"] > 0
    again = g.build(["csr"])
    assert again[0]["cached"] and again[0]["ms"] == first[0]["ms"]
    with pytest.raises(ParameterError, match="unknown graph representation 'csc'"):
        g.build(["csc"])


def test_roots_are_seeded_and_have_edges():
    n, src, dst, _ = _edges(n=500, m=100)
    g = from_edges(src, dst, n)
    roots = pick_roots(g, 10, seed=4)
    assert roots == pick_roots(g, 10, seed=4) != pick_roots(g, 10, seed=5)
    nonzero = g.degree_nonzero()
    assert all(nonzero[r] for r in roots) and len(set(roots)) == 10
    # A tiny graph has fewer vertices with an edge than roots asked for: each once, no repeats.
    tiny = from_edges(np.array([0, 3], np.int32), np.array([3, 0], np.int32), 6)
    assert sorted(pick_roots(tiny, 4, seed=1)) == [0, 3]
    assert root_instances(g, {"root": 7}, 10, 4) == [{"root": 7}]
    with pytest.raises(ParameterError, match="parameter 'root': 500 is not a vertex of <memory> \\(n = 500\\)"):
        root_instances(g, {"root": 500}, None, 0)


def test_in_memory_dataset_is_checked_like_a_read():
    with pytest.raises(DatasetError, match="column 'dst' row 1 is 9, outside \\[0, n=3\\)"):
        Dataset.in_memory("graph", 3, src=np.array([0, 1], np.int32), dst=np.array([1, 9], np.int32))
    with pytest.raises(DatasetError, match="row 0 \\(edge 0 - 1\\) is -1: weights must be >= 0"):
        Dataset.in_memory("graph", 3, src=np.array([0], np.int32), dst=np.array([1], np.int32),
                          weight=np.array([-1], np.int32))
    with pytest.raises(DatasetError, match="needs columns"):
        Dataset.in_memory("list", 3, src=np.array([0], np.int32))


def test_capabilities():
    assert capabilities({"kind": "graph", "directed": False, "weighted": True}) == {"graph", "undirected", "weighted"}
    assert capabilities({"kind": "graph", "directed": True, "weighted": False}) == {"graph", "directed"}
    assert capabilities({"kind": "list", "generator": {"name": "ordered-list"}}) == {"list", "ordered"}


# A toy single-source problem exercises the graph side of the contract end to end: reach[v] is the
# number of edges of v's row in the CSR when v is within one hop of the root, else -1.

def _toy_verify(inp, params, out):
    csr, root = inp.csr(), params["root"]
    deg = np.diff(csr.offsets)
    near = np.zeros(inp.n, bool)
    near[root] = True
    near[csr.indices[csr.offsets[root]:csr.offsets[root + 1]]] = True
    if not (out["reach"] == np.where(near, deg, -1)).all():
        raise VerificationError(f"reach is wrong for root {root}")
    return {"near": int(near.sum())}


def _toy_run(inp, params, timer):
    csr, root = inp.csr(), params["root"]
    reach = np.full(inp.n, -1, np.int64)
    with timer.phase("hop", read=8, step=0, info={"frontier": 1}):
        reach[root] = csr.offsets[root + 1] - csr.offsets[root]
    nbrs = csr.indices[csr.offsets[root]:csr.offsets[root + 1]]
    with timer.phase("hop", read=8 * nbrs.size, step=1, info={"frontier": lambda: int(nbrs.size)}):
        reach[nbrs] = (csr.offsets[nbrs + 1] - csr.offsets[nbrs])
    timer.stat("levels", 2)
    return {"reach": reach, "hops": np.where(reach >= 0, 1, -1)}


TOY = Problem(name="toy", dataset_kind="graph", prepare=graph_input, verify=_toy_verify,
              outputs=("reach", "hops"), requires=frozenset({"weighted"}), element="edge",
              elements=lambda inp: inp.m, instances=root_instances,
              columns=lambda out: {"reach": out["reach"] * 1})
TOY_KERNEL = Kernel(name="toy.hop", problem=TOY, summary="test", cpu=_toy_run, needs=("csr",),
                    params={"root": Param(None, minimum=0)})


@pytest.fixture
def toy(monkeypatch):
    real = registry.get
    monkeypatch.setattr(registry, "get", lambda name: TOY_KERNEL if name == "toy.hop" else real(name))


def test_instances_steps_and_input_rows_through_the_harness(toy, tmp_path):
    n, src, dst, w = _edges(seed=2)
    data = Dataset.in_memory("graph", n, src=src, dst=dst, weight=w)
    res = harness.run("toy.hop", data, backend="cpu", reps=3, warmup=1, instances=4, instance_seed=11)
    assert res.verified is True and res.elements == 200
    roots = [i["root"] for i in res.instances]
    assert len(roots) == 4 and roots == pick_roots(graph_input(data), 4, 11)
    assert {(r["instance"], r["inst_root"]) for r in res.rows} == set(enumerate(roots))
    assert len([r for r in res.rows if r["phase"] == "total"]) == 4 * 3
    hop = [r for r in res.rows if r["phase"] == "hop"]
    assert all(r["calls"] == 2 for r in hop)
    steps = res.step_rows                              # last rep of each instance, one row per step
    assert len(steps) == 4 * 2 and {r["rep"] for r in steps} == {2} and {r["step"] for r in steps} == {0, 1}
    assert all(isinstance(r["step_frontier"], int) for r in steps)
    assert [r["phase"] for r in res.input_rows] == ["csr"]
    assert [s["levels"] for s in res.instance_stats] == [2] * 4 and all("near" in s for s in res.instance_stats)
    assert list(res.output) == ["reach", "hops"]
    saved = output.save(TOY, res.output, tmp_path / "out.parquet")
    assert pq.read_table(saved).column_names == ["reach"]
    again = harness.run("toy.hop", data, backend="cpu", reps=1, warmup=0, root=3)
    assert again.instances == [{"root": 3}] and again.input_rows[0]["cached"]


def test_wrong_output_names_the_instance(toy, monkeypatch):
    n, src, dst, w = _edges(seed=2)
    data = Dataset.in_memory("graph", n, src=src, dst=dst, weight=w)
    broken = Kernel(name="toy.hop", problem=TOY, summary="broken", needs=("csr",), params=TOY_KERNEL.params,
                    cpu=lambda inp, params, timer: {"reach": np.zeros(inp.n, np.int64)})
    monkeypatch.setattr(registry, "get", lambda name: broken)
    res = harness.run("toy.hop", data, backend="cpu", reps=1, warmup=0, root=5)
    assert res.verified is False and res.verify_error.startswith("root 5: reach is wrong")


def test_capability_mismatch_is_one_line(toy, make_list):
    n, src, dst, _ = _edges()
    unweighted = Dataset.in_memory("graph", n, src=src, dst=dst)
    with pytest.raises(ParameterError, match="toy.hop needs a weighted graph, and this is an? undirected, unweighted graph"):
        harness.run("toy.hop", unweighted, backend="cpu", reps=1, warmup=0)
    a_list = Dataset.in_memory("list", 50, succ=make_list(50))
    with pytest.raises(ParameterError, match="toy.hop needs a weighted graph, and this is a list"):
        harness.run("toy.hop", a_list, backend="cpu", reps=1, warmup=0)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_gpu_builds_the_same_csr(directed, weighted):
    n, src, dst, w = _edges(seed=5, n=3000, m=20000)
    w = w if weighted else None
    host = from_edges(src, dst, n, w, directed=directed)
    dev = from_edges(src, dst, n, w, directed=directed, backend="gpu")
    assert dev.backend == "gpu" and [r["phase"] for r in dev.build(["csr", "rcsr"])] == (
        ["csr", "rcsr"] if directed else ["csr"])
    for get in ("csr", "rcsr"):
        a, b = getattr(host, get)(), getattr(dev, get)()
        assert (a.offsets == b.offsets.get()).all() and (a.indices == b.indices.get()).all()
        if weighted:  # duplicates may come in either order; compare each row's (neighbour, weight) pairs
            assert sorted(zip(a.indices.tolist(), a.weights.tolist())) == \
                sorted(zip(b.indices.get().tolist(), b.weights.get().tolist()))
    empty = from_edges(np.array([], np.int32), np.array([], np.int32), 4, backend="gpu")
    assert empty.csr().nnz == 0 and empty.csr().offsets.get().tolist() == [0] * 5
    empty_host = from_edges(np.array([], np.int32), np.array([], np.int32), 4)
    assert pick_roots(empty, 3, 0) == pick_roots(empty_host, 3, 0)   # no vertex has an edge: any vertex
    assert pick_roots(dev, 5, 3) == pick_roots(host, 5, 3)
