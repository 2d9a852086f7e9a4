"""Room for a piece of work: free disk under a path, available host memory, free device memory,
and the one-line refusal when an estimate does not fit (``need 8 TiB of disk under /data, have
120 GiB``).  Estimates themselves live with what they estimate (generators.estimate,
pipeline.estimate, the importers' check in the CLI)."""

import shutil
from pathlib import Path

from dask.utils import format_bytes  # noqa: F401  (the one byte formatter: 1.50 GiB)

from .errors import GraphsweepError


class NoRoomError(GraphsweepError):
    """The work would need more disk or memory than there is; nothing was started."""


def nearest_existing(path) -> Path:
    """``path`` or its nearest ancestor that exists (where a new file's bytes will go)."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_disk(path) -> int:
    """Bytes free on the file system that ``path`` (or its nearest existing ancestor) is on."""
    return shutil.disk_usage(nearest_existing(path)).free


def available_memory() -> int:
    """Host memory a new allocation can get now (free plus reclaimable caches)."""
    import psutil
    return psutil.virtual_memory().available


def device_memory(total: bool = False) -> int | None:
    """Bytes a new allocation can get on the current CUDA device — free device memory plus the free
    blocks of the memory pool CuPy allocates from (CuPy's or RMM's) — or its ``total``; None
    without a device.  A sweep's workers keep a memory pool between tasks, so their check uses the
    total."""
    from . import gpu
    if not gpu.available():
        return None
    import cupy
    if total:  # from the device's properties: no CUDA context is made in this process for it
        return int(gpu.device_properties(cupy.cuda.runtime.getDevice())["totalGlobalMem"])
    return int(cupy.cuda.runtime.memGetInfo()[0]) + gpu.pool_free_bytes()


def check(subject: str, needs) -> None:
    """Raise NoRoomError naming every shortfall among ``needs``: (what, bytes needed, bytes there
    are or None when unknown), e.g. ("disk under /data", 8e12, 1.2e11)."""
    short = [f"need {format_bytes(need)} of {what}, have {format_bytes(have)}"
             for what, need, have in needs if have is not None and need > have]
    if short:
        raise NoRoomError(f"{subject}: {'; '.join(short)}")
