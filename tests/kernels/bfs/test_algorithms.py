"""Every BFS algorithm on both backends, through the harness: SciPy's levels, the shared verifier,
forced directions and small grids so tiny graphs reach every code path."""

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.kernels import harness, registry

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
GRAPHS = ["uniform-d1", "uniform-d2", "uniform-d6", "uniform-d16", "uniform-d40", "scale-free", "rmat", "path",
          "grid", "star", "disconnected", "messy"]
# Each direction forced, Beamer's switching pushed both ways, one launch per level, the kernel
# compiled for 64 registers a thread (it spills), and small
# grids (a few blocks of 32-64 threads) so small graphs take the multi-block and grid-stride paths.
VARIANTS = {
    "harish": ("bfs.harish", {}),
    "harish-small": ("bfs.harish", {"threads": 32, "blocks": 3}),
    "do": ("bfs.direction-optimizing", {}),
    "do-top-down": ("bfs.direction-optimizing", {"direction": "top-down", "threads": 32, "blocks": 3}),
    "do-bottom-up": ("bfs.direction-optimizing", {"direction": "bottom-up", "threads": 64, "blocks": 2}),
    "do-eager": ("bfs.direction-optimizing", {"alpha": 1000.0, "beta": 20.0, "threads": 96, "blocks": 4}),
    "do-per-level": ("bfs.direction-optimizing", {"levels_per_launch": 1, "threads": 32, "blocks": 5}),
    "do-64-registers": ("bfs.direction-optimizing", {"registers": 64, "threads": 64, "blocks": 6}),
}


def run(name, data, backend, **params):
    res = harness.run(name, data, backend=backend, reps=1, warmup=0, **params)
    assert res.verified, res.verify_error
    return res


def level_histogram(level) -> list:
    return np.bincount(level[level >= 0]).tolist()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("graph", GRAPHS)
