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
    ``hub`` edges by the whole block), reading the vertex's word and its 32-byte row (``ell_rows``,
    made once per graph in the untimed setup: up to 4 (neighbour, weight) entries, or a wider
    vertex's CSR range) in one memory round trip, relaxing by a 64-bit atomicMin on the packed
    (dist, parent) word (a CAS on strict improvement where some weight is 0: sssp.cuh); an improved
    vertex of the strip goes to the next frontier (below T) or the block's far pile (at or above
    T), one of another strip to the block's outbox.  With ``push`` (positive weights only; by
    default where every degree is at most 16) the relaxation is a red.min whose answer no thread
    waits for, every neighbour reached is routed as if improved, and a frontier entry is expanded
    only if its distance fell below the one it was last expanded at (``expanded``, read with its
    word and row): a step waits for one memory round trip instead of two;
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
``delta`` defaults to its own rule (default_delta: twice near-far's as it stood when tuned):
buckets cost a grid barrier each, a little more re-relaxation costs less (H100, the 4096^2 grid,
4 roots, the CSR kernel: delta 2048 / 4096 / 8192 took 56.3 / 54.3 / 58.6 ms per root; 1024 / 512
/ 256 threads a block 57.2 / 54.3 / 54.8 ms).
Measured (benchmarks/sssp_road.py, H100, docs/results.md §14): the 4096^2 road-like grid 43.9 ms
per root (the CSR kernel 54.4 in the same run) against 97.3 for near-far at its best hand-tuned
delta (2.21x); the issue's target 30 ms missed by 1.46x.  The critical path is ~9000 dependent
block steps (the twin's lock-step ticks: 7486-10234 for the 4 roots, whose shortest-path trees
are 6000-8200 hops deep); a step takes 3.6 us, 3.4 of them the expansion's two dependent memory
round trips (word and row, then the neighbours' atomicMin), where the CSR's three took 4.3.
Tried and measured in the same runs, slower: prefetching each relaxed neighbour's row into L2
(44.5 ms: the row was not what the step waited for), loading the neighbours' rows beside the
atomics to prefetch the next step's words and rows (62.9), a thread following the nearest
vertex it improved for up to 1 / 2 / 4 hops before the next step (59.1 / 70.7 / 86.6: a step
waits for its block's longest path, and the vertices left behind wait for that step), and warps
taking vertices from a shared queue without steps (1143).  On graphs whose ids carry no locality
every edge is a message: R-MAT 22 181 ms against near-far's 7.8, uniform 2^24 96 against 14.5 (the
CSR kernel; sssp.best then runs near-far: select.py).
Push (session 20, H200, the same grid and roots, docs/results.md §23): a step 3.62 -> 2.43 us,
44.1-44.3 -> 37.3-37.9 ms a root (1.18x), 40.7-41.2 ms with the ids permuted (by-bfs; 48.4-48.7
before), for 2.1x the mail (a neighbour in another strip is mailed whether improved or not; the
ones not improved are skipped at their owner's step); delta 4096 and 256-512 threads stay best
(1024-16384, 256-1024 tried).  The ids permuted and not renamed: 80.4 -> 65.3 ms.  Where a vertex
has many neighbours in other strips, mailing them all floods the mail: R-MAT 22 168 -> 392 ms,
uniform 2^24 of degree 6 91 -> 135 (select runs near-far on both), so push is on by default only
where every degree is at most 16 (``by_bfs.narrow``: road maps and grids).  Blocks now step
10.6 ms of the 37 and wait 25 (for the wave to cross into their strip, and for each bucket's end):
the next cost to cut is the wave's crossings and the buckets' ends, not the step.
Session 21 (H200, the same grid; docs/results/sssp-road/buckets): a bucket's time is its busiest
block stepping: the most steps any block took in a bucket, summed over a root's 138 buckets, is
10.4-12.4 thousand, at ~2.4 us a step 24.5-28 ms of the 33-36 the buckets took (the rest: that
block waiting for mail).  The per-thread step clocks cost 2.5% (37.4-37.6 -> 36.5-36.6 ms a root,
one machine): only with ``clocks`` now.  Tried on the same machines, slower: up to four lanes a
vertex, each relaxing and routing a share of its row (the expansion 2.19 -> 1.76 us, but the post
warps then bound the step at ~2.0 us: 38.0-38.4 ms, permuted 44.0); 256 threads (equal in order,
41.7 against 40.7 permuted); the neighbours' rows prefetched into L2 (37.7 -> 40.5), routes
aggregated a warp at a time (-> 50.4), the batch's count added as the previous step ends with the
receiver's tail read ahead (37.8 -> 39.4); fence.acq_rel for the sender's fences: no change.  The
twin with a one-bucket lookahead (idle blocks expand their pile's next bucket) cut the ticks 2% for
30% more work.  Next: the post warps out of the step's barrier (a named barrier for the expansion,
shared-memory outbox and inbox), so that the lanes' shorter expansion sets the step.
The CPU twin runs the same buckets, strips, mail and frontiers in lock-step ticks (Numba): every
block takes one step per tick, a remote vertex is mailed at the next tick and claimed at its
owner's step in that tick or the next.
"""

import time

import numba
import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import array_module, backend_module

from ..bfs import by_bfs
from ..contract import Kernel, Param, nearest_power_of_two
from ..cuda import check_threads, module, resident_blocks_of, shared_per_block_optin
from . import ROOT_PARAM, SSSP, near_far
from .gpu import check_gpu_graph, unpack_words

PARAMS = {
    **ROOT_PARAM,
    "delta": Param(None, int, minimum=1, help="bucket width (default: 320 x mean weight / mean degree^2, "
                                              "rounded to a power of two)"),
    "threads": Param(512, int, minimum=32, help="threads per block (a multiple of 32; 512: two blocks per SM)"),
    "blocks": Param(None, int, minimum=1, help="thread blocks = strips (default: as many as are co-resident; "
                                               "the CPU twin: 264)"),
    "shared_list": Param(2048, int, minimum=1, help="frontier entries a block keeps in shared memory (more "
                                                    "spill to global memory)"),
    "hub": Param(32, int, minimum=1, help="vertices of more edges are expanded by the whole block"),
    "push": Param(None, bool, help="positive weights on the GPU: relax by fire-and-forget red.min and route every "
                                   "neighbour reached, expanding an entry only if its distance fell since its last "
                                   "expansion (a step waits for one memory round trip, not two); false: wait for "
                                   "each atomicMin's answer and route only the improved.  Default: on where every "
                                   "degree is at most 16 (road maps, grids), off elsewhere, where mailing every "
                                   "neighbour floods the mail (R-MAT 22: 392 against 168 ms a root, H200)"),
    "clocks": Param(False, bool, omit_default=True,
                    help="time each step's parts (statistics expand_us, post_us, load_us): every thread reads the "
                         "global timer twice a step (the 4096^2 grid: 37.5 against 36.6 ms a root, H200)"),
}

CPU_BLOCKS = 264            # two blocks on each of an H100's or H200's 132 SMs: the twin's strips are the GPU's
CTL_WORDS = 96
ABORT, OVERFLOW, EPOCHS, MAX_STEPS = 3, 4, 5, 6
EDGES, ENTRIES, MAILS, STEPS, BUSY, BARRIER, SPAN, WAKES, EXPAND, POST, LOAD = 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
TAIL_STRIDE = 16            # ST_TAIL_STRIDE: a ring tail per 128-byte line
LOG_CAP = 1 << 16
ELL_WIDTH = 4               # ST_ELL: entries of a vertex's row, 32 bytes (one DRAM sector)
NONE = np.uint64(2**64 - 1)  # an empty entry (its low word ST_NONE)
WIDE = np.uint64(2**32 - 2)  # ST_WIDE: entry 0 of a vertex of more edges; entries 1 and 2 its CSR range


def ell_rows(csr, xp):
    """The strips' layout of the graph: ELL_WIDTH uint64 entries a vertex, (weight << 32) | neighbour
    in CSR order then NONE; a vertex of more edges has (WIDE, offsets[v], offsets[v + 1], NONE).
    A step reads a vertex's word and its row together, one memory round trip where the CSR needs
    two (offsets, then indices and weights).  32 bytes a vertex (the 4096^2 grid: 537 MB)."""
    n = csr.n
    rows = xp.full(ELL_WIDTH * n, NONE, dtype=xp.uint64)
    off = xp.asarray(csr.offsets).astype(xp.int64)
    deg = off[1:] - off[:-1]
    if csr.nnz:
        e = xp.arange(csr.nnz, dtype=xp.int64)
        owner = xp.searchsorted(off, e, side="right") - 1
        narrow = deg[owner] <= ELL_WIDTH
        at = owner[narrow] * ELL_WIDTH + (e - off[owner])[narrow]
        rows[at] = (xp.asarray(csr.indices)[narrow].astype(xp.uint64)
                    | (xp.asarray(csr.weights)[narrow].astype(xp.uint64) << xp.uint64(32)))
    wide = xp.flatnonzero(deg > ELL_WIDTH) * ELL_WIDTH
    rows[wide] = WIDE
    rows[wide + 1] = off[:-1][deg > ELL_WIDTH].astype(xp.uint64)
    rows[wide + 2] = off[1:][deg > ELL_WIDTH].astype(xp.uint64)
    return rows


def layout(inp):
    """(rows, ms): ell_rows on the kernel's backend (on the device even where the CSR is in host
    memory), made once per input in the untimed setup; its ms is a statistic of every row."""
    if "sssp.strips.ell" not in inp.cache:
        xp = backend_module(inp.backend)
        t0 = time.perf_counter()
        rows = ell_rows(inp.csr(), xp)
        if xp is not np:
            xp.cuda.get_current_stream().synchronize()
        inp.cache["sssp.strips.ell"] = (rows, (time.perf_counter() - t0) * 1e3)
    return inp.cache["sssp.strips.ell"]


def _positive(csr) -> bool:
    """All weights above 0: relaxations may use a 64-bit atomicMin (sssp.cuh's CAS otherwise)."""
    if csr.nnz == 0:
        return True
    return bool(array_module(csr.weights).min(csr.weights) > 0)


def default_delta(csr) -> int:
    """320 x mean weight / mean degree^2, rounded to a power of two: twice sssp.near-far's rule as
    it stood when strips was tuned (a bucket costs a grid barrier, a little more re-relaxation
    costs less; the 4096^2 grid: 4096), kept here so near-far's rule can move for skewed graphs
    without moving the strips' (the statistics are near-far's)."""
    stats = near_far.delta_statistics(csr)
    if stats["mean_weight"] <= 0:
        return 1
    return nearest_power_of_two(320 * stats["mean_weight"] / stats["mean_degree"] ** 2)


def setup(inp, params) -> None:
    """The default delta, the weights' sign and the rows need passes over the graph: made once per
    input, untimed."""
    csr = inp.csr()
    if params.get("delta") is None and "sssp.strips.delta" not in inp.cache:
        inp.cache["sssp.strips.delta"] = default_delta(csr)
    if "sssp.positive" not in inp.cache:
        inp.cache["sssp.positive"] = _positive(csr)
    if "sssp.strips.narrow" not in inp.cache:
        inp.cache["sssp.strips.narrow"] = by_bfs.narrow(csr)
    layout(inp)


def push_for(inp, params) -> bool:
    """Whether the search pushes (``push`` given, else on graphs whose degrees are all at most
    ``by_bfs.NARROW_DEGREE``) — only where every weight is positive."""
    setup(inp, params)
    wanted = params["push"] if params.get("push") is not None else inp.cache["sssp.strips.narrow"]
    return bool(wanted) and inp.cache["sssp.positive"]


def delta_for(inp, params) -> int:
    setup(inp, params)
    return int(params["delta"]) if params.get("delta") is not None else inp.cache["sssp.strips.delta"]


def strip_size(n: int, blocks: int) -> int:
    return max(1, -(-n // blocks))


def shared_bytes(n: int, blocks: int, shared_list: int) -> int:
    """Dynamic shared memory of a block: three bitmaps over its strip and two frontier lists."""
    return 4 * (3 * -(-strip_size(n, blocks) // 32) + 2 * shared_list)


# --- GPU --------------------------------------------------------------------------------------

def _module(threads: int, clocks: bool = False):
    # registers capped so that 1024 threads fit on an SM whatever the block size
    return module("sssp/strips.cu", options=(f"-DST_THREADS={threads}", f"-DST_MIN_BLOCKS={max(1, 1024 // threads)}",
                                             *(("-DST_STEP_CLOCKS",) if clocks else ())))


def grid_for(n: int, threads: int, blocks, shared_list: int, clocks: bool = False) -> tuple[int, int]:
    """(blocks, dynamic shared bytes): one strip per co-resident block, or a ParameterError saying why not."""
    threads = check_threads(threads)
    fn = _module(threads, clocks).get_function("graphsweep_sssp_strips")
    limit = shared_per_block_optin() - fn.shared_size_bytes
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


def search_gpu(csr, rows, root: int, delta: int, positive: bool, push: bool, params, timer):
    """(dist, parent, facts, epoch rows) from ``root`` on the device CSR ``csr`` and its ``rows``."""
    import cupy
    check_gpu_graph(csr)
    n, threads, shared_list = csr.n, params["threads"], params["shared_list"]
    grid, shared = grid_for(n, threads, params["blocks"], shared_list, params["clocks"])
    size = strip_size(n, grid)
    mod = _module(threads, params["clocks"])
    search = mod.get_function("graphsweep_sssp_strips")
    search.max_dynamic_shared_size_bytes = shared
    word = cupy.empty(n, dtype=np.uint64)
    spill = cupy.empty(2 * n, dtype=np.uint32)       # per block: two frontier lists past the shared part
    piles = cupy.empty(2 * n, dtype=np.uint32)       # per block: the far pile being split and the next
    mailbox = cupy.empty(2 * n, dtype=np.uint64)     # per block: a ring of 2 x strip (tag, vertex) slots
    tails = cupy.empty(TAIL_STRIDE * grid, dtype=np.uint64)
    mailed = cupy.empty(-(-n // 32), dtype=np.uint32)
    expanded = cupy.empty(n, dtype=np.uint32)
    ctl = cupy.empty(CTL_WORDS, dtype=np.uint32)
    log = cupy.zeros(1 + 4 * LOG_CAP, dtype=np.uint64)
    dist = cupy.empty(n, dtype=np.int64)
    parent = cupy.empty(n, dtype=np.int64)
    init_blocks = max(1, min(-(-2 * n // threads), 65535))
    with timer.phase("init", written=8 * n + 20 * n + n // 8 + 8 * grid):
        mod.get_function("graphsweep_sssp_init_words")((init_blocks,), (threads,), (word, np.int64(n), np.int32(root)))
        mod.get_function("graphsweep_sssp_strips_init")(
            (init_blocks,), (threads,), (mailbox, tails, mailed, expanded, piles, ctl, np.int64(n), np.int64(size),
                                         np.int32(root), np.int32(grid)))
    with timer.phase("search") as traffic:
        search((grid,), (threads,), (csr.offsets, csr.indices, csr.weights, rows, word, spill, piles, mailbox, tails,
                                     mailed, expanded, ctl, log, np.int64(n), np.int64(size), np.int32(LOG_CAP),
                                     np.int32(shared_list), np.int32(params["hub"]), np.int32(positive),
                                     np.int32(push),
                                     np.uint32(min(delta, 2**32 - 1)),
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
    # entries: 4 B list entry + 8 B word + a 32 B row (push: + its 4 B last expansion, written
    # again); edges: an 8 B word atomic at random (the wide vertices' 8 B (index, weight) are not
    # told apart); mails: a mailed bit, the work count, a ring slot written and read.
    pushed = 4 * entries if push else 0
    traffic.add(read=44 * entries + pushed + 8 * edges + 8 * mails, written=4 * entries + pushed + 24 * mails,
                random=entries + edges + 3 * mails)
    epochs, steps = int(counters[EPOCHS]), wide(STEPS)
    # Where a block's time went (means over blocks): stepping, the bucket barriers, and the rest
    # (idle, waiting for mail or for the bucket's end, and the pile splits).
    busy, barrier, span = (wide(at) / grid / 1e6 for at in (BUSY, BARRIER, SPAN))
    per_step = lambda ns: round(ns / 1e3 / max(1, steps), 2)  # noqa: E731
    facts = {"iterations": epochs, "steps": int(counters[MAX_STEPS]), "steps_mean": round(steps / grid, 1),
             "us_per_step": round(1e3 * busy * grid / max(1, steps), 2), "busy_ms": round(busy, 2),
             "barrier_ms": round(barrier, 2), "idle_ms": round(span - busy - barrier, 2),
             "wakes_mean": round(wide(WAKES) / grid, 1),
             "relaxations": edges, "entries": entries, "mails": mails, "delta": delta, "blocks": grid, "strip": size}
    if params["clocks"]:
        # a step ends when its expansion threads and its post warps (mail out, mail in) are done; load:
        # to the last expanded entry's word
        facts.update(expand_us=per_step(wide(EXPAND)), post_us=per_step(wide(POST)), load_us=per_step(wide(LOAD)))
    return dist, parent, facts, (lambda: epoch_rows(log.get(), epochs))


def epoch_rows(log: np.ndarray, epochs: int) -> list[dict]:
    """Per bucket: its end T, microseconds (the steps inside it and the barrier after it), the most
    steps a block took in it and the blocks that stepped (every block steps at least once a bucket:
    its first step runs whether or not the pile split gave it entries)."""
    rows, last = [], int(log[0])
    for i in range(min(epochs, LOG_CAP)):
        threshold, end, steps, blocks = (int(x) for x in log[1 + 4 * i:5 + 4 * i])
        rows.append({"step": i, "threshold": threshold, "us": (end - last) / 1e3, "steps": steps, "blocks": blocks})
        last = end
    return rows


# --- CPU twin: the same buckets, strips and mail, every block one step per tick -----------------

@numba.njit(cache=True)
def _row_edge(rows, idx, wt, u, j):
    """u's j-th edge (neighbour, weight) as the GPU reads it: from u's row, or from the CSR range a
    wide vertex's row holds; neighbour -1 past the last."""
    at = u * ELL_WIDTH
    if rows[at] & 0xFFFFFFFF == 0xFFFFFFFE:
        e = rows[at + 1] + j
        if e >= rows[at + 2]:
            return -1, 0
        return idx[e], wt[e]
    if j >= ELL_WIDTH or rows[at + j] == -1:
        return -1, 0
    return rows[at + j] & 0xFFFFFFFF, rows[at + j] >> 32


@numba.njit(cache=True)
def _strips(rows, idx, wt, root, delta, blocks):
    n = rows.shape[0] // ELL_WIDTH
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
                    j = 0
                    while True:
                        v, w = _row_edge(rows, idx, wt, u, j)
                        if v < 0:
                            break
                        j += 1
                        edges += 1
                        nd = du + w
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


def search_cpu(csr, rows, root: int, delta: int, blocks: int, timer):
    n = csr.n
    with timer.phase("search") as traffic:
        dist, parent, epochs, ticks, steps, steps_mean, edges, entries, mails = _strips(
            rows.view(np.int64), csr.indices, csr.weights, root, delta, blocks)
    traffic.add(read=44 * entries + 8 * edges + 8 * mails, written=16 * n + 24 * mails, random=entries + edges)
    # ticks: lock-step rounds in which every block takes a step, the critical path in block steps
    return dist, parent, {"iterations": epochs, "ticks": ticks, "steps": int(steps),
                          "steps_mean": round(float(steps_mean), 1),
                          "relaxations": edges, "entries": entries, "mails": mails, "delta": delta, "blocks": blocks,
                          "strip": strip_size(n, blocks)}


# --- registration -------------------------------------------------------------------------------

def run_gpu(inp, params, timer):
    delta = delta_for(inp, params)
    rows, layout_ms = layout(inp)
    push = push_for(inp, params)
    dist, parent, facts, epochs = search_gpu(inp.csr(), rows, params["root"], delta, inp.cache["sssp.positive"],
                                             push, params, timer)
    timer.stat("layout_ms", round(layout_ms, 2))
    timer.stat("push", push)
    for name, value in facts.items():
        timer.stat(name, value)
    # One step row per bucket, read from the launch's own log after timing.
    timer.steps("search", lambda: [{"step": r["step"], "ms": r["us"] / 1e3,
                                    "info": {"threshold": r["threshold"], "steps": r["steps"], "blocks": r["blocks"]}}
                                   for r in epochs()])
    return {"dist": dist, "parent": parent}


def run_cpu(inp, params, timer):
    check_threads(params["threads"])
    rows, layout_ms = layout(inp)
    dist, parent, facts = search_cpu(inp.csr(), rows, params["root"], delta_for(inp, params),
                                     params["blocks"] or CPU_BLOCKS, timer)
    timer.stat("layout_ms", round(layout_ms, 2))
    for name, value in facts.items():
        timer.stat(name, value)
    return {"dist": dist, "parent": parent}


KERNEL = Kernel(name="sssp.strips", problem=SSSP,
                summary="delta-stepping, a block per strip of consecutive ids expanding it without grid barriers "
                        "(block steps, mail across strips); a grid barrier per bucket",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup, needs=("csr",))
