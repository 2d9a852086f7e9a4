"""sssp.strips — delta-stepping where each thread block owns a strip of consecutive vertex ids and
expands it on its own: a grid barrier only between buckets, none per hop.

Returns dist (int64, -1 unreached) and parent (int64, -1 unreached, parent[root] = root).

Why: near-far (sssp.near-far) pays a grid barrier (~6 us on an H200) per iteration, and every
iteration advances a path by one hop, so on a road-like graph (a 4096^2 grid: shortest-path trees
4300-8600 hops deep) barriers alone cost 26-51 ms (benchmarks/sssp_road_floor.py).  Road maps and
grids are numbered by place, so a block that owns the ids [b size, (b + 1) size) owns a region,
and most edges stay inside it.  Here a hop inside a strip costs a block step and a hop across
strips a message; only the buckets (138 on that grid at delta 4096) cost grid barriers.

Algorithm: delta-stepping (Meyer & Sanders) with near-far piles (Davidson et al., IPDPS'14), one
persistent launch, two blocks of 512 threads per SM, block b owning strip b:
  - bucket (epoch) [L, T): each block splits its own far pile (vertices of its strip at or above
    the old T): those now below T form its frontier, the rest stay; then it steps without any
    grid-wide synchronisation: expand the frontier a thread per vertex (a vertex of more than
    ``hub`` edges by the whole block), relaxing by a 64-bit atomicMin on the packed (dist, parent)
    word (a CAS on strict improvement where some weight is 0: sssp.cuh); an improved vertex of the
    strip goes to the next frontier (below T) or the block's far pile (at or above T), one of
    another strip to the block's outbox;
  - mail: two warps beside the expansion, the sender mails the outbox the previous step left (a
    per-vertex "mailed" bit: one message per vertex in flight; a ring per owner), the receiver
    claims the block's ring into its next frontier, clearing the bits before any thread reads
    those vertices' words, so no improvement is lost;
  - the bucket ends when no block has work: a counter of outstanding units (every block holds one
    from the bucket's start until it first goes idle, every mailed vertex one from before it is
    mailed until its owner has expanded it) reaches 0, and the block that takes it there raises a
    done word idle blocks spin on; then a grid barrier, each block's far-pile minimum gives the
    next T;
  - a block's frontier lists and its "queued" and "in pile" bitmaps (a bit per vertex of the
    strip) live in shared memory, lists past ``shared_list`` entries spill to global memory.
Zero weights: parents are set by strict improvement only, so they form a tree (sssp.cuh).
``delta`` defaults to 2x near-far's rule: buckets cost a grid barrier each, a little more
re-relaxation costs less (H100, the 4096^2 grid, 4 roots: delta 2048 / 4096 / 8192 took 56.3 /
54.3 / 58.6 ms per root; 1024 / 512 / 256 threads a block 57.2 / 54.3 / 54.8 ms).
Measured (benchmarks/sssp_road.py, H100): the 4096^2 road-like grid 54.3 ms per root against 99.8
ms for near-far at its best hand-tuned delta (1.84x), the issue's target 30 ms missed by 1.8x.
The critical path is ~9000 dependent block steps (the twin's lock-step ticks: 7486-10234 for the 4
roots, whose shortest-path trees are 6000-8200 hops deep); a step took 4.6 us, 4.3 of them the
expansion's three dependent memory round trips (offsets and word, then index and weight, then
the head's atomicMin), ~1.4 us each because the wave always reaches lines not yet in L2.  On
graphs whose ids carry no locality every edge is a message: R-MAT 22 181 ms against near-far's
7.8, uniform 2^24 96 against 14.5 (sssp.best then runs near-far: select.py).
The CPU twin runs the same buckets, strips, mail and frontiers in lock-step ticks (Numba): every
block takes one step per tick, a remote vertex is mailed at the next tick and claimed at its
owner's step in that tick or the next.
"""

import numba
import numpy as np

from graphsweep.datasets.errors import ParameterError
from graphsweep.datasets.gpu import array_module

from ..contract import Kernel, Param
from ..cuda import check_threads, module, resident_blocks_of
from . import ROOT_PARAM, SSSP
from . import near_far
from .gpu import check_gpu_graph, unpack_words