def test_levels_match_scipy(graph, variant, backend, graphs, make_dataset, reference):
    name, params = VARIANTS[variant]
    g = graphs[graph]()
    res = run(name, make_dataset(g), backend, instances=2, instance_seed=len(graph), **params)
    root = res.instances[-1]["root"]
    level, parent = res.output["level"], res.output["parent"]
    np.testing.assert_array_equal(level, reference(g, root))
    assert parent[root] == root and ((parent >= 0) == (level >= 0)).all()
    assert res.stats["levels"] == int(level.max()) + 1
    assert res.stats["reached"] == int((level >= 0).sum())
    hist = level_histogram(level)
    for r in res.step_rows:                 # each step starts from its level's frontier, no vertex twice
        if "step_frontier" in r and r["inst_root"] == root:
            assert r["step_frontier"] == hist[r["step"]], r


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", ["harish", "do", "do-top-down", "do-bottom-up"])
def test_directed_graphs(variant, backend, graphs, make_dataset, reference):
    name, params = VARIANTS[variant]
    n, src, dst = graphs["uniform-d2"]()
    g = (n, src, dst)
    res = run(name, make_dataset(g, directed=True), backend, instances=3, instance_seed=9, **params)
    np.testing.assert_array_equal(res.output["level"], reference(g, res.instances[-1]["root"], directed=True))
    # Bottom-up must follow in-edges: on the path 0 -> 1 -> 2 only the root 2 is reached from 2.
    chain = (3, np.array([0, 1], np.int32), np.array([1, 2], np.int32))
    res = run(name, make_dataset(chain, directed=True), backend, root=2, **params)
    assert res.output["level"].tolist() == [-1, -1, 0] and res.output["parent"].tolist() == [-1, -1, 2]
    res = run(name, make_dataset(chain, directed=True), backend, root=0, **params)
    assert res.output["level"].tolist() == [0, 1, 2] and res.output["parent"].tolist() == [0, 0, 1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", ["harish", "do", "do-bottom-up", "do-per-level"])
def test_small_and_odd_inputs(variant, backend, make_dataset, graphs):
    name, params = VARIANTS[variant]
    single = (1, np.array([], np.int32), np.array([], np.int32))
    res = run(name, make_dataset(single), backend, root=0, **params)
    assert res.output["level"].tolist() == [0] and res.output["parent"].tolist() == [0]
    loops = (4, np.array([0, 1, 1], np.int32), np.array([0, 1, 2], np.int32))   # self-loops only at 0
    res = run(name, make_dataset(loops), backend, root=0, **params)
    assert res.output["level"].tolist() == [0, -1, -1, -1] and res.stats["reached"] == 1
    res = run(name, make_dataset(loops), backend, root=2, **params)
    assert res.output["level"].tolist() == [-1, 1, 0, -1] and res.output["parent"].tolist() == [-1, 2, 2, -1]
    g = graphs["disconnected"]()                        # root in the small path component
    res = run(name, make_dataset(g), backend, root=1004, **params)
    level = res.output["level"]
    assert res.stats["reached"] == 10 and level[1000] == 4 and level[1009] == 5 and level[:1000].max() == -1
    res = run(name, make_dataset(g), backend, root=1015, **params)   # an isolated vertex
    assert res.stats["reached"] == 1 and res.stats["levels"] == 1


@pytest.mark.parametrize("name", ["bfs.harish", "bfs.direction-optimizing", "bfs.best"])
def test_root_outside_the_graph_is_refused_in_one_line(name, make_dataset, graphs):
    data = make_dataset(graphs["path"]())
    with pytest.raises(ParameterError, match=r"^parameter 'root': 600 is not a vertex of <memory:bfs-test> \(n = 600\)$"):
        harness.run(name, data, backend="cpu", reps=1, warmup=0, root=600)
    with pytest.raises(ParameterError, match="parameter 'root': -1 is below the minimum 0"):
        harness.run(name, data, backend="cpu", reps=1, warmup=0, root=-1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_steps_record_direction_and_frontier(backend, make_dataset, graphs):
    data = make_dataset(graphs["rmat"]())
    for direction, expected in (("auto", {"top-down", "bottom-up"}), ("top-down", {"top-down"}),
                                ("bottom-up", {"bottom-up"})):
        res = run("bfs.direction-optimizing", data, backend, instances=1, instance_seed=2, direction=direction)
        hist = level_histogram(res.output["level"])
        steps = [r for r in res.step_rows if r["phase"] in ("top-down", "bottom-up")]
        assert {r["step_direction"] for r in steps} == expected and {r["phase"] for r in steps} == expected
        for r in steps:                                 # the frontier each step started from
            assert r["step_frontier"] == hist[r["step"]]
        assert res.stats["bottom_up_levels"] == sum(r["phase"] == "bottom-up" for r in steps)
        assert all(r["bytes_read"] > 0 for r in steps)
        kernel_rows = [r for r in res.rows if r["phase"] in ("top-down", "bottom-up", "levels")]
        assert kernel_rows and all(r["bytes_read"] > 0 for r in kernel_rows)


@pytest.mark.parametrize("backend", BACKENDS)
def test_harish_one_step_per_level(backend, make_dataset, graphs):
    g = graphs["grid"]()
    res = run("bfs.harish", make_dataset(g), backend, root=0)
    hist = level_histogram(res.output["level"])
    steps = [r for r in res.step_rows if r["phase"] == "level"]
    assert res.stats["levels"] == len(hist) == len(steps) == 30 + 40 - 1
    assert [r["step_frontier"] for r in steps] == hist
    # 2n flag bytes a level, plus 20 per frontier vertex and 5 per edge (harish._level_phase)
    assert all(r["bytes_read"] == 2 * g[0] + 20 * r["step_frontier"] + 5 * r["step_edges"] for r in steps)
    assert sum(r["step_edges"] for r in steps) == 2 * len(g[1])


@pytest.mark.gpu
def test_persistent_launch_runs_a_grid_in_one_launch(make_dataset, graphs):
    data = make_dataset(graphs["grid"]())
    res = run("bfs.direction-optimizing", data, "gpu", root=0, direction="top-down")
    assert res.stats["launches"] == 1 and res.stats["levels"] == 69
    steps = [r for r in res.step_rows if r["phase"] == "top-down"]      # one per level, from the device
    assert [r["step"] for r in steps] == list(range(69))
    assert [r["step_frontier"] for r in steps] == level_histogram(res.output["level"])
    launch_ms = next(r["ms"] for r in res.rows if r["phase"] == "levels")
    assert all(r["ms"] >= 0 for r in steps) and sum(r["ms"] for r in steps) <= launch_ms * 1.01
    res = run("bfs.direction-optimizing", data, "gpu", root=0, direction="top-down", levels_per_launch=1)
    assert res.stats["launches"] == 69
    res = run("bfs.direction-optimizing", data, "gpu", root=0, direction="top-down", levels_per_launch=10)
    assert res.stats["launches"] == 7


@pytest.mark.gpu
def test_switching_directions_stays_in_one_launch(make_dataset, graphs):
    # Both directions and both conversions run inside the persistent launch; one launch per level
    # carries the direction, Beamer's check and the reached count from launch to launch.
    data = make_dataset(graphs["rmat"]())
    one = run("bfs.direction-optimizing", data, "gpu", instances=1, instance_seed=2)
    assert one.stats["launches"] == 1 and 0 < one.stats["bottom_up_levels"] < one.stats["levels"]
    per_level = run("bfs.direction-optimizing", data, "gpu", instances=1, instance_seed=2, levels_per_launch=1)
    assert per_level.stats["launches"] == per_level.stats["levels"] == one.stats["levels"]
    assert per_level.stats["bottom_up_levels"] == one.stats["bottom_up_levels"]
    kinds = lambda res: [(r["step"], r["phase"], r["step_frontier"]) for r in res.step_rows  # noqa: E731
                         if r["rep"] == 0 and r["inst_root"] == res.instances[-1]["root"]]
    assert sorted(kinds(per_level)) == sorted(kinds(one))


@pytest.mark.gpu
def test_persistent_grid_refuses_blocks_that_cannot_be_resident(make_dataset, graphs):
    data = make_dataset(graphs["path"]())
    with pytest.raises(ParameterError, match="cannot all be resident"):
        harness.run("bfs.direction-optimizing", data, backend="gpu", reps=1, warmup=0, root=0, blocks=1 << 20)
    with pytest.raises(ParameterError, match="parameter 'threads': 1024 is more than .*at most 512"):
        harness.run("bfs.direction-optimizing", data, backend="gpu", reps=1, warmup=0, root=0, threads=1024)


@pytest.mark.gpu
def test_thin_fronts_run_one_block_a_sm_and_wide_ones_every_resident_block():
    from graphsweep.generators import memory
    from graphsweep.kernels import cuda
    from graphsweep.kernels.bfs import direction_optimizing as do
    kernel = registry.get("bfs.direction-optimizing")

    def grid_of(generator, **params):
        data = memory.generate(generator, seed=1, backend="gpu", params=params)
        inp = harness.prepared(kernel, data)
        params = kernel.resolve_params({})
        blocks = do._workspace(inp, params).blocks
        most = inp.cache[("bfs.direction-optimizing", params["threads"], do._registers(inp.csr(), params))].blocks
        return blocks, most, inp.n / do.depth_estimate(inp)

    blocks, most, per_level = grid_of("grid", rows=256, cols=256, keep=0.8)       # ~500 levels of ~130
    assert per_level < do.THIN_FRONT and blocks == min(most, cuda.sm_count()) < most
    blocks, most, per_level = grid_of("rmat", scale=18, edge_factor=16)           # ~8 levels of ~30K
    assert per_level > do.THIN_FRONT and blocks == most
    data = memory.generate("grid", seed=1, backend="gpu", params={"rows": 64, "cols": 64, "keep": 0.8})
    inp = harness.prepared(kernel, data)
    assert do._workspace(inp, kernel.resolve_params({"blocks": 3})).blocks == 3   # the parameter's


def test_best_is_registered():
    assert registry.get("bfs.best").name == registry.ALIASES["bfs.best"][0]


@pytest.mark.parametrize("name, per_vertex", [("bfs.direction-optimizing", 4 + 4 + 1 + 1),   # level, parent, 2 bitmaps
                                              ("bfs.harish", 4 + 4 + 3)])                 # cost, parent, 3 flag arrays
def test_cpu_init_credits_the_bytes_it_writes(name, per_vertex, graphs, make_dataset):
    # The init phase once credited 12n bytes to three scalar stores (700+ GB/s on a CPU): its
    # byte model now counts the arrays it fills, and it fills them inside the phase.
    graph = graphs["uniform-d6"]()
    res = run(name, make_dataset(graph), "cpu")
    n = graph[0]
    [init] = [row for row in res.summary() if row["phase"] == "init"]
    assert init["bytes_written"] == per_vertex * n and init["bytes_read"] == 0
