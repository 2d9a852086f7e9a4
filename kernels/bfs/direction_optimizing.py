"""bfs.direction-optimizing — Beamer's direction-optimizing BFS, every level of both directions
in one persistent grid.

Returns ``{"level", "parent"}`` (see the package doc); statistics: ``levels`` (max level + 1),
``bottom_up_levels``, ``launches``.

Algorithm (Beamer, Asanović, Patterson, SC'12; GAPBS src/bfs.cc): top-down steps expand a queue
of the frontier; when the frontier's out-edges m_f exceed the unexplored edges m_u / alpha, the
frontier becomes a bitmap and bottom-up steps let every unvisited vertex look for a parent among
its in-neighbours, stopping at the first; when the frontier shrinks below n / beta (and is
shrinking), back to top-down.  GAPBS's alpha = 15, beta = 18; its quirks are kept (m_u is not
lowered by bottom-up steps; the first step after bottom-up is top-down whatever m_f is).  One
departure: top-down goes bottom-up only when m_f also exceeds n / beta, since a bottom-up level
on a GPU is a pass over every vertex (without it a grid's last levels, where m_u runs out, bounce
to bottom-up and back).

On the GPU (direction_optimizing.cu) the whole traversal is one persistent launch (cooperative,
as many blocks as can be resident) with a grid barrier per level: a level costs a barrier and its
work, not a launch and a host round trip — what a 2D grid's thousands of levels and a small
graph's bottom-up levels need.  The direction is chosen on the device, by every block from the
same counters read after the same barrier, and the conversions between queue and bitmap run
inside the launch too, and so does the writing of the outputs; the host queues the launch and
does not wait for it (its control block is copied on the device and read after timing), unless
``levels_per_launch`` makes it come back every so many levels with the state in the control block.
- top-down: a warp takes 32 frontier vertices and lays their edges end to end with a warp scan
  (Merrill's scan-based gather; the lane owning an edge is found by a binary search over the
  lanes' sums), 4 edges per lane in flight; vertices of degree above 256 become work items of 256
  edges that the whole grid shares after a barrier (Gunrock's and Enterprise's answer to hubs).  A
  vertex is claimed by atomicOr on a visited bitmap (L2 resident; on frontiers of 16K+ a plain
  read of the bit first); its row is read then and queued with it, so the next level reads no
  offsets; discovered vertices are staged per warp in shared memory and appended with one atomic
  per ~100.
- a level on a small frontier (a road network's thousands) is a chain of dependent round trips,
  kept short: the barrier is a release-add of the block's arrival to the level's count slot (the
  vertices it found ride in the same add) and acquire reads of it, so the read that sees the last
  arrival also reads the next frontier's size; the frontier's edge sum and each lane's first queue
  entry are then read together; the frontier's 32-vertex slices go to different blocks (one SM
  each, not 8 warps on a few SMs); a warp whose 32 vertices have at most 4 edges each lets each
  lane take its own vertex's edges (no scan, no search); on levels of under 64K edges a
  neighbour's row is read beside its claim instead of after it, and a claimed vertex's edges are
  prefetched into L2 for the next level.  What is left: entry, edge, claim and row, the queue
  append, the barrier's arrival and its poll (docs/results.md §16).
- bottom-up: a warp per 32-vertex word of the visited bitmap; a lane checks its vertex's first 32
  in-neighbours against the frontier bitmap, 4 at a time, then the warp takes the vertices still
  searching one at a time, 32 neighbours per step (early exit at the first hit).  Vertices without
  in-edges (a bitmap made once per graph) are skipped like visited ones: nothing reaches them.
- level and parent of a reached vertex live in one int2 array while the search runs (a claim is
  one 8-byte store instead of two partial-sector writes to DRAM); it is never initialised: the end
  of the launch writes the outputs from it and the visited bitmap (-1 where unvisited), so a run
  moves 8n + 8 reached bytes of outputs, not an 8n initialisation and a 16n split pass besides.
Byte model per level and per launch from the counts the device returns (frontier vertices f,
their edges e, vertices claimed c, bottom-up's unvisited u, edges examined k, found a, bitmap
words W, reached r): top-down reads 16f + 4e + 16c (+24 per work item), writes 24c (+8 per item),
random e + 2c; bottom-up reads 8W + 16u + 4k (u: those with in-edges), writes 4W + 8a, random
u + k; queue to bitmap reads 16f, writes 4W, random f; bitmap to queue reads 4W + 16a, writes
16a, random a; the outputs read 4W + 8r and write 8n.

The CPU twin is the same algorithm with Numba prange: top-down over chunks of the queue (a
vertex claimed by two chunks keeps the parent written last, and only that chunk queues it),
bottom-up over all vertices.
"""

from dataclasses import dataclass, replace
from enum import IntEnum