PARAMS = {
    **ROOT_PARAM,
    "delta": Param(None, int, minimum=1, help="bucket width (default: 2 x sssp.near-far's default)"),
    "threads": Param(512, int, minimum=32, help="threads per block (a multiple of 32; 512: two blocks per SM)"),
    "blocks": Param(None, int, minimum=1, help="thread blocks = strips (default: as many as are co-resident; "
                                               "the CPU twin: 264)"),
    "shared_list": Param(2048, int, minimum=1, help="frontier entries a block keeps in shared memory (more "
                                                    "spill to global memory)"),
    "hub": Param(32, int, minimum=1, help="vertices of more edges are expanded by the whole block"),
}

CPU_BLOCKS = 264            # two blocks on each of an H100's or H200's 132 SMs: the twin's strips are the GPU's
CTL_WORDS = 96
ABORT, OVERFLOW, EPOCHS, MAX_STEPS = 3, 4, 5, 6
EDGES, ENTRIES, MAILS, STEPS, BUSY, BARRIER, SPAN, WAKES, EXPAND, POST = 10, 12, 14, 16, 18, 20, 22, 24, 26, 28
TAIL_STRIDE = 16            # ST_TAIL_STRIDE: a ring tail per 128-byte line
LOG_CAP = 1 << 16


def _positive(csr) -> bool:
    """All weights above 0: relaxations may use a 64-bit atomicMin (sssp.cuh's CAS otherwise)."""
    if csr.nnz == 0:
        return True
    return bool(array_module(csr.weights).min(csr.weights) > 0)


def setup(inp, params) -> None:
    """The default delta (near-far's, kept in the same cache) and the weights' sign need a pass over
    the weights: made once per input, untimed."""
    near_far.setup(inp, params)
    if "sssp.positive" not in inp.cache:
        inp.cache["sssp.positive"] = _positive(inp.csr())


def delta_for(inp, params) -> int:
    setup(inp, params)
    return int(params["delta"]) if params.get("delta") is not None else 2 * near_far.delta_for(inp, params)


