"""apsp.blocked-floyd-warshall — tiled Floyd-Warshall with a register-blocked min-plus product.

Returns dist (n x n int32, -1 where there is no path): a view of a matrix padded to a multiple
of 128.

Algorithm: blocked Floyd-Warshall (Venkataraman, Sahni & Mukhopadhyaya 2003; on GPUs Katz & Kider
2008) with k-blocks of 128 vertices, three phases per block-row kb (apsp.cu):
  diagonal — the 128 x 128 tile (kb, kb) closed by Floyd-Warshall in shared memory (one block);
  panels   — the other tiles of row kb and column kb as min-plus products with the closed tile;
  min-plus — every other tile: A = min(A, column panel (x) row panel), a min-plus GEMM with K = 128;
the panels and the rest share one tile routine: 256 threads each keep an 8 x 8 block of C in
registers, A and B pass through shared memory 32 k at a time, and each k costs a thread 4 LDS.128
for 64 VIADDMNMX (Hopper's DPX fused add-min: one instruction per min-plus step).
Work is n^3 min-plus steps (4.4e12 at 16K) whatever the edges, bound by the integer pipes (64
lanes per SM per clock: 16.7e12 steps/s on an H200 at 1.98 GHz); the matrix is read and written
once per block-row (8 n^2 bytes x n / 128), 64 min-plus steps per byte of it.  Harish & Narayanan's
Alg. 6 (apsp.floyd-warshall) streams the matrix once per k instead: 128x the traffic, at the copy
rate.  (A first version with k-blocks of 64 ran its GEMM at 47% of the copy rate and 58% of the
int32 peak at 8K: K = 64 left it half memory-bound.)
The CPU twin runs the same three phases with Numba (tiles in parallel).
"""

import numba
import numpy as np

from ..contract import Kernel, Param
from . import APSP
from .matrix import AP_INF, apsp_module, build_cpu, build_gpu, check_fits, unpack_cpu, unpack_gpu

FB = 128                    # k-block = tile side, fixed in apsp.cu

PARAMS = {"block": Param(64, int, minimum=1, help="k-block of the CPU twin (the GPU's is 64, its tiles 128)")}


def padded(n: int) -> int:
    return -(-n // FB) * FB


def setup(inp, params) -> None:
    vp = padded(inp.n) if inp.backend == "gpu" else inp.n
    check_fits(inp, "apsp.blocked-floyd-warshall", 4 * vp * vp)


def run_gpu(inp, params, timer):
    import cupy
    n = inp.n
    vp = padded(n)
    nb = vp // FB
    mat = cupy.empty((vp, vp), dtype=np.int32)
    build_gpu(inp, mat, timer)
    mod = apsp_module(inp)
    diagonal = mod.get_function("graphsweep_apsp_bfw_diag")
    diagonal.max_dynamic_shared_size_bytes = 4 * FB * FB
    panels = mod.get_function("graphsweep_apsp_bfw_panels")
    minplus = mod.get_function("graphsweep_apsp_bfw_minplus")
    stride = np.int64(vp)
    tile = 4 * FB * FB          # a tile routine reads C, A and B and writes C
    for kb in range(nb):
        k = np.int32(kb)
        with timer.phase("diagonal", read=tile, written=tile):
            diagonal((1,), (1024,), (mat, stride, k), shared_mem=tile)
        with timer.phase("panels", read=3 * 2 * (nb - 1) * tile, written=2 * (nb - 1) * tile):
            panels((nb, 2), (256,), (mat, stride, k))
        with timer.phase("min-plus", read=3 * (nb - 1) ** 2 * tile, written=(nb - 1) ** 2 * tile):
            minplus((nb, nb), (256,), (mat, stride, k))
    unpack_gpu(inp, mat, timer)
    timer.stat("minplus_ops", vp**3)
    timer.stat("padded_n", vp)
    return {"dist": mat[:n, :n]}


# --- CPU twin: the same three phases per k-block, tiles in parallel -----------------------------

@numba.njit(cache=True)
def _close(mat, k0, k1, r0, r1, c0, c1):
    """Floyd-Warshall over k in [k0, k1) on the tile rows [r0, r1) x columns [c0, c1)."""
    for k in range(k0, k1):
        for i in range(r0, r1):
            a = mat[i, k]
            if a >= AP_INF:
                continue
            for j in range(c0, c1):
                via = a + mat[k, j]
                if via < mat[i, j]:
                    mat[i, j] = via


@numba.njit(parallel=True, cache=True)
def _blocked(mat, block):
    n = mat.shape[0]
    nb = (n + block - 1) // block
    for kb in range(nb):
        k0, k1 = kb * block, min(n, kb * block + block)
        _close(mat, k0, k1, k0, k1, k0, k1)
        for t in numba.prange(2 * nb):
            j = t // 2
            if j == kb:
                continue
            j0, j1 = j * block, min(n, j * block + block)
            if t % 2 == 0:
                _close(mat, k0, k1, k0, k1, j0, j1)      # row panel (kb, j)
            else:
                _close(mat, k0, k1, j0, j1, k0, k1)      # column panel (j, kb)
        for t in numba.prange(nb * nb):
            i, j = t // nb, t % nb
            if i == kb or j == kb:
                continue
            _close(mat, k0, k1, i * block, min(n, i * block + block), j * block, min(n, j * block + block))


def run_cpu(inp, params, timer):
    n, block = inp.n, params["block"]
    mat = build_cpu(inp, timer)
    with timer.phase("blocked", read=8 * n * n * (-(-n // block)), written=4 * n * n * (-(-n // block))):
        _blocked(mat, block)
    unpack_cpu(mat, timer)
    timer.stat("minplus_ops", n**3)
    return {"dist": mat}


KERNEL = Kernel(name="apsp.blocked-floyd-warshall", problem=APSP,
                summary="tiled Floyd-Warshall: 64-vertex k-blocks, 128 x 128 min-plus tiles, 8 x 8 register "
                        "blocks, DPX add-min",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup)
