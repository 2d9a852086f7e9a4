"""listrank.recursive-splitter — random splitters (000) in the recursion of 003, tuned for Hopper.

Returns rank[i] = links from i to the tail.  The list is cut into chunks of C = ``sublist``
consecutive node indices and chunk k's splitter is a random node of it (000 Alg. 3 RS2; the
head stands for its chunk), drawn by a hash of k.  Because the splitter of a chunk is a pure
function of the chunk, a walk knows whether the node it reached is a splitter from the node's
index alone: there is no marking pass (RS1/RS2) and each walk step is one dependent read of the
node plus one store of its record (links from the splitter, owner) — the dependent pointer chase
the device can do, and little more.  The walks run on a persistent grid (blocks default: half
of every SM's thread slots, which walked 6-8% faster than all of them on an H100) in one flat loop:
a lane whose sub-list ends takes the next unclaimed one from an atomic counter at once, so a warp
is not held by its longest walk (003 §4.2's warp imbalance).

Where the records go (``records``) decides the walk's DRAM traffic.  A store to a random node's
record in an array of its own (``separate``, the chase-with-store floor's pattern) lands in a
sector the L2 does not hold: it is fetched, merged and written back, two DRAM transfers besides
the read.  The default, ``in-place``, first copies succ into the rank array (one streaming pass)
and each step overwrites the successor it has just read with the 32-bit record (owner << b) |
offset, in the sector that read brought into the L2: one read and one write-back a step.  b is the
most bits the offset may have with room for the owners left; a sub-list longer than 2^b nodes goes
on under a new id (at most n / 2^b of them; 1316 of 4.2M at 2^28), so a record always fits.
Level 0's combine is then in place too: rank = (sub-list's rank) - offset - 1.  A step stores its
record only after its read has returned: issued while the read of the same word is in flight, the
store made the walk 2.2x slower (docs/results/listrank-floor).

The p = n/C sub-lists (and the ones that went on) form a reduced list of packed (weight, next)
nodes that is ranked the same way, recursively (003 Alg. 3), records over nodes, while it has more
than ``limit`` nodes.  The first is prefetched into the L2 (the level-0 walk wrote it over
milliseconds); the deeper ones are small and their walks as long as their longest sub-list, so
their chunks are shorter (``reduced_sublist``, 8 beat 4 and 16).  The last list is ranked by one
block's pointer jumping in shared memory, in one launch (Wyllie's launches took 59 us); each
level then adds its sub-list's rank in one coalesced pass, whose gather of sub-list ranks stays in
L2 because C grows with n past 2^27 nodes (at most 2^22 sub-lists).  On an H100 at 2^26 the
phases take: copy 0.19 ms, walk 5.71 (0.85x the chase-with-store floor), reduced levels 0.26,
base 0.02, level-0 combine 0.55 (one random L2 read per node, ~123 G/s): 1.00x the floor
(docs/results/listrank-floor).
"""

from typing import NamedTuple

import numba
import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import array_module, to_host

from ..contract import Kernel, Param
from ..cuda import c_type, check_threads, launch, module, resident_blocks
from . import LISTRANK
from .cpu import rank_by_levels, sublist_stats
from .gpu import U64, check_gpu_size, jump_rounds

RECORDS = ("in-place", "separate")
BASE_NODES = 6144              # FS_BASE_NODES in the .cu: one block's 48 KB of shared memory
BASE_THREADS = 1024

PARAMS = {
    "sublist": Param(None, minimum=2, help="chunk size C (a power of two): the mean sub-list length (default: "
                                           "32, raised for n > 2^27 so at most 2^22 sub-lists keep their ranks in L2)"),
    "reduced_sublist": Param(8, minimum=2, help="chunk size of the reduced lists (a power of two): their walks are "
                                                "short, each as long as its longest sub-list"),
    "limit": Param(BASE_NODES, minimum=16, help=f"lists of at most this many nodes (at most {BASE_NODES}) are "
                                                "ranked by one block's pointer jumping in shared memory"),
    "records": Param(RECORDS[0], type=str, choices=RECORDS,
                     help="where level 0's walk writes its records (GPU): 32-bit over the successors it reads, "
                          "copied into the rank array, or 64-bit in an array of their own"),
    "segment": Param(None, minimum=2, help="in-place: the most nodes a walk records under one sub-list id "
                                           "before it goes on under a new one (a power of two; default: the most "
                                           "the record's offset holds)"),
    "seed": Param(1, minimum=0, help="seed of the splitter draw"),
    "threads": Param(256, minimum=32, help="threads per block"),
    "blocks": Param(None, minimum=1, help="thread blocks of every pass (default: half of what fills every SM's "
                                          "thread slots: the in-place walk ran 6-8% faster with half the chains "
                                          "in flight)"),
}


L2_SUBLISTS = 1 << 22          # 16 MB of sub-list ranks: the level-0 combine gathers them from L2