def strip_size(n: int, blocks: int) -> int:
    return max(1, -(-n // blocks))


def shared_bytes(n: int, blocks: int, shared_list: int) -> int:
    """Dynamic shared memory of a block: three bitmaps over its strip and two frontier lists."""
    return 4 * (3 * -(-strip_size(n, blocks) // 32) + 2 * shared_list)


# --- GPU --------------------------------------------------------------------------------------

def _module(threads: int):
    # registers capped so that 1024 threads fit on an SM whatever the block size
    return module("sssp/strips.cu", options=(f"-DST_THREADS={threads}", f"-DST_MIN_BLOCKS={max(1, 1024 // threads)}"))


def grid_for(n: int, threads: int, blocks, shared_list: int) -> tuple[int, int]:
    """(blocks, dynamic shared bytes): one strip per co-resident block, or a ParameterError saying why not."""
    import cupy
    threads = check_threads(threads)
    fn = _module(threads).get_function("graphsweep_sssp_strips")
    limit = (cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["sharedMemPerBlockOptin"]
             - fn.shared_size_bytes)
    grid = blocks or resident_blocks_of(fn, threads)
    while True:
        shared = shared_bytes(n, grid, shared_list)
        if shared > limit:
            raise ParameterError(f"sssp.strips: strips of {strip_size(n, grid)} vertices ({grid} blocks) need "
                                 f"{shared} bytes of shared memory a block, more than the {limit} an SM gives "
                                 "(lower 'shared_list', or use sssp.near-far)")
        fn.max_dynamic_shared_size_bytes = shared
        most = resident_blocks_of(fn, threads, shared)
        if grid <= most:
            return grid, shared
        if blocks:
            raise ParameterError(f"parameter 'blocks': {blocks} blocks of {threads} threads cannot all be resident "
                                 f"(at most {most} on this device with {shared} bytes of shared memory each); "
                                 "the bucket barrier needs them all")
        grid = most


def search_gpu(csr, root: int, delta: int, positive: bool, params, timer):
    """(dist, parent, facts, epoch rows) from ``root`` on the device CSR ``csr``."""
    import cupy
    check_gpu_graph(csr)
    n, threads, shared_list = csr.n, params["threads"], params["shared_list"]
    grid, shared = grid_for(n, threads, params["blocks"], shared_list)
    size = strip_size(n, grid)
    mod = _module(threads)
    search = mod.get_function("graphsweep_sssp_strips")
    search.max_dynamic_shared_size_bytes = shared
    word = cupy.empty(n, dtype=np.uint64)
    spill = cupy.empty(2 * n, dtype=np.uint32)       # per block: two frontier lists past the shared part
    piles = cupy.empty(2 * n, dtype=np.uint32)       # per block: the far pile being split and the next
    mailbox = cupy.empty(2 * n, dtype=np.uint64)     # per block: a ring of 2 x strip (tag, vertex) slots
    tails = cupy.empty(TAIL_STRIDE * grid, dtype=np.uint64)
    mailed = cupy.empty(-(-n // 32), dtype=np.uint32)
    ctl = cupy.empty(CTL_WORDS, dtype=np.uint32)
    log = cupy.zeros(1 + 2 * LOG_CAP, dtype=np.uint64)
    dist = cupy.empty(n, dtype=np.int64)
    parent = cupy.empty(n, dtype=np.int64)
    init_blocks = max(1, min(-(-2 * n // threads), 65535))
    with timer.phase("init", written=8 * n + 16 * n + n // 8 + 8 * grid):
        mod.get_function("graphsweep_sssp_init_words")((init_blocks,), (threads,), (word, np.int64(n), np.int32(root)))
        mod.get_function("graphsweep_sssp_strips_init")(
            (init_blocks,), (threads,), (mailbox, tails, mailed, piles, ctl, np.int64(n), np.int64(size),
                                         np.int32(root), np.int32(grid)))
    with timer.phase("search") as traffic:
        search((grid,), (threads,), (csr.offsets, csr.indices, csr.weights, word, spill, piles, mailbox, tails, mailed,
                                     ctl, log, np.int64(n), np.int64(size), np.int32(LOG_CAP), np.int32(shared_list),
                                     np.int32(params["hub"]), np.int32(positive), np.uint32(min(delta, 2**32 - 1)),
                                     np.int32(root), np.int64(4 * n + 64)),
               shared_mem=shared)
    unpack_words(mod, timer, word, dist, parent, threads)
    counters = ctl.get()      # after the phases: did it finish, did a distance overflow, how much work
    if counters[ABORT]:
        raise RuntimeError(f"sssp.strips: the persistent grid of {grid} blocks did not finish "
                           f"(a barrier or a mailbox wait timed out, or the step guard tripped)")
    if counters[OVERFLOW]:
        raise ParameterError("sssp.strips keeps distances in 32 bits: a path of length >= 2^32 - 1 was found "
                             "(use --backend cpu)")
    wide = lambda at: int(counters[at:at + 2].view(np.uint64)[0])  # noqa: E731
    edges, entries, mails = wide(EDGES), wide(ENTRIES), wide(MAILS)
    # entries: 4 B list entry + 8 B word + 16 B offsets; edges: 8 B (index, weight) + an 8 B word
    # atomic at random; mails: a mailed bit, the work count, a ring slot written and read.
    traffic.add(read=28 * entries + 16 * edges + 8 * mails, written=4 * entries + 24 * mails,
                random=entries + edges + 3 * mails)
    epochs, steps = int(counters[EPOCHS]), wide(STEPS)
    # Where a block's time went (means over blocks): stepping, the bucket barriers, and the rest
    # (idle, waiting for mail or for the bucket's end, and the pile splits).
    busy, barrier, span = (wide(at) / grid / 1e6 for at in (BUSY, BARRIER, SPAN))
    per_step = lambda ns: round(ns / 1e3 / max(1, steps), 2)  # noqa: E731
    facts = {"iterations": epochs, "steps": int(counters[MAX_STEPS]), "steps_mean": round(steps / grid, 1),
             "us_per_step": round(1e3 * busy * grid / max(1, steps), 2),
             # a step ends when its expansion threads and its post warps (mail out, mail in) are done
             "expand_us": per_step(wide(EXPAND)), "post_us": per_step(wide(POST)), "busy_ms": round(busy, 2),
             "barrier_ms": round(barrier, 2), "idle_ms": round(span - busy - barrier, 2),
             "wakes_mean": round(wide(WAKES) / grid, 1),
             "relaxations": edges, "entries": entries, "mails": mails, "delta": delta, "blocks": grid, "strip": size}
    return dist, parent, facts, (lambda: epoch_rows(log.get(), epochs))


def epoch_rows(log: np.ndarray, epochs: int) -> list[dict]:
    """Per bucket: its end T and microseconds (the steps inside it and the barrier after it)."""
    rows, last = [], int(log[0])
    for i in range(min(epochs, LOG_CAP)):
        threshold, end = int(log[1 + 2 * i]), int(log[2 + 2 * i])
        rows.append({"step": i, "threshold": threshold, "us": (end - last) / 1e3})
        last = end
    return rows


# --- CPU twin: the same buckets, strips and mail, every block one step per tick -----------------

@numba.njit(cache=True)
def _strips(off, idx, wt, root, delta, blocks):
    n = off.shape[0] - 1
    size = max(1, (n + blocks - 1) // blocks)
    inf = np.iinfo(np.int64).max
    dist = np.full(n, inf, np.int64)
    parent = np.full(n, -1, np.int64)
    dist[root] = 0
    parent[root] = root
    # per block b, regions [b size, b size + strip): two frontier lists, two piles, a mailbox
    cur = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    ncur = np.zeros(blocks, np.int64)
    nnxt = np.zeros(blocks, np.int64)
    queued_cur = np.zeros(n, np.bool_)
    queued_nxt = np.zeros(n, np.bool_)
    pile_in = np.empty(n, np.int64)
    pile_out = np.empty(n, np.int64)
    npile_in = np.zeros(blocks, np.int64)
    npile = np.zeros(blocks, np.int64)
    inpile = np.zeros(n, np.bool_)
    fmin = np.full(blocks, inf, np.int64)
    mail = np.empty(n, np.int64)
    nmail = np.zeros(blocks, np.int64)
    mailed = np.zeros(n, np.bool_)
    outbox = np.empty(n, np.int64)      # remote vertices improved this tick, mailed at the next
    in_outbox = np.zeros(n, np.bool_)
    nout = 0
    steps = np.zeros(blocks, np.int64)
    edges, entries, mails, epochs, ticks = 0, 0, 0, 0, 0
    owner = root // size
    pile_out[owner * size] = root
    npile[owner] = 1
    t_end = 0
    while True:
        # bucket start: T from the piles' minimum, each block splits its own pile
        low = t_end
        if epochs == 0:
            t_end = delta
        else:
            least = inf
            for b in range(blocks):
                least = min(least, fmin[b])
            if least == inf:
                break
            t_end = max(low + delta, (least // delta + 1) * delta)
        pile_in, pile_out = pile_out, pile_in
        for b in range(blocks):
            lo = b * size
            npile_in[b] = npile[b]
            npile[b] = 0
            fmin[b] = inf
            for i in range(npile_in[b]):
                inpile[pile_in[lo + i]] = False
            for i in range(npile_in[b]):
                v = pile_in[lo + i]
                d = dist[v]
                if d >= t_end:
                    fmin[b] = min(fmin[b], d)
                    if not inpile[v]:
                        inpile[v] = True
                        pile_out[lo + npile[b]] = v
                        npile[b] += 1
                elif d >= low and not queued_cur[v]:
                    queued_cur[v] = True
                    cur[lo + ncur[b]] = v
                    ncur[b] += 1
        epochs += 1
        busy = True
        while busy:                      # ticks: every block mails, claims its mail and expands its frontier
            ticks += 1
            for i in range(nout):        # the sender warps: the outboxes of the last tick
                v = outbox[i]
                in_outbox[v] = False
                if not mailed[v]:
                    mailed[v] = True
                    ob = v // size
                    mail[ob * size + nmail[ob]] = v
                    nmail[ob] += 1
                    mails += 1
            nout = 0
            for b in range(blocks):
                lo = b * size
                hi = min(n, lo + size)
                if ncur[b] == 0 and nmail[b] == 0:
                    continue
                steps[b] += 1
                for i in range(nmail[b]):        # the claimer warp: mail into the next frontier
                    v = mail[lo + i]
                    mailed[v] = False
                    if not queued_nxt[v]:
                        queued_nxt[v] = True
                        nxt[lo + nnxt[b]] = v
                        nnxt[b] += 1
                nmail[b] = 0
                entries += ncur[b]
                for i in range(ncur[b]):
                    queued_cur[cur[lo + i]] = False
                for i in range(ncur[b]):
                    u = cur[lo + i]
                    du = dist[u]
                    if du >= t_end:              # mailed at or past T: the owner files it
                        fmin[b] = min(fmin[b], du)
                        if not inpile[u]:
                            inpile[u] = True
                            pile_out[lo + npile[b]] = u
                            npile[b] += 1
                        continue
                    for e in range(off[u], off[u + 1]):
                        edges += 1
                        v = idx[e]
                        nd = du + wt[e]
                        if nd >= dist[v]:
                            continue
                        dist[v] = nd
                        parent[v] = u
                        if v < lo or v >= hi:
                            if not in_outbox[v]:
                                in_outbox[v] = True
                                outbox[nout] = v
                                nout += 1
                        elif nd < t_end:
                            if not queued_nxt[v]:
                                queued_nxt[v] = True
                                nxt[lo + nnxt[b]] = v
                                nnxt[b] += 1
                        else:
                            fmin[b] = min(fmin[b], nd)
                            if not inpile[v]:
                                inpile[v] = True
                                pile_out[lo + npile[b]] = v
                                npile[b] += 1
                ncur[b] = 0
            cur, nxt = nxt, cur
            ncur, nnxt = nnxt, ncur
            queued_cur, queued_nxt = queued_nxt, queued_cur
            busy = nout > 0
            for b in range(blocks):
                busy |= ncur[b] > 0 or nmail[b] > 0
    for v in range(n):
        if dist[v] == inf:
            dist[v] = -1
    return dist, parent, epochs, ticks, steps.max(), steps.mean(), edges, entries, mails


def search_cpu(csr, root: int, delta: int, blocks: int, timer):
    n = csr.n
    with timer.phase("search") as traffic:
        dist, parent, epochs, ticks, steps, steps_mean, edges, entries, mails = _strips(
            csr.offsets, csr.indices, csr.weights, root, delta, blocks)
    traffic.add(read=28 * entries + 16 * edges + 8 * mails, written=16 * n + 24 * mails, random=entries + edges)
    # ticks: lock-step rounds in which every block takes a step, the critical path in block steps
    return dist, parent, {"iterations": epochs, "ticks": ticks, "steps": int(steps),
                          "steps_mean": round(float(steps_mean), 1),
                          "relaxations": edges, "entries": entries, "mails": mails, "delta": delta, "blocks": blocks,
                          "strip": strip_size(n, blocks)}


# --- registration -------------------------------------------------------------------------------

def run_gpu(inp, params, timer):
    delta = delta_for(inp, params)
    dist, parent, facts, epochs = search_gpu(inp.csr(), params["root"], delta, inp.cache["sssp.positive"], params,
                                             timer)
    for name, value in facts.items():
        timer.stat(name, value)
    # One step row per bucket, read from the launch's own log after timing.
    timer.steps("search", lambda: [{"step": r["step"], "ms": r["us"] / 1e3, "info": {"threshold": r["threshold"]}}
                                   for r in epochs()])
    return {"dist": dist, "parent": parent}


def run_cpu(inp, params, timer):
    check_threads(params["threads"])
    dist, parent, facts = search_cpu(inp.csr(), params["root"], delta_for(inp, params),
                                     params["blocks"] or CPU_BLOCKS, timer)
    for name, value in facts.items():
        timer.stat(name, value)
    return {"dist": dist, "parent": parent}


KERNEL = Kernel(name="sssp.strips", problem=SSSP,
                summary="delta-stepping, a block per strip of consecutive ids expanding it without grid barriers "
                        "(block steps, mail across strips); a grid barrier per bucket",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup, needs=("csr",))
