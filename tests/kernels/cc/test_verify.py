"""The CC verifier accepts SciPy's answer (under any relabelling) and rejects merged and split
labellings, naming the fault; its own component count (the GPU's method) agrees with SciPy."""

import numpy as np
import pytest

from graphsweep.core.errors import VerificationError
from graphsweep.kernels.cc import canonical_labels
from graphsweep.kernels.cc.verify import component_count, count_by_hooking, verify_labels

from .conftest import GRAPHS

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def on(backend, *arrays):
    if backend == "gpu":
        import cupy
        return [cupy.asarray(a) for a in arrays]
    return list(arrays)


def check(graph, label, backend):
    n, src, dst = graph
    src, dst, label = on(backend, src, dst, label)
    return verify_labels(n, src, dst, label)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("graph", ["many-lists", "tree-k3", "rmat", "isolated", "messy", "n=1", "no-edges",
                                   "int64-uniform"])
def test_accepts_scipy_labels_under_any_relabelling(graph, backend, reference):
    g = GRAPHS[graph]()
    ref = reference(g)
    components = len(np.unique(ref))
    assert check(g, ref.astype(np.int32), backend) == {"components": components}
    relabelled = (np.random.default_rng(1).permutation(g[0])[ref] + 10 * g[0]).astype(np.int64)  # ids past n
    assert check(g, relabelled, backend) == {"components": components}


@pytest.mark.parametrize("backend", BACKENDS)
def test_rejects_merged_components(backend, reference):
    g = GRAPHS["many-lists"]()
    ref = reference(g).astype(np.int32)
    a, b = np.unique(ref)[[3, 17]]
    merged = np.where(ref == b, a, ref)
    with pytest.raises(VerificationError, match="36 distinct labels for 37 components: different components share"):
        check(g, merged, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rejects_split_component(backend, reference):
    g = GRAPHS["tree-k3"]()
    ref = reference(g).astype(np.int32)
    split = ref.copy()
    n, src, dst = g
    v = int(dst[len(dst) // 2])
    split[v] = g[0] + 5                       # one vertex of a tree given a label of its own
    with pytest.raises(VerificationError, match=r"edge \d+ \(\d+ - \d+\) joins labels .* one label"):
        check(g, split, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rejects_every_vertex_its_own_label(backend):
    g = GRAPHS["random-list"]()
    with pytest.raises(VerificationError, match="joins labels"):
        check(g, np.arange(g[0], dtype=np.int32), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rejects_wrong_shape_and_type(backend, reference):
    g = GRAPHS["rmat"]()
    ref = reference(g)
    with pytest.raises(VerificationError, match="shape"):
        check(g, ref[:-1], backend)
    with pytest.raises(VerificationError, match="dtype float64"):
        check(g, ref.astype(np.float64), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("graph", list(GRAPHS))
def test_hooking_count_matches_scipy(graph, backend, reference):
    n, src, dst = GRAPHS[graph]()
    expected = len(np.unique(reference((n, src, dst))))
    assert component_count(n, src, dst) == expected
    src, dst = on(backend, src, dst)
    assert count_by_hooking(n, src, dst) == expected


def test_hooking_count_on_a_long_random_list():
    n = 200_000
    order = np.random.default_rng(3).permutation(n).astype(np.int32)
    cut = np.ones(n - 1, bool)
    cut[::5000] = False                         # 40 links cut: 41 lists
    assert count_by_hooking(n, order[:-1][cut], order[1:][cut]) == 41


@pytest.mark.parametrize("backend", BACKENDS)
def test_canonical_labels(backend):
    label = np.array([7, 3, 7, 9, 3, 9, 100], dtype=np.int64)
    (got,) = on(backend, label)
    got = canonical_labels(got)
    got = got.get() if backend == "gpu" else got
    np.testing.assert_array_equal(got, [0, 1, 0, 3, 1, 3, 6])
    assert got.dtype == np.int64


@pytest.mark.parametrize("whole", [True, False], ids=["whole", "streamed"])
def test_the_component_count_is_counted_once_per_graph(whole, reference, monkeypatch):
    """The count behind property 2 is the graph's own: a sweep's next CC task compares with it, and
    a merged labelling still fails; another graph counts its own.  Both where the edge list is whole
    (SciPy) and where it is read a chunk at a time (hooking rounds)."""
    from graphsweep.kernels.cc import verify as cc_verify
    from graphsweep.kernels.graph import GraphInput, sliced

    def graph_input(g):
        n, src, dst = g
        if whole:
            return GraphInput(n, src, dst)
        return GraphInput(n, None, None, edges=sliced.ArrayEdges(src, dst, None), xp=np)
    counts = []
    components = cc_verify._components
    monkeypatch.setattr(cc_verify, "_components", lambda inp: counts.append(1) or components(inp))
    g = GRAPHS["many-lists"]()
    inp = graph_input(g)
    assert inp.whole is whole
    ref = reference(g)
    expected = {"components": len(np.unique(ref))}
    assert cc_verify.verify_graph_labels(inp, ref) == expected
    assert cc_verify.verify_graph_labels(inp, ref) == expected
    merged = ref.copy()
    merged[merged == merged[g[1][0]]] = merged[merged != merged[g[1][0]]][0]
    with pytest.raises(VerificationError, match="different components share a label"):
        cc_verify.verify_graph_labels(inp, merged)
    assert len(counts) == 1
    other = GRAPHS["tree-k3"]()
    assert cc_verify.verify_graph_labels(graph_input(other), reference(other)) == {"components": 1}
    assert len(counts) == 2
