"""What the APSP kernels share: the refusals made before anything runs, the adjacency matrix
(GPU kernels in apsp.cu, NumPy on the CPU) and the unreachable -> -1 pass."""

import os

import numpy as np

from graphsweep.core import capacity
from graphsweep.core.errors import ParameterError

from ..cuda import blocks_for, c_type, module

AP_INF = 0x3FFFFFFF            # "no path" inside: AP_INF + AP_INF < 2^31


def grid(n: int, threads: int) -> int:
    """Blocks for a grid-stride kernel over n items (at most 2^16: each thread then takes several)."""
    return min(blocks_for(n, threads), 1 << 16)


def apsp_module(inp):
    return module("apsp/apsp.cu", name_expressions=(f"graphsweep_apsp_edges<{c_type(inp.src.dtype)}>",))


def free_bytes(backend: str) -> int:
    """Memory a new allocation can take: free device memory plus the free blocks of the pool CuPy
    allocates from (``capacity.device_memory``), or the host's available pages."""
    if backend == "gpu":
        return capacity.device_memory()
    return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))


def check_fits(inp, name: str, matrix_bytes: int, extra_bytes: int = 0) -> None:
    """Refuse, in one line and before any kernel runs, a matrix the memory cannot hold or distances
    that could reach AP_INF."""
    n = inp.n
    need = matrix_bytes + extra_bytes
    have = free_bytes(inp.backend)
    where = "device" if inp.backend == "gpu" else "host"
    if need > have:
        raise ParameterError(f"{name}: the {n} x {n} distance matrix needs {need / 2**30:.1f} GiB of {where} "
                             f"memory and {have / 2**30:.1f} GiB are free")
    if inp.weight is not None and inp.m:
        top = int(inp.xp.max(inp.weight))
        if (n - 1) * top >= AP_INF:
            raise ParameterError(f"{name} keeps distances in int32 below 2^30 - 1: (n - 1) x the largest weight "
                                 f"= {n - 1} x {top} could reach it")


def build_gpu(inp, mat, timer, threads: int = 256) -> None:
    """``mat`` (rows x stride, padding included): 0 on the diagonal, AP_INF elsewhere, each edge's
    lightest weight."""
    rows, stride = mat.shape
    mod = apsp_module(inp)
    m = inp.m
    with timer.phase("matrix", read=m * (2 * inp.src.itemsize + 4), written=4 * rows * stride,
                     random=m * (1 if inp.directed else 2)):
        mod.get_function("graphsweep_apsp_fill")((grid(rows * stride, threads),), (threads,),
                                                 (mat, np.int64(rows), np.int64(stride)))
        if m:
            mod.get_function(f"graphsweep_apsp_edges<{c_type(inp.src.dtype)}>")(
                (grid(m, threads),), (threads,),
                (mat, np.int64(stride), inp.src, inp.dst, inp.weight, np.int64(m), np.int32(not inp.directed)))


def unpack_gpu(inp, mat, timer, threads: int = 256) -> None:
    total = mat.size
    with timer.phase("unpack", read=4 * total, written=4 * total):
        apsp_module(inp).get_function("graphsweep_apsp_unpack")((grid(total, threads),), (threads,),
                                                                (mat, np.int64(total)))


def build_cpu(inp, timer) -> np.ndarray:
    n, m = inp.n, inp.m
    with timer.phase("matrix", read=m * (2 * inp.src.itemsize + 4), written=4 * n * n,
                     random=m * (1 if inp.directed else 2)):
        mat = np.full((n, n), AP_INF, dtype=np.int32)
        np.fill_diagonal(mat, 0)
        np.minimum.at(mat, (inp.src, inp.dst), inp.weight)
        if not inp.directed:
            np.minimum.at(mat, (inp.dst, inp.src), inp.weight)
    return mat


def unpack_cpu(mat, timer) -> None:
    with timer.phase("unpack", read=4 * mat.size, written=4 * mat.size):
        mat[mat >= AP_INF] = -1
