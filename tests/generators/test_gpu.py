"""The GPU generators (CuPy) give exactly the CPU's arrays."""

import numpy as np
import pytest

from graphsweep.datasets import read
from graphsweep.generators import GENERATORS, generate


@pytest.mark.gpu
@pytest.mark.parametrize("kind", [k for k, g in GENERATORS.items() if g.gpu and k != "rmat"])
@pytest.mark.parametrize("n", [1, 2, 1000, (1 << 20) + 3])
def test_gpu_equals_cpu(tmp_path, kind, n):
    params = {"n": n, **({"count": min(n, 3), "weights": "1:10"} if kind == "list-graph" else {})}
    _same_on_both(tmp_path, kind, params)


@pytest.mark.gpu
@pytest.mark.parametrize("params", [{"scale": 1, "edge_factor": 1}, {"scale": 10, "edge_factor": 3},
                                    {"scale": 17, "edge_factor": 9, "a": 0.45, "b": 0.25, "c": 0.15},
                                    {"scale": 12, "edge_factor": 16, "weights": "1:255"}])
def test_gpu_rmat_equals_cpu(tmp_path, params):
    _same_on_both(tmp_path, "rmat", params)


@pytest.mark.gpu
@pytest.mark.parametrize("kind,params", [("list-graph", {"n": (1 << 20) + 3, "count": 3}),
                                         ("rmat", {"scale": 12, "edge_factor": 16, "weights": "1:255"})])
def test_gpu_permuted_ids_equal_cpu(tmp_path, kind, params):
    _same_on_both(tmp_path, kind, {**params, "permute_ids": True})


def _same_on_both(tmp_path, kind, params):
    cpu = read(generate(kind, tmp_path / "cpu", seed=9, params=params, part_rows=300_000, progress=False))
    gpu = read(generate(kind, tmp_path / "gpu", seed=9, params=params, part_rows=300_000,
                        backend="gpu", progress=False))
    for name in cpu.columns:
        assert np.array_equal(cpu.columns[name], gpu.columns[name])


@pytest.mark.gpu
@pytest.mark.parametrize("n", [2, 3, 5, 123_457, (1 << 33) + 7])
def test_gpu_feistel_equals_numba_twin_and_array_code(n):
    """The kernel (feistel.cuh) against the Numba twin and the array code, both ways; widths from
    1/1 to 17/17 bits, inputs strided and two-dimensional."""
    import cupy
    from graphsweep.generators.streams import Feistel
    perm = Feistel.for_seed(n, seed=4)
    x = np.random.default_rng(n).integers(0, n, 50_000, dtype=np.uint64)
    for way in ("forward", "inverse"):
        want = getattr(perm, way)(x)
        assert np.array_equal(getattr(perm, way)(cupy.asarray(x), cupy).get(), want), way
        assert np.array_equal(perm.walk_xp(x, np, inverse=way == "inverse"), want), way
        strided = cupy.asarray(np.stack([x, x[::-1]], axis=1))[:, 0]
        assert np.array_equal(getattr(perm, way)(strided, cupy).get(), want), way
        square = cupy.asarray(x[:40_000]).reshape(200, 200)
        assert np.array_equal(getattr(perm, way)(square, cupy).get(), want[:40_000].reshape(200, 200)), way
    assert perm.forward(cupy.empty(0, dtype=cupy.uint64), cupy).size == 0
