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
``delta`` defaults to a rule read from three statistics in the untimed setup (``default_delta``):
  - on small-world graphs (R-MAT, uniform, scale-free: a path between two vertices is a few hops,
    so there are few buckets at any delta and an iteration's grid barrier is not what a wider
    bucket saves) delta is set by the re-relaxations a wide bucket costs:
    5 x mean weight^(3/4) / sqrt(mean degree);
  - on deep graphs (grids and road maps: thousands of hops across, thousands of buckets, a grid
    barrier each) 160 x mean weight / mean degree^2, wide buckets (2048 on the 4096^2 road-like
    grid; sssp.strips takes twice near-far's).  A graph is deep when every degree is small
    (``by_bfs.narrow``) and a search from a pseudo-peripheral vertex (``by_bfs.depth``, two BFS
    once per graph) takes at least DEEP_FROM x log2(n) levels: its structure, not the order its ids
    came in (the rule used to ask whether sampled edges join nearby ids: the 4096^2 grid with
    its ids shuffled then got delta 128 and 279 ms a root, against 112 at 2048; H200, 2026-11-28);
  both rounded to a power of two (deltas between powers of two re-relaxed more in some runs:
  uniform 2^24 of degree 6, weights 1-10, 17.3 ms at delta 24 against 14.4-14.8 at 8, 12, 16, 32).
Both are fits to a delta axis (``benchmarks/best_rules.py``, H100, 16 roots, 2026-11-25): the first
lands within 5% of the best delta of the axis (4-64) on every graph measured -- R-MAT 22 and 24 with
weights 1-255 (32: 1.03, 1.00), uniform 2^24 of degree 6 and scale-free 2^24 with weights 1-10
(8: 1.02, 1.05), GAP's urand 22 (32: 1.00), and outside the sweeps scale-free 2^24 with weights
1-255 (64), scale-free with 1% hubs and weights 1-100 (32), R-MAT 22 with weights 1-10 (4) and
uniform of degree 16 with weights 1-10 (4), all 1.00.  The hubs' share of the edges does not move
the best delta: scale-free and uniform graphs of degree 6 and equal weights share theirs, and
R-MAT's edge-weighted mean degree (6198 at scale 22) is 190x urand's at about the same best delta; the
former rule's 160 x mean weight / mean degree^2 was 1.56x off on scale-free 2^24 and 2.1-2.2x on
the two scale-free graphs outside the sweeps because its degree^2 fits the grid, whose wide
buckets pay for its diameter, not its degree (near-far there: 112 / 98.6 / 92.2 ms per root at
delta 1024 / 2048 / 4096; 2048 is kept for sssp.strips, which runs there).
The CPU twin runs the same near-far iterations sequentially (Numba).
"""

import math

import numba
import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import array_module

from ..bfs import by_bfs
from ..contract import Kernel, Param, nearest_power_of_two
from ..cuda import check_threads, module, persistent_blocks
from . import ROOT_PARAM, SSSP
from .gpu import check_gpu_graph, unpack_words

PARAMS = {
    **ROOT_PARAM,
    "delta": Param(None, int, minimum=1, help="bucket width (default: from the mean weight and degree, and "
                                              "whether the graph is deep; see the module doc)"),
    "chunk": Param(64, int, minimum=1, help="edges per queue entry (a power of two): hubs become many entries"),
    "threads": Param(1024, int, minimum=32, help="threads per block (a multiple of 32; 1024: one block per SM, "
                                                  "the cheapest grid barrier)"),
    "blocks": Param(None, int, minimum=1, help="thread blocks (default and maximum: as many as are co-resident)"),
}

CTL_WORDS = 22
ITERS, EPOCHS, ABORT, OVERFLOW, EDGES, ENTRIES = 16, 17, 14, 15, 18, 20
LOG_CAP = 1 << 16


# A graph is deep when a search from a pseudo-peripheral vertex takes DEEP_FROM x log2(n) levels or
# more (a 4096^2 grid: ~8000 >= 192; R-MAT, uniform and scale-free graphs and random trees: tens).
DEEP_FROM = 8


def delta_statistics(csr) -> dict:
    """What ``default_delta`` reads of the CSR: mean weight and degree (a pass over the weights)."""
    if csr.nnz == 0 or csr.weights is None:
        return {"mean_weight": 0.0, "mean_degree": 0.0}
    xp = array_module(csr.weights)
    return {"mean_weight": float(xp.mean(csr.weights, dtype=xp.float64)), "mean_degree": csr.nnz / csr.n}


def deep(inp) -> bool:
    """Whether ``inp`` is a deep graph (see DEEP_FROM): every degree small and a search from a
    pseudo-peripheral vertex long (a graph held in slices, never searched here: False)."""
    csr = inp.csr()
    return inp.whole and by_bfs.narrow(csr) and by_bfs.depth(inp) >= DEEP_FROM * math.log2(csr.n)


def delta_rule(stats: dict) -> int:
    """The default delta from ``delta_statistics`` and ``deep`` (see the module doc), a power of two."""
    w, d = stats["mean_weight"], stats["mean_degree"]
    if w <= 0:
        return 1
    return nearest_power_of_two(160 * w / d ** 2 if stats["deep"] else 5 * w ** 0.75 / d ** 0.5)


def default_delta(inp) -> int:
    return delta_rule({**delta_statistics(inp.csr()), "deep": deep(inp)})


def setup(inp, params) -> None:
    """The default delta needs a pass over the weights and, on a graph of small degrees, two
    searches: made once per input, untimed."""
    if params.get("delta") is None and "sssp.delta" not in inp.cache:
        inp.cache["sssp.delta"] = default_delta(inp)


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
