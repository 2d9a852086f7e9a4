"""bc.batched on both backends, through the harness: groups of roots against the independent
verifier and against bc.brandes's per-root outputs summed, every shape of the shared conftest; its
instances and the elements their rows count; refusals."""

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError, VerificationError
from graphsweep.kernels import harness
from graphsweep.kernels.bc.verify import verify_centrality
from graphsweep.kernels.graph import from_edges

from ..conftest import BACKENDS, every_shape_variant_and_backend
from .test_algorithms import reference_dependencies

# Five drawn roots: groups of 1, of 2 (2, 2, 1), of 3 (3, 2: a short group, K = 4 with a padded
# slot on the GPU), of 4 (4, 1) and one of 5 (K = 8 with three padded slots).
ROOTS = 5
VARIANTS = {
    "s1": {"sources": 1},
    "s2": {"sources": 2, "threads": 32, "blocks": 3},
    "s3": {"sources": 3},
    "s4": {"sources": 4, "threads": 512},
    "s8": {"sources": 8},
    "top-down": {"direction": "top-down", "split": 16, "threads": 64, "blocks": 2},
    "bottom-up": {"direction": "bottom-up", "split": 16, "threads": 64, "blocks": 2},
    "split-1": {"split": 1, "alpha": 2.0},
    "no-split": {"split": 0},
    "pull-back": {"backward": "pull", "split": 16, "threads": 64, "blocks": 2},
    "push-back": {"backward": "push", "split": 16, "threads": 64, "blocks": 2},
    "push-back-s8": {"backward": "push", "sources": 8, "split": 0},
}


def brandes_sum(data, backend, roots) -> np.ndarray:
    """bc.brandes's outputs from each of ``roots``, summed."""
    return sum(harness.run("bc.brandes", data, backend=backend, reps=1, warmup=0, root=r).output["centrality"]
               for r in roots)


