"""What every GPU launcher shares: compiling the ``.cu`` files beside the algorithm modules (NVRTC
through CuPy), launch sizes, grid parameters and device facts.

Modules are cached per device and per compile options, like CuPy's ``@memoize(for_each_device)``;
CuPy also caches the compiled binary on disk, so warm-up pays compilation once per machine.
"""

from functools import cache
from pathlib import Path

import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import device_properties
from graphsweep.core.params import Param

KERNELS_DIR = Path(__file__).parent

# The launch shape every GPU kernel takes as parameters, so tests reach multi-block paths on tiny inputs.
GRID_PARAMS = {
    "threads": Param(256, minimum=32, help="threads per block (a multiple of 32)"),
    "blocks": Param(None, minimum=1, help="thread blocks (default: enough to cover the work, "
                                          "or the SM count times blocks per SM for persistent kernels)"),
}


@cache
def _module(device_id: int, source: str, options: tuple, name_expressions: tuple):
    import cupy
    code = (KERNELS_DIR / source).read_text()
    return cupy.RawModule(code=code, options=("-std=c++17", f"-I{KERNELS_DIR}", *options),
                          name_expressions=name_expressions or None)


def module(source: str, options: tuple = (), name_expressions: tuple = ()):
    """The compiled RawModule of ``source`` (a path relative to kernels/, e.g. 'listrank/wyllie.cu')."""
    import cupy
    return _module(cupy.cuda.Device().id, source, tuple(options), tuple(name_expressions))


def modules_made() -> int:
    """Modules this process has compiled or loaded so far (a first run's cost: harness.first_run_marks)."""
    return _module.cache_info().misses


def sm_count() -> int:
    import cupy
    return int(device_properties(cupy.cuda.Device().id)["multiProcessorCount"])


def thread_slots_per_sm() -> int:
    """Threads one SM holds at once (2048 on Volta to Hopper, 1536 on some consumer parts)."""
    import cupy
    return int(device_properties(cupy.cuda.Device().id)["maxThreadsPerMultiProcessor"])


def c_type(dtype) -> str:
    """The C type of an int32 or int64 array, for template instantiation."""
    return "int" if np.dtype(dtype) == np.int32 else "long long"


def shared_per_block_optin() -> int:
    """Shared memory a block may ask for beyond the default 48 KB (227 KB on Hopper)."""
    import cupy
    return int(device_properties(cupy.cuda.Device().id)["sharedMemPerBlockOptin"])


def l2_bytes() -> int:
    import cupy
    return int(device_properties(cupy.cuda.Device().id)["l2CacheSize"])


def clock_khz() -> int:
    """The SMs' peak clock (kHz): with the SM count, the device's compute peaks (APSP's add-min rate)."""
    import cupy
    return int(device_properties(cupy.cuda.Device().id)["clockRate"])


def device_name() -> str:
    import cupy
    name = device_properties(cupy.cuda.Device().id)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def blocks_for(n: int, threads: int, blocks: int | None = None) -> int:
    """``blocks`` if given, else enough blocks of ``threads`` to cover ``n`` (at least 1)."""
    return int(blocks) if blocks else max(1, -(-int(n) // int(threads)))


def check_threads(threads: int) -> int:
    if threads % 32 or threads > 1024:
        raise ParameterError(f"parameter 'threads': {threads} is not a multiple of 32 up to 1024")
    return threads


def resident_blocks(threads: int) -> int:
    """Blocks of ``threads`` that fill every SM's thread slots once (a persistent grid)."""
    return sm_count() * max(1, thread_slots_per_sm() // threads)


def launch(fn, n: int, threads: int, blocks, *args):
    """Launch ``fn`` on a grid-stride grid: ``blocks`` if given, else enough to cover ``n``."""
    fn((blocks_for(n, threads, blocks),), (threads,), args)


def _function(fn):
    """The driver-level function of a RawKernel, or ``fn`` itself (RawModule.get_function)."""
    return getattr(fn, "kernel", fn)


def resident_blocks_of(fn, threads: int, shared_bytes: int = 0) -> int:
    """Blocks of ``threads`` of kernel ``fn`` the whole device holds at once: the occupancy
    calculator's count per SM (registers, shared memory) times the SMs; refuses a block that fits
    no SM."""
    from cupy.cuda import driver
    per_sm = driver.occupancyMaxActiveBlocksPerMultiprocessor(_function(fn).ptr, threads, shared_bytes)
    if per_sm < 1:
        shared = f" with {shared_bytes} bytes of shared memory" if shared_bytes else ""
        raise ParameterError(f"parameter 'threads': a block of {threads} threads{shared} does not fit on an SM")
    return per_sm * sm_count()


def persistent_blocks(fn, threads: int, shared_bytes: int = 0, blocks: int | None = None) -> int:
    """Blocks of a grid that synchronises across blocks: every block must be resident at once, so
    at most ``resident_blocks_of``; ``blocks`` (the parameter) may ask for fewer, not more."""
    most = resident_blocks_of(fn, threads, shared_bytes)
    if blocks is not None and blocks > most:
        raise ParameterError(f"parameter 'blocks': {blocks} blocks of {threads} threads cannot all be resident "
                             f"(at most {most} on this device); a grid barrier needs them all")
    return blocks or most


def launch_cooperative(fn, blocks: int, threads: int, args: tuple, shared_bytes: int = 0):
    """Launch a kernel that synchronises its whole grid through cuLaunchCooperativeKernel, which
    refuses a grid that cannot be co-resident instead of hanging."""
    _function(fn)((blocks,), (threads,), args, shared_mem=shared_bytes, enable_cooperative_groups=True)
