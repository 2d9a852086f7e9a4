"""pagerank.pull — GAPBS's pull PageRank: every vertex gathers its neighbours' contributions.

Returns ``{"score"}`` (float32; see the package doc).  Algorithm (GAPBS src/pr_spmv.cc, the
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
from . import DAMPING, PAGERANK, PARAMS, check_tolerance


def check_gpu_graph(csr) -> None:
    """GPU PageRank holds vertex ids in 32 bits."""
    if csr.indices.dtype != np.int32:
        raise ParameterError(f"GPU PageRank takes graphs of fewer than 2^31 vertices (n = {csr.n}); use the CPU twin")


def iteration_traffic(n: int, nnz: int) -> dict:
    """One iteration: offsets (8 B), score read and written, contribution written (4 B each) per
    vertex; an index and a random contribution gather (4 B each) per edge."""
    return {"read": 8 * (n + 1) + 4 * n + 8 * nnz, "written": 8 * n, "random": nnz}


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
    mod = module("pagerank/pull.cu", name_expressions=(f"graphsweep_pagerank_pull<{lanes}>",))
    pull = mod.get_function(f"graphsweep_pagerank_pull<{lanes}>")
    heavy_sums, heavy_update = (mod.get_function(f"graphsweep_pagerank_heavy_{k}") for k in ("sums", "update"))
    heavy, chunk_vertex, chunk_begin = long_rows(inp, split) if split else (None, None, None)
    chunks = 0 if heavy is None else int(chunk_vertex.shape[0])
    partial = cupy.zeros(n, dtype=np.float32) if chunks else None
    iterations = params["max_iterations"]
    score = cupy.empty(n, dtype=np.float32)
    contrib = [cupy.empty(n, dtype=np.float32), cupy.empty(n, dtype=np.float32)]
    sums = cupy.zeros((iterations + 1, 2), dtype=np.float64)
    base, spread = np.float32((1.0 - DAMPING) / n), np.int32(params["dangling"] == "spread")
    with timer.phase("init", read=8 * (n + 1), written=12 * n):
        mod.get_function("graphsweep_pagerank_init")((blocks,), (threads,), (csr.offsets, score, contrib[0], sums,
                                                                            np.int32(n)))
    errors = []
    for it in range(iterations):
        with timer.phase("iteration", step=it, info={"error": lambda it=it: errors[it]}, **iteration_traffic(n, nnz)):
            c_in, c_out = contrib[it % 2], contrib[1 - it % 2]
            if chunks:
                heavy_sums((min(resident_blocks(threads), -(-chunks * 32 // threads)),), (threads,),
                           (csr.offsets, csr.indices, c_in, chunk_vertex, chunk_begin, np.int64(chunks),
                            np.int64(split), partial))
            pull((blocks,), (threads,), (csr.offsets, csr.indices, c_in, c_out, score, sums[it], sums[it + 1],
                                         np.int32(n), base, np.float32(DAMPING), spread,
                                         np.int64(split if chunks else NO_SPLIT)))
            if chunks:
                heavy_update((-(-int(heavy.shape[0]) // threads),), (threads,),
                             (csr.offsets, heavy, np.int32(heavy.shape[0]), partial, score, c_out, sums[it],
                              sums[it + 1], np.int32(n), base, np.float32(DAMPING), spread))
        errors.append(float(sums[it + 1, 0].get()))     # GAPBS's test after every iteration: a host read
        if errors[-1] < params["tolerance"]:
            break
    _stats(timer, errors, params["tolerance"])
    timer.stat("lanes", lanes)
    timer.stat("split_rows", 0 if heavy is None else int(heavy.shape[0]))
    return {"score": score}


def run_gpu(inp, params, timer):
    return run_gpu_lanes(inp, params, timer, 1)


def _stats(timer, errors, tolerance) -> None:
    timer.stat("iterations", len(errors))
    timer.stat("error", errors[-1])
    timer.stat("converged", errors[-1] < tolerance)


# --- CPU twin: the same fused pass per iteration.

@numba.njit(cache=True)
def _init(offsets, score, contrib):
    n = score.shape[0]
    init = 1.0 / n
    dangling = 0.0
    for v in range(n):
        degree = offsets[v + 1] - offsets[v]
        score[v] = init
        contrib[v] = init / degree if degree else 0.0
        if degree == 0:
            dangling += init
    return dangling


@numba.njit(cache=True, parallel=True)
def _iterate(offsets, indices, contrib_in, contrib_out, score, base, damping, share):
    error = 0.0
    dangling = 0.0
    for v in numba.prange(score.shape[0]):
        total = np.float32(0.0)
        for e in range(offsets[v], offsets[v + 1]):
            total += contrib_in[indices[e]]
        updated = np.float32(base + damping * (total + share))
        error += abs(np.float64(updated) - np.float64(score[v]))
        score[v] = updated
        degree = offsets[v + 1] - offsets[v]
        contrib_out[v] = updated / np.float32(degree) if degree else np.float32(0.0)
        if degree == 0:
            dangling += np.float64(updated)
    return error, dangling


def run_cpu(inp, params, timer):
    csr = inp.representation("simple")
    n, nnz = csr.n, csr.nnz
    score = np.empty(n, dtype=np.float32)
    contrib = [np.empty(n, dtype=np.float32), np.empty(n, dtype=np.float32)]
    spread = params["dangling"] == "spread"
    with timer.phase("init", read=8 * (n + 1), written=12 * n):
        dangling = _init(csr.offsets, score, contrib[0])
    errors = []
    for it in range(params["max_iterations"]):
        with timer.phase("iteration", step=it, info={"error": lambda it=it: errors[it]}, **iteration_traffic(n, nnz)):
            error, dangling = _iterate(csr.offsets, csr.indices, contrib[it % 2], contrib[1 - it % 2], score,
                                       (1.0 - DAMPING) / n, DAMPING, dangling / n if spread else 0.0)
        errors.append(error)
        if error < params["tolerance"]:
            break
    _stats(timer, errors, params["tolerance"])
    return {"score": score}


KERNEL = Kernel(name="pagerank.pull", problem=PAGERANK,
                summary="pull PageRank, one thread per vertex, score/contribution/L1 change fused in one pass "
                        "per iteration (GAPBS pr)",
                gpu=run_gpu, cpu=run_cpu, params={**PARAMS, **GRID_PARAMS}, setup=check_tolerance,
                needs=("simple",))
