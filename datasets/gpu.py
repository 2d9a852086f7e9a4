"""Whether a CUDA device is usable from this process (CuPy installed and a device present)."""

from functools import cache


@cache
def available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, or no device: all mean "CPU only"
        return False


def is_device(arr) -> bool:
    """Whether ``arr`` is a CuPy (device) array."""
    return type(arr).__module__.startswith("cupy")


def array_module(arr):
    """NumPy or CuPy, whichever owns ``arr``."""
    if is_device(arr):
        import cupy
        return cupy
    import numpy
    return numpy


def to_host(arr):
    """A NumPy array with the contents of ``arr`` (a no-op for NumPy input)."""
    if is_device(arr):
        return arr.get()
    return arr
