"""Clusters for the partitioned kernels' tests: CPU worker processes (the Dask transport, as CI
runs it) and, on a machine of two GPUs or more, a dask-cuda cluster of one worker per GPU (NCCL)."""

import cloudpickle
import pytest
from graphsweep.kernels.dist import driver


@pytest.fixture(scope="session")
def workers4():
    """The address of 4 local worker processes of one thread (more workers than CI's cores: the
    ranks of a run share them), kept for the session; the CPU twins compiled first, as the driver
    does before its own workers start (``driver.compile_cpu_twins``)."""
    from distributed import LocalCluster
    driver.compile_cpu_twins()
    cluster = LocalCluster(n_workers=4, threads_per_worker=1, processes=True, dashboard_address=":0", memory_limit=0)
    yield cluster.scheduler_address
    driver.close_local()
    _close(cluster)


@pytest.fixture(scope="session")
def cuda_workers():
    """The address of a dask-cuda cluster of one worker per GPU (skipped below two GPUs)."""
    import cupy
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two GPUs or more (one NCCL rank per GPU)")
    from dask_cuda import LocalCUDACluster
    cluster = LocalCUDACluster(dashboard_address=":0", threads_per_worker=1)
    yield cluster.scheduler_address
    driver.close_local()
    _close(cluster)


def _close(cluster) -> None:
    """Close a session's cluster; workers slow to stop (GPU contexts, NCCL communicators) are the
    nanny's to kill, not a failure of the last test."""
    try:
        cluster.close(timeout=30)
    except (TimeoutError, OSError):
        pass


def by_value(module) -> None:
    """Workers in other processes get a test module's functions by value (they cannot import
    a test module by name)."""
    cloudpickle.register_pickle_by_value(module)
