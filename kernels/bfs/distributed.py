"""bfs.distributed — level-synchronous, direction-optimising BFS of one graph sliced over K
workers (``partitions=K``; the slices, workers, communicator and ledger are ``kernels/dist``'s).

Returns ``{"level", "parent"}`` (see the package doc): the same levels as ``bfs.best`` (a BFS's
levels are unique), parents valid by the verifier's rules.  Undirected graphs.

Algorithm (1-D: Buluç & Madduri SC'11 for top-down, Beamer, Buluç, Asanović & Patterson IPDPS'13
for the distributed bottom-up).  Rank i owns the levels and parents of its range; every level is
one step of ``bfs.direction-optimizing``'s own device functions over the slice (its .cu's
``graphsweep_bfs_slice_*``: the same warp-gathered top-down with hub work items, the same
bottom-up with early exit), then an exchange:
  top-down   the rank expands its frontier queue: a neighbour in its range is claimed at once
             (visited bitmap, queued with its row); a neighbour of another slice, the first time
             this rank names it, becomes a (vertex, parent) pair in its owner's outbox region; the
             outboxes go to their owners (all-to-all-v), which claim the pairs as a top-down step
             does.  8 bytes a pair.
  bottom-up  the frontier, a bitmap of every vertex whose words each rank fills for its range, is
             all-gathered word for word ((K - 1) / K x n / 8 bytes into each rank); every
             unvisited vertex of the range looks for a parent among its neighbours in it.
  counts     the next frontier's size and out-edges, summed over the ranks (all-reduce, read on
             the host): every rank takes the same direction for the next level by GAPBS's rule
             (alpha, beta; ``bfs.direction-optimizing``'s functions, so both switch alike).
A level costs the slowest slice's step, one or two collectives and one or two host reads (the
single-GPU kernel does every level in one launch; a partitioned level must come back to the host
to exchange).  The bottom-up step runs as the persistent kernel runs it, one grid-stride wave of
resident blocks over the slice's words (a warp per word over the whole grid took R-MAT 24's widest
levels 3-4x longer on an H100: 1.49 against 0.48 ms).  At K = 1 the slice is the whole graph and
nothing is exchanged: the search is ``bfs.direction-optimizing``'s single persistent launch over it
(phases ``init`` and ``levels``; its level records read once at the end).  The CPU twin runs the
level steps with Numba over the same exchanges at every K.

Rows: ``total`` (the slowest rank, barrier to end), ``dispatch`` (the driver's call), a step row
per level (phase ``level``: the slowest rank's time and time in collectives, the bytes all ranks
received, the direction and the frontier); ``levels``, ``bottom_up_levels`` and the ledger's
statistics.
"""

from functools import partial

import numba
import numpy as np
from graphsweep.core.gpu import to_host

from ..contract import Kernel, Param
from ..cuda import blocks_for, launch_cooperative, persistent_blocks, resident_blocks
from ..dist import PARAMS as PARTITION_PARAMS
from ..dist import Ledger, Remote, collect, partitioned, slice_graph
from ..dist.slices import shifted
from . import BFS, ROOT_PARAM
from . import direction_optimizing as do

PARAMS = {**ROOT_PARAM, **PARTITION_PARAMS,
          "direction": Param("auto", str, choices=("auto", "top-down", "bottom-up"),
                             help="auto: Beamer's switching on global counts; top-down or bottom-up: that at every "
                                  "level"),
          "alpha": Param(15.0, float, minimum=1e-9, help="to bottom-up when the frontier's edges exceed unexplored "
                                                         "edges / alpha"),
          "beta": Param(18.0, float, minimum=1e-9, help="back to top-down when the frontier shrinks below n / beta"),
          "threads": Param(256, minimum=32, help="threads per block of the level steps (a multiple of 32, at most "
                                                 "512)")}
SCTL = 8                       # the step's control block (direction_optimizing.cu: GS_SCTL_*), the
                               # outboxes' K counts after it
UNROLL = 4                     # pairs a lane of the claim kernel takes at once (GS_BFS_UNROLL)


