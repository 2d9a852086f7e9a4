"""Triangle counting on both backends, through the harness: per-vertex counts against Python
sets on every shape, every lane count, small grids; the verifier's full and sampled checks."""

import numpy as np
import pytest

from graphsweep.datasets.errors import VerificationError
from graphsweep.kernels import harness
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
