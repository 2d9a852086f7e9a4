"""Every SSSP algorithm on both backends, through the harness: SciPy's distances, the shared
verifier (parents included), and small grids / chunks / deltas / strips so tiny graphs reach the
multi-block, multi-chunk, many-epoch, spill, hub and mail paths."""

import numpy as np
import pytest

from graphsweep.core.errors import DatasetError, ParameterError
from graphsweep.datasets.reader import Dataset
from graphsweep.kernels import harness, registry

GRAPHS = ["uniform-d1", "uniform-d2", "uniform-d6", "uniform-d16", "uniform-d40", "scale-free", "rmat", "path",
          "grid", "star", "disconnected", "zero-weights", "messy"]
VARIANTS = {
    "harish": ("sssp.harish", {}),
    "harish-small": ("sssp.harish", {"threads": 32, "blocks": 3}),
    "near-far": ("sssp.near-far", {}),
    "near-far-small": ("sssp.near-far", {"threads": 32, "blocks": 3, "chunk": 4, "delta": 3}),
    "near-far-wide": ("sssp.near-far", {"threads": 64, "blocks": 2, "chunk": 1, "delta": 1000}),
    "strips": ("sssp.strips", {}),
    "strips-small": ("sssp.strips", {"threads": 64, "blocks": 5, "shared_list": 4, "hub": 3, "delta": 3}),
    "strips-wide": ("sssp.strips", {"threads": 32, "blocks": 2, "shared_list": 1, "hub": 1, "delta": 1000}),
    # both relaxations on every graph (the default pushes only where every degree is at most 16)
    "strips-push": ("sssp.strips", {"push": True}),
    "strips-wait": ("sssp.strips", {"push": False}),
    "strips-small-wait": ("sssp.strips", {"threads": 64, "blocks": 5, "shared_list": 4, "hub": 3, "delta": 3,
                                          "push": False}),
    "best": ("sssp.best", {}),
}
CASES = [pytest.param(v, "cpu", id=f"{v}-cpu") for v in VARIANTS] + \
    [pytest.param(v, "gpu", id=f"{v}-gpu", marks=pytest.mark.gpu) for v in VARIANTS]
# The CPU twins do not take grids or chunks: a few variants cover them.
CPU_VARIANTS = ["harish", "near-far", "near-far-small", "strips", "strips-small", "best"]
SEARCHES = ["sssp.harish", "sssp.near-far", "sssp.strips", "sssp.best"]


def run(name, data, backend, **params):
    res = harness.run(name, data, backend=backend, reps=1, warmup=0, **params)
    assert res.verified, res.verify_error
    return res


def cases_for(backend_cases):
    return [c for c in backend_cases if c.values[1] == "gpu" or c.values[0] in CPU_VARIANTS]


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("variant,backend", cases_for(CASES))
def test_distances_match_scipy(variant, backend, graph, wg):
    g = wg.GRAPHS[graph]()
    root = wg.root_of(g, seed=len(graph))
    name, params = VARIANTS[variant]
    res = run(name, wg.dataset(g), backend, root=root, **params)
    np.testing.assert_array_equal(res.output["dist"], wg.reference(g, root)[0])
    assert res.output["dist"].dtype == np.int64 and res.output["parent"].dtype == np.int64
    assert res.stats["iterations"] >= 1


@pytest.mark.parametrize("variant,backend", cases_for(CASES))
def test_directed_graph_uses_out_edges(variant, backend, wg):
    g = wg.rmat(scale=10, seed=11)
    root = wg.root_of(g, seed=1)
    name, params = VARIANTS[variant]
    res = run(name, wg.dataset(g, directed=True), backend, root=root, **params)
    expected = wg.reference(g, root, directed=True)[0]
    np.testing.assert_array_equal(res.output["dist"], expected)
    assert (expected == -1).any()            # some vertices only reach the root, not the other way


@pytest.mark.parametrize("variant,backend", cases_for(CASES))
def test_root_in_small_component(variant, backend, wg):
    g = wg.disconnected()
    name, params = VARIANTS[variant]
    res = run(name, wg.dataset(g), backend, root=1004, **params)
    reached = np.flatnonzero(res.output["dist"] >= 0)
    np.testing.assert_array_equal(reached, np.arange(1000, 1010))
    assert res.instance_stats[0]["reached"] == 10


