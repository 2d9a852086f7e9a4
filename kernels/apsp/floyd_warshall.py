"""apsp.floyd-warshall — Harish & Narayanan's parallel Floyd-Warshall: V^2 threads, one launch per k.

Returns dist (n x n int32, -1 where there is no path).

Algorithm (HiPC'07 §3.4, Alg. 6; the CREW PRAM Floyd-Warshall): the adjacency matrix A is built
on the device (a timed phase ``matrix``: 0 diagonal, AP_INF elsewhere, each edge's lightest
weight); then for k = 0 .. V-1 one launch of a V x V grid of threads sets
A[i][j] = min(A[i][j], A[i][k] + A[k][j]) (row and column k do not change in step k, so in place).
Each launch streams the whole matrix: 8 V^2 bytes per k, 8 V^3 in all, so it runs at the copy
rate and is memory-bound where the blocked variant is compute-bound.  The store is skipped when
nothing shortens (fewer writes than the paper's unconditional one, same result).
The CPU twin runs the same k loop with Numba, rows in parallel.
"""

import numba
import numpy as np

from ..contract import Kernel, Param
from . import APSP
from .matrix import AP_INF, apsp_module, build_cpu, build_gpu, check_fits, unpack_cpu, unpack_gpu

PARAMS = {"threads": Param(256, int, minimum=32, help="threads per block (32 x threads/32 blocks of the V x V grid)")}


def setup(inp, params) -> None:
    check_fits(inp, "apsp.floyd-warshall", 4 * inp.n * inp.n)


def run_gpu(inp, params, timer):
    import cupy
    from ..cuda import check_threads
    n, threads = inp.n, check_threads(params["threads"])
    mat = cupy.empty((n, n), dtype=np.int32)
    build_gpu(inp, mat, timer)
    step = apsp_module(inp).get_function("graphsweep_apsp_fw_step")
    block = (32, threads // 32)
    grid = (-(-n // 32), -(-n // block[1]))
    size = np.int64(n)
    with timer.phase("k-loop", read=4 * n**3 + 8 * n * n, written=4 * n**3):
        for k in range(n):                               # Alg. 6 line 2, on the host
            step(grid, block, (mat, size, np.int64(k)))
    unpack_gpu(inp, mat, timer)
    timer.stat("minplus_ops", n**3)
    return {"dist": mat}


@numba.njit(parallel=True, cache=True)
def _floyd_warshall(mat):
    n = mat.shape[0]
    for k in range(n):
        row_k = mat[k].copy()
        for i in numba.prange(n):
            a = mat[i, k]
            if a >= AP_INF:
                continue
            row = mat[i]
            for j in range(n):
                via = a + row_k[j]
                if via < row[j]:
                    row[j] = via


def run_cpu(inp, params, timer):
    n = inp.n
    mat = build_cpu(inp, timer)
    with timer.phase("k-loop", read=4 * n**3 + 8 * n * n, written=4 * n**3):
        _floyd_warshall(mat)
    unpack_cpu(mat, timer)
    timer.stat("minplus_ops", n**3)
    return {"dist": mat}


KERNEL = Kernel(name="apsp.floyd-warshall", problem=APSP,
                summary="Harish & Narayanan's Floyd-Warshall: V^2 threads, one launch per k (HiPC'07 Alg. 6)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup)