import numba
import numpy as np

from graphsweep.core.errors import ParameterError

from ..contract import Kernel, Param
from ..cuda import blocks_for, check_threads, launch_cooperative, module, persistent_blocks, sm_count
from ..timing import timer_for
from . import BFS, ROOT_PARAM
from .gpu import check_gpu_graph

# CSR entries a vertex (nnz / n) from which the kernel is compiled for 64 registers a thread.  H200,
# every level in one launch: R-MAT scale 24, edge factor 16 (3 of 7-8 levels bottom-up) 1.21 ms a
# root at 64, 1.77 at 128; the 4096^2 grid keeping 0.8 (under 4 a vertex, top-down only) 10.5 us a
# level at 64, 7.6 at 128; graphs of 256K-1M vertices within 7% either way (benchmarks/bfs.py --levels).
# (Before docs/results.md §16's changes; the grid is now 5.1 us a level at 128, H100.)
BOTTOM_UP_DEGREE = 8
# Mean vertices a level (n / the depth estimate, depth_estimate below) under which the persistent
# grid runs one block a SM instead of as many as fit: a level on a thin front is a chain of round
# trips ending in a barrier whose arrivals are one per block.  H200, 16 roots (call 1, session 17):
# the 4096^2 grid (2.7K a level) 4.97 against 5.10 us a level; one block a SM everywhere cost R-MAT
# 22 / 24 1.9x / 2.6x, uniform 2^24 of degree 6 / 16 1.6x, the random binary tree of 2^24 (200K a
# level) 1.7x: their levels want every warp.
THIN_FRONT = 1 << 14

PARAMS = {
    **ROOT_PARAM,
    "direction": Param("auto", str, choices=("auto", "top-down", "bottom-up"),
                       help="auto: Beamer's switching; top-down or bottom-up: that direction at every level"),
    "alpha": Param(15.0, float, minimum=1e-9, help="to bottom-up when the frontier's edges exceed unexplored edges / alpha"),
    "beta": Param(18.0, float, minimum=1e-9, help="back to top-down when the frontier shrinks below n / beta"),
    "threads": Param(256, minimum=32, help="threads per block (a multiple of 32, at most 512: the levels "
                                           "kernel's registers)"),
    "blocks": Param(None, minimum=1, help="blocks of the persistent grid (default: as many as can be resident)"),
    "registers": Param(None, choices=(64, 128),
                       help="registers a thread of the levels kernel may use: 128 keeps top-down's edges in "
                            "flight without spilling; 64 doubles the resident warps (bottom-up's chains of "
                            "dependent loads want them) at the cost of a few spills (default: 64 on graphs of "
                            f"{BOTTOM_UP_DEGREE}+ CSR entries a vertex, 128 below)"),
    "levels_per_launch": Param(0, minimum=0, help="levels per persistent launch (0: until done; 1: one launch "
                                                  "and host round trip per level)"),
}

CHUNK = 256                 # edges of one work item; a warp scans vertices up to this degree itself
WARP_BUFFER = 128           # a warp's shared-memory staging of discovered vertices (16-byte queue entries)
MAX_THREADS = 512           # __launch_bounds__ of graphsweep_bfs_levels: at most 128 registers a thread
REGISTER_FILE = 65536       # 32-bit registers of an SM
RECORDS = 1 << 16           # levels whose sizes and times are recorded per run (step rows)


class Ctl(IntEnum):
    """The control block's unsigned 64-bit slots (counts and edge sums triple-buffered by level % 3)."""
    COUNT = 0           # 3 slots: frontier sizes by level % 3 (low 40 bits; above: barrier arrivals)
    SCOUT = 3           # 3 slots: out-edges of those frontiers (Beamer's m_f)
    ITEMS = 6           # 2 slots: work items of the level by level % 2
    CHECKED = 8         # 2 slots: edges bottom-up examined, by level % 2
    ERROR = 10          # a barrier timed out
    SCRATCH = 11        # bitmap-to-queue's write cursor
    T0 = 12             # %globaltimer when the launch started
    # On exit, in this order: the state the next launch starts from ...
    DEPTH = 13          # the level whose frontier is in the queue or bitmap
    EDGES = 14          # Beamer's edges_to_check
    REASON = 15         # an Exit
    LEVELS = 16         # levels done by the launch
    BOTTOM_UP = 17      # the frontier is a bitmap (the next level is bottom-up)
    CHECK = 18          # the next top-down level tests the switch (not the first after bottom-up)
    REACHED = 19        # vertices reached so far
    # ... and the launch's totals (the byte model's counts)
    TD_FRONTIER = 20    # frontier vertices top-down expanded
    TD_EDGES = 21       # their out-edges
    TD_ITEMS = 22       # work items of big vertices
    TD_CLAIMED = 23     # vertices top-down claimed
    BU_LEVELS = 24      # bottom-up levels
    BU_UNVISITED = 25   # unvisited vertices they started with, summed
    BU_CHECKED = 26     # edges they examined
    BU_FOUND = 27       # vertices they found
    TO_BITMAP = 28      # queue-to-bitmap conversions
    TO_BITMAP_VERTICES = 29
    TO_QUEUE = 30       # bitmap-to-queue conversions
    TO_QUEUE_VERTICES = 31
    STARTED = 32        # %globaltimer when a sliced search's start ended (graphsweep_bfs_slice_search)
    SIZE = 33


