"""What a sweep's estimate says before it runs: memory a task really holds."""

import tracemalloc

import numpy as np
import pytest

from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import harness, registry
from graphsweep.pipeline import estimate

LIST_KERNELS = [name for name in registry.names() if name not in registry.ALIASES
                and registry.get(name).problem.name == "listrank" and registry.get(name).cpu is not None
                and not registry.get(name).requires]   # scan: ordered lists only


@pytest.mark.parametrize("name", LIST_KERNELS)
def test_a_cpu_list_task_holds_no_more_than_the_memory_check_counts(tmp_path, make_list, name):
    n = 1 << 16
    path = write_arrays(tmp_path / "list", kind="list", n=n, columns={"succ": make_list(n, seed=5)},
                        generator={"name": "random_list", "params": {"n": n}, "seed": 5})
    small = write_arrays(tmp_path / "small", kind="list", n=1000, columns={"succ": make_list(1000, seed=5)},
                         generator={"name": "random_list", "params": {"n": 1000}, "seed": 5})
    harness.run(name, small, backend="cpu", reps=1, warmup=0)    # compiled before measuring
    tracemalloc.start()
    try:
        harness.run(name, path, backend="cpu", reps=4, warmup=1)   # read, checked, run, verified
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= estimate.task_memory("list", n, 0, "cpu"), f"{peak / n:.1f} B per node"
