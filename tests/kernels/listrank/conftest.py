"""Fixtures: run one list-ranking kernel straight on arrays, on either backend; reference ranks."""

import numpy as np
import pytest

from graphsweep.datasets.structure import check_list
from graphsweep.kernels import registry
from graphsweep.kernels.listrank import ListInput
from graphsweep.kernels.listrank.verify import verify_ranks
from graphsweep.kernels.timing import CpuTimer, CudaTimer


def _sequential_ranks(succ) -> np.ndarray:
    """Ranks by a plain Python-free reference: positions along the list, counted from the tail."""
    head, _ = check_list(succ)
    n = succ.shape[0]
    rank = np.empty(n, np.int64)
    x, r = head, n - 1
    for _ in range(n):
        rank[x] = r
        x, r = succ[x], r - 1
    return rank


def _rank_with(name: str, succ: np.ndarray, backend: str, **params):
    """(host ranks, timer) of kernel ``name`` on ``succ``, verified by the shared verifier."""
    kernel = registry.get(name)
    head, tail = check_list(succ)
    if backend == "gpu":
        import cupy
        inp, timer = ListInput(cupy.asarray(succ), head, tail), CudaTimer()
    else:
        inp, timer = ListInput(succ, head, tail), CpuTimer()
    params = kernel.resolve_params(params)
    if kernel.setup is not None:
        kernel.setup(inp, params)
    rank = getattr(kernel, backend)(inp, params, timer)
    timer.finish()
    verify_ranks(inp.succ, tail, rank)
    rank = rank.get() if backend == "gpu" else rank
    assert rank.dtype == inp.rank_dtype
    return rank, timer


@pytest.fixture
def rank_with():
    return _rank_with


@pytest.fixture
def sequential_ranks():
    return _sequential_ranks
