"""sssp.near-far — delta-stepping in near-far form on one persistent grid (the fastest we built).

Returns dist (int64, -1 unreached) and parent (int64, -1 unreached, parent[root] = root).

Algorithm: delta-stepping (Meyer & Sanders) as near-far piles (Davidson et al., IPDPS'14): the
vertices improved below a threshold T form the near queue, those at or above it a far pile;
when the near queue empties, T moves one delta past the smallest far distance and the far pile is
split.  Harish & Narayanan (HiPC'07 §3.3) relax every masked vertex's edges each iteration and
reach V-wide work per step; here work is proportional to the frontier's edges, and:
  - one launch runs the whole search: a co-resident grid with a grid barrier between iterations
    (no launch or host read-back per iteration; ADDS and Gunrock also keep the host out of the loop);
  - (dist, parent) is one 64-bit word replaced by CAS on strict improvement, so parents form a
    tree even with zero-weight edges (sssp.cuh);
  - queue entries are (vertex, chunk of ``chunk`` edges): a hub's edges are spread over warps;
    each warp scans its 32 entries' edge counts and relaxes 32 consecutive edges per step
    (Merrill et al.'s warp-cooperative gather), so lanes stay busy whatever the degrees; a queue
    too short to give every warp 32 entries is dealt out a few entries per warp instead;
  - no same-address atomic per edge or per push (they serialise in L2): pushes collect in per-warp
    shared buffers and reserve queue space 32+ at a time, the far pile's minimum is reduced over
    the warp first;
  - near queues are deduplicated per iteration and the far pile per epoch by stamps.
``delta`` defaults to 160 x mean weight / mean degree^2 rounded to a power of two (an empirical fit
to the sssp benchmark's tuning on an H200, now sweeps/sssp-best.yaml's delta axis; 4 roots each:
R-MAT 22 with weights 1-255 ran at 7.6 / 5.8 /
6.3 / 7.2 / 7.2 / 7.7 ms with delta 12 / 16 / 20 / 24 / 32 / 64 (2.84 / 2.18 / 3.12 / 3.36 / 2.21 / 3.65
relaxations per edge: larger buckets re-relax hub neighbourhoods, and deltas between powers of two
re-relaxed more in every run); uniform degree 6 with weights 1-10 at 12.8 / 12.5 / 14.7 / 12.4 ms with
8 / 16 / 24 / 32; a 2048^2 grid at 43 / 38 / 36 ms with 32 / 64 / 128: on sparse graphs the frontier is
small and an iteration's fixed cost, a grid barrier (~6 us), is what larger buckets save).  The rule
gives 16 on R-MAT, 32 on uniform degree 6, 64 on the grid.
The CPU twin runs the same near-far iterations sequentially (Numba).
"""

import math

import numba
import numpy as np

from graphsweep.datasets.errors import ParameterError
from graphsweep.datasets.gpu import array_module

from ..contract import Kernel, Param
from ..cuda import check_threads, module, persistent_blocks
from . import ROOT_PARAM, SSSP
from .gpu import check_gpu_graph, unpack_words

PARAMS = {
    **ROOT_PARAM,
    "delta": Param(None, int, minimum=1, help="bucket width (default: 160 x mean weight / mean degree^2, "
                                              "rounded to a power of two)"),
    "chunk": Param(64, int, minimum=1, help="edges per queue entry (a power of two): hubs become many entries"),
    "threads": Param(1024, int, minimum=32, help="threads per block (a multiple of 32; 1024: one block per SM, "
                                                  "the cheapest grid barrier)"),
    "blocks": Param(None, int, minimum=1, help="thread blocks (default and maximum: as many as are co-resident)"),
}

CTL_WORDS = 22
ITERS, EPOCHS, ABORT, OVERFLOW, EDGES, ENTRIES = 16, 17, 14, 15, 18, 20
LOG_CAP = 1 << 16


def default_delta(csr) -> int:
    """160 x mean weight / mean degree^2, rounded to a power of two (see the module doc)."""
    if csr.nnz == 0 or csr.weights is None:
        return 1
    xp = array_module(csr.weights)
    mean_w = float(xp.mean(csr.weights, dtype=xp.float64))
    fit = 160 * mean_w / (csr.nnz / csr.n) ** 2
    return 1 if fit <= 1 else 1 << round(math.log2(fit))