def _outbox_regions(s, xp) -> np.ndarray:
    """K + 1 starts of the outbox regions: region j holds every distinct vertex of slice j that
    this slice's rows name (none for this slice's own), so a top-down level never overflows it."""
    cols = to_host(xp.unique(s.csr.indices)) if s.csr.nnz else np.zeros(0, dtype=np.int64)
    per = np.diff(np.searchsorted(cols, s.bounds))
    per[s.index] = 0
    return np.concatenate([[0], np.cumsum(per)]).astype(np.int64)


class _GpuSteps:
    """One slice's level steps on the GPU (direction_optimizing.cu's slice kernels) and the
    workspace they keep between runs."""

    def __init__(self, rank, params):
        import cupy
        s = rank.slice
        self.s, self.xp, self.comm = s, cupy, rank.comm
        ws = s.scratch.get("bfs")
        if ws is None:
            ws = s.scratch["bfs"] = self._workspace(s, params)
        self.ws = ws
        self.threads = ws["threads"]

    @staticmethod
    def _workspace(s, params) -> dict:
        import cupy
        csr, n, size = s.csr, s.n, s.size
        threads = do._threads(params)
        words, local_words = (n + 31) // 32, (size + 31) // 32
        registers = 64 if csr.nnz >= do.BOTTOM_UP_DEGREE * max(size, 1) else 128
        mod = do._module(registers)
        smem = (threads // 32) * (do.WARP_BUFFER * 16 + 3 * 8)
        fn = {name: mod.get_function(f"graphsweep_bfs_slice_{name}")
              for name in ("init", "top_down", "claim", "counts", "to_bitmap", "bottom_up", "to_queue", "outputs")}
        region = _outbox_regions(s, cupy)
        word_bounds = ((s.bounds + 31) // 32).astype(np.int64)
        first = int(word_bounds[s.index])
        lp = cupy.empty((max(size, 1), 2), dtype=np.int32)
        visited = cupy.empty(words, dtype=np.uint32)
        bitmaps = [cupy.zeros(words, dtype=np.uint32) for _ in range(2)]
        sctl = cupy.zeros(SCTL + len(s.bounds) - 1, dtype=np.uint64)
        ws = {"mod": mod, "fn": fn, "threads": threads, "smem": smem,
              "blocks": persistent_blocks(fn["top_down"], threads, smem, None), "words": words,
              "local_words": local_words,
              # bottom-up: a grid-stride wave of resident blocks, as the one-GPU kernel runs it (a warp a
              # word over the whole grid ran R-MAT 24's bottom-up levels 3-4x slower on an H100)
              "bu_blocks": min(resident_blocks(threads), blocks_for(32 * local_words, threads)),
              "visited": visited, "bitmaps": bitmaps, "lp": lp,
              "queues": [cupy.empty((max(size, 1), 2), dtype=np.int64) for _ in range(2)],
              "items": cupy.empty(csr.nnz // (do.CHUNK // 2) + 1, dtype=np.uint64),
              "sctl": sctl, "sctl_counts": sctl[SCTL:],
              "ctl": cupy.zeros(do.Ctl.SIZE, dtype=np.uint64),
              "table": cupy.zeros(2 * (len(s.bounds) - 1), dtype=np.int64),
              "dead": do.empty_rows(cupy, csr.offsets, size)[0], "region": region,
              "region_device": cupy.asarray(region[:-1]),
              "outbox": cupy.empty((max(int(region[-1]), 1), 2), dtype=np.int32),
              "bounds": cupy.asarray(s.bounds.astype(np.int64)), "word_bounds": word_bounds,
              # the slice's arrays indexed by global vertex id (rows moved back by lo), and its own
              # words of the visited and frontier bitmaps
              "offsets_global": shifted(csr.offsets, s.lo), "lp_global": shifted(lp, s.lo),
              "visited_here": visited[first:], "bitmaps_here": [b[first:] for b in bitmaps]}
        if len(s.bounds) == 2:
            # K = 1: the whole search is the one-GPU kernel's single persistent launch
            levels = mod.get_function("graphsweep_bfs_levels")
            ws["levels"] = levels
            ws["whole"] = do._Workspace(visited=ws["visited"], lp=ws["lp"], bitmaps=ws["bitmaps"],
                                        queues=ws["queues"], items=ws["items"], ctl=ws["ctl"], smem=smem,
                                        blocks=persistent_blocks(levels, threads, smem, None))
            ws["records"] = cupy.empty((do.Rec.FIELDS, do.RECORDS), dtype=np.int64)
        return ws

    def init(self, root: int) -> int:
        ws, s = self.ws, self.s
        mine = s.lo <= root < s.hi
        self.queue, self.front = 0, 0
        ws["fn"]["init"]((blocks_for(ws["words"], 2 * self.threads),), (self.threads,),
                         (ws["visited"], np.int32(ws["words"]), ws["lp_global"], ws["queues"][0], ws["offsets_global"],
                          np.int32(root), np.int32(mine)))
        return int(mine)

    def degree(self, root: int) -> int:
        s = self.s
        return int(self.comm.host(s.csr.offsets[root - s.lo + 1] - s.csr.offsets[root - s.lo]))

    def search(self, rank, root: int, mode: str, alpha: float, beta: float, edges_to_check: int) -> dict:
        """K = 1: the slice is the whole graph and nothing is exchanged, so every level runs in
        ``bfs.direction-optimizing``'s single persistent launch (no host round trip a level), which
        also writes the outputs (kept); its control block and level records are read once at the end."""
        ws, s, csr = self.ws, self.s, self.s.csr
        whole = ws["whole"]
        with rank.phase("init"):
            do.init_search(ws["mod"], whole, csr, root, self.threads)
        level, parent = self.xp.empty(s.size, dtype=np.int32), self.xp.empty(s.size, dtype=np.int32)
        with rank.phase("levels"):
            do.launch_levels(ws["levels"], whole, self.threads, csr, csr, ws["dead"], level, parent, ws["records"],
                             recorded=0, depth=0, edges_to_check=edges_to_check, reached=1, levels_per_launch=0,
                             mode=do.Mode.of(mode), bottom_up=0, check=1, alpha=alpha,
                             beta=beta)
        rank.keep(level=level, parent=parent)
        ctl = self.comm.host(whole.ctl)
        if ctl[do.Ctl.ERROR]:
            raise RuntimeError("bfs.distributed: the levels kernel's grid barrier timed out (blocks not co-resident?)")
        levels = int(ctl[do.Ctl.LEVELS])
        rec = self.comm.host(ws["records"][:, :min(levels, do.RECORDS)])
        steps = [{"ms": ms, "comm_ms": 0.0, "bytes": 0, "rounds": 0, "step": k, "frontier": f,
                  "direction": "bottom-up" if kind & do.Kind.BOTTOM_UP else "top-down"}
                 for k, f, e, c, items, checked, kind, ms in do.level_records(rec, int(ctl[do.Ctl.T0]))]
        return {"steps": steps, "levels": int(ctl[do.Ctl.DEPTH]), "bottom_up_levels": int(ctl[do.Ctl.BU_LEVELS])}

    def top_down(self, depth: int, scout: int) -> None:
        """One top-down level: this slice's frontier expanded, the outboxes exchanged and claimed."""
        ws, s = self.ws, self.s
        sctl = ws["sctl"]
        sctl.fill(0)
        qin, qout = ws["queues"][self.queue], ws["queues"][1 - self.queue]
        lp, off = ws["lp_global"], ws["offsets_global"]
        launch_cooperative(ws["fn"]["top_down"], ws["blocks"], self.threads, (
            off, s.csr.indices, ws["visited"], lp, qin, np.int64(self.local_count), qout, ws["items"], sctl,
            ws["ctl"], np.int32(depth + 1), np.int64(scout), np.int64(s.lo), np.int64(s.hi), ws["bounds"],
            np.int32(len(s.bounds) - 1), ws["outbox"], ws["sctl_counts"], ws["region_device"]), ws["smem"])
        if self.comm.size > 1:
            claim = ws["fn"]["claim"]
            for j, pairs in enumerate(self.comm.alltoallv_regions(ws["outbox"], ws["region"], ws["sctl_counts"])):
                if j != s.index and pairs.shape[0]:
                    claim((blocks_for(pairs.shape[0], self.threads * UNROLL),), (self.threads,),
                          (pairs, np.int64(pairs.shape[0]), off, s.csr.indices, ws["visited"], lp, qout, sctl,
                           np.int32(depth + 1)), shared_mem=(self.threads // 32) * do.WARP_BUFFER * 16)
        self.queue = 1 - self.queue

    def counts(self):
        """This rank's row of the level's counts table (the next frontier's vertices here, their out-edges)."""
        ws = self.ws
        ws["fn"]["counts"]((1,), (32,), (ws["sctl"], ws["table"], np.int32(self.s.index)))
        return ws["table"]

    def to_bitmap(self) -> None:
        """The frontier queue as this slice's words of the frontier bitmap."""
        ws = self.ws
        bitmap = ws["bitmaps"][self.front]
        ws["bitmaps_here"][self.front][:ws["local_words"]] = 0
        ws["fn"]["to_bitmap"]((blocks_for(max(self.local_count, 1), self.threads),), (self.threads,),
                              (ws["queues"][self.queue], np.int64(self.local_count), bitmap))

    def bottom_up(self, depth: int) -> None:
        """One bottom-up level against the frontier all-gathered."""
        ws, s = self.ws, self.s
        front = ws["bitmaps"][self.front]
        self.comm.allgatherv(front, ws["word_bounds"])
        sctl = ws["sctl"]
        sctl.fill(0)
        if ws["local_words"]:
            ws["fn"]["bottom_up"]((ws["bu_blocks"],), (self.threads,),
                                  (s.csr.offsets, s.csr.indices, ws["visited_here"], ws["dead"], front,
                                   ws["bitmaps_here"][1 - self.front], ws["lp"], np.int32(s.size),
                                   np.int32(ws["local_words"]), np.int32(depth), sctl))
        self.front = 1 - self.front

    def to_queue(self) -> None:
        """The frontier bitmap's words of this slice as its frontier queue (its cursor, the step's
        control block, cleared when the bottom-up level began)."""
        ws, s = self.ws, self.s
        ws["fn"]["to_queue"]((blocks_for(max(ws["local_words"], 1), self.threads),), (self.threads,),
                             (ws["bitmaps_here"][self.front], np.int32(ws["local_words"]), s.csr.offsets,
                              ws["queues"][self.queue], ws["sctl"], np.int32(s.lo)))

    def outputs(self) -> dict:
        ws, s, xp = self.ws, self.s, self.xp
        level, parent = xp.empty(s.size, dtype=np.int32), xp.empty(s.size, dtype=np.int32)
        if s.size:
            ws["fn"]["outputs"]((blocks_for(max(s.size // 4, 1), self.threads),), (self.threads,),
                                (ws["visited_here"], ws["lp"], level, parent, np.int32(s.size)))
        return {"level": level, "parent": parent}


# --- CPU twin: the same steps with Numba, the same exchanges

@numba.njit(cache=True)
def _cpu_top_down(off, idx, lo, hi, level, parent, sent, queue, count, depth, out, bounds):
    """Expand queue[:count] (global ids of this slice): own neighbours claimed into ``out``, other
    slices' named once each as (vertex, parent) pairs; returns (claimed, their out-edges, pairs)."""
    total = 0
    for i in range(count):
        total += off[queue[i] - lo + 1] - off[queue[i] - lo]
    pairs = np.empty((total, 2), dtype=np.int64)
    claimed, scout, sends = 0, 0, 0
    for i in range(count):
        u = queue[i]
        for e in range(off[u - lo], off[u - lo + 1]):
            w = idx[e]
            if lo <= w < hi:
                claimed, scout = _cpu_claim_one(off, lo, level, parent, w, u, depth, out, claimed, scout)
            elif not sent[w]:
                sent[w] = True
                pairs[sends, 0] = w
                pairs[sends, 1] = u
                sends += 1
    pairs = pairs[:sends]
    order = np.argsort(pairs[:, 0])
    return claimed, scout, pairs[order]


@numba.njit(cache=True)
def _cpu_claim_one(off, lo, level, parent, w, u, depth, out, claimed, scout):
    """Claim this slice's vertex w from u unless reached: queued after ``claimed`` in ``out``, its
    out-edges added to ``scout``; returns both."""
    if level[w - lo] < 0:
        level[w - lo] = depth + 1
        parent[w - lo] = u
        out[claimed] = w
        return claimed + 1, scout + off[w - lo + 1] - off[w - lo]
    return claimed, scout


@numba.njit(cache=True)
def _cpu_claim(off, lo, level, parent, pairs, depth, out, claimed):
    """Claim the pairs other slices sent (all this slice's vertices) after ``claimed`` in ``out``."""
    scout = 0
    for i in range(pairs.shape[0]):
        claimed, scout = _cpu_claim_one(off, lo, level, parent, pairs[i, 0], pairs[i, 1], depth, out, claimed, scout)
    return claimed, scout


@numba.njit(cache=True, parallel=True)
def _cpu_bottom_up(off, idx, lo, level, parent, front, nxt, depth):
    """Every unvisited vertex of the slice looks for a parent in ``front`` (every vertex's);
    ``nxt`` gets the slice's found; returns (found, their out-edges)."""
    found, scout = 0, 0
    for i in numba.prange(level.shape[0]):
        nxt[lo + i] = False
        if level[i] < 0:
            for e in range(off[i], off[i + 1]):
                if front[idx[e]]:
                    level[i] = depth + 1
                    parent[i] = idx[e]
                    nxt[lo + i] = True
                    found += 1
                    scout += off[i + 1] - off[i]
                    break
    return found, scout


class _CpuSteps:
    """The same steps on the host (NumPy + Numba)."""

    def __init__(self, rank, params):
        s = rank.slice
        self.s, self.comm, self.xp = s, rank.comm, np
        self.off, self.idx = s.csr.offsets, s.csr.indices

    def init(self, root: int) -> int:
        s = self.s
        self.level = np.full(s.size, -1, dtype=np.int32)
        self.parent = np.full(s.size, -1, dtype=s.csr.indices.dtype)
        self.sent = np.zeros(s.n, dtype=np.bool_)
        self.bitmaps = [np.zeros(s.n, dtype=np.bool_) for _ in range(2)]
        self.queues = [np.empty(max(s.size, 1), dtype=np.int64) for _ in range(2)]
        self.queue, self.front = 0, 0
        mine = s.lo <= root < s.hi
        if mine:
            self.level[root - s.lo], self.parent[root - s.lo] = 0, root
            self.queues[0][0] = root
        return int(mine)

    def degree(self, root: int) -> int:
        return int(self.off[root - self.s.lo + 1] - self.off[root - self.s.lo])

    def top_down(self, depth: int, scout: int) -> None:
        s = self.s
        out = self.queues[1 - self.queue]
        claimed, found_scout, pairs = _cpu_top_down(self.off, self.idx, s.lo, s.hi, self.level, self.parent, self.sent,
                                                    self.queues[self.queue], self.local_count, depth, out, s.bounds)
        if self.comm.size > 1:
            cuts = np.searchsorted(pairs[:, 0], s.bounds)
            got = self.comm.alltoallv([pairs[cuts[j]:cuts[j + 1]] for j in range(self.comm.size)])
            for j, piece in enumerate(got):
                if j != s.index and piece.shape[0]:
                    claimed, more = _cpu_claim(self.off, s.lo, self.level, self.parent, piece, depth, out, claimed)
                    found_scout += more
        self.queue = 1 - self.queue
        self.found = (claimed, found_scout)

    def counts(self):
        k, r = self.comm.size, self.s.index
        table = np.zeros(2 * k, dtype=np.int64)
        table[2 * r:2 * r + 2] = self.found
        return table

    def to_bitmap(self) -> None:
        s = self.s
        bitmap = self.bitmaps[self.front]
        bitmap[s.lo:s.hi] = False
        bitmap[self.queues[self.queue][:self.local_count]] = True

    def bottom_up(self, depth: int):
        s = self.s
        front, nxt = self.bitmaps[self.front], self.bitmaps[1 - self.front]
        self.comm.allgatherv(front, s.bounds)
        self.found = _cpu_bottom_up(self.off, self.idx, s.lo, self.level, self.parent, front, nxt, depth)
        self.front = 1 - self.front

    def to_queue(self) -> None:
        s = self.s
        mine = np.flatnonzero(self.bitmaps[self.front][s.lo:s.hi]) + s.lo
        self.queues[self.queue][:mine.shape[0]] = mine

    def outputs(self) -> dict:
        return {"level": self.level, "parent": self.parent}


def _search(rank, root: int, mode: str, alpha: float, beta: float, edges_total: int, params: dict) -> dict:
    """The whole search on this rank, level by level in step with the others (see the module doc)."""
    s, comm = rank.slice, rank.comm
    n = s.n
    steps_ = (_GpuSteps if rank.backend == "gpu" else _CpuSteps)(rank, params)
    if rank.backend == "gpu" and comm.size == 1:
        return steps_.search(rank, root, mode, alpha, beta, edges_total)
    with rank.phase("init"):
        mine = steps_.init(root)
    count, scout = (int(x) for x in comm.allreduce_host([mine, steps_.degree(root) if mine else 0]))
    steps_.local_count = mine
    depth, bottom, check, edges_to_check, steps, bottom_levels = 0, False, True, edges_total, [], 0
    while count:
        start = rank.mark()
        front = count
        if not bottom and (mode == "bottom-up" or (mode == "auto" and check and
                                                   do.wants_bottom_up(scout, edges_to_check, alpha, n, beta))):
            bottom = True
            steps_.to_bitmap()
        direction = "bottom-up" if bottom else "top-down"
        with rank.phase(direction):
            if bottom:
                steps_.bottom_up(depth)
            else:
                if check:
                    edges_to_check -= scout
                check = True
                steps_.top_down(depth, scout)
        old = count
        steps_.local_count, count, scout = _counts(rank, steps_.counts())
        if bottom:
            bottom_levels += 1
            if mode != "bottom-up" and (count == 0 or not do.stays_bottom_up(count, old, n, beta)):
                steps_.to_queue()
                bottom, check = False, False      # GAPBS: the step after bottom-up is top-down
        steps.append(rank.since(start, step=depth, direction=direction, frontier=front))
        depth += 1
        if depth > n:
            raise RuntimeError(f"bfs.distributed: level {depth} on {n} vertices (a rank lost count)")
    with rank.phase("outputs"):
        rank.keep(**steps_.outputs())
    return {"steps": steps, "levels": depth, "bottom_up_levels": bottom_levels}


def _counts(rank, table) -> tuple:
    """(this rank's share of the next frontier, the frontier's size, its out-edges) from every
    rank's row of ``table``: one all-gather, one host read."""
    k, r = rank.comm.size, rank.slice.index
    rank.comm.allgatherv(table, np.arange(0, 2 * k + 1, 2))
    table = rank.comm.host(table).reshape(k, 2)
    return int(table[r, 0]), int(table[:, 0].sum()), int(table[:, 1].sum())


def _run(inp, params, timer, backend: str):
    part = partitioned(inp, params, backend)
    ledger = Ledger(part, timer)
    records = ledger.run(_search, params["root"], params["direction"], params["alpha"], params["beta"],
                         part.facts["slice_edges_total"], {"threads": params["threads"]}, name="bfs.distributed")
    ledger.steps("level", ("direction", "frontier"))
    timer.stat("levels", records[0]["levels"])
    timer.stat("bottom_up_levels", records[0]["bottom_up_levels"])
    return Remote(part, ("level", "parent"), backend)


KERNEL = Kernel(name="bfs.distributed", problem=BFS,
                summary="one graph sliced over K workers: bfs.direction-optimizing's level steps per slice, frontier "
                        "exchanged per level as (vertex, parent) pairs (top-down) or a bitmap (bottom-up), NCCL "
                        "between GPUs",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=slice_graph,
                requires=frozenset({"undirected"}), drives_workers=True, collect=collect)
