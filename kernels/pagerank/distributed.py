"""pagerank.distributed — PageRank of one graph sliced over K Dask workers (``partitions=K``; the
slices, workers and ledger are ``kernels/graph/partition.py``'s).

Returns ``{"score"}`` (see the package doc): the scores ``pagerank.spmv`` converges to, within
the tolerance the verifier checks.

Algorithm (1-D pull, one round per iteration).  Worker i owns the scores of its range.  Once per
graph (``setup``, untimed) it makes its rows of the simple graph's adjacency matrix: its slice's
CSR with duplicate neighbours dropped (rows are sorted, so duplicates are adjacent), float32
ones, shape (its rows) x n, and its vertices' simple degrees.  Each iteration:
  all-gather  every worker sends the contributions of its range (score / degree, float32) to
              every other: (K - 1) x n x 4 bytes in all per iteration;
  pull        each worker multiplies its rows by the whole contribution vector (cuSPARSE SpMV
              on the GPU, scipy.sparse on the CPU), then updates its scores as ``pagerank.spmv``
              does and returns its share of the L1 change and of the dangling score;
  reduce      the driver sums those two numbers (8 bytes a worker) and decides whether to stop.
The dangling score of the last iteration is spread in the next, as in ``pagerank.spmv``.

Rows: per phase (init, iterate, gather) the ledger's local work, wait, bytes exchanged and
rounds; ``iterations``, ``error``, ``converged``; the partition's facts.
"""

import time

import numpy as np

from ..contract import Kernel
from ..graph.partition import PARAMS as PARTITION_PARAMS
from ..graph.partition import Ledger, held, nbytes, partitioned, synchronize
from . import DAMPING, PAGERANK
from . import PARAMS as PAGERANK_PARAMS

PHASES = ("init", "iterate", "gather")
PARAMS = {**PAGERANK_PARAMS, **PARTITION_PARAMS}
KEY = "pagerank-matrix"


def _host(a):
    return a.get() if hasattr(a, "get") else a


def _matrix(key) -> int:
    """This slice's rows of the simple graph's adjacency matrix and its vertices' inverse degrees
    (kept on the worker with the slice); returns its nonzeros."""
    s = held(key)
    if KEY in s.scratch:
        return int(s.scratch[KEY][0].nnz)
    xp, csr = s.xp, s.csr
    rows = s.rows()
    first = xp.ones(csr.nnz, dtype=np.bool_)
    if csr.nnz:
        first[1:] = (csr.indices[1:] != csr.indices[:-1]) | (rows[1:] != rows[:-1])
    size = s.hi - s.lo
    cols = csr.indices[first]
    degree = xp.bincount(rows[first], minlength=size)[:size]
    offsets = xp.zeros(size + 1, dtype=np.int64)
    xp.cumsum(degree, out=offsets[1:])
    values = xp.ones(cols.shape[0], dtype=np.float32)
    if s.device == "gpu":
        import cupyx.scipy.sparse as sparse
        matrix = sparse.csr_matrix((values, cols.astype(np.int32), offsets.astype(np.int32)), shape=(size, s.n))
    else:
        import scipy.sparse as sparse
        matrix = sparse.csr_matrix((values, cols, offsets), shape=(size, s.n))
    inverse = xp.where(degree > 0, 1.0 / xp.maximum(degree, 1), 0.0).astype(np.float32)
    s.scratch[KEY] = (matrix, inverse, degree == 0)
    synchronize(s.device)
    return int(matrix.nnz)


def _init(key) -> dict:
    t0 = time.perf_counter()
    s = held(key)
    xp = s.xp
    _, inverse, dangling = s.scratch[KEY]
    score = xp.full(s.hi - s.lo, 1.0 / s.n, dtype=np.float32)
    s.scratch["pr-score"] = score
    out = {"facts": {"error": 0.0, "dangling": float(xp.count_nonzero(dangling)) / s.n},
           "piece": {"contrib": _host(score * inverse), "lo": s.lo, "from": s.index}}
    synchronize(s.device)
    s.record("init", None, time.perf_counter() - t0)
    return out