@pytest.mark.parametrize("variant,backend", cases_for(CASES))
def test_isolated_root_and_single_vertex(variant, backend, wg):
    name, params = VARIANTS[variant]
    g = wg.disconnected()
    res = run(name, wg.dataset(g), backend, root=1015, **params)
    assert res.output["dist"][1015] == 0 and res.output["parent"][1015] == 1015
    assert (res.output["dist"] >= 0).sum() == 1
    one = (1, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32))
    res = run(name, wg.dataset(one), backend, root=0, **params)
    assert res.output["dist"].tolist() == [0] and res.output["parent"].tolist() == [0]


@pytest.mark.parametrize("variant,backend", cases_for(CASES))
def test_zero_weight_cycles_give_a_tree(variant, backend, wg):
    """All weights zero: every reached vertex at distance 0, and the parents must still be a tree."""
    n, src, dst, w = wg.uniform(n=700, degree=8, seed=21)
    name, params = VARIANTS[variant]
    res = run(name, wg.dataset((n, src, dst, np.zeros_like(w))), backend, root=int(src[0]), **params)
    reached = res.output["dist"] >= 0
    assert (res.output["dist"][reached] == 0).all() and reached.sum() > 600


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("name", SEARCHES)
def test_root_out_of_range_refused(name, backend, wg):
    g = wg.path(n=50)
    with pytest.raises(ParameterError, match="not a vertex"):
        harness.run(name, wg.dataset(g), backend=backend, reps=1, warmup=0, root=50)


@pytest.mark.parametrize("name", SEARCHES)
def test_unweighted_graph_refused(name):
    data = Dataset.in_memory("graph", 3, src=np.array([0, 1], np.int32), dst=np.array([1, 2], np.int32))
    with pytest.raises(ParameterError, match="needs a weighted graph"):
        harness.run(name, data, backend="cpu", reps=1, warmup=0, root=0)


def test_negative_weight_refused_naming_the_edge():
    with pytest.raises(DatasetError, match=r"row 1 \(edge 1 - 2\) is -4"):
        Dataset.in_memory("graph", 3, src=np.array([0, 1], np.int32), dst=np.array([1, 2], np.int32),
                          weight=np.array([5, -4], np.int32))


def test_heavy_weights_on_cpu(wg):
    """int32-maximum weights: the CPU twins keep int64 distances past 2^32."""
    g = wg.heavy_path()
    for name in SEARCHES:
        res = run(name, wg.dataset(g), "cpu", root=0)
        assert res.output["dist"].tolist() == [i * (2**31 - 1) for i in range(5)]


@pytest.mark.gpu
@pytest.mark.parametrize("name", SEARCHES)
def test_gpu_refuses_distances_past_32_bits(name, wg):
    with pytest.raises(ParameterError, match="32 bits"):
        harness.run(name, wg.dataset(wg.heavy_path()), backend="gpu", reps=1, warmup=0, root=0)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_near_far_delta_trades_iterations_for_work(backend, wg):
    g = wg.uniform(n=3000, degree=6, seed=31)
    data, root = wg.dataset(g), wg.root_of(g)
    expected = wg.reference(g, root)[0]
    stats = {}
    for delta in (1, 8, 10**6):
        res = run("sssp.near-far", data, backend, root=root, delta=delta)
        np.testing.assert_array_equal(res.output["dist"], expected)
        stats[delta] = res.stats
    assert stats[1]["iterations"] > stats[8]["iterations"] > stats[10**6]["iterations"]
    assert stats[1]["relaxations"] <= stats[10**6]["relaxations"]
    assert stats[10**6]["epochs"] == 0 and stats[1]["epochs"] > 10


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_near_far_default_delta_and_chunk_check(backend, wg):
    """R-MAT's ids carry no locality: delta from the mean weight and degree (5 w^(3/4) / sqrt(d))."""
    g = wg.rmat(scale=10, seed=12)
    res = run("sssp.near-far", wg.dataset(g), backend, root=wg.root_of(g))
    n, src, dst, w = g
    loops = src == dst
    nnz = 2 * int((~loops).sum())
    fit = 5 * w[~loops].mean() ** 0.75 / (nnz / n) ** 0.5
    assert res.stats["delta"] == 2 ** round(np.log2(fit)) == 32
    with pytest.raises(ParameterError, match="power of two"):
        harness.run("sssp.near-far", wg.dataset(g), backend=backend, reps=1, warmup=0, root=0, chunk=24)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_near_far_default_delta_on_a_grid_in_any_id_order(backend, wg):
    """A grid is deep (small degrees, a long search): the wide buckets of 160 w / d^2, whether its
    ids come row by row or shuffled."""
    n, src, dst, w = wg.grid2d(rows=100, cols=64)
    shuffle = np.random.default_rng(4).permutation(n).astype(np.int32)
    for g, root in (((n, src, dst, w), 5), ((n, shuffle[src], shuffle[dst], w), int(shuffle[5]))):
        res = run("sssp.near-far", wg.dataset(g), backend, root=root)
        np.testing.assert_array_equal(res.output["dist"], wg.reference(g, root)[0])
        fit = 160 * w.mean() / (2 * src.size / n) ** 2
        assert res.stats["delta"] == 2 ** round(np.log2(fit)) == 64    # 5 w^(3/4) / sqrt(d): 8


