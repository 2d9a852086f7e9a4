"""Pinned, device-mapped host memory: where a graph that does not fit the GPU lives.

``empty(shape, dtype)`` returns a ``Pinned`` pair of views of one ``cudaHostAlloc`` block
(portable, mapped): ``host`` (NumPy, for the CPU and bulk copies) and ``device`` (CuPy, at the
block's device pointer: under unified addressing a kernel handed it reads host memory over the
link, zero-copy).  The block is freed when the last view of it goes.  ``copy_to_device`` and
``copy_to_host`` are the bulk copies (``cudaMemcpyAsync`` on a stream) the streaming kernels
overlap with their work.
"""

import ctypes
import weakref
from dataclasses import dataclass

import numpy as np

_PORTABLE, _MAPPED = 1, 2          # cudaHostAllocPortable | cudaHostAllocMapped
_HOST_TO_DEVICE, _DEVICE_TO_HOST = 1, 2


class _Block:
    """One pinned allocation; frees itself when no view refers to it any more."""

    def __init__(self, nbytes: int):
        from cupy.cuda import runtime
        self.nbytes = nbytes
        self.ptr = runtime.hostAlloc(max(nbytes, 1), _PORTABLE | _MAPPED)
        # Under unified addressing this is the host address itself; ask rather than assume.
        self.device_ptr = runtime.pointerGetAttributes(self.ptr).devicePointer
        weakref.finalize(self, runtime.freeHost, self.ptr)


@dataclass(frozen=True)
class Pinned:
    host: np.ndarray     # NumPy view
    device: object       # CuPy view of the same bytes (zero-copy reads over the link)


def empty(shape, dtype) -> Pinned:
    """An uninitialised pinned array of ``shape`` and ``dtype``, seen from the host and the device."""
    import cupy
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    block = _Block(nbytes)
    raw = (ctypes.c_byte * max(nbytes, 1)).from_address(block.ptr)
    host = np.frombuffer(raw, dtype=np.uint8, count=nbytes).view(dtype).reshape(shape)
    # The NumPy view keeps the block alive through its base chain; the CuPy view through its owner.
    host_base = _Keep(host, block)
    memory = cupy.cuda.UnownedMemory(block.device_ptr, max(nbytes, 1), block, cupy.cuda.Device().id)
    device = cupy.ndarray(shape, dtype, cupy.cuda.MemoryPointer(memory, 0))
    return Pinned(host_base.view, device)


class _Keep:
    """A NumPy view whose ``base`` holds the pinned block (so the block outlives every view)."""

    def __init__(self, array: np.ndarray, block: _Block):
        self._block = block
        self.__array_interface__ = array.__array_interface__
        self.view = np.asarray(self)


def copy_to_device(dst, src: np.ndarray, stream=None) -> None:
    """Bulk copy pinned ``src`` (NumPy) into device array ``dst`` on ``stream`` (asynchronous)."""
    from cupy.cuda import runtime
    nbytes = int(src.nbytes)
    if nbytes:
        runtime.memcpyAsync(dst.data.ptr, src.ctypes.data, nbytes, _HOST_TO_DEVICE,
                            (stream or _current()).ptr)


def copy_to_host(dst: np.ndarray, src, stream=None) -> None:
    """Bulk copy device array ``src`` into pinned ``dst`` (NumPy) on ``stream`` (asynchronous)."""
    from cupy.cuda import runtime
    nbytes = int(src.nbytes)
    if nbytes:
        runtime.memcpyAsync(dst.ctypes.data, src.data.ptr, nbytes, _DEVICE_TO_HOST,
                            (stream or _current()).ptr)


def _current():
    import cupy
    return cupy.cuda.get_current_stream()