def delta_statistics(csr) -> dict:
    """What a delta rule may read in one pass over the degrees and the weights."""
    xp = array_module(csr.offsets)
    degree = (csr.offsets[1:] - csr.offsets[:-1]).astype(xp.float64)
    stats = {"mean_degree": csr.nnz / max(csr.n, 1),
             "edge_degree": float((degree * degree).sum()) / max(csr.nnz, 1),
             "max_degree": int(degree.max()) if csr.n else 0}
    if csr.weights is not None and csr.nnz:
        stats.update(mean_weight=float(xp.mean(csr.weights, dtype=xp.float64)), min_weight=int(csr.weights.min()),
                     max_weight=int(csr.weights.max()))
    return stats


def setup(inp, params) -> None:
    """The default delta needs a pass over the weights: made once per input, untimed."""
    if params.get("delta") is None and "sssp.delta" not in inp.cache:
        inp.cache["sssp.delta"] = default_delta(inp.csr())


def delta_for(inp, params) -> int:
    if params.get("delta") is not None:
        return int(params["delta"])
    setup(inp, params)
    return inp.cache["sssp.delta"]


def chunk_log2(params) -> int:
    c = params["chunk"]
    if c & (c - 1):
        raise ParameterError(f"parameter 'chunk': {c} is not a power of two")
    return c.bit_length() - 1


# --- GPU --------------------------------------------------------------------------------------