# The statistics of benchmarks/best_rules.py's graphs (H100, 2026-11-25) and the delta each must get:
# the best of its delta axis or within 5% of it (the grid: 2048, which sssp.strips doubles).
DELTA_CASES = {
    "grid 4096^2, weights 1-300": (150.53, 3.199, True, 2048),
    "R-MAT 22, weights 1-255": (128.0, 32.0, False, 32),
    "urand 22, weights 1-255": (128.0, 32.0, False, 32),
    "uniform 2^24 degree 6, weights 1-10": (5.5, 6.0, False, 8),
    "scale-free 2^24, weights 1-10": (5.5, 6.0, False, 8),
    "scale-free 2^24, weights 1-255": (128.0, 6.0, False, 64),
    "scale-free 2^22, 1% hubs, weights 1-100": (50.5, 6.0, False, 32),
    "R-MAT 22, weights 1-10": (5.5, 32.0, False, 4),
    "uniform 2^22 degree 16, weights 1-10": (5.5, 16.0, False, 4),
    "unweighted or empty": (0.0, 0.0, False, 1),
}


@pytest.mark.parametrize("case", DELTA_CASES)
def test_near_far_delta_rule_from_statistics(case):
    from graphsweep.kernels.sssp.near_far import delta_rule
    mean_weight, mean_degree, deep, delta = DELTA_CASES[case]
    assert delta_rule({"mean_weight": mean_weight, "mean_degree": mean_degree, "deep": deep}) == delta


def test_near_far_delta_statistics_and_depth(wg):
    """Mean weight and degree over the CSR (both directions, self-loops dropped); deep: a grid (in any
    id order) and a path, not R-MAT (hubs) or a uniform graph (a short search)."""
    from graphsweep.kernels.sssp.near_far import deep, delta_statistics
    n, src, dst, w = wg.grid2d(rows=100, cols=64)
    shuffle = np.random.default_rng(4).permutation(n).astype(np.int32)
    cases = ((wg.grid2d(rows=100, cols=64), True), ((n, shuffle[src], shuffle[dst], w), True),
             (wg.path(n=600), True), (wg.rmat(scale=10, seed=12), False), (wg.uniform(n=4000, degree=4.0), False))
    for g, is_deep in cases:
        inp = harness.prepared(registry.get("sssp.near-far"), wg.dataset(g))
        stats = delta_statistics(inp.csr())
        n_, src_, dst_, w_ = g
        loops = src_ == dst_
        assert stats["mean_degree"] == pytest.approx(2 * (~loops).sum() / n_)
        assert stats["mean_weight"] == pytest.approx(w_[~loops].mean())
        assert deep(inp) == is_deep


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_harish_step_rows_per_iteration(backend, wg):
    g = wg.path(n=200)
    root = int(g[1][0])                      # an end of the path: one more vertex per iteration
    res = run("sssp.harish", wg.dataset(g), backend, root=root)
    iterations = res.stats["iterations"]
    assert iterations == 200                 # 199 edges, then an iteration that changes nothing
    relax = [r for r in res.step_rows if r["phase"] == "relax"]
    assert [r["step"] for r in relax] == list(range(iterations))
    assert [r["step_frontier"] for r in relax] == [1] * iterations
    total = next(r for r in res.rows if r["phase"] == "relax")
    assert total["calls"] == iterations


