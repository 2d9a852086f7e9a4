"""pagerank.pull — GAPBS's pull PageRank: every vertex gathers its neighbours' contributions.

Returns ``{"score"}`` (float32, or float64 with ``dtype``; see the package doc).  Algorithm (GAPBS src/pr_spmv.cc, the
Jacobi form of src/pr.cc): contributions c[u] = score[u] / degree[u] are kept beside the scores;
an iteration is one pass over the simple CSR in which each vertex sums c over its row, writes
its new score, adds |new - old| to the L1 change and writes its next contribution (fused: no
separate pass over the vertices).  The host reads the L1 change after each iteration (GAPBS's
``error < epsilon`` test) and stops below ``tolerance`` or after ``max_iterations``.

GPU: one thread per vertex, as GAPBS's OpenMP loop (``pagerank.pull-warp`` gives a vertex a
group of lanes).  Work per iteration: one pass over offsets and indices and one random 4-byte
gather per edge — the memory floor ``benchmarks/gap.py`` prints beside the time.  CPU twin: the
same fused pass with Numba prange (GAPBS's loop).  Each iteration is a step row (its L1 change).
"""

import numba
import numpy as np

from graphsweep.core.errors import ParameterError

from ..contract import Kernel
from ..cuda import GRID_PARAMS, check_threads, module, resident_blocks
from ..graph.simple import long_rows
from . import DAMPING, DTYPE_PARAM, PAGERANK, PARAMS, check_tolerance, start_of


def check_gpu_graph(csr) -> None:
    """GPU PageRank holds vertex ids in 32 bits."""
    if csr.indices.dtype != np.int32:
        raise ParameterError(f"GPU PageRank takes graphs of fewer than 2^31 vertices (n = {csr.n}); use the CPU twin")


def iteration_traffic(n: int, nnz: int, score_bytes: int) -> dict:
    """One iteration: offsets (8 B), score read and written, contribution written (``score_bytes``
    each) per vertex; a 4-byte index and a random contribution gather per edge."""
    return {"read": 8 * (n + 1) + score_bytes * n + (4 + score_bytes) * nnz, "written": 2 * score_bytes * n,
            "random": nnz}


NO_SPLIT = np.iinfo(np.int64).max


