"""Shared fixtures.  Tests marked ``gpu`` run only where CuPy sees a CUDA device."""

import numpy as np
import pytest

from graphsweep.datasets import gpu


def pytest_collection_modifyitems(config, items):
    if gpu.available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device with CuPy (none here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def random_list(n: int, seed: int = 0, dtype=np.int32) -> np.ndarray:
    """succ of one random list through all n nodes (tail points to itself)."""
    order = np.random.default_rng(seed).permutation(n).astype(dtype)
    succ = np.empty(n, dtype=dtype)
    succ[order[:-1]] = order[1:]
    succ[order[-1]] = order[-1]
    return succ


@pytest.fixture
def make_list():
    return random_list