def _log2(params, name: str) -> int:
    c = params[name]
    if c & (c - 1):
        raise ParameterError(f"parameter '{name}': {c} is not a power of two")
    return c.bit_length() - 1


def log_chunk(params, n: int) -> int:
    if params["sublist"] is None:
        return max(5, (-(-n // L2_SUBLISTS) - 1).bit_length())
    return _log2(params, "sublist")


def check_params(params) -> None:
    if params["limit"] > BASE_NODES:
        raise ParameterError(f"parameter 'limit': {params['limit']} is above {BASE_NODES}, the most one block "
                             "ranks in shared memory")
    for name in ("sublist", "reduced_sublist", "segment"):
        if params[name] is not None:
            _log2(params, name)


def offset_bits(m: int, p: int, segment: int | None) -> int:
    """Bits of an in-place record's offset: the most b for which p sub-lists and the ones that
    go on past 2^b nodes (at most ceil(m / 2^b)) have ids below 2^(32 - b); fewer for ``segment``."""
    b = 31
    while p + -(-m >> b) > 1 << (32 - b):
        b -= 1
    return min(b, segment.bit_length() - 1) if segment else b


class Level(NamedTuple):
    m: int          # nodes
    p: int          # sub-lists (chunks)
    cap: int        # nodes of the next list: p, plus room for sub-lists that go on (in-place)
    head: int
    log_c: int


def plan(n: int, head: int, params, bits: int | None = None) -> list[Level]:
    """Each level that is reduced (the last list, of at most ``limit`` nodes, is the base);
    ``bits``: level 0's in-place offset bits."""
    levels, m, log_c = [], n, log_chunk(params, n)
    while m > params["limit"]:
        p = -(-m >> log_c)
        cap = p + (-(-m >> bits) if bits is not None and not levels else 0)
        levels.append(Level(m, p, cap, head, log_c))
        m, head, log_c = cap, head >> log_c, _log2(params, "reduced_sublist")
    return levels


def run_gpu(inp, params, timer):
    import cupy
    check_gpu_size(inp)
    check_params(params)
    n, threads, seed = inp.n, check_threads(params["threads"]), params["seed"]
    blocks = params["blocks"] or max(1, resident_blocks(threads) // 2)
    records = params["records"]
    s_type = c_type(inp.succ.dtype)
    names = (f"graphsweep_listrank_fs_walk_succ<{s_type}>", f"graphsweep_listrank_fs_load32<{s_type}>",
             f"graphsweep_listrank_fs_base_succ<{s_type}>")
    mod = module("listrank/recursive_splitter.cu", name_expressions=names)
    rank = cupy.empty(n, dtype=np.int32)
    bits = None
    if records == "in-place" and n > params["limit"]:
        bits = offset_bits(n, -(-n >> log_chunk(params, n)), params["segment"])
    levels = plan(n, inp.head, params, bits)
    timer.stat("depth", len(levels))
    timer.stat("level_sizes", [lv.m for lv in levels] + [levels[-1].cap if levels else n])
    if not levels:
        with timer.phase("base", read=n * inp.succ.itemsize, written=4 * n, random=n):
            mod.get_function(names[2])((1,), (BASE_THREADS,), (inp.succ, rank, np.int32(n), np.int32(jump_rounds(n))))
        return rank

    node = [cupy.empty(lv.cap, dtype=U64) for lv in levels]      # node[l]: the list of level l + 1
    incl = [cupy.empty(lv.cap, dtype=np.uint32) for lv in levels]
    counters = cupy.zeros((len(levels), 2), dtype=np.uint32)       # sub-lists claimed, sub-lists gone on
    exits = cupy.empty((len(levels), blocks * threads), dtype=U64)
    top = levels[0]

    def walk(fn, level, lv, *arrays):
        fn((blocks,), (threads,), (*arrays, node[level], counters[level], exits[level], np.int32(lv.m),
                                   np.int32(lv.log_c), np.int32(lv.head), np.uint32(seed + level)))

    width = inp.succ.itemsize
    if records == "separate":
        rec0 = cupy.empty(n, dtype=U64)
        with timer.phase("walk", read=n * width, written=8 * n + 8 * top.p, random=2 * n + top.p):
            walk(mod.get_function(names[0]), 0, top, inp.succ, rec0)
    else:
        with timer.phase("load", read=n * width, written=4 * n + 8 * (top.cap - top.p)):
            if inp.succ.dtype == np.int32:
                rank.data.copy_from_device_async(inp.succ.data, 4 * n)
            else:
                launch(mod.get_function(names[1]), n, threads, blocks, inp.succ, rank, np.int64(n))
            if top.cap > top.p:
                launch(mod.get_function("graphsweep_listrank_fs_spare_tails"), top.cap - top.p, threads, blocks,
                       node[0], np.int64(top.p), np.int64(top.cap))
        with timer.phase("walk", read=4 * n, written=4 * n + 8 * top.p, random=2 * n + top.p):
            walk(mod.get_function("graphsweep_listrank_fs_walk_over32"), 0, top, rank, np.int32(bits))

    if len(levels) > 1:
        with timer.phase("reduced", read=node[0].nbytes):
            launch(mod.get_function("graphsweep_listrank_fs_prefetch"), -(-node[0].nbytes // 128), threads, blocks,
                   node[0], np.int64(node[0].nbytes))
    walk_nodes = mod.get_function("graphsweep_listrank_fs_walk_over64")
    for level in range(1, len(levels)):
        lv = levels[level]
        with timer.phase("reduced", read=8 * lv.m, written=8 * lv.m + 8 * lv.p, random=2 * lv.m + lv.p, step=level):
            walk(walk_nodes, level, lv, node[level - 1])
    last = levels[-1].cap
    with timer.phase("base", read=16 * last, written=4 * last, random=last):
        mod.get_function("graphsweep_listrank_fs_base_nodes")((1,), (BASE_THREADS,), (
            node[-1], incl[-1], np.int32(last), np.int32(jump_rounds(last))))
    expand = mod.get_function("graphsweep_listrank_fs_expand")
    for level in reversed(range(1, len(levels))):
        m, p = levels[level].m, levels[level].cap
        with timer.phase("reduced", read=12 * m, written=4 * m, random=m):
            launch(expand, m, threads, blocks, node[level - 1], incl[level], incl[level - 1], np.int64(p),
                   np.int64(m))
    if records == "in-place":
        with timer.phase("expand", read=8 * n, written=4 * n, random=n):
            launch(mod.get_function("graphsweep_listrank_fs_expand32"), n, threads, blocks, rank, incl[0],
                   np.int32(bits), np.int64(n))
    else:
        with timer.phase("expand", read=12 * n, written=4 * n, random=n):
            launch(mod.get_function("graphsweep_listrank_expand_rank"), n, threads, blocks, rec0, incl[0], rank,
                   np.int64(n))

    walkers = min(blocks * threads, top.p)

    # The statistics are reduced on the device after timing (millions of sub-lists: sorted and
    # reduced on the host they took 0.15 s a task at 2^28).
    def sublists():             # level 0's sub-lists (and the ones that went on): their lengths from incl[0]
        return sublist_stats(lengths_from_suffixes(incl[0][:top.p + int(counters[0, 1])]))
    timer.stat("sublists", sublists)
    timer.stat("continued", lambda: int(counters[0, 1]))
    if bits is not None:
        timer.stat("offset_bits", bits)
    timer.stat("walk_exits_us", lambda: exit_spread(exits[0, :walkers]))
    return rank


def lengths_from_suffixes(incl):
    """Sub-list lengths from their splitters' inclusive suffix lengths (one per sub-list, all
    different): sorted, each is the next smaller one plus its own sub-list (NumPy or CuPy)."""
    xp = array_module(incl)
    ordered = xp.sort(incl.astype(xp.int64))
    return xp.diff(ordered, prepend=xp.zeros(1, xp.int64))


QUANTILES = (("p50", 50), ("p90", 90), ("p99", 99), ("last", 100))


def exit_spread(ns) -> dict:
    """When the level-0 walkers ran out of work, in us after the first did (the counter ran dry):
    the median, 90th and 99th percentile walker, and the last (the walk's tail)."""
    xp = array_module(ns)
    wide = ns.astype(xp.int64)
    t = (wide - wide.min()).astype(xp.float64) / 1e3
    at = to_host(xp.percentile(t, [v for _, v in QUANTILES]))
    return {q: float(v) for (q, _), v in zip(QUANTILES, at)}


# --- CPU twin: the same chunked random splitters and levels (cpu.rank_by_levels); its records
# are arrays of their own (``records`` and ``segment`` are the GPU's layout).

@numba.njit(cache=True, parallel=True)
def _select(rec, spl, log_c, head, seed):
    m = rec.shape[0]
    for j in numba.prange(m):
        rec[j] = -1 << 32
    for k in numba.prange(spl.shape[0]):
        lo = k << log_c
        hi = min(lo + (1 << log_c), m)
        s = head if lo <= head < hi else lo + (((k * 0x5851F42D4C957F2D + seed) >> 11) & 0xFFFFFFFF) % (hi - lo)
        spl[k] = s
        rec[s] = k << 32


def run_cpu(inp, params, timer):
    check_params(params)
    levels = plan(inp.n, inp.head, params)

    def select(level, rec, spl):
        _select(rec, spl, levels[level].log_c, levels[level].head, params["seed"] + level)

    base_head = levels[-1].head >> levels[-1].log_c if levels else inp.head
    return rank_by_levels(inp, levels, select, base_head, timer)


KERNEL = Kernel(name="listrank.recursive-splitter", problem=LISTRANK,
                summary="recursive random splitters, no marking pass, persistent dynamic walks writing their "
                        "records over the list they read (000 + 003, tuned)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, walk_phase="walk",
                walk_bytes=lambda params: 8 if params["records"] == "in-place" else 12)
