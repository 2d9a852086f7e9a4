"""Betweenness on both backends, through the harness: each root's dependencies against a plain
queue-based Brandes written here, roots as BFS draws them, small grids; the verifier's checks."""

from collections import deque

import numpy as np
import pytest

from graphsweep.core.errors import VerificationError
from graphsweep.kernels import harness
from graphsweep.kernels.bc.verify import verify_centrality
from graphsweep.kernels.graph import from_edges

from ..conftest import BACKENDS, every_shape_variant_and_backend, neighbour_sets

VARIANTS = {
    "brandes": ("bc.brandes", {}),
    "small": ("bc.brandes", {"threads": 32, "blocks": 3}),
    "wide": ("bc.brandes", {"threads": 512}),
    "split": ("bc.brandes", {"split": 16, "threads": 64, "blocks": 2}),
    "split-1": ("bc.brandes", {"split": 1}),
    "no-split": ("bc.brandes", {"split": 0}),
}


def reference_dependencies(n, src, dst, root) -> np.ndarray:
    """Brandes (2001) Alg. 1 for one source, with a queue and a stack."""
    adj = neighbour_sets(n, src, dst)
    dist, sigma, preds, order = [-1] * n, [0] * n, [[] for _ in range(n)], []
    dist[root], sigma[root] = 0, 1
    queue = deque([root])
    while queue:
        v = queue.popleft()
        order.append(v)
        for w in adj[v]:
            if dist[w] < 0:
                dist[w] = dist[v] + 1
                queue.append(w)
            if dist[w] == dist[v] + 1:
                sigma[w] += sigma[v]
                preds[w].append(v)
    delta = [0.0] * n
    for w in reversed(order):
        for v in preds[w]:
            delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
    delta[root] = 0.0
    return np.array(delta)


@every_shape_variant_and_backend(VARIANTS)
def test_dependencies_match_brandes(shape, variant, backend, simple_shapes, simple_dataset):
    name, params = VARIANTS[variant]
    g = simple_shapes[shape]()
    res = harness.run(name, simple_dataset(g), backend=backend, reps=1, warmup=0, instances=3,
                      instance_seed=len(shape), **params)
    assert res.verified, res.verify_error
    root = res.instances[-1]["root"]
    np.testing.assert_allclose(res.output["centrality"], reference_dependencies(*g, root), rtol=1e-9, atol=1e-9)
    last = len(res.instances) - 1
    forward = [r for r in res.step_rows if r["phase"] == "forward" and r["instance"] == last]
    backward = [r for r in res.step_rows if r["phase"] == "backward" and r["instance"] == last]
    assert len(forward) == len(backward) == res.stats["levels"]
    assert sum(r["step_frontier"] for r in backward) == res.stats["reached"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_root_of_a_path_and_the_sum(backend, simple_shapes, simple_dataset):
    """On a path of 50, root r's dependency on v between r and an end is the vertices beyond v."""
    g = simple_shapes["path"]()
    total = np.zeros(50)
    for root in (0, 17, 49):
        res = harness.run("bc.best", simple_dataset(g), backend=backend, reps=1, warmup=0, root=root)
        c = res.output["centrality"]
        expected = np.array([49 - v if v > root else (v if v < root else 0) for v in range(50)], dtype=float)
        np.testing.assert_array_equal(c, expected)
        total += c
    assert total[25] == 24 + 24 + 25


def test_verifier_catches_wrong_dependencies(simple_shapes):
    n, src, dst = simple_shapes["messy"]()
    inp = from_edges(src, dst, n)
    root = int(src[0])
    good = reference_dependencies(n, src, dst, root)
    assert verify_centrality(inp, root, good)["levels"] >= 2
    bad = good.copy()
    v = int(np.flatnonzero(good > 1)[0])
    bad[v] *= 1.001
    with pytest.raises(VerificationError, match=f"centrality\\[{v}\\] is .* gives"):
        verify_centrality(inp, root, bad)
    bad = good.copy()
    bad[root] = 1.0
    with pytest.raises(VerificationError, match="of the root"):
        verify_centrality(inp, root, bad)
    bad = good.copy()
    bad[v] = np.nan
    with pytest.raises(VerificationError, match="finite and non-negative"):
        verify_centrality(inp, root, bad)


def test_verifier_runs_brandes_once_per_graph_and_root(simple_shapes, simple_dataset, monkeypatch):
    """A root's dependencies are computed by its first verification on a graph and compared with by
    the next (a sweep's next BC task, through the harness); a wrong output still fails; another root
    or graph has its own."""
    from graphsweep.kernels.bc import verify as bc_verify
    roots = []
    brandes = bc_verify.brandes_dependencies
    monkeypatch.setattr(bc_verify, "brandes_dependencies", lambda inp, root: roots.append(root) or brandes(inp, root))
    n, src, dst = simple_shapes["messy"]()
    data = simple_dataset((n, src, dst))
    for variant in ("brandes", "split", "no-split"):
        name, params = VARIANTS[variant]
        res = harness.run(name, data, backend="cpu", reps=1, warmup=0, instances=2, instance_seed=5, **params)
        assert res.verified, res.verify_error
    drawn = [i["root"] for i in res.instances]
    assert sorted(roots) == sorted(drawn)
    inp = harness.prepared(harness.registry.get("bc.best"), data)
    good = reference_dependencies(n, src, dst, drawn[0])
    bad = good.copy()
    v = int(np.flatnonzero(good > 1)[0])
    bad[v] *= 1.001
    with pytest.raises(VerificationError, match=f"centrality\\[{v}\\] is .* gives"):
        verify_centrality(inp, drawn[0], bad)
    assert len(roots) == 2
    other = next(r for r in range(n) if r not in drawn)
    verify_centrality(inp, other, reference_dependencies(n, src, dst, other))
    verify_centrality(from_edges(src, dst, n), drawn[0], good)
    assert roots[2:] == [other, drawn[0]]