@pytest.mark.gpu
def test_near_far_gpu_steps_and_blocks(wg):
    g = wg.grid2d(rows=60, cols=60)
    res = run("sssp.near-far", wg.dataset(g), "gpu", root=0, threads=64, blocks=5, delta=4)
    steps = [r for r in res.step_rows if r["phase"] == "search"]
    assert [r["step"] for r in steps] == list(range(res.stats["iterations"])) and res.stats["blocks"] == 5
    assert {r["step_kind"] for r in steps} == {"near", "far"} and all(r["ms"] >= 0 for r in steps)
    assert all(r["step_entries"] >= 0 for r in steps)
    with pytest.raises(ParameterError, match="cannot all be resident"):
        harness.run("sssp.near-far", wg.dataset(g), backend="gpu", reps=1, warmup=0, root=0, blocks=10**6)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_strips_default_delta_is_its_own(backend, wg):
    """320 x mean weight / mean degree^2 as a power of two, whatever near-far's rule says."""
    g = wg.grid2d(rows=40, cols=40)
    res = run("sssp.strips", wg.dataset(g), backend, root=0)
    n, src, dst, w = g
    nnz = 2 * int((src != dst).sum())
    fit = 320 * w[src != dst].mean() / (nnz / n) ** 2
    assert res.stats["delta"] == (1 if fit <= 1 else 2 ** round(np.log2(fit))) > 1


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_strips_hops_inside_a_strip_cost_steps_not_barriers(backend, wg):
    """One strip and one bucket: the corner-to-corner grid search is a single epoch of >= 118 block
    steps (a step advances a path one hop) and mails nothing; five strips mail across their edges."""
    g = wg.grid2d(rows=60, cols=60)
    data, expected = wg.dataset(g), wg.reference(g, 0)[0]
    res = run("sssp.strips", data, backend, root=0, blocks=1, delta=10**6, threads=64)
    np.testing.assert_array_equal(res.output["dist"], expected)
    assert res.stats["iterations"] == 1 and res.stats["mails"] == 0 and res.stats["steps"] >= 118
    res = run("sssp.strips", data, backend, root=0, blocks=5, delta=40, threads=64)
    np.testing.assert_array_equal(res.output["dist"], expected)
    assert res.stats["mails"] > 0 and res.stats["iterations"] > 1 and res.stats["strip"] == 720


def test_strips_rows_hold_each_vertex_s_edges():
    """The strips' layout: a vertex of at most ELL_WIDTH edges has them in CSR order (self-loops and
    duplicates kept), then empty entries; a wider one its CSR range."""
    from types import SimpleNamespace

    from graphsweep.kernels.sssp import strips
    offsets = np.array([0, 0, 1, 5, 10, 10], np.int64)      # degrees 0, 1, 4, 5, 0
    indices = np.array([2, 1, 2, 2, 0, 0, 1, 2, 3, 4], np.int32)
    weights = np.arange(10, dtype=np.int32) * 7
    csr = SimpleNamespace(n=5, nnz=10, offsets=offsets, indices=indices, weights=weights)
    rows = strips.ell_rows(csr, np).reshape(5, strips.ELL_WIDTH)
    pack = lambda e: int(indices[e]) | int(weights[e]) << 32  # noqa: E731
    none = int(strips.NONE)
    assert rows[0].tolist() == [none] * 4 and rows[4].tolist() == [none] * 4
    assert rows[1].tolist() == [pack(0), none, none, none]
    assert rows[2].tolist() == [pack(e) for e in range(1, 5)]
    assert rows[3].tolist() == [int(strips.WIDE), 5, 10, none]
    empty = SimpleNamespace(n=0, nnz=0, offsets=np.zeros(1, np.int64), indices=indices[:0], weights=weights[:0])
    assert strips.ell_rows(empty, np).shape == (0,)


