"""Every APSP algorithm on both backends, through the harness: SciPy's full matrix, the shared
verifier, rows against the SSSP kernels, sizes around the GPU's 64/128 tiles, small batches and
grids so small graphs take the multi-launch and multi-block paths; refusals; the Parquet output."""

import numpy as np
import pyarrow.parquet as pq
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.reader import Dataset
from graphsweep.kernels import harness, output, registry

VARIANTS = {
    "fw": ("apsp.floyd-warshall", {}),
    "fw-small": ("apsp.floyd-warshall", {"threads": 64}),
    "blocked": ("apsp.blocked-floyd-warshall", {}),
    "blocked-b16": ("apsp.blocked-floyd-warshall", {"block": 16}),
    "repeated": ("apsp.repeated-sssp", {}),
    "repeated-small": ("apsp.repeated-sssp", {"batch": 7, "blocks": 3, "threads": 32}),
}
CPU_VARIANTS = ["fw", "blocked", "blocked-b16", "repeated"]
CASES = [pytest.param(v, "cpu", id=f"{v}-cpu") for v in CPU_VARIANTS] + \
    [pytest.param(v, "gpu", id=f"{v}-gpu", marks=pytest.mark.gpu) for v in VARIANTS if v != "blocked-b16"]


def small_graphs(wg):
    return {
        "uniform-d1": wg.uniform(n=150, degree=1, seed=1),
        "uniform-d6": wg.uniform(n=200, degree=6, seed=2),
        "uniform-d40": wg.uniform(n=130, degree=40, seed=3),
        "scale-free": wg._generated("scale-free", 4, n=260, max_degree=60),
        "rmat": wg.rmat(scale=8, seed=5),
        "path": wg.path(n=140),
        "grid": wg.grid2d(rows=11, cols=13),
        "disconnected": wg.disconnected(),
        "zero-weights": wg.uniform(n=190, degree=6, seed=8, lo=0, hi=3),
        "messy": wg.messy(),
    }


def run(name, data, backend, **params):
    res = harness.run(name, data, backend=backend, reps=1, warmup=0, **params)
    assert res.verified, res.verify_error
    return res


@pytest.mark.parametrize("graph", ["uniform-d1", "uniform-d6", "uniform-d40", "scale-free", "rmat", "path", "grid",
                                   "zero-weights", "messy"])
@pytest.mark.parametrize("variant,backend", CASES)
def test_matrix_matches_scipy(variant, backend, graph, wg):
    g = small_graphs(wg)[graph]
    name, params = VARIANTS[variant]
    res = run(name, wg.dataset(g), backend, **params)
    dist = res.output["dist"]
    assert dist.dtype == np.int32 and dist.shape == (g[0], g[0])
    np.testing.assert_array_equal(dist, wg.reference(g, np.arange(g[0])))
    n = g[0]
    if name == "apsp.repeated-sssp":   # each (source, v != source) reached needed a relaxation to lower it
        assert res.stats["relaxations"] >= int((dist >= 0).sum()) - n
    else:                              # Floyd-Warshall's n^3 min-plus steps (the GPU's blocked pads to tiles)
        side = res.stats.get("padded_n", n)
        assert n <= side < n + 128 and res.stats["minplus_ops"] == side**3


