"""pagerank.distributed — PageRank of one graph sliced over K Dask workers (``partitions=K``; the
slices, workers and ledger are ``kernels/graph/partition.py``'s).

Returns ``{"score"}`` (see the package doc): the scores ``pagerank.spmv`` converges to, within
the tolerance the verifier checks.

Algorithm (1-D pull).  Worker i owns the scores of its range.  Once per graph (``setup``,
untimed) it makes its rows of the simple graph's adjacency matrix: its slice's CSR with duplicate
neighbours dropped (rows are sorted, so duplicates are adjacent), float32 ones, shape (its rows)
x n, and its vertices' simple degrees.  Then one task per worker runs every iteration in step
with the others, sending straight to them (``kernels/graph/exchange.py``, no scheduler in the
loop):
  all-gather  every worker sends the contributions of its range (score / degree, float32) to
              every other: (K - 1) x n x 4 bytes in all per iteration;
  pull        each worker multiplies its rows by the whole contribution vector (cuSPARSE SpMV
              on the GPU, scipy.sparse on the CPU) and updates its scores as ``pagerank.spmv``
              does;
  all-reduce  the L1 change and the dangling score, summed over the workers (16 bytes each):
              every worker takes the same decision to stop.
The dangling score of the last iteration is spread in the next, as in ``pagerank.spmv``.

Rows: a step row per iteration (phase ``iteration``: the slowest worker's wall time and compute,
the least wait, the bytes received, 2 rounds); phases ``iterate`` and ``gather`` with the ledger's
local work, wait, bytes exchanged and rounds; ``iterations``, ``error``, ``converged``; the
partition's facts.
"""

import time
from functools import partial

import numpy as np
from graphsweep.datasets.gpu import to_host

from ..contract import Kernel
from ..graph.exchange import Peers
from ..graph.partition import PARAMS as PARTITION_PARAMS
from ..graph.partition import Ledger, answer_on, held, lockstep_rows, partitioned, slice_graph, synchronize
from . import DAMPING, PAGERANK
from . import PARAMS as PAGERANK_PARAMS

PHASES = ("iterate", "gather")
PARAMS = {**PAGERANK_PARAMS, **PARTITION_PARAMS}
KEY = "pagerank-matrix"



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
    if s.backend == "gpu":
        import cupyx.scipy.sparse as sparse
        matrix = sparse.csr_matrix((values, cols.astype(np.int32), offsets.astype(np.int32)), shape=(size, s.n))
    else:
        import scipy.sparse as sparse
        matrix = sparse.csr_matrix((values, cols, offsets), shape=(size, s.n))
    inverse = xp.where(degree > 0, 1.0 / xp.maximum(degree, 1), 0.0).astype(np.float32)
    s.scratch[KEY] = (matrix, inverse, degree == 0)
    synchronize(s.backend)
    return int(matrix.nnz)


def _pagerank(key, max_iterations: int, tolerance: float, spread: bool, addresses: list) -> dict:
    """The whole iteration on this worker's rows, in step with the others (one task per worker):
    every iteration the contributions' all-gather, the pull, then the all-reduce of the L1
    change and the dangling score, from which every worker takes the same decision to stop."""
    t0 = time.perf_counter()
    s = held(key)
    peers = Peers(key[1], s.index, addresses)
    xp, n = s.xp, s.n
    matrix, inverse, dangling_mask = s.scratch[KEY]
    score = xp.full(s.hi - s.lo, 1.0 / n, dtype=np.float32)
    dangling = float(peers.allreduce("dangling", np.array([float(xp.count_nonzero(dangling_mask))]))[0]) / n
    contrib = xp.empty(n, dtype=np.float32)
    steps, error = [], float("inf")
    for it in range(max_iterations):
        t1, waited, received = time.perf_counter(), peers.waited, peers.received
        mine = score * inverse
        contrib[s.lo:s.hi] = mine
        for j, piece in peers.exchange(("contrib", it), {j: to_host(mine) for j in range(peers.k)}).items():
            contrib[int(s.bounds[j]):int(s.bounds[j + 1])] = xp.asarray(piece)
        incoming = matrix @ contrib
        share = np.float32(dangling / n if spread else 0.0)
        updated = np.float32((1.0 - DAMPING) / n) + np.float32(DAMPING) * (incoming + share)
        local = np.array([float(xp.abs(updated - score).sum(dtype=np.float64)),
                          float(updated[dangling_mask].sum(dtype=np.float64))])
        error, dangling = (float(v) for v in peers.allreduce(("sums", it), local))
        score = updated
        steps.append({"step": it, "ms": 1e3 * (time.perf_counter() - t1), "wait_ms": 1e3 * (peers.waited - waited),
                      "bytes_exchanged": peers.received - received})
        if error < tolerance:
            break
    s.scratch["pr-score"] = score
    synchronize(s.backend)
    s.record("iterate", None, time.perf_counter() - t0 - peers.waited, peers.received)
    return {"steps": steps, "rounds": peers.rounds, "error": error}


def _scores(key):
    return to_host(held(key).scratch["pr-score"])


def _run(inp, params, timer, backend: str):
    part = partitioned(inp, params, backend)
    part.wait(part.each(_matrix, name="pagerank.distributed-matrix"), "matrix")   # a no-op after setup
    ledger = Ledger(part, timer, PHASES)
    name = "pagerank.distributed"
    with ledger.phase("iterate", rounds=0):
        runs = ledger.each(_pagerank, params["max_iterations"], params["tolerance"], params["dangling"] == "spread",
                           part.workers, name=f"{name}-iterate")
        out = part.gather(runs, "iterate", cancel=ledger.key[1])
    ledger.rounds[("iterate", None)] = out[0]["rounds"]
    with ledger.phase("gather", rounds=1, written=4 * inp.n):
        score = np.concatenate(part.gather(ledger.each(_scores, name=f"{name}-gather"), "gather"))
        ledger.received("gather", None, score.nbytes)
    ledger.stats()
    timer.steps("iteration", lambda: lockstep_rows(out))
    iterations, error = len(out[0]["steps"]), out[0]["error"]
    timer.stat("iterations", iterations)
    timer.stat("error", error)
    timer.stat("converged", error < params["tolerance"])
    return {"score": answer_on(backend, score)}


def setup(inp, params):
    """Slice the graph and make each slice's matrix rows before warm-up (untimed)."""
    part = slice_graph(inp, params)
    part.wait(part.each(_matrix, name="pagerank.distributed-matrix"), "matrix")


KERNEL = Kernel(name="pagerank.distributed", problem=PAGERANK,
                summary="one graph sliced over K Dask workers: pull PageRank, each worker's rows times the "
                        "contributions all-gathered every iteration",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=setup)