def run_gpu_lanes(inp, params, timer, lanes: int, split: int | None = None):
    """The pull iterations with ``lanes`` threads per vertex; rows longer than ``split`` edges (None:
    none) are summed in chunks of ``split`` edges by a warp each, then updated by a thread each."""
    import cupy
    csr = inp.representation("simple")
    check_gpu_graph(csr)
    n, nnz = csr.n, csr.nnz
    threads = check_threads(params["threads"])
    if lanes not in (1, 2, 4, 8, 16, 32):
        raise ParameterError(f"parameter 'lanes': {lanes} is not a power of two up to 32")
    blocks = params["blocks"] or min(resident_blocks(threads), -(-n * lanes // threads))
    dtype = np.dtype(params["dtype"])
    real = "float" if dtype == np.float32 else "double"        # the score type in pull.cu's templates
    names = {k: f"graphsweep_pagerank_{k}<{real}>" for k in ("init", "heavy_sums", "heavy_update")}
    names["pull"] = f"graphsweep_pagerank_pull<{real}, {lanes}>"
    mod = module("pagerank/pull.cu", name_expressions=tuple(names.values()))
    init, pull, heavy_sums, heavy_update = (mod.get_function(names[k])
                                            for k in ("init", "pull", "heavy_sums", "heavy_update"))
    heavy, chunk_vertex, chunk_begin = long_rows(inp, split) if split else (None, None, None)
    chunks = 0 if heavy is None else int(chunk_vertex.shape[0])
    partial = cupy.zeros(n, dtype=dtype) if chunks else None
    iterations = params["max_iterations"]
    score = cupy.empty(n, dtype=dtype)
    contrib = [cupy.empty(n, dtype=dtype), cupy.empty(n, dtype=dtype)]
    sums = cupy.zeros((iterations + 1, 2), dtype=np.float64)
    base, damping = dtype.type((1.0 - DAMPING) / n), dtype.type(DAMPING)    # passed as the kernels' score type
    spread = np.int32(params["dangling"] == "spread")
    a, c = start_of(inp, params, timer)
    with timer.phase("init", read=8 * (n + 1), written=3 * dtype.itemsize * n):
        init((blocks,), (threads,), (csr.offsets, score, contrib[0], sums, np.int32(n), np.float64(a), np.float64(c)))
    errors = []
    for it in range(iterations):
        with timer.phase("iteration", step=it, info={"error": lambda it=it: errors[it]},
                         **iteration_traffic(n, nnz, dtype.itemsize)):
            c_in, c_out = contrib[it % 2], contrib[1 - it % 2]
            if chunks:
                heavy_sums((min(resident_blocks(threads), -(-chunks * 32 // threads)),), (threads,),
                           (csr.offsets, csr.indices, c_in, chunk_vertex, chunk_begin, np.int64(chunks),
                            np.int64(split), partial))
            pull((blocks,), (threads,), (csr.offsets, csr.indices, c_in, c_out, score, sums[it], sums[it + 1],
                                         np.int32(n), base, damping, spread, np.int64(split if chunks else NO_SPLIT)))
            if chunks:
                heavy_update((-(-int(heavy.shape[0]) // threads),), (threads,),
                             (csr.offsets, heavy, np.int32(heavy.shape[0]), partial, score, c_out, sums[it],
                              sums[it + 1], np.int32(n), base, damping, spread))
        errors.append(float(sums[it + 1, 0].get()))     # GAPBS's test after every iteration: a host read
        if errors[-1] < params["tolerance"]:
            break
    stats(timer, errors, params["tolerance"])
    timer.stat("lanes", lanes)
    timer.stat("split_rows", 0 if heavy is None else int(heavy.shape[0]))
    return {"score": score}


def run_gpu(inp, params, timer):
    return run_gpu_lanes(inp, params, timer, 1)


def stats(timer, errors, tolerance) -> None:
    timer.stat("iterations", len(errors))
    timer.stat("error", errors[-1])
    timer.stat("converged", errors[-1] < tolerance)


# --- CPU twin: the same fused pass per iteration.

@numba.njit(cache=True)
def _init(offsets, score, contrib, a, c):
    n = score.shape[0]
    dangling = 0.0
    for v in range(n):
        degree = offsets[v + 1] - offsets[v]
        init = a + c * degree
        score[v] = init
        contrib[v] = init / degree if degree else 0.0
        if degree == 0:
            dangling += init
    return dangling


@numba.njit(cache=True, parallel=True)
def _iterate(offsets, indices, contrib_in, contrib_out, score, base, damping, share, zero):
    """One fused pass; the row sums start from ``zero``, a scalar of the score type, so they add in
    that type (a specialisation per type); the new score is computed in float64 and rounded by the
    store, and the L1 change is taken from the rounded score."""
    error = 0.0
    dangling = 0.0
    for v in numba.prange(score.shape[0]):
        total = zero
        for e in range(offsets[v], offsets[v + 1]):
            total += contrib_in[indices[e]]
        old = np.float64(score[v])
        score[v] = base + damping * (np.float64(total) + share)
        updated = score[v]
        error += abs(np.float64(updated) - old)
        degree = offsets[v + 1] - offsets[v]
        contrib_out[v] = updated / degree if degree else zero
        if degree == 0:
            dangling += np.float64(updated)
    return error, dangling


def run_cpu(inp, params, timer):
    return {"score": iterate_cpu(inp.representation("simple"), params, timer, start_of(inp, params, timer))}


def iterate_cpu(csr, params, timer, start: tuple[float, float]):
    """The scores on ``csr`` (any simple CSR: ``pagerank.blocked``'s twin runs it renamed by degree)
    from ``start`` (``start_of``'s a and c)."""
    n, nnz = csr.n, csr.nnz
    dtype = np.dtype(params["dtype"])
    score = np.empty(n, dtype=dtype)
    contrib = [np.empty(n, dtype=dtype), np.empty(n, dtype=dtype)]
    spread = params["dangling"] == "spread"
    with timer.phase("init", read=8 * (n + 1), written=3 * dtype.itemsize * n):
        dangling = _init(csr.offsets, score, contrib[0], *start)
    errors = []
    for it in range(params["max_iterations"]):
        with timer.phase("iteration", step=it, info={"error": lambda it=it: errors[it]},
                         **iteration_traffic(n, nnz, dtype.itemsize)):
            error, dangling = _iterate(csr.offsets, csr.indices, contrib[it % 2], contrib[1 - it % 2], score,
                                       (1.0 - DAMPING) / n, DAMPING, dangling / n if spread else 0.0, dtype.type(0))
        errors.append(error)
        if error < params["tolerance"]:
            break
    stats(timer, errors, params["tolerance"])
    return score


KERNEL = Kernel(name="pagerank.pull", problem=PAGERANK,
                summary="pull PageRank, one thread per vertex, score/contribution/L1 change fused in one pass "
                        "per iteration (GAPBS pr)",
                gpu=run_gpu, cpu=run_cpu, params={**PARAMS, **DTYPE_PARAM, **GRID_PARAMS}, setup=check_tolerance,
                needs=("simple",))