class Exit(IntEnum):
    """Why a launch returned."""
    DONE = 0
    LIMIT = 1


class Mode(IntEnum):
    """The ``direction`` parameter, as the kernel takes it."""
    AUTO = 0
    TOP_DOWN = 1
    BOTTOM_UP = 2

    @classmethod
    def of(cls, direction: str) -> "Mode":
        """The mode of a ``direction`` value ('auto', 'top-down', 'bottom-up')."""
        return cls[direction.upper().replace("-", "_")]


class Kind(IntEnum):
    """Bits of a level's record: its direction and the conversions it made."""
    BOTTOM_UP = 1
    TO_BITMAP = 2       # the queue became a bitmap before the level
    TO_QUEUE = 4        # the next frontier became a queue after it


class Rec(IntEnum):
    """The per-level record fields (step rows)."""
    FRONTIER = 0
    EDGES = 1
    CLAIMED = 2
    ITEMS = 3
    CHECKED = 4
    KIND = 5
    TIME = 6
    FIELDS = 7


class SliceCtl(IntEnum):
    """bfs.distributed's slice control block (long long slots, the same on every rank after a
    level's decide): the level's direction and counts, the switching state, the level just done."""
    DIRECTION = 0       # 0 top-down, 1 bottom-up
    COUNT = 1           # the frontier's vertices, all ranks
    SCOUT = 2           # their out-edges
    LOCAL = 3           # the frontier's vertices in this rank's slice (its queue)
    EDGES = 4           # Beamer's edges_to_check
    CHECK = 5           # 0 on the first top-down level after bottom-up
    DONE = 6            # the frontier is empty
    TO_QUEUE = 7        # the frontier bitmap becomes the queue before the level
    DEPTH = 8           # the level's index
    BOTTOM_UP_LEVELS = 9
    LAST_DIRECTION = 10     # the level just done: its direction and frontier
    LAST_COUNT = 11
    SIZE = 12


# Everything direction_optimizing.cu shares with this launcher, passed with -D: one value of each.
DEFINES = (f"-DGS_BFS_CHUNK={CHUNK}", f"-DGS_BFS_BUF={WARP_BUFFER}", f"-DGS_BFS_MAX_THREADS={MAX_THREADS}",
           *(f"-D{enum.__name__.upper()}_{member.name}={member.value}"
             for enum in (Ctl, Exit, Mode, Kind, Rec, SliceCtl) for member in enum))


def td_traffic(f: int, e: int, c: int, items: int, entry: int = 16) -> dict:
    """Top-down: f frontier vertices as queue entries of ``entry`` bytes (the GPU's carry their row;
    the CPU's are ids and read the row, 4 + 16), e edges, c vertices claimed (row read, level and
    parent written, queued), work items (written, read, their row)."""
    return {"read": entry * f + 4 * e + 16 * c + 24 * items, "written": (8 + entry) * c + 8 * items,
            "random": e + 2 * c}


def step_traffic(traffic: dict) -> dict:
    return {"bytes_read": traffic["read"], "bytes_written": traffic["written"], "random_accesses": traffic["random"]}


def bu_traffic(words: int, unvisited: int, checked: int, found: int, dead_words: int = 0) -> dict:
    """Bottom-up: the visited words (and the GPU's words of vertices without in-edges), the rows of
    the ``unvisited`` vertices that have in-edges, the edges examined, the found written."""
    return {"read": 4 * words + 4 * dead_words + 16 * unvisited + 4 * checked, "written": 4 * words + 8 * found,
            "random": unvisited + checked}


def min_switch(n: int, beta: float) -> int:
    """Frontiers with at most this many edges (n / beta) stay top-down: a bottom-up level passes
    over every vertex, which such a frontier does not pay for (a grid's last levels, where the
    unexplored edges run out, would otherwise bounce to bottom-up and back)."""
    return int(n / beta)


def wants_bottom_up(scout: int, edges_to_check: int, alpha: float, n: int, beta: float) -> bool:
    """Beamer's test, top-down -> bottom-up (GAPBS: scout_count > edges_to_check / alpha), for
    frontiers of more than n / beta edges."""
    return scout > edges_to_check / alpha and scout > min_switch(n, beta)


