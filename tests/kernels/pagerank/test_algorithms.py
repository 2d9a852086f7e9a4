"""Every PageRank algorithm on both backends, through the harness: the exact solution of the
linear system (dense, small graphs) within the error bound the tolerance gives, both dangling
variants, lanes and small grids reaching every path, and the verifier catching broken scores."""

import re

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError, VerificationError
from graphsweep.kernels import harness
from graphsweep.kernels.graph import from_edges
from graphsweep.kernels.pagerank import DAMPING, reachable_tolerance, start_of
from graphsweep.kernels.pagerank.verify import verify_scores

from ..conftest import BACKENDS, every_shape_variant_and_backend

VARIANTS = {
    "pull": ("pagerank.pull", {}),
    "pull-small": ("pagerank.pull", {"threads": 32, "blocks": 3}),
    "warp": ("pagerank.pull-warp", {}),
    "warp-4": ("pagerank.pull-warp", {"lanes": 4, "threads": 64, "blocks": 2}),
    "warp-32": ("pagerank.pull-warp", {"lanes": 32}),
    "warp-split": ("pagerank.pull-warp", {"lanes": 8, "split": 40, "threads": 64, "blocks": 2}),
    "warp-split-1": ("pagerank.pull-warp", {"lanes": 2, "split": 1}),
    "warp-no-split": ("pagerank.pull-warp", {"split": 0}),
    "spmv": ("pagerank.spmv", {}),
    "blocked": ("pagerank.blocked", {}),
    "best": ("pagerank.best", {}),
    # the first scores forced each way (start: auto picks by the graph's entries a vertex)
    "pull-degree-start": ("pagerank.pull", {"start": "degree"}),
    "warp-degree-start": ("pagerank.pull-warp", {"lanes": 4, "split": 40, "start": "degree"}),
    "spmv-degree-start": ("pagerank.spmv", {"start": "degree"}),
    "blocked-degree-start": ("pagerank.blocked", {"start": "degree"}),
    "blocked-uniform-start": ("pagerank.blocked", {"start": "uniform"}),
}

# pagerank.blocked's column blocks, row chunks and lanes (the GPU's: the CPU twin has none of them)
BLOCKED = {
    "blocks-3-split-2": {"column_blocks": 3, "split": 2, "edges_per_lane": 1, "threads": 64},
    "blocks-16-wide-lanes": {"column_blocks": 16, "edges_per_lane": 32},
    "split-1": {"column_blocks": 1, "split": 1, "edges_per_lane": 2},
    "float64-blocks-2": {"column_blocks": 2, "split": 5, "dtype": "float64"},
}


def exact_scores(n, src, dst, spread: bool) -> np.ndarray:
    """The fixed point, solved densely: (I - d M - d/n 1 z^T) s = (1 - d)/n 1, M[v, u] = 1/deg u on
    each edge, z the vertices without edges (left out with GAPBS's variant)."""
    a = np.zeros((n, n))
    keep = src != dst
    a[src[keep], dst[keep]] = 1
    a[dst[keep], src[keep]] = 1
    degree = a.sum(axis=0)
    m = a / np.where(degree > 0, degree, 1)
    system = np.eye(n) - DAMPING * m
    if spread:
        system -= DAMPING / n * np.outer(np.ones(n), degree == 0)
    return np.linalg.solve(system, np.full(n, (1 - DAMPING) / n))


@every_shape_variant_and_backend(VARIANTS)
def test_scores_match_the_fixed_point(shape, variant, backend, simple_shapes, simple_dataset):
    name, params = VARIANTS[variant]
    n, src, dst = simple_shapes[shape]()
    for dangling in ("spread", "gapbs"):
        res = harness.run(name, simple_dataset((n, src, dst)), backend=backend, reps=1, warmup=0,
                          dangling=dangling, **params)
        assert res.verified, res.verify_error
        score = res.output["score"]
        assert score.dtype == np.float32 and res.stats["converged"]
        # After an L1 change e, the fixed point is at most d/(1 - d) * e away (a d-contraction).
        bound = DAMPING / (1 - DAMPING) * res.stats["error"] + 1e-5
        assert np.abs(score - exact_scores(n, src, dst, dangling == "spread")).sum() <= bound
        steps = [r for r in res.step_rows if r["phase"] in ("iteration", "spmv")]
        assert len(steps) == res.stats["iterations"]
        if res.kernel != "pagerank.spmv":                    # the pull kernels' steps carry their L1 change
            assert [r["step_error"] for r in steps][-1] == res.stats["error"]


