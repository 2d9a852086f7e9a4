"""Shared fixtures.  Tests marked ``gpu`` run only where CuPy sees a CUDA device.

With ``GRAPHSWEEP_REQUIRE_GPU=1`` (the runs on GPU machines) a ``gpu`` test that skips — no
device, no CuPy, a missing dependency, a ``pytest.skip`` inside it — fails instead, so a broken
CuPy path cannot pass as skipped.
"""

import os

import numpy as np
import pytest

from graphsweep.core import gpu

REQUIRE_GPU = os.environ.get("GRAPHSWEEP_REQUIRE_GPU", "").strip().lower() in ("1", "true", "yes")


def pytest_collection_modifyitems(config, items):
    if gpu.available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device with CuPy (none here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_GPU and report.skipped and item.get_closest_marker("gpu") is not None and not _too_few_gpus(item):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"GRAPHSWEEP_REQUIRE_GPU=1, but this gpu test skipped: {reason}"


def _too_few_gpus(item) -> bool:
    """A ``multi_gpu`` test on a machine of one GPU: skipped even where GPUs are required."""
    if item.get_closest_marker("multi_gpu") is None:
        return False
    import cupy
    return cupy.cuda.runtime.getDeviceCount() < 2


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