@pytest.mark.parametrize("variant,backend", CASES)
def test_disconnected_and_directed(variant, backend, wg):
    name, params = VARIANTS[variant]
    if backend == "cpu" and name != "apsp.repeated-sssp":
        g = wg.rmat(scale=7, seed=6)                       # n^3 on the CPU: the smaller graph
    else:
        g = wg.disconnected()
        res = run(name, wg.dataset(g), backend, **params)
        np.testing.assert_array_equal(res.output["dist"], wg.reference(g, np.arange(g[0])))
        assert (res.output["dist"][1004, 1000:1010] >= 0).all() and (res.output["dist"][1004, :1000] == -1).all()
        g = wg.rmat(scale=9, seed=6)
    res = run(name, wg.dataset(g, directed=True), backend, **params)
    expected = wg.reference(g, np.arange(g[0]), directed=True)
    np.testing.assert_array_equal(res.output["dist"], expected)
    assert not np.array_equal(expected, expected.T)


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 127, 128, 129, 257])
@pytest.mark.parametrize("variant,backend", CASES)
def test_sizes_around_tiles(variant, backend, n, wg):
    if n == 1:
        g = (1, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32))
    else:
        g = wg.uniform(n=n, degree=3, seed=n)
    name, params = VARIANTS[variant]
    res = run(name, wg.dataset(g), backend, **params)
    np.testing.assert_array_equal(res.output["dist"], wg.reference(g, np.arange(n)))


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_rows_match_sssp_kernels(backend, wg):
    """APSP row by row against SSSP runs (the near-far and Harish kernels) from a few sources."""
    g = wg.uniform(n=300, degree=5, seed=12, lo=0, hi=9)
    data = wg.dataset(g)
    matrices = {name: run(name, data, backend).output["dist"]
                for name in ("apsp.blocked-floyd-warshall", "apsp.repeated-sssp")}
    for root in (0, 17, 299):
        for sssp in ("sssp.near-far", "sssp.harish"):
            row = run(sssp, data, backend, root=root).output["dist"]
            for name, dist in matrices.items():
                np.testing.assert_array_equal(dist[root], row, err_msg=f"{name} row {root} vs {sssp}")


@pytest.mark.parametrize("name", ["apsp.floyd-warshall", "apsp.blocked-floyd-warshall", "apsp.repeated-sssp"])
def test_refuses_matrix_beyond_memory(name):
    n = 1 << 20                                   # a 2^20 x 2^20 matrix: 4 TiB
    data = Dataset.in_memory("graph", n, src=np.array([0], np.int64), dst=np.array([1], np.int64),
                             weight=np.array([1], np.int32))
    with pytest.raises(ParameterError, match=r"needs [0-9.]+ GiB of host memory and [0-9.]+ GiB are free"):
        harness.run(name, data, backend="cpu", reps=1, warmup=0)


@pytest.mark.parametrize("name", ["apsp.floyd-warshall", "apsp.blocked-floyd-warshall", "apsp.repeated-sssp"])
def test_refuses_distances_beyond_int32(name, wg):
    g = wg.heavy_path(n=4, weight=2**29)
    with pytest.raises(ParameterError, match="could reach it"):
        harness.run(name, wg.dataset(g), backend="cpu", reps=1, warmup=0)


def test_unweighted_refused():
    data = Dataset.in_memory("graph", 3, src=np.array([0, 1], np.int32), dst=np.array([1, 2], np.int32))
    with pytest.raises(ParameterError, match="needs a weighted graph"):
        harness.run("apsp.repeated-sssp", data, backend="cpu", reps=1, warmup=0)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_save_streams_row_groups(backend, wg, tmp_path, monkeypatch):
    import graphsweep.kernels.apsp as apsp
    monkeypatch.setattr(apsp, "ROW_GROUP_VALUES", 1000)     # 1000 // 190 = 5 sources per row group
    g = small_graphs(wg)["zero-weights"]
    res = run("apsp.blocked-floyd-warshall", wg.dataset(g), backend)
    path = output.save(registry.get("apsp.blocked-floyd-warshall").problem, res.output, tmp_path / "apsp.parquet")
    pf = pq.ParquetFile(path)
    assert pf.metadata.num_row_groups == -(-190 // 5) and pf.metadata.num_rows == 190
    table = pf.read()
    assert table.column("source").to_pylist() == list(range(190))
    dist = table.column("dist").combine_chunks()
    matrix = dist.flatten().to_numpy().reshape(190, 190)
    assert matrix.dtype == np.int64 and dist.type.list_size == 190
    np.testing.assert_array_equal(matrix, res.output["dist"].astype(np.int64))


@pytest.mark.gpu
def test_repeated_sssp_steps_per_batch(wg):
    g = wg.uniform(n=500, degree=6, seed=13)
    res = run("apsp.repeated-sssp", wg.dataset(g), "gpu", batch=128)
    rows = [r for r in res.step_rows if r["phase"] == "rows"]
    assert [r["step"] for r in rows] == [0, 1, 2, 3] and [r["step_sources"] for r in rows] == [128, 128, 128, 116]
    assert res.stats["batches"] == 4 and res.stats["relaxations"] >= 2 * int((g[1] != g[2]).sum())