def stays_bottom_up(awake: int, old_awake: int, n: int, beta: float) -> bool:
    """GAPBS's bottom-up loop condition: the frontier grows, or is still above n / beta."""
    return awake >= old_awake or awake > n / beta


# --- the graph's depth, from a pseudo-peripheral vertex (by_bfs renames by its levels)

def levels_from(inp, root: int):
    """Each vertex's level (-1 unreached) in this kernel's search from ``root``, run untimed."""
    params = KERNEL.resolve_params({"root": root})
    KERNEL.setup(inp, params)
    timer = timer_for(inp.backend)
    level = (KERNEL.gpu if inp.backend == "gpu" else KERNEL.cpu)(inp, params, timer)["level"]
    timer.finish()
    return level


def _peripheral(inp):
    xp, n = inp.xp, inp.n
    if not n:
        return xp.zeros(0, dtype=np.int32)
    degree = inp.csr().degree()
    level = levels_from(inp, int(xp.flatnonzero(degree == degree.max())[0]))
    return levels_from(inp, int(xp.flatnonzero(level == level.max())[0]))


def peripheral_levels(inp):
    """Each vertex's level (-1 unreached) in a search from a pseudo-peripheral vertex: the first of
    the deepest of a search from the first vertex of the largest degree (its levels are the
    thinnest fronts, e.g. a grid's diagonals from a corner rather than rings).  That start lies in
    the graph's bulk whatever the ids: the lowest id with an edge, the start before, was the 128^2
    road-like grid's corner in row order, in a fragment of 7 vertices (seed 7): depth 6, not deep,
    against 253 with the ids permuted (tests/kernels/test_rules_ignore_ids.py).  Once per graph;
    while its own searches run the cache holds None there (``depth_estimate``)."""
    if "by-bfs.levels" not in inp.cache:
        inp.cache["by-bfs.levels"] = None
        try:
            inp.cache["by-bfs.levels"] = _peripheral(inp)
        except BaseException:
            del inp.cache["by-bfs.levels"]
            raise
    return inp.cache["by-bfs.levels"]


def depth(inp) -> int:
    """The levels of ``peripheral_levels``'s search: the root's eccentricity + 1, a lower bound on
    the diameter (0 for an empty graph)."""
    return int(peripheral_levels(inp).max()) + 1 if inp.n else 0


def depth_estimate(inp) -> int | None:
    """``depth`` for this kernel's own rule (the grid on thin fronts), or None while
    ``peripheral_levels``'s searches, which run this kernel, are under way (they take the default
    grid).  The levels stay cached for the SSSP rules and the by-bfs renaming."""
    if "by-bfs.levels" in inp.cache and inp.cache["by-bfs.levels"] is None:
        return None
    return depth(inp)


# --- GPU launcher

@dataclass
class _Workspace:
    """Buffers of one graph, reused by every run on it (only the outputs level and parent are per run)."""
    visited: object
    lp: object
    bitmaps: list
    queues: list
    items: object
    ctl: object
    blocks: int
    smem: int


def _registers(csr, params) -> int:
    if params["registers"] is not None:
        return params["registers"]
    return 64 if csr.nnz >= BOTTOM_UP_DEGREE * csr.n else 128


def _module(registers: int):
    """The kernels compiled for ``registers`` a thread (__launch_bounds__'s minimum blocks of
    MAX_THREADS a SM)."""
    min_blocks = REGISTER_FILE // (MAX_THREADS * registers)
    return module("bfs/direction_optimizing.cu", options=(*DEFINES, f"-DGS_BFS_MIN_BLOCKS={min_blocks}"))


def setup(inp, params):
    if inp.backend == "gpu":
        _workspace(inp, params)
        _dead(inp, inp.csr() if params["direction"] == "top-down" else inp.rcsr())


def _dead(inp, rcsr) -> tuple:
    """The bitmap of the vertices without in-edges (bottom-up skips them: nothing reaches them) and
    their count, once per graph and in-edge CSR."""
    import cupy
    key = ("bfs.direction-optimizing dead", rcsr is inp.csr())
    if key not in inp.cache:
        bits, none = empty_rows(cupy, rcsr.offsets, rcsr.n)
        inp.cache[key] = (bits, int(none.sum()))
    return inp.cache[key]


def empty_rows(xp, offsets, n: int) -> tuple:
    """(a bitmap of the rows of ``offsets`` without entries, a word per 32 rows; the rows' 0/1
    flags): the vertices bottom-up skips (bfs.distributed's slices make theirs the same way)."""
    words = (n + 31) // 32
    none = xp.zeros(32 * words, dtype=np.uint32)
    none[:n] = offsets[1:] == offsets[:-1]
    return (none.reshape(words, 32) << xp.arange(32, dtype=np.uint32)).sum(axis=1, dtype=np.uint32), none