@every_shape_variant_and_backend(VARIANTS)
def test_groups_match_the_verifier_and_brandes_summed(shape, variant, backend, simple_shapes, simple_dataset):
    g = simple_shapes[shape]()
    data = simple_dataset(g)
    params = VARIANTS[variant]
    res = harness.run("bc.batched", data, backend=backend, reps=1, warmup=0, instances=ROOTS,
                      instance_seed=len(shape), **params)
    assert res.verified, res.verify_error
    size = params.get("sources", 4)
    drawn = [r for i in res.instances for r in i["roots"]]
    assert [len(i["roots"]) for i in res.instances] == [len(drawn[i:i + size]) for i in range(0, len(drawn), size)]
    roots = res.instances[-1]["roots"]
    np.testing.assert_allclose(res.output["centrality"], brandes_sum(data, backend, roots), rtol=1e-9, atol=1e-9)
    last = len(res.instances) - 1
    forward = [r for r in res.step_rows if r["phase"] == "forward" and r["instance"] == last]
    backward = [r for r in res.step_rows if r["phase"] == "backward" and r["instance"] == last]
    stats = res.stats
    assert len(forward) == len(backward) == stats["levels"] and stats["roots"] == len(roots)
    assert sum(r["step_frontier"] for r in backward) == stats["queued"] <= stats["reached"] <= len(roots) * g[0]
    assert stats["top_down_levels"] + stats["bottom_up_levels"] == stats["levels"]
    assert [r["step_direction"] == "top-down" for r in forward].count(True) == stats["top_down_levels"]
    if backend == "cpu" or variant == "bottom-up":
        assert stats["top_down_levels"] == 0
    if backend == "gpu" and variant == "top-down":
        assert stats["bottom_up_levels"] == 0
    pulled = [r["step_direction"] == "pull" for r in backward]
    assert pulled.count(True) == stats["pulled_back_levels"]
    if backend == "cpu" or variant == "pull-back":
        assert all(pulled)
    else:      # the deepest slice pushes from its empty next one unless told to pull
        assert not pulled[0] and (variant != "push-back" or not any(pulled))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_explicit_root_is_one_group_of_one(backend, simple_shapes, simple_dataset):
    g = simple_shapes["messy"]()
    data = simple_dataset(g)
    res = harness.run("bc.batched", data, backend=backend, reps=1, warmup=0, root=7, sources=4)
    assert res.verified, res.verify_error
    assert res.instances == [{"roots": (7,)}] and res.output["centrality"][7] == 0.0
    np.testing.assert_allclose(res.output["centrality"], brandes_sum(data, backend, [7]), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("direction", ["top-down", "bottom-up"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_three_roots_of_a_path_in_one_group(backend, direction, simple_shapes, simple_dataset):
    """On a path of 50, root r's dependency on v between r and an end is the vertices beyond v: a
    group gives each vertex the sum, and each root the others' dependencies on it."""
    res = harness.run("bc.batched", simple_dataset(simple_shapes["path"]()), backend=backend, reps=1, warmup=0,
                      instances=3, instance_seed=1, sources=3, direction=direction)
    [group] = res.instances
    expected = sum(np.array([49 - v if v > r else (v if v < r else 0) for v in range(50)], dtype=float)
                   for r in group["roots"])
    np.testing.assert_array_equal(res.output["centrality"], expected)
    assert res.verified, res.verify_error


def test_rows_count_edges_once_per_root_of_a_group(simple_shapes, simple_dataset):
    """8 drawn roots in groups of 4: two instances, each row counting 4 m edges and saying it covers
    4 runs; bc.brandes's rows from the same seed: a root each, no such keys, the same roots."""
    n, src, dst = simple_shapes["rmat"]()
    data = simple_dataset((n, src, dst))
    m = src.shape[0]
    batched = harness.run("bc.batched", data, backend="cpu", reps=2, warmup=0, instances=8, instance_seed=4)
    brandes = harness.run("bc.brandes", data, backend="cpu", reps=2, warmup=0, instances=8, instance_seed=4)
    assert batched.verified and brandes.verified
    assert [len(i["roots"]) for i in batched.instances] == [4, 4]
    assert [r for i in batched.instances for r in i["roots"]] == [i["root"] for i in brandes.instances]
    assert batched.elements == brandes.elements == m
    assert {(r["elements"], r["covers"]) for r in batched.rows + batched.step_rows} == {(4 * m, 4)}
    assert all("elements" not in r and "covers" not in r for r in brandes.rows + brandes.step_rows)
    assert {r["instance"] for r in batched.rows} == {0, 1} and len(brandes.instances) == 8
    total = next(s for s in batched.summary() if s["phase"] == "total")
    assert total["elements"] == 4 * m
    assert next(s for s in brandes.summary() if s["phase"] == "total")["elements"] == m


def test_a_short_last_group_counts_its_own_roots(simple_shapes, simple_dataset):
    data = simple_dataset(simple_shapes["uniform"]())
    res = harness.run("bc.batched", data, backend="cpu", reps=1, warmup=0, instances=5, instance_seed=2, sources=3)
    assert [len(i["roots"]) for i in res.instances] == [3, 2]
    totals = [r for r in res.rows if r["phase"] == "total"]
    assert [r["elements"] for r in totals] == [3 * res.elements, 2 * res.elements]
    sources_1 = harness.run("bc.batched", data, backend="cpu", reps=1, warmup=0, instances=2, sources=1)
    assert sources_1.instances == [{"roots": (r,)} for r in (i["roots"][0] for i in sources_1.instances)]
    assert all("elements" not in r for r in sources_1.rows)      # a group of one counts as a run of one


@pytest.mark.parametrize(("params", "match"), [
    ({"sources": 0}, "parameter 'sources': 0 is not one of 1, 2"),
    ({"sources": 9}, "parameter 'sources': 9 is not one of"),
    ({"alpha": 0}, "parameter 'alpha': 0.0 is below the minimum"),
    ({"direction": "sideways"}, "parameter 'direction': 'sideways' is not one of auto, top-down, bottom-up"),
    ({"backward": "sideways"}, "parameter 'backward': 'sideways' is not one of auto, pull, push"),
    ({"split": -1}, "parameter 'split': -1 is below the minimum 0"),
    ({"root": 10_000}, "parameter 'root': 10000 is not a vertex"),
])
def test_bad_parameters_are_refused_in_one_line(params, match, simple_shapes, simple_dataset):
    with pytest.raises(ParameterError, match=match):
        harness.run("bc.batched", simple_dataset(simple_shapes["messy"]()), backend="cpu", reps=1, warmup=0,
                    **params)


@pytest.mark.gpu
def test_gpu_refuses_threads_not_a_multiple_of_32(simple_shapes, simple_dataset):
    with pytest.raises(ParameterError, match="parameter 'threads': 100"):
        harness.run("bc.batched", simple_dataset(simple_shapes["messy"]()), backend="gpu", reps=1, warmup=0,
                    threads=100)


def test_the_verifier_checks_a_group_against_its_roots_summed(simple_shapes):
    n, src, dst = simple_shapes["messy"]()
    inp = from_edges(src, dst, n)
    group = (int(src[0]), int(src[1]), int(dst[2]))
    good = sum(reference_dependencies(n, src, dst, r) for r in group)
    assert verify_centrality(inp, group, good)["levels"] >= 2
    assert good[group[0]] > 0               # a root's own dependency is 0, the others' on it not
    bad = good.copy()
    v = int(np.flatnonzero(good > 1)[0])
    bad[v] *= 1.001
    with pytest.raises(VerificationError, match=f"centrality\\[{v}\\] is .* roots {group[0]}, .* summed gives"):
        verify_centrality(inp, group, bad)
    with pytest.raises(VerificationError, match="of the root"):
        verify_centrality(inp, (group[0],), good)            # a group of one is a root