@pytest.mark.gpu
def test_strips_gpu_bucket_rows_and_refusals(wg):
    g = wg.grid2d(rows=60, cols=60)
    res = run("sssp.strips", wg.dataset(g), "gpu", root=0, threads=64, blocks=5, delta=40)
    steps = [r for r in res.step_rows if r["phase"] == "search"]
    assert [r["step"] for r in steps] == list(range(res.stats["iterations"])) and res.stats["blocks"] == 5
    assert all(r["ms"] >= 0 for r in steps) and steps[-1]["step_threshold"] >= 40
    # per bucket: the most steps a block took, and how many blocks stepped (the root's bucket: at least one)
    assert all(0 <= r["step_blocks"] <= 5 and (r["step_steps"] > 0) == (r["step_blocks"] > 0) for r in steps)
    assert steps[0]["step_steps"] >= 1 and all(r["step_steps"] <= res.stats["steps"] for r in steps)
    assert "expand_us" not in res.stats
    timed = run("sssp.strips", wg.dataset(g), "gpu", root=0, threads=64, blocks=5, delta=40, clocks=True)
    np.testing.assert_array_equal(timed.output["dist"], res.output["dist"])
    assert 0 < timed.stats["load_us"] <= timed.stats["expand_us"] and timed.stats["post_us"] > 0
    with pytest.raises(ParameterError, match="cannot all be resident"):
        harness.run("sssp.strips", wg.dataset(g), backend="gpu", reps=1, warmup=0, root=0, blocks=10**6)
    with pytest.raises(ParameterError, match="shared memory"):
        harness.run("sssp.strips", wg.dataset(g), backend="gpu", reps=1, warmup=0, root=0, shared_list=10**6)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_best_chooses_strips_by_locality(backend, wg):
    """A grid numbered by place keeps most edges inside a strip: sssp.strips; R-MAT's ids do not."""
    g = wg.grid2d(rows=400, cols=64)
    res = run("sssp.best", wg.dataset(g), backend, root=5)
    np.testing.assert_array_equal(res.output["dist"], wg.reference(g, 5)[0])
    assert res.stats["chose"] == "sssp.strips" and res.stats["locality"] >= 0.5
    g = wg.rmat(scale=10, seed=12)
    root = wg.root_of(g)
    res = run("sssp.best", wg.dataset(g), backend, root=root, delta=8)
    np.testing.assert_array_equal(res.output["dist"], wg.reference(g, root)[0])
    assert res.stats["chose"] == "sssp.near-far" and res.stats["locality"] < 0.5 and res.stats["delta"] == 8


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_best_finds_a_shuffled_grids_locality_by_renaming_it(backend, wg):
    """The same grid with its ids shuffled keeps no edges in a strip; its degrees are small, so the
    graph renamed in BFS order is measured, keeps them, and sssp.strips runs there: the answer in
    the dataset's ids, the renamed graph's build an input row.  R-MAT (hubs) is never renamed."""
    n, src, dst, w = wg.grid2d(rows=1024, cols=64)     # CPU strips of 248 ids: about four diagonals
    shuffle = np.random.default_rng(3).permutation(n).astype(np.int32)
    g = (n, shuffle[src], shuffle[dst], w)
    root = int(shuffle[5])
    res = run("sssp.best", wg.dataset(g), backend, root=root)
    dist, parent = wg.reference_tree(g, root)
    np.testing.assert_array_equal(res.output["dist"], dist)
    assert res.stats["chose"] == "sssp.strips" and res.stats["renamed"] and res.stats["locality"] >= 0.5
    assert [r["phase"] for r in res.input_rows] == ["csr", "by-bfs"] and not res.input_rows[1]["cached"]
    assert any(r["phase"] == "map" for r in res.rows)
    plain = run("sssp.best", wg.dataset(wg.grid2d(rows=1024, cols=64)), backend, root=5)
    assert plain.stats["chose"] == "sssp.strips" and not plain.stats["renamed"]
    assert [r["phase"] for r in plain.input_rows] == ["csr"]
    g = wg.rmat(scale=10, seed=12)
    res = run("sssp.best", wg.dataset(g), backend, root=wg.root_of(g))
    assert res.stats["chose"] == "sssp.near-far" and not res.stats["renamed"]
    assert [r["phase"] for r in res.input_rows] == ["csr"]


def test_best_alias():
    assert registry.get("sssp.best").name == registry.ALIASES["sssp.best"][0] == "sssp.select"
    assert registry.for_placement("sssp.best", "host") == "sssp.near-far"     # a CSR in host memory


def test_strips_pushes_by_default_only_on_small_degrees(wg):
    """push (fire-and-forget relaxations) where every degree is at most 16 and every weight is
    positive; asked for by name it still needs positive weights."""
    from graphsweep.kernels.sssp import strips
    cases = {"grid": True, "path": True, "rmat": False, "uniform-d40": False, "zero-weights": False}
    for graph, pushes in cases.items():
        inp = harness.prepared(strips.KERNEL, wg.dataset(wg.GRAPHS[graph]()))
        params = strips.KERNEL.resolve_params({"root": 0})
        assert strips.push_for(inp, params) is pushes, graph
        assert strips.push_for(inp, {**params, "push": True}) is (graph != "zero-weights"), graph
        assert strips.push_for(inp, {**params, "push": False}) is False, graph