def _threads(params) -> int:
    threads = check_threads(params["threads"])
    if threads > MAX_THREADS:
        raise ParameterError(f"parameter 'threads': {threads} is more than the levels kernel takes "
                             f"(at most {MAX_THREADS}: __launch_bounds__ leaves it 128 registers a thread)")
    return threads


def _workspace(inp, params) -> _Workspace:
    """The graph's buffers (once per graph, threads and registers) with the grid's blocks: the
    parameter's, else one a SM on thin fronts (THIN_FRONT), else as many as can be resident."""
    import cupy
    csr = inp.csr()
    threads = _threads(params)
    registers = _registers(csr, params)
    key = ("bfs.direction-optimizing", threads, registers)
    if key not in inp.cache:
        n, words = csr.n, (csr.n + 31) // 32
        smem = (threads // 32) * (WARP_BUFFER * 16 + 3 * 8)     # staging, and 3 sums a warp for the barrier
        levels = _module(registers).get_function("graphsweep_bfs_levels")
        inp.cache[key] = _Workspace(
            visited=cupy.empty(words, dtype=np.uint32),
            lp=cupy.empty((max(n, 1), 2), dtype=np.int32),       # {level, parent} of each reached vertex
            bitmaps=[cupy.empty(words, dtype=np.uint32) for _ in range(2)],
            queues=[cupy.empty((max(n, 1), 2), dtype=np.int64) for _ in range(2)],   # longlong2 entries
            items=cupy.empty(csr.nnz // (CHUNK // 2) + 1, dtype=np.uint64),
            ctl=cupy.zeros(Ctl.SIZE, dtype=np.uint64),
            blocks=persistent_blocks(levels, threads, smem),
            smem=smem)
    ws = inp.cache[key]
    if params["blocks"] is not None:
        blocks = persistent_blocks(_module(registers).get_function("graphsweep_bfs_levels"), threads, ws.smem,
                                   params["blocks"])
    else:
        depth = depth_estimate(inp)
        blocks = min(ws.blocks, sm_count()) if depth and csr.n / depth < THIN_FRONT else ws.blocks
    return replace(ws, blocks=blocks)


def to_bitmap_traffic(vertices: int, words: int, conversions: int = 1) -> dict:
    """Queue to bitmap: the bitmap cleared, then a bit set per queued vertex."""
    return {"read": 16 * vertices, "written": 4 * words * conversions, "random": vertices}


def to_queue_traffic(vertices: int, words: int, conversions: int = 1) -> dict:
    """Bitmap to queue: the bitmap scanned, each vertex's row read and queued."""
    return {"read": 4 * words * conversions + 16 * vertices, "written": 16 * vertices, "random": vertices}


def total_traffic(*parts: dict) -> dict:
    return {key: sum(part[key] for part in parts) for key in ("read", "written", "random")}


def launch_traffic(c, words: int, dead: int) -> dict:
    """Byte model of one launch from the totals it left in the control block ``c``; ``dead``
    vertices without in-edges, which bottom-up skips."""
    levels = c[Ctl.BU_LEVELS]
    return total_traffic(td_traffic(c[Ctl.TD_FRONTIER], c[Ctl.TD_EDGES], c[Ctl.TD_CLAIMED], c[Ctl.TD_ITEMS]),
                         bu_traffic(words * levels, max(0, c[Ctl.BU_UNVISITED] - dead * levels), c[Ctl.BU_CHECKED],
                                    c[Ctl.BU_FOUND], dead_words=words * levels),
                         to_bitmap_traffic(c[Ctl.TO_BITMAP_VERTICES], words, c[Ctl.TO_BITMAP]),
                         to_queue_traffic(c[Ctl.TO_QUEUE_VERTICES], words, c[Ctl.TO_QUEUE]))


def output_traffic(n: int, words: int, reached: int) -> dict:
    """The outputs, written once the search is done: level and parent of every vertex from the
    visited bitmap and the reached vertices' {level, parent}."""
    return {"read": 4 * words + 8 * reached, "written": 8 * n, "random": 0}


class _Launches:
    """Each persistent launch's control block, copied on the device as the launch ends and read
    once after timing (or at once, to start the next launch, when levels_per_launch is set)."""

    def __init__(self, words: int, n: int, dead: int):
        self.words, self.n, self.dead, self.copies, self._host = words, n, dead, [], {}

    def add(self, ctl) -> None:
        self.copies.append(ctl.copy())

    def __len__(self) -> int:
        return len(self.copies)

    def __getitem__(self, k: int) -> list[int]:
        k %= len(self.copies)
        if k not in self._host:
            c = [int(x) for x in self.copies[k].get()]
            if c[Ctl.ERROR]:
                raise RuntimeError("bfs.direction-optimizing: a grid barrier timed out (blocks not co-resident?)")
            self._host[k] = c
        return self._host[k]

    def traffic(self, k: int) -> dict:
        c = self[k]
        done = output_traffic(self.n, self.words, c[Ctl.REACHED]) if c[Ctl.REASON] == Exit.DONE \
            else {"read": 0, "written": 0, "random": 0}
        return total_traffic(launch_traffic(c, self.words, self.dead), done)

    def starts(self) -> list[tuple[int, int, int, int]]:
        """(first level, levels, vertices reached before it, start ns) of each launch."""
        out, depth, reached = [], 0, 1
        for k in range(len(self.copies)):
            c = self[k]
            out.append((depth, c[Ctl.LEVELS], reached, c[Ctl.T0]))
            depth, reached = c[Ctl.DEPTH], c[Ctl.REACHED]
        return out


def run_gpu(inp, params, timer):
    import cupy
    csr = inp.csr()
    check_gpu_graph(csr)
    mode = Mode.of(params["direction"])
    rcsr = csr if mode == Mode.TOP_DOWN else inp.rcsr()
    n, nnz, root, threads = csr.n, csr.nnz, params["root"], _threads(params)
    words = (n + 31) // 32
    ws = _workspace(inp, params)
    dead, dead_count = _dead(inp, rcsr)
    mod = _module(_registers(csr, params))
    levels_kernel = mod.get_function("graphsweep_bfs_levels")
    level, parent = cupy.empty(n, dtype=np.int32), cupy.empty(n, dtype=np.int32)
    records = cupy.empty((Rec.FIELDS, RECORDS), dtype=np.int64)   # per run: read after timing
    launches = _Launches(words, n, dead_count)
    level_rows = _LevelRows(records, launches, n, dead_count)
    timer.steps("top-down", lambda: level_rows.of("top-down"))
    timer.steps("bottom-up", lambda: level_rows.of("bottom-up"))

    with timer.phase("init", read=16, written=4 * words + 8 + 16):
        init_search(mod, ws, csr, root, threads)
    depth, edges_to_check, reached, recorded, bottom_up, check = 0, nnz, 1, 0, 0, 1
    while True:
        # Every level in one launch, which writes the outputs too: the host does not wait for it
        # (its control block is read after timing), unless levels_per_launch makes it come back.
        with timer.phase("levels") as traffic:
            launch_levels(levels_kernel, ws, threads, csr, rcsr, dead, level, parent, records, recorded=recorded,
                          depth=depth, edges_to_check=edges_to_check, reached=reached,
                          levels_per_launch=params["levels_per_launch"], mode=mode, bottom_up=bottom_up, check=check,
                          alpha=params["alpha"], beta=params["beta"])
            launches.add(ws.ctl)
            k = len(launches) - 1
            traffic.add(**{key: (lambda key=key, k=k: launches.traffic(k)[key])
                           for key in ("read", "written", "random")})
        if not params["levels_per_launch"]:
            break
        c = launches[-1]            # synchronises
        if c[Ctl.REASON] == Exit.DONE:
            break
        if c[Ctl.DEPTH] > n:
            raise RuntimeError(f"bfs.direction-optimizing: level {c[Ctl.DEPTH]} on {n} vertices (a kernel lost count)")
        recorded += c[Ctl.LEVELS]
        depth, edges_to_check, reached = c[Ctl.DEPTH], c[Ctl.EDGES], c[Ctl.REACHED]
        bottom_up, check = c[Ctl.BOTTOM_UP], c[Ctl.CHECK]
    timer.stat("levels", lambda: launches[-1][Ctl.DEPTH])
    timer.stat("bottom_up_levels", lambda: sum(launches[k][Ctl.BU_LEVELS] for k in range(len(launches))))
    timer.stat("launches", len(launches))
    return {"level": level, "parent": parent}


def init_search(mod, ws, csr, root: int, threads: int) -> None:
    """A search's start (``graphsweep_bfs_init``): visited cleared, the root reached and queued."""
    words = (csr.n + 31) // 32
    mod.get_function("graphsweep_bfs_init")((blocks_for(words, 2 * threads),), (threads,),
                                            (ws.lp, ws.visited, ws.queues[0], ws.ctl, csr.offsets,
                                             np.int32(words), np.int32(root)))


def launch_levels(kernel, ws, threads: int, csr, rcsr, dead, level, parent, records, *, recorded: int, depth: int,
                  edges_to_check: int, reached: int, levels_per_launch: int, mode: int, bottom_up: int, check: int,
                  alpha: float, beta: float) -> None:
    """One persistent launch of ``graphsweep_bfs_levels`` from level ``depth`` (every level to the
    end when ``levels_per_launch`` is 0, the outputs written then); ``ws`` holds its buffers
    (``_Workspace``'s fields).  bfs.distributed runs it too, on a partition of one slice."""
    launch_cooperative(kernel, ws.blocks, threads, (
        csr.offsets, csr.indices, rcsr.offsets, rcsr.indices, ws.visited, dead, ws.lp, level, parent,
        ws.queues[0], ws.queues[1], ws.bitmaps[0], ws.bitmaps[1], ws.items, ws.ctl, records,
        np.int32(recorded), np.int32(records.shape[1]), np.int32(csr.n), np.int32(depth), np.int64(edges_to_check),
        np.int64(reached), np.int32(levels_per_launch), np.int32(mode), np.int32(bottom_up), np.int32(check),
        np.float64(alpha), np.float64(beta), np.int64(min_switch(csr.n, beta))), ws.smem)


def level_records(rec, start: int):
    """(level's index, frontier, out-edges, claimed, items, checked, kind, ms) of each column of a
    launch's records ``rec`` (host), ms from the level's end and the previous one's (%globaltimer;
    the first level's from the launch's start ``start``)."""
    previous = start
    for k in range(rec.shape[1]):
        f, e, c, items, checked, kind, end = (int(x) for x in rec[:, k])
        yield k, f, e, c, items, checked, kind, (end - previous) / 1e6
        previous = end


class _LevelRows:
    """Step rows of the levels run inside persistent launches, from the device records, read once
    after timing: sizes and byte model per level (a bottom-up level's with the conversions it
    made), time between the level's end and the previous level's end (%globaltimer; the first
    level of a launch from the launch's start)."""

    def __init__(self, records, launches, n, dead):
        self.records, self.launches, self.n, self.dead = records, launches, n, dead
        self.rows = None

    def of(self, direction: str) -> list[dict]:
        if self.rows is None:
            self.rows = self._read()
        return [r for r in self.rows if r["info"]["direction"] == direction]

    def _read(self) -> list[dict]:
        starts = self.launches.starts()
        if not starts:
            return []
        words = (self.n + 31) // 32
        rec = self.records[:, :min(RECORDS, sum(levels for _, levels, _, _ in starts))].get()
        rows, base = [], 0
        for first, levels, reached, start in starts:
            for k, f, e, c, items, checked, kind, ms in level_records(rec[:, base:base + min(levels, RECORDS - base)],
                                                                      start):
                if kind & Kind.BOTTOM_UP:
                    traffic = total_traffic(bu_traffic(words, max(0, self.n - reached - self.dead), checked, c,
                                                       dead_words=words),
                                            to_bitmap_traffic(f if kind & Kind.TO_BITMAP else 0, words,
                                                              bool(kind & Kind.TO_BITMAP)),
                                            to_queue_traffic(c if kind & Kind.TO_QUEUE else 0, words,
                                                             bool(kind & Kind.TO_QUEUE)))
                    info = {"direction": "bottom-up", "frontier": f}
                else:
                    traffic = td_traffic(f, e, c, items)
                    info = {"direction": "top-down", "frontier": f, "edges": e}
                rows.append({"step": first + k, "ms": ms, **step_traffic(traffic), "info": info})
                reached += c
            base += levels
        return rows


# --- CPU twin (GAPBS's loop with Numba prange steps)

@numba.njit(cache=True, parallel=True)
def _td_step(offsets, indices, level, parent, queue, count, depth, out, chunks):
    """Expand queue[:count] into out in ``chunks`` parallel pieces; returns (vertices queued, their out-edges)."""
    bounds = (np.arange(chunks + 1) * count) // chunks
    starts = np.zeros(chunks + 1, dtype=np.int64)
    for c in numba.prange(chunks):
        s = 0
        for i in range(bounds[c], bounds[c + 1]):
            s += offsets[queue[i] + 1] - offsets[queue[i]]
        starts[c + 1] = s
    starts = np.cumsum(starts)
    cand_v = np.empty(starts[chunks], dtype=np.int64)
    cand_u = np.empty(starts[chunks], dtype=np.int64)
    kept = np.zeros(chunks + 1, dtype=np.int64)
    for c in numba.prange(chunks):
        pos = starts[c]
        for i in range(bounds[c], bounds[c + 1]):
            u = queue[i]
            for e in range(offsets[u], offsets[u + 1]):
                w = indices[e]
                if level[w] < 0:
                    level[w] = depth + 1
                    parent[w] = u
                    cand_v[pos] = w
                    cand_u[pos] = u
                    pos += 1
        kept[c + 1] = pos - starts[c]
    # Two chunks may both have claimed w; once all are done, the parent written last stands and
    # only the chunk that wrote it queues w.
    for c in numba.prange(chunks):
        k = starts[c]
        for j in range(starts[c], starts[c] + kept[c + 1]):
            if parent[cand_v[j]] == cand_u[j]:
                cand_v[k] = cand_v[j]
                k += 1
        kept[c + 1] = k - starts[c]
    outpos = np.cumsum(kept)
    scout = 0
    for c in numba.prange(chunks):
        s = 0
        for j in range(kept[c + 1]):
            w = cand_v[starts[c] + j]
            out[outpos[c] + j] = w
            s += offsets[w + 1] - offsets[w]
        scout += s
    return outpos[chunks], scout


@numba.njit(cache=True, parallel=True)
def _bu_step(offsets, roffsets, rindices, level, parent, front, nxt, depth):
    """Every unvisited vertex looks for a parent in ``front``; returns (found, their out-edges, edges examined)."""
    awake, scout, checked = 0, 0, 0
    for v in numba.prange(level.shape[0]):
        nxt[v] = 0
        if level[v] < 0:
            for e in range(roffsets[v], roffsets[v + 1]):
                u = rindices[e]
                if front[u]:
                    level[v] = depth + 1
                    parent[v] = u
                    nxt[v] = 1
                    awake += 1
                    scout += offsets[v + 1] - offsets[v]
                    checked += e + 1 - roffsets[v]
                    break
            if level[v] < 0:
                checked += roffsets[v + 1] - roffsets[v]
    return awake, scout, checked


def run_cpu(inp, params, timer):
    csr = inp.csr()
    mode, alpha, beta = params["direction"], params["alpha"], params["beta"]
    rcsr = csr if mode == "top-down" else inp.rcsr()
    n, nnz, root = csr.n, csr.nnz, params["root"]
    level, parent = np.empty(n, dtype=np.int32), np.empty(n, dtype=csr.indices.dtype)
    queue, spare = np.empty(n, dtype=csr.indices.dtype), np.empty(n, dtype=csr.indices.dtype)
    front, nxt = np.empty(n, dtype=np.uint8), np.empty(n, dtype=np.uint8)
    # What init moves: level and parent set to -1, both frontier bitmaps cleared (the queues are
    # written as they fill).
    with timer.phase("init", written=level.nbytes + parent.nbytes + front.nbytes + nxt.nbytes):
        level.fill(-1)
        parent.fill(-1)
        front.fill(0)
        nxt.fill(0)
        level[root], parent[root], queue[0] = 0, root, root
    depth, count, reached, edges_to_check = 0, 1, 1, nnz
    scout = int(csr.offsets[root + 1] - csr.offsets[root])
    check, bu_levels = True, 0
    while count:
        if mode == "bottom-up" or (mode == "auto" and check and
                                   wants_bottom_up(scout, edges_to_check, alpha, n, beta)):
            with timer.phase("queue-to-bitmap", read=4 * count, written=n, step=depth):
                front.fill(0)
                front[queue[:count]] = 1
            while True:
                with timer.phase("bottom-up", step=depth, info={"direction": "bottom-up", "frontier": count}) as t:
                    awake, scout, checked = _bu_step(csr.offsets, rcsr.offsets, rcsr.indices, level, parent, front,
                                                     nxt, depth)
                t.add(**bu_traffic((n + 31) // 32, n - reached, checked, awake))
                reached += awake
                bu_levels += 1
                depth += 1
                front, nxt = nxt, front
                old, count = count, awake
                if count == 0 or (mode == "auto" and not stays_bottom_up(count, old, n, beta)):
                    break
            if count:
                with timer.phase("bitmap-to-queue", read=n, written=4 * count, step=depth):
                    queue[:count] = np.flatnonzero(front)
            check = False          # GAPBS: the step after bottom-up is top-down whatever scout says
            continue
        if check:
            edges_to_check -= scout
        check = True
        with timer.phase("top-down", step=depth, info={"direction": "top-down", "frontier": count,
                                                       "edges": scout}) as t:
            found, next_scout = _td_step(csr.offsets, csr.indices, level, parent, queue, count, depth, spare,
                                         max(1, min(count, 4 * numba.get_num_threads())))
        t.add(**td_traffic(count, scout, found, 0, entry=20))
        queue, spare = spare, queue
        count, scout = found, next_scout
        reached += found
        depth += 1
    timer.stat("levels", depth)
    timer.stat("bottom_up_levels", bu_levels)
    timer.stat("launches", 0)
    return {"level": level, "parent": parent}


KERNEL = Kernel(name="bfs.direction-optimizing", problem=BFS,
                summary="direction-optimizing BFS (Beamer): persistent-grid top-down with warp-scan gather and "
                        "shared hub work items, bitmap bottom-up with early exit",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup, needs=("csr", "rcsr"))
