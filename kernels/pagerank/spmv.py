"""pagerank.spmv — PageRank as one sparse matrix-vector product per iteration (the baseline).

Returns ``{"score"}`` (see the package doc).  The simple graph's adjacency matrix A (ones of the
score type on the simple CSR, made once per graph and type by ``setup``, untimed) times the
contribution vector is
each vertex's incoming sum; element-wise array operations then make the new scores, the L1
change, the contributions and the dangling score (GAPBS's src/pr_spmv.cc in library calls).  GPU:
``cupyx.scipy.sparse`` (cuSPARSE SpMV) and CuPy array operations; CPU: ``scipy.sparse``.  Phases:
``spmv`` (the product alone: the issue's cuSPARSE baseline) and ``update``.  A matrix carries a
value per edge that the pull kernels do not read: 4 (float64: 8) more bytes per edge per iteration.
"""

import numpy as np

from graphsweep.core.errors import ParameterError

from ..contract import Kernel
from . import DAMPING, DTYPE_PARAM, PAGERANK, PARAMS, check_tolerance, start_of

KEY = "pagerank.spmv.matrix"


def setup(inp, params) -> None:
    check_tolerance(inp, params)
    dtype = np.dtype(params["dtype"])
    if (KEY, dtype) in inp.cache:
        return
    csr = inp.representation("simple")
    values = inp.xp.ones(csr.nnz, dtype=dtype)
    if inp.backend == "gpu":
        import cupyx.scipy.sparse as sparse
        if csr.nnz >= 2**31:
            raise ParameterError(f"pagerank.spmv: cuSPARSE takes fewer than 2^31 nonzeros (nnz = {csr.nnz})")
        matrix = sparse.csr_matrix((values, csr.indices.astype(np.int32), csr.offsets.astype(np.int32)),
                                   shape=(csr.n, csr.n))
    else:
        import scipy.sparse as sparse
        matrix = sparse.csr_matrix((values, csr.indices, csr.offsets), shape=(csr.n, csr.n))
    degree = csr.degree()
    inverse = inp.xp.where(degree > 0, 1.0 / inp.xp.maximum(degree, 1), 0.0).astype(dtype)
    inp.cache[KEY, dtype] = (matrix, inverse, degree == 0)


def run(inp, params, timer):
    xp = inp.xp
    setup(inp, params)       # a no-op after the harness's call; direct callers get the matrix too
    dtype = np.dtype(params["dtype"])
    matrix, inverse, dangling_mask = inp.cache[KEY, dtype]
    n, nnz, size = inp.n, int(matrix.nnz), dtype.itemsize
    spread = params["dangling"] == "spread"
    a, c = start_of(inp, params, timer)
    with timer.phase("init", written=2 * size * n):
        score = (a + c * inp.representation("simple").degree()).astype(dtype) if c else xp.full(n, a, dtype=dtype)
        contrib = score * inverse
    dangling = float(xp.count_nonzero(dangling_mask)) * a      # each vertex without edges starts at a
    errors = []
    for it in range(params["max_iterations"]):
        with timer.phase("spmv", step=it, read=4 * (n + 1) + (4 + size) * nnz, written=size * n, random=nnz):
            incoming = matrix @ contrib
        with timer.phase("update", read=(3 * size + 1) * n, written=2 * size * n):
            share = dtype.type(dangling / n if spread else 0.0)
            updated = dtype.type((1.0 - DAMPING) / n) + dtype.type(DAMPING) * (incoming + share)
            error = xp.abs(updated - score).sum(dtype=np.float64)
            dangling = updated[dangling_mask].sum(dtype=np.float64)
            score, contrib = updated, updated * inverse
            errors.append(float(error))           # the host reads the L1 change every iteration
            dangling = float(dangling)
        if errors[-1] < params["tolerance"]:
            break
    timer.stat("iterations", len(errors))
    timer.stat("error", errors[-1])
    timer.stat("converged", errors[-1] < params["tolerance"])
    return {"score": score}


KERNEL = Kernel(name="pagerank.spmv", problem=PAGERANK,
                summary="PageRank as a sparse matrix-vector product per iteration (cuSPARSE through "
                        "cupyx.scipy.sparse; scipy.sparse on the CPU): the library baseline",
                gpu=run, cpu=run, params={**PARAMS, **DTYPE_PARAM}, setup=setup, needs=("simple",))