def _iterate(key, step: int, dangling: float, spread: bool, *pieces) -> dict:
    """One pull iteration of this slice's scores from every worker's contributions."""
    t0 = time.perf_counter()
    s = held(key)
    xp = s.xp
    matrix, inverse, dangling_mask = s.scratch[KEY]
    contrib = xp.empty(s.n, dtype=np.float32)
    for piece in pieces:
        part = piece["contrib"]
        contrib[piece["lo"]:piece["lo"] + part.shape[0]] = xp.asarray(part)
    incoming = matrix @ contrib
    share = np.float32(dangling / s.n if spread else 0.0)
    updated = np.float32((1.0 - DAMPING) / s.n) + np.float32(DAMPING) * (incoming + share)
    score = s.scratch["pr-score"]
    facts = {"error": float(xp.abs(updated - score).sum(dtype=np.float64)),
             "dangling": float(updated[dangling_mask].sum(dtype=np.float64))}
    s.scratch["pr-score"] = updated
    out = {"facts": facts, "piece": {"contrib": _host(updated * inverse), "lo": s.lo, "from": s.index}}
    synchronize(s.device)
    s.record("iterate", step, time.perf_counter() - t0,
             sum(nbytes(p["contrib"]) for p in pieces if p["from"] != s.index))
    return out


def _scores(key):
    return _host(held(key).scratch["pr-score"])


def _run(inp, params, timer, device: str):
    part = partitioned(inp, params, device)
    part.wait(part.each(_matrix, name="pagerank.distributed-matrix"), "matrix")   # a no-op after setup
    ledger = Ledger(part, timer, PHASES)
    k, name = part.k, "pagerank.distributed"
    spread = params["dangling"] == "spread"

    def facts_of(results, phase):
        facts = part.gather([part.item(r, i, "facts", f"{name}-facts") for i, r in enumerate(results)], phase)
        return sum(f["error"] for f in facts), sum(f["dangling"] for f in facts)

    with ledger.phase("init", rounds=0):
        results = ledger.each(_init, name=f"{name}-init")
        _, dangling = facts_of(results, "init")
    errors = []
    for it in range(params["max_iterations"]):
        with ledger.phase("iterate", step=it, rounds=1 if k > 1 else 0):
            pieces = [part.item(r, i, "piece", f"{name}-contrib") for i, r in enumerate(results)]
            results = [part.submit(_iterate, j, ledger.key, it, dangling, spread, *pieces, name=f"{name}-iterate")
                       for j in range(k)]
            error, dangling = facts_of(results, "iterate")
        errors.append(error)
        if error < params["tolerance"]:
            break
    with ledger.phase("gather", rounds=1, written=4 * inp.n):
        score = np.concatenate(part.gather(ledger.each(_scores, name=f"{name}-gather"), "gather"))
        ledger.received("gather", None, score.nbytes)
    ledger.stats()
    timer.stat("iterations", len(errors))
    timer.stat("error", errors[-1])
    timer.stat("converged", errors[-1] < params["tolerance"])
    if device == "gpu":
        import cupy
        return {"score": cupy.asarray(score)}
    return {"score": score}


def run_cpu(inp, params, timer):
    return _run(inp, params, timer, "cpu")


def run_gpu(inp, params, timer):
    return _run(inp, params, timer, "gpu")


def setup(inp, params):
    """Slice the graph and make each slice's matrix rows before warm-up (untimed)."""
    part = partitioned(inp, params, inp.device)
    part.wait(part.each(_matrix, name="pagerank.distributed-matrix"), "matrix")


KERNEL = Kernel(name="pagerank.distributed", problem=PAGERANK,
                summary="one graph sliced over K Dask workers: pull PageRank, each worker's rows times the "
                        "contributions all-gathered every iteration",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup)
