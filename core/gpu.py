"""Whether a CUDA device is usable from this process (CuPy installed and a device present), and
what the memory pool CuPy allocates from holds free."""

import sys
import warnings
from functools import cache

# Where work runs, for kernels and generators alike: "auto" is the GPU when a CUDA device is usable
# and the work has a GPU path, else the CPU.  A backend's arrays are NumPy ("cpu") or CuPy ("gpu");
# "device" names the hardware itself (a result row's GPU or CPU model), never a backend.
BACKENDS = ("auto", "gpu", "cpu")


@cache
def available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, or no device: all mean "CPU only"
        return False


def choose(backend: str, has_gpu_path: bool) -> str:
    """``backend`` with "auto" replaced by "gpu" or "cpu"."""
    if backend == "auto":
        return "gpu" if has_gpu_path and available() else "cpu"
    return backend


def backend_named(backend: str, device: str | None, where: str) -> str:
    """``backend``, or the value of the keyword ``device=`` that named it before graphsweep called
    it ``backend=`` (still read, with a FutureWarning)."""
    if device is None:
        return backend
    warnings.warn(f"{where}(device=...) is deprecated; write backend={device!r}", FutureWarning, stacklevel=3)
    return device


def is_device(arr) -> bool:
    """Whether ``arr`` is a CuPy (device) array."""
    return type(arr).__module__.startswith("cupy")


def backend_module(backend: str):
    """The arrays' module of a backend: CuPy for "gpu", NumPy for "cpu"."""
    if backend == "gpu":
        import cupy
        return cupy
    import numpy
    return numpy


def array_module(arr):
    """NumPy or CuPy, whichever owns ``arr`` (``cupy.get_array_module``; NumPy without CuPy)."""
    try:
        import cupy
    except ImportError:
        import numpy
        return numpy
    return cupy.get_array_module(arr)


def to_host(arr):
    """A NumPy array with the contents of ``arr`` (a no-op for NumPy input)."""
    if is_device(arr):
        return arr.get()
    return arr


def device_errors() -> tuple:
    """The exception types of a failing or full GPU (CuPy's), empty without CuPy: a task that
    raised one may have left the device unusable for the dataset it holds."""
    try:
        import cupy
    except ImportError:
        return ()
    return (cupy.cuda.memory.OutOfMemoryError, cupy.cuda.runtime.CUDARuntimeError, cupy.cuda.driver.CUDADriverError)


@cache
def device_properties(device_id: int) -> dict:
    """CUDA device ``device_id``'s properties, read once a process (a read takes ~1.5 ms; it makes no
    CUDA context)."""
    import cupy
    return cupy.cuda.runtime.getDeviceProperties(device_id)


def pool_free_bytes() -> int:
    """Bytes the memory pool CuPy allocates from holds free, ready for a new allocation: CuPy's own
    pool, or RMM's when CuPy allocates through it (a dask-cuda worker started with ``rmm_pool_size``
    and ``rmm_allocator_external_lib_list: [cupy]``).  An RMM pool is known by its size less what
    its tracking (or statistics) adaptor counts allocated; without one it counts as full."""
    import cupy
    allocator = sys.modules.get("rmm.allocators.cupy")
    if allocator is None or cupy.cuda.memory.get_allocator() is not allocator.rmm_cupy_allocator:
        return int(cupy.get_default_memory_pool().free_bytes())
    import rmm
    mr, allocated = rmm.mr.get_current_device_resource(), None
    while not isinstance(mr, rmm.mr.PoolMemoryResource):
        if allocated is None and isinstance(mr, rmm.mr.TrackingResourceAdaptor):
            allocated = mr.get_allocated_bytes()
        elif allocated is None and isinstance(mr, rmm.mr.StatisticsResourceAdaptor):
            allocated = mr.allocation_counts.current_bytes
        if not isinstance(mr, rmm.mr.UpstreamResourceAdaptor):
            return 0                                # no pool (rmm_async: CUDA's pool keeps no count here)
        mr = mr.get_upstream()
    return max(int(mr.pool_size()) - int(allocated), 0) if allocated is not None else 0