@pytest.mark.gpu
@pytest.mark.parametrize("params", list(BLOCKED))
@pytest.mark.parametrize("shape", ["single", "edge", "clique", "star", "grid", "components", "messy", "uniform",
                                   "rmat"])
def test_blocked_blocks_chunks_and_lanes_reach_the_fixed_point(shape, params, simple_shapes, simple_dataset):
    n, src, dst = simple_shapes[shape]()
    res = harness.run("pagerank.blocked", simple_dataset((n, src, dst)), backend="gpu", reps=1, warmup=0,
                      **BLOCKED[params])
    assert res.verified, res.verify_error
    assert res.stats["column_blocks"] == BLOCKED[params]["column_blocks"]
    bound = DAMPING / (1 - DAMPING) * res.stats["error"] + 1e-5
    assert np.abs(res.output["score"] - exact_scores(n, src, dst, True)).sum() <= bound


@pytest.mark.parametrize("shape", ["components", "messy", "star", "rmat"])
@pytest.mark.parametrize("blocks", [1, 2, 5])
def test_blocked_plan_covers_every_entry_once_within_its_block(shape, blocks, simple_shapes):
    """The GPU's plan, made on the CPU: each block holds exactly the entries whose columns lie in its
    window, rows still sorted; the first block's ranges cover every row, the others only rows with
    entries there; chunks cover each row longer than split; lanes follow the mean entries a row."""
    from graphsweep.kernels.pagerank.blocked import plan, renamed
    n, src, dst = simple_shapes[shape]()
    inp = from_edges(src, dst, n)
    params = {"dtype": "float32", "column_blocks": blocks, "split": 7, "edges_per_lane": 2}
    parts = plan(inp, params)["parts"]
    ranked = renamed(inp)
    width = -(-n // blocks)
    assert len(parts) == blocks
    for v in range(n):
        row = ranked.indices[ranked.offsets[v]:ranked.offsets[v + 1]]
        pieces = [p["indices"][p["offsets"][v]:p["offsets"][v + 1]] for p in parts]
        assert np.array_equal(np.concatenate(pieces), row)
        for b, piece in enumerate(pieces):
            assert ((piece // width) == b).all()
    for b, part in enumerate(parts):
        spans = [(lo, hi) for lo, hi, _ in part["ranges"]]
        degree = np.diff(part["offsets"])
        if b == 0:
            assert [lo for lo, _ in spans] == [0] + [hi for _, hi in spans[:-1]] and spans[-1][1] == n
        covered = np.zeros(n, dtype=bool)
        for lo, hi, lanes in part["ranges"]:
            covered[lo:hi] = True
            assert lanes in (1, 2, 4, 8, 16, 32)
            entries = degree[lo:hi].sum()     # lanes: the largest power of two up to 32 within entries / 2 a row
            assert (lanes == 1 or lanes * 2 * (hi - lo) <= entries) and (lanes == 32 or 2 * lanes * 2 * (hi - lo) > entries)
        assert covered[degree > 0].all()
        long_rows = np.flatnonzero(degree > 7)
        assert sorted(set(part["chunk_vertex"].tolist())) == long_rows.tolist()
        assert len(part["chunk_vertex"]) == sum(-(-degree[v] // 7) for v in long_rows)
    assert plan(inp, params) is plan(inp, params)                 # made once per graph and parameters


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape, renaming", [("rmat", ["by-degree"]), ("star", ["by-degree"]),
                                             ("grid", ["by-bfs", "by-bfs.simple"]),
                                             ("components", ["by-bfs", "by-bfs.simple"])])
def test_blocked_renames_by_degree_or_where_degrees_are_small_in_bfs_order(shape, renaming, backend, simple_shapes,
                                                                           simple_dataset):
    """Hubs: by degree; every degree at most 16: in BFS order.  Either is an input row, built once
    per graph (cached on the next run), and the scores come back in the dataset's ids."""
    from graphsweep.kernels.pagerank.blocked import renamed
    n, src, dst = simple_shapes[shape]()
    shuffle = np.random.default_rng(2).permutation(n).astype(np.int32)
    # on the run's device already, so the second run finds the graph input the first one built
    for graph in (simple_dataset((n, src, dst)).to(backend), simple_dataset((n, shuffle[src], shuffle[dst])).to(backend)):
        first = harness.run("pagerank.blocked", graph, backend=backend, reps=1, warmup=0)
        again = harness.run("pagerank.blocked", graph, backend=backend, reps=1, warmup=0, edges_per_lane=1)
        assert first.verified and again.verified, (first.verify_error, again.verify_error)
        assert [r["phase"] for r in first.input_rows] == ["simple", *renaming] == [r["phase"] for r in again.input_rows]
        assert not any(r["cached"] for r in first.input_rows) and all(r["cached"] for r in again.input_rows)
    exact = exact_scores(n, src, dst, True)
    assert np.abs(first.output["score"] - exact[np.argsort(shuffle)]).sum() <= 1e-3
    order = np.asarray(renamed(from_edges(src, dst, n)).order)
    assert sorted(order.tolist()) == list(range(n))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["pagerank.pull", "pagerank.pull-warp", "pagerank.spmv", "pagerank.blocked"])
def test_tolerance_and_max_iterations(name, backend, simple_shapes, simple_dataset):
    data = simple_dataset(simple_shapes["rmat"]())
    loose = harness.run(name, data, backend=backend, reps=1, warmup=0, tolerance=1e-2)
    tight = harness.run(name, data, backend=backend, reps=1, warmup=0, tolerance=1e-6)
    assert loose.verified and tight.verified, (loose.verify_error, tight.verify_error)
    assert loose.stats["iterations"] < tight.stats["iterations"] and tight.stats["error"] < 1e-6
    capped = harness.run(name, data, backend=backend, reps=1, warmup=0, tolerance=1e-6, max_iterations=2)
    assert capped.stats["iterations"] == 2 and not capped.stats["converged"]
    assert capped.verified is False and "not converged" in capped.verify_error


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["pagerank.pull", "pagerank.pull-warp", "pagerank.spmv", "pagerank.best"])
def test_a_tolerance_the_score_type_cannot_reach_is_refused_naming_the_type_that_can(name, backend, simple_shapes,
                                                                                       simple_dataset):
    # A 97,000-vertex graph's float32 scores stalled at an L1 change of 1.3e-5: tolerance=1e-7 ran
    # every iteration and ended "verification: FAILED, not converged".
    graph = simple_shapes["rmat"]()
    simple = from_edges(graph[1], graph[2], graph[0]).representation("simple")
    floor32, floor64 = (reachable_tolerance(simple, dtype) for dtype in ("float32", "float64"))
    assert 2.0**-24 < floor32 < 1e-4                                # GAPBS's default stays reachable
    assert 2.0**-53 < floor64 and 2.0**28 < floor32 / floor64 < 2.0**30     # the unit roundoffs' ratio, 2^29
    data = simple_dataset(graph)

    def refused(tolerance, dtype, floor, reaching=""):
        with pytest.raises(ParameterError, match=rf"^parameter 'tolerance': {tolerance:g} is below what {dtype} "
                                                 rf"scores reach on this graph; the smallest reachable is "
                                                 rf"{floor:.2g}{re.escape(reaching)}$"):
            harness.run(name, data, backend=backend, reps=1, warmup=0, tolerance=tolerance, dtype=dtype)

    refused(floor32 / 100, "float32", floor32, f" (dtype=float64 reaches down to {floor64:.2g})")
    refused(floor64 / 100, "float32", floor32)
    refused(floor64 / 100, "float64", floor64)
    for dtype, tolerance, iterations in (("float32", floor32, 100), ("float64", floor32 / 100, 200),
                                         ("float64", floor64, 400)):
        # 0.85 a step at worst (a bipartite component): 1e-15 needs ~210 iterations
        res = harness.run(name, data, backend=backend, reps=1, warmup=0, tolerance=float(f"{tolerance:.2g}"),
                          dtype=dtype, max_iterations=iterations)
        assert res.verified and res.stats["converged"], (dtype, tolerance, res.verify_error)
        assert res.output["score"].dtype == np.dtype(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["pagerank.pull", "pagerank.pull-warp", "pagerank.spmv", "pagerank.blocked"])
@pytest.mark.parametrize("shape", ["messy", "star", "rmat"])
def test_float64_scores_reach_the_fixed_point_where_float32_cannot(name, shape, backend, simple_shapes,
                                                                   simple_dataset):
    n, src, dst = simple_shapes[shape]()
    exact = exact_scores(n, src, dst, True)
    res = harness.run(name, simple_dataset((n, src, dst)), backend=backend, reps=1, warmup=0, dtype="float64",
                      tolerance=1e-13, max_iterations=400)
    assert res.verified and res.stats["converged"], res.verify_error
    # a d-contraction: within d/(1 - d) of the last L1 change, far below float32's rounding of 1/n
    assert np.abs(res.output["score"] - exact).sum() <= DAMPING / (1 - DAMPING) * res.stats["error"] + 1e-13
    with pytest.raises(ParameterError, match="below what float32 scores reach on this graph"):
        harness.run(name, simple_dataset((n, src, dst)), backend=backend, reps=1, warmup=0, tolerance=1e-13)


def test_verifier_catches_broken_scores(simple_shapes):
    n, src, dst = simple_shapes["messy"]()
    inp = from_edges(src, dst, n)
    good = exact_scores(n, src, dst, True).astype(np.float32)
    verify_scores(inp, good, tolerance=1e-4, spread=True, damping=DAMPING)
    with pytest.raises(VerificationError, match="sum to"):
        verify_scores(inp, good * 1.01, tolerance=1e-4, spread=True, damping=DAMPING)
    swapped = good.copy()
    swapped[[0, 1]] = swapped[[1, 0]] + np.float32([0.002, -0.002])
    with pytest.raises(VerificationError, match="one more iteration"):
        verify_scores(inp, swapped, tolerance=1e-4, spread=True, damping=DAMPING)
    negative = good.copy()
    negative[5] = -negative[5]
    with pytest.raises(VerificationError, match=r"score\[5\]"):
        verify_scores(inp, negative, tolerance=1e-4, spread=True, damping=DAMPING)
    gapbs = exact_scores(n + 3, src, dst, False).astype(np.float32)    # 3 isolated vertices drop their share
    verify_scores(from_edges(src, dst, n + 3), gapbs, tolerance=1e-4, spread=False, damping=DAMPING)
    with pytest.raises(VerificationError, match="sum to"):
        verify_scores(from_edges(src, dst, n + 3), gapbs, tolerance=1e-4, spread=True, damping=DAMPING)
    with pytest.raises(VerificationError, match="shape"):
        verify_scores(inp, good[:-1], tolerance=1e-4, spread=True, damping=DAMPING)


def test_the_verifier_holds_float64_scores_to_float64s_rounding(simple_shapes):
    n, src, dst = simple_shapes["messy"]()
    inp = from_edges(src, dst, n)
    exact = exact_scores(n, src, dst, True)
    verify_scores(inp, exact, tolerance=1e-13, spread=True, damping=DAMPING, dtype="float64")
    with pytest.raises(VerificationError, match="score has dtype float32, the run asked for float64"):
        verify_scores(inp, exact.astype(np.float32), tolerance=1e-4, spread=True, damping=DAMPING, dtype="float64")
    # float32 scores' sums are allowed 1e-5 of rounding; float64 scores' 2^-29 of that
    scaled = exact * (1 + 1e-9)
    verify_scores(inp, scaled.astype(np.float32), tolerance=1e-4, spread=True, damping=DAMPING)
    with pytest.raises(VerificationError, match="sum to"):
        verify_scores(inp, scaled, tolerance=1e-13, spread=True, damping=DAMPING, dtype="float64")
    moved = exact.copy()
    moved[[0, 1]] += [1e-11, -1e-11]           # the sum kept, one more iteration moves them back
    with pytest.raises(VerificationError, match="one more iteration"):
        verify_scores(inp, moved, tolerance=1e-13, spread=True, damping=DAMPING, dtype="float64")


@pytest.mark.gpu
def test_lanes_must_be_a_power_of_two(simple_shapes, simple_dataset):
    with pytest.raises(ParameterError, match="parameter 'lanes': 3 is not a power of two"):
        harness.run("pagerank.pull-warp", simple_dataset(simple_shapes["path"]()), backend="gpu", reps=1, warmup=0,
                    lanes=3)


def test_the_verifier_counts_degrees_once_per_graph(simple_shapes, monkeypatch):
    """The simple graph's degrees are the graph's own: a sweep's next PageRank task reuses them (TC's
    verifier too), broken scores still fail; another graph counts its own."""
    from graphsweep.kernels.graph import unique_edges
    counted = []
    count = unique_edges._count_degrees
    monkeypatch.setattr(unique_edges, "_count_degrees", lambda inp: counted.append(1) or count(inp))
    n, src, dst = simple_shapes["messy"]()
    inp = from_edges(src, dst, n)
    good = exact_scores(n, src, dst, True).astype(np.float32)
    verify_scores(inp, good, tolerance=1e-4, spread=True, damping=DAMPING)
    verify_scores(inp, good, tolerance=1e-4, spread=True, damping=DAMPING)
    swapped = good.copy()
    swapped[[0, 1]] = swapped[[1, 0]] + np.float32([0.002, -0.002])
    with pytest.raises(VerificationError, match="one more iteration"):
        verify_scores(inp, swapped, tolerance=1e-4, spread=True, damping=DAMPING)
    assert len(counted) == 1
    verify_scores(from_edges(src, dst, n), good, tolerance=1e-4, spread=True, damping=DAMPING)
    assert len(counted) == 2


@pytest.mark.parametrize("dangling", ["spread", "gapbs"])
@pytest.mark.parametrize("shape", ["single", "edge", "star", "grid", "components", "messy", "rmat"])
def test_the_degree_start_sums_as_the_definition(shape, dangling, simple_shapes):
    """a + c x degree over the vertices with edges, a over the others: 1 with the dangling score
    spread; with GAPBS's variant, (n - k) / n + k (1 - d) / n, what its fixed point sums to when
    the vertices without edges keep only their jump share."""
    n, src, dst = simple_shapes[shape]()
    inp = from_edges(src, dst, n)
    a, c = start_of(inp, {"start": "degree", "dangling": dangling})
    degree = inp.representation("simple").degree()
    k = int((degree == 0).sum())
    if degree.sum() == 0:       # no edges: nothing to be proportional to, the uniform start
        assert (a, c) == (1.0 / n, 0.0)
        return
    total = float((a + c * degree).sum())
    expected = 1.0 if dangling == "spread" else (n - k) / n + k * (1 - DAMPING) / n
    assert total == pytest.approx(expected, rel=1e-12)
    assert c > 0
    assert start_of(inp, {"start": "uniform", "dangling": dangling}) == (1.0 / n, 0.0)
    exact = exact_scores(n, src, dst, dangling == "spread")
    if shape in ("rmat", "messy"):     # nearer the fixed point than 1/n is, where walks mix fast
        assert np.abs(a + c * degree - exact).sum() < np.abs(1.0 / n - exact).sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_auto_starts_by_degree_on_dense_graphs_only_and_saves_sweeps(backend, simple_shapes, simple_dataset):
    """R-MAT 10 at edge factor 16 (~17 simple entries a vertex, ids in generation order or permuted):
    start auto is the degree start and converges in fewer sweeps than 1/n; the 12 x 15 grid (under
    4) starts at 1/n."""
    n, src, dst = simple_shapes["rmat"]()
    order = np.random.default_rng(3).permutation(n).astype(src.dtype)
    runs = {}
    for ids, (s, d) in {"in order": (src, dst), "permuted": (order[src], order[dst])}.items():
        for start in ("auto", "uniform", "degree"):
            res = harness.run("pagerank.best", simple_dataset((n, s, d)), backend=backend, reps=1, warmup=0,
                              start=start)
            assert res.verified, res.verify_error
            runs[ids, start] = res.stats
    for ids in ("in order", "permuted"):
        assert runs[ids, "auto"]["start"] == "degree" and runs[ids, "uniform"]["start"] == "uniform"
        assert runs[ids, "auto"]["iterations"] == runs[ids, "degree"]["iterations"]
        assert runs[ids, "degree"]["iterations"] < runs[ids, "uniform"]["iterations"]
    grid = harness.run("pagerank.best", simple_dataset(simple_shapes["grid"]()), backend=backend, reps=1, warmup=0)
    assert grid.verified and grid.stats["start"] == "uniform"