def search_gpu(csr, root: int, delta: int, log_chunk: int, threads: int, blocks, timer):
    """(dist, parent, facts) from ``root`` on the device CSR ``csr``; facts: counters read back after the run."""
    import cupy
    check_gpu_graph(csr)
    threads = check_threads(threads)
    n, nnz = csr.n, csr.nnz
    # registers capped so ~1536 threads (48 warps) fit on an SM whatever the block size
    mod = module("sssp/near_far.cu", options=(f"-DNF_THREADS={threads}", f"-DNF_MIN_BLOCKS={max(1, 1536 // threads)}"))
    search = mod.get_function("graphsweep_sssp_nearfar")
    grid = persistent_blocks(search, threads, 0, blocks)
    word = cupy.empty(n, dtype=np.uint64)
    stamp_near = cupy.empty(n, dtype=np.uint32)
    stamp_far = cupy.empty(n, dtype=np.uint32)
    capacity = n + (nnz >> log_chunk) + 1        # one entry per vertex and per full chunk of its edges
    queues = [cupy.empty(capacity, dtype=np.uint64) for _ in range(2)]
    piles = [cupy.empty(max(n, 1), dtype=np.uint32) for _ in range(2)]
    ctl = cupy.empty(CTL_WORDS, dtype=np.uint32)
    log = cupy.zeros(1 + 4 * LOG_CAP, dtype=np.uint64)
    dist = cupy.empty(n, dtype=np.int64)
    parent = cupy.empty(n, dtype=np.int64)
    init_blocks = max(1, min(-(-max(n, CTL_WORDS) // threads), 65535))
    with timer.phase("init", written=16 * n + 8 * CTL_WORDS):
        mod.get_function("graphsweep_sssp_init_words")((init_blocks,), (threads,), (word, np.int64(n), np.int32(root)))
        mod.get_function("graphsweep_sssp_nearfar_init")(
            (init_blocks,), (threads,), (csr.offsets, stamp_near, stamp_far, queues[0], ctl, np.int64(n),
                                         np.int32(root), np.int32(log_chunk)))
    with timer.phase("search") as traffic:
        search((grid,), (threads,), (csr.offsets, csr.indices, csr.weights, word, stamp_near, stamp_far,
                                     queues[0], queues[1], piles[0], piles[1], ctl, log, np.int32(LOG_CAP),
                                     np.int32(log_chunk), np.uint32(min(delta, 2**32 - 1)), np.int64(4 * n + 64)))
    unpack_words(mod, timer, word, dist, parent, threads)
    counters = ctl.get()      # after the phases: did it finish, did a distance overflow, how much work
    if counters[ABORT]:
        raise RuntimeError(f"sssp.near-far: the persistent grid of {grid} blocks did not finish "
                           f"(grid barrier timed out or the iteration guard tripped)")
    if counters[OVERFLOW]:
        raise ParameterError("sssp.near-far keeps distances in 32 bits: a path of length >= 2^32 - 1 was found "
                             "(use --backend cpu)")
    edges = int(counters[EDGES:EDGES + 2].view(np.uint64)[0])
    entries = int(counters[ENTRIES:ENTRIES + 2].view(np.uint64)[0])
    # entries: 8 B entry + 8 B word + 16 B offsets; edges: 8 B (index, weight) + an 8 B word at random.
    # A host-placed CSR's (index, weight) pairs cross the link (zero-copy; whole lines would be more).
    traffic.add(read=32 * entries + 16 * edges, written=8 * entries, random=entries + edges,
                link=8 * edges if csr.placement == "host" else 0)
    iterations = int(counters[ITERS])
    facts = {"iterations": iterations, "epochs": int(counters[EPOCHS]), "relaxations": edges,
             "entries": entries, "delta": delta, "blocks": grid}
    return dist, parent, facts, (lambda: step_rows(log.get(), iterations))


def step_rows(log: np.ndarray, iterations: int) -> list[dict]:
    """Per iteration: kind (near expansion or far compaction), threshold, entries read, microseconds."""
    rows, last = [], int(log[0])
    for i in range(min(iterations, LOG_CAP)):
        threshold, entries, compact, end = (int(x) for x in log[1 + 4 * i: 5 + 4 * i])
        rows.append({"step": i, "kind": "far" if compact else "near", "threshold": threshold,
                     "entries": entries, "us": (end - last) / 1e3})
        last = end
    return rows


# --- CPU twin: the same near-far iterations, sequential -----------------------------------------

@numba.njit(cache=True)
def _near_far(off, idx, wt, root, delta):
    n = off.shape[0] - 1
    inf = np.iinfo(np.int64).max
    dist = np.full(n, inf, np.int64)
    parent = np.full(n, -1, np.int64)
    dist[root] = 0
    parent[root] = root
    near = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    far = np.empty(n, np.int64)
    kept = np.empty(n, np.int64)
    stamp = np.full(n, -1, np.int64)
    fstamp = np.full(n, -1, np.int64)
    near[0] = root
    nn, nf, it, epoch, edges = 1, 0, 0, 0, 0
    threshold = delta
    fmin = inf
    while True:
        if nn == 0:                      # epoch change: split the far pile at the new threshold
            if nf == 0:
                break
            t_old = threshold
            threshold = max(t_old + delta, (fmin // delta + 1) * delta)
            epoch += 1
            fmin = inf
            kf = 0
            for q in range(nf):
                v = far[q]
                d = dist[v]
                if t_old <= d < threshold:
                    if stamp[v] != it:
                        stamp[v] = it
                        nxt[nn] = v
                        nn += 1
                elif d >= threshold:
                    fmin = min(fmin, d)
                    if fstamp[v] != epoch:
                        fstamp[v] = epoch
                        kept[kf] = v
                        kf += 1
            far, kept = kept, far
            nf = kf
        else:
            k = 0
            for q in range(nn):
                u = near[q]
                du = dist[u]
                for e in range(off[u], off[u + 1]):
                    edges += 1
                    v = idx[e]
                    nd = du + wt[e]
                    if nd < dist[v]:
                        dist[v] = nd
                        parent[v] = u
                        if nd < threshold:
                            if stamp[v] != it:
                                stamp[v] = it
                                nxt[k] = v
                                k += 1
                        else:
                            fmin = min(fmin, nd)
                            if fstamp[v] != epoch:
                                fstamp[v] = epoch
                                far[nf] = v
                                nf += 1
            nn = k
        near, nxt = nxt, near
        it += 1
        if nn == 0 and nf == 0:
            break
    for v in range(n):
        if dist[v] == inf:
            dist[v] = -1
    return dist, parent, it, epoch, edges


def search_cpu(csr, root: int, delta: int, timer):
    n = csr.n
    with timer.phase("search") as traffic:
        dist, parent, iterations, epochs, edges = _near_far(csr.offsets, csr.indices, csr.weights, root, delta)
    traffic.add(read=16 * edges + 8 * n, written=16 * n, random=edges)
    return dist, parent, {"iterations": iterations, "epochs": epochs, "relaxations": edges, "delta": delta}


# --- registration -------------------------------------------------------------------------------

def run_gpu(inp, params, timer):
    dist, parent, facts, steps = search_gpu(inp.csr(), params["root"], delta_for(inp, params), chunk_log2(params),
                                            params["threads"], params["blocks"], timer)
    for name, value in facts.items():
        timer.stat(name, value)
    # One step row per iteration, read from the launch's own log after timing.
    timer.steps("search", lambda: [{"step": r["step"], "ms": r["us"] / 1e3,
                                    "info": {"kind": r["kind"], "threshold": r["threshold"], "entries": r["entries"]}}
                                   for r in steps()])
    return {"dist": dist, "parent": parent}


def run_cpu(inp, params, timer):
    chunk_log2(params)
    dist, parent, facts = search_cpu(inp.csr(), params["root"], delta_for(inp, params), timer)
    for name, value in facts.items():
        timer.stat(name, value)
    return {"dist": dist, "parent": parent}


KERNEL = Kernel(name="sssp.near-far", problem=SSSP,
                summary="near-far delta-stepping, one persistent launch, CAS on packed (dist, parent), chunked "
                        "warp-cooperative expansion",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup, needs=("csr",))
