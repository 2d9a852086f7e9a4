"""Triangle counting on both backends, through the harness: per-vertex counts against Python
sets on every shape, every lane count, small grids; the verifier's full and sampled checks."""

import numpy as np
import pytest

from graphsweep.core.errors import VerificationError
from graphsweep.kernels import harness, registry
from graphsweep.kernels.graph import from_edges
from graphsweep.kernels.tc import verify as tc_verify
from graphsweep.kernels.tc.verify import verify_triangles

from ..conftest import every_shape_variant_and_backend, neighbour_sets

VARIANTS = {
    "best": ("tc.best", {}),
    "lanes-1": ("tc.search", {"lanes": 1, "threads": 32, "blocks": 3}),
    "lanes-4": ("tc.search", {"lanes": 4}),
    "lanes-32": ("tc.search", {"lanes": 32, "threads": 64, "blocks": 2}),
}


def reference_counts(n, src, dst) -> np.ndarray:
    """Triangles through v: pairs of v's neighbours that are neighbours (Python sets)."""
    adj = neighbour_sets(n, src, dst)
    return np.array([sum(len(adj[a] & adj[v]) for a in adj[v]) // 2 for v in range(n)], dtype=np.int64)


@every_shape_variant_and_backend(VARIANTS)
def test_counts_match_python_sets(shape, variant, backend, simple_shapes, simple_dataset):
    name, params = VARIANTS[variant]
    g = simple_shapes[shape]()
    res = harness.run(name, simple_dataset(g, dtype=np.int64 if shape == "messy" else np.int32), backend=backend,
                      reps=1, warmup=0, **params)
    assert res.verified, res.verify_error
    expected = reference_counts(*g)
    np.testing.assert_array_equal(res.output["triangles"], expected)
    assert res.stats["triangles"] == expected.sum() // 3
    assert [r["phase"] for r in res.input_rows] == ["simple", "oriented"]


def test_clique_and_star_totals(simple_shapes, simple_dataset):
    res = harness.run("tc.best", simple_dataset(simple_shapes["clique"]()), backend="cpu", reps=1, warmup=0)
    assert res.stats["triangles"] == 56 and res.output["triangles"].tolist() == [21] * 8 + [0]
    res = harness.run("tc.best", simple_dataset(simple_shapes["star"]()), backend="cpu", reps=1, warmup=0)
    assert res.stats["triangles"] == 350 and res.output["triangles"][0] == 350


def test_verifier_full_check_is_every_vertex_count(simple_shapes):
    """The full check's oriented products credit each triangle's three vertices once, on every
    shape (hubs, cliques, duplicates, isolated vertices)."""
    for shape, make in simple_shapes.items():
        n, src, dst = make()
        inp = from_edges(src, dst, n)
        lo, hi = tc_verify.unique_edges(inp)
        np.testing.assert_array_equal(tc_verify._scipy_counts(inp, lo, hi), reference_counts(n, src, dst),
                                      err_msg=shape)


def test_verifier_catches_wrong_counts(simple_shapes, monkeypatch):
    n, src, dst = simple_shapes["rmat"]()
    inp = from_edges(src, dst, n)
    good = reference_counts(n, src, dst)
    assert verify_triangles(inp, good) == {"triangles": good.sum() // 3}
    bad = good.copy()
    bad[[3, 4, 5]] += 1                                  # a multiple of 3 more, on three vertices
    with pytest.raises(VerificationError, match="SciPy counts"):
        verify_triangles(inp, bad)
    bad[3] += 1
    with pytest.raises(VerificationError, match="not a multiple of 3"):
        verify_triangles(inp, bad)
    with pytest.raises(VerificationError, match="below 0"):
        verify_triangles(inp, -good)
    # Past FULL_LIMIT edges only the sampled vertices (and the largest degree) are checked.
    monkeypatch.setattr(tc_verify, "FULL_LIMIT", 0)
    verify_triangles(from_edges(src, dst, n), good)
    hub = int(np.argmax(np.bincount(np.r_[src, dst], minlength=n)))
    bad = good.copy()
    bad[hub] += 3
    with pytest.raises(VerificationError, match=f"vertex {hub} is on"):
        verify_triangles(from_edges(src, dst, n), bad)


# The edge-weighted mean out-degree of benchmarks/best_rules.py's oriented graphs (H100,
# 2026-11-25) and the lanes each must get: the best of 1-32 or within 6% of it.
LANES_CASES = {"kron 22": (225.7, 32), "R-MAT 20": (157.3, 16), "uniform 2^20 degree 128": (80.0, 8),
               "R-MAT 22 edge factor 4": (64.2, 8), "urand 22": (19.2, 2), "uniform 2^24 degree 6": (3.7, 2),
               "grid 4096^2": (2.0, 2), "no edges": (0.0, 2), "past 32": (10**6, 32)}


@pytest.mark.parametrize("case", LANES_CASES)
def test_lanes_rule_from_statistics(case):
    from graphsweep.kernels.tc.search import lanes_rule
    statistic, lanes = LANES_CASES[case]
    assert lanes_rule({"out_degree_edge_mean": statistic}) == lanes


def test_lanes_statistics_of_the_oriented_graph(simple_shapes, simple_dataset):
    """Sum d^2 / sum d over the oriented out-degrees: a clique of 8 orients to out-degrees 7..0."""
    from graphsweep.kernels.tc.search import lanes_statistics
    inp = harness.prepared(registry.get("tc.search"), simple_dataset(simple_shapes["clique"]()))
    degree = np.arange(8)
    assert lanes_statistics(inp.representation("oriented")) == {
        "out_degree_edge_mean": pytest.approx((degree ** 2).sum() / degree.sum())}


@pytest.mark.gpu
def test_best_says_the_lanes_it_chose(simple_shapes, simple_dataset):
    from graphsweep.kernels.tc.search import lanes_rule, lanes_statistics
    data = simple_dataset(simple_shapes["rmat"]())
    res = harness.run("tc.best", data, backend="gpu", reps=1, warmup=0)
    inp = harness.prepared(registry.get("tc.search"), data)
    assert res.stats["lanes"] == lanes_rule(lanes_statistics(inp.representation("oriented")))
    assert harness.run("tc.best", data, backend="gpu", reps=1, warmup=0, lanes=16).stats["lanes"] == 16


def test_verifier_counts_once_per_graph(simple_shapes, monkeypatch):
    """SciPy's counts and the sampled vertices' are computed by a graph's first verification and
    compared with by the next (a sweep's next TC task); a wrong output still fails; another graph
    has its own."""
    calls = {"full": 0, "sampled": 0}

    def counting(name, fn):
        def wrapped(*args):
            calls[name] += 1
            return fn(*args)
        return wrapped
    monkeypatch.setattr(tc_verify, "_scipy_counts", counting("full", tc_verify._scipy_counts))
    monkeypatch.setattr(tc_verify, "_count_through", counting("sampled", tc_verify._count_through))
    n, src, dst = simple_shapes["rmat"]()
    inp = from_edges(src, dst, n)
    good = reference_counts(n, src, dst)
    verify_triangles(inp, good)
    sampled = calls["sampled"]
    assert calls["full"] == 1 and sampled > 0
    verify_triangles(inp, good)
    bad = good.copy()
    bad[[3, 4, 5]] += 1
    with pytest.raises(VerificationError, match="vertex 3 is on .* SciPy counts"):
        verify_triangles(inp, bad)
    assert calls == {"full": 1, "sampled": sampled}
    n2, src2, dst2 = simple_shapes["clique"]()
    verify_triangles(from_edges(src2, dst2, n2), reference_counts(n2, src2, dst2))
    assert calls["full"] == 2 and calls["sampled"] > sampled
    # past FULL_LIMIT the sampled counts alone judge, from the same kept answer
    monkeypatch.setattr(tc_verify, "FULL_LIMIT", 0)
    hub = int(np.argmax(np.bincount(np.r_[src, dst], minlength=n)))
    bad = good.copy()
    bad[hub] += 3
    with pytest.raises(VerificationError, match=f"vertex {hub} is on"):
        verify_triangles(inp, bad)


def test_sweep_tasks_on_one_graph_share_the_reference(simple_shapes, simple_dataset, monkeypatch):
    """Through the harness: a second TC kernel on the same loaded dataset does not count again."""
    calls = []
    scipy_counts = tc_verify._scipy_counts
    monkeypatch.setattr(tc_verify, "_scipy_counts", lambda *a: calls.append(1) or scipy_counts(*a))
    data = simple_dataset(simple_shapes["rmat"]())
    for name, params in VARIANTS.values():
        res = harness.run(name, data, backend="cpu", reps=1, warmup=0, **params)
        assert res.verified, res.verify_error
    assert len(calls) == 1
    harness.run("tc.best", simple_dataset(simple_shapes["rmat"]()), backend="cpu", reps=1, warmup=0)
    assert len(calls) == 2
