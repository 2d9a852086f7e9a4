"""bfs.distributed — level-synchronous, direction-optimising BFS of one graph sliced over K
workers (``partitions=K``; the slices, workers, communicator and ledger are ``kernels/dist``'s).

Returns ``{"level", "parent"}`` (see the package doc): the same levels as ``bfs.best`` (a BFS's
levels are unique), parents valid by the verifier's rules.  Undirected graphs.

Algorithm (1-D: rank i owns the levels and parents of its range; Beamer, Buluç, Asanović &
Patterson IPDPS'13 for the distributed bottom-up).  Every level is one step of
``bfs.direction-optimizing``'s own device functions over the slice (its .cu's
``graphsweep_bfs_slice_*``: the same warp-gathered top-down with hub work items, the same
bottom-up with early exit), and every exchange has a size fixed in advance, so the host queues a
level without reading anything back:
  top-down   the rank expands its frontier queue: a neighbour in its range is claimed at once
             (visited bitmap, queued with its row, set in the next frontier's bitmap); a neighbour of
             another slice, the first time this rank names it, goes to its owner as a (vertex,
             parent) pair in a fixed outbox (``outbox`` pairs a peer, 8 bytes each, its count
             inside) or, once that is full, as its bit in a claims bitmap of every vertex.  The
             outboxes and the claims' words go to their owners (all-to-alls in one NCCL group);
             the owner claims the pairs as its own top-down does, and each claimed bit not yet
             visited takes as parent its first neighbour in the frontier bitmap (one is there: the
             claimer's vertex), a bottom-up step over those vertices alone.
  bottom-up  every unvisited vertex of the range looks for a parent among its neighbours in the
             frontier bitmap of every vertex.
  then       the next frontier's words and each rank's counts (its share of the next frontier and
             their out-edges) are all-gathered in one NCCL group, and a one-thread kernel takes the
             next level's direction from the sums by GAPBS's rule (alpha, beta; the same test as
             ``bfs.direction-optimizing``'s), on every rank alike; kernels with nothing to do at a
             level return at once.
Over peer memory (``exchange``: auto where every rank maps the others' GPU memory — NCCL workers
of one host; ``kernels/dist/comm/peer``) the whole search is one persistent launch a rank
(``graphsweep_bfs_slice_search``: the same device functions, every level inside it, as
``bfs.direction-optimizing`` runs the whole graph's), and the ranks meet inside it: a grid
barrier, the leader thread's flags stored into every peer and awaited (system-scope release and
acquire), a grid barrier.  A level: its step; for top-down each outbox stored into its owner's
memory (its count and that many pairs: a box holds the largest slice, so none overflows and no
claims bitmap goes anywhere), a meeting, the pairs claimed; the counts into every rank's table, a
meeting, the next level decided by every block alike; before a bottom-up level this rank's words
of the frontier into every rank's copy and a meeting.  No launch, collective or host read between
levels: a top-down level of a few vertices costs a few grid barriers and two meetings, where the
launch-per-step form paid about a dozen launches and host-queued barriers (0.06-0.13 ms a level
at R-MAT 26 on 4 H200s) and the collectives a fixed outbox, a claims bitmap of every vertex and
the frontier's words (14 MB a rank a level).
Over the collectives the host reads each level's control block back a level behind (queued as an asynchronous copy),
only to learn that the frontier is empty; it has already queued one level more, which does nothing.
Over NCCL a level's launches and collectives are captured once as a CUDA graph (one per level
modulo the snapshot slots; ``graphs``), so the host queues a level with one graph launch where it
made about fifteen launches and two NCCL groups (~0.3 ms of Python a level, more than a small
level's device work).  A level so costs the slowest slice's step and two collectives, with no
host round trip between levels.  The bottom-up step runs as the persistent kernel runs it, one grid-stride
wave of resident blocks over the slice's words.  At K = 1 the slice is the whole graph and nothing
is exchanged: the search is ``bfs.direction-optimizing``'s single persistent launch over it
(phases ``init`` and ``levels``; its level records read once at the end).  The CPU twin runs the
same levels with Numba over the same exchanges (its counts summed by an all-reduce, its direction
by the same rule on the host: ``_Switch``).

Rows: ``total`` (the slowest rank, barrier to end), ``dispatch`` (the driver's call), phases
``init``, ``top-down`` and ``bottom-up`` (levels of each direction) and, but over peer memory (whose
launch writes them as it ends), ``outputs``; a step row per level (phase ``level``: the slowest
rank's time and time in collectives — over peer memory the leader's wait in the level's meetings —
the bytes all ranks received, the direction and the frontier; over peer memory also the largest and
the smallest of the ranks' own steps of the level, ``work_ms_max`` / ``work_ms_min``: expansion or
rows checked, without the exchange, claims and meetings after it); ``levels``, ``bottom_up_levels``
and the ledger's statistics.
"""

from functools import partial

import numba
import numpy as np
from graphsweep.core.errors import ParameterError

from ..contract import Kernel, Param
from ..cuda import blocks_for, launch_cooperative, persistent_blocks, resident_blocks
from ..dist import PARAMS as PARTITION_PARAMS
from ..dist import Ledger, Remote, collect, partitioned, slice_graph
from ..dist import verify as partitioned_verify
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
                                                 "512)"),
          "registers": Param(None, choices=(64, 128),
                             help="registers a thread of the level steps may use (default: 64 on slices of "
                                  f"{do.BOTTOM_UP_DEGREE}+ entries a row, 128 below; bfs.direction-optimizing's "
                                  "rule)"),
          "outbox": Param(None, minimum=1, help="(vertex, parent) pairs a rank sends each other rank a top-down "
                                                "level (a fixed 8 (outbox + 1) bytes; default 65,536, or n / (256 K) "
                                                "rounded down to a power of two where more); claims past it go as bits "
                                                   "whose owner finds the parent"),
          "exchange": Param("auto", str, choices=("auto", "peer", "collectives"),
                            help="peer: the whole search one launch a GPU, the level's pairs, counts and frontier "
                                 "words stored straight into the other GPUs' memory (CUDA IPC, one host), only as "
                                 "many pairs as there are, the GPUs meeting inside the launch; collectives: levels "
                                 "queued launch by launch, NCCL's all-to-alls and all-gathers of fixed sizes; auto: "
                                 "peer where every rank maps the others' memory"),
          "graphs": Param("auto", str, choices=("auto", "off"),
                          help="exchange collectives: auto: each level's launches and collectives captured once as "
                               "a CUDA graph and replayed (NCCL; their time inside collectives is then not "
                               "measured); off: queued launch by launch, every collective timed")}
SCTL = 5                       # the step counters (direction_optimizing.cu: GS_SCTL_*)
UNROLL = 4                     # pairs a lane of the claim kernel takes at once (GS_BFS_UNROLL)
SNAPSHOTS = 4                  # control blocks in flight to the host (it reads level L before queuing L + 2)
DIRECTIONS = ("top-down", "bottom-up")
DEVICE_TO_HOST = 2             # cudaMemcpyDeviceToHost
C = do.SliceCtl


class _Switch:
    """The direction of each level by GAPBS's rule, as ``graphsweep_bfs_slice_decide`` takes it on
    the device (the CPU twin's): from a level's global counts, the next level's direction."""

    def __init__(self, mode: str, alpha: float, beta: float, n: int, edges_to_check: int):
        self.mode, self.alpha, self.beta, self.n = mode, alpha, beta, n
        self.edges, self.check, self.bottom, self.started = edges_to_check, True, False, False
        self.count, self.to_queue, self.bottom_levels = 0, False, 0

    def next(self, count: int, scout: int) -> None:
        """The level whose frontier has ``count`` vertices and ``scout`` out-edges."""
        old, self.to_queue = self.count, False
        if self.started and self.bottom:
            self.bottom_levels += 1
            if self.mode != "bottom-up" and (count == 0 or not do.stays_bottom_up(count, old, self.n, self.beta)):
                self.to_queue, self.bottom, self.check = count > 0, False, False   # GAPBS: then one top-down level
        self.started = True
        if count and not self.bottom and (self.mode == "bottom-up" or (
                self.mode == "auto" and self.check and do.wants_bottom_up(scout, self.edges, self.alpha, self.n,
                                                                           self.beta))):
            self.bottom = True
        if count and not self.bottom:
            if self.check:
                self.edges -= scout
            self.check = True
        self.count = count

    @property
    def direction(self) -> str:
        return DIRECTIONS[self.bottom]


class _GpuSearch:
    """One slice's search on the GPU (direction_optimizing.cu's slice kernels) and the workspace
    it keeps between runs."""

    def __init__(self, rank, params):
        import cupy
        s = rank.slice
        self.s, self.xp, self.comm, self.rank = s, cupy, rank.comm, rank
        self.capture = params["graphs"] == "auto" and rank.comm.capturable
        self.launched = "none"      # how this search's levels were captured (``_graphs``)
        self.peers = None
        if params["exchange"] != "collectives" and rank.comm.size > 1:
            self.peers = rank.comm.peers()        # every rank asks at the same point: it is collective
            if self.peers is None and params["exchange"] == "peer":
                raise ParameterError("parameter 'exchange': peer needs every rank to map the others' GPU memory "
                                     "(NCCL workers of one host with peer access)")
        key = ("bfs", params["threads"], params["outbox"], params["registers"], self.peers is not None)
        scratch = s.claim("bfs.distributed")
        ws = scratch.get(key)
        if ws is None:
            ws = scratch[key] = self._workspace(s, params, self.peers)
        self.ws = ws
        self.threads = ws["threads"]

    @staticmethod
    def _workspace(s, params, peers) -> dict:
        import cupy
        import cupyx
        csr, n, size = s.csr, s.n, s.size
        k = len(s.bounds) - 1
        threads = do._threads(params)
        words, local_words = (n + 31) // 32, (size + 31) // 32
        registers = params["registers"] or (64 if csr.nnz >= do.BOTTOM_UP_DEGREE * max(size, 1) else 128)
        mod = do._module(registers)
        smem = (threads // 32) * (do.WARP_BUFFER * 16 + 3 * 8)
        fn = {name: mod.get_function(f"graphsweep_bfs_slice_{name}")
              for name in ("start", "to_queue", "top_down", "bottom_up", "claim", "unclaimed", "resolve", "found",
                           "counts", "decide", "outputs", "search")}
        word_bounds = ((s.bounds + 31) // 32).astype(np.int64)
        first = int(word_bounds[s.index])
        lp = cupy.empty((max(size, 1), 2), dtype=np.int32)
        visited = cupy.empty(words, dtype=np.uint32)
        peer = {}
        if peers is None:
            cap = params["outbox"]
            fronts = [cupy.zeros(words, dtype=np.uint32) for _ in range(2)]
            pairs = cupy.zeros((k, cap + 1, 2), dtype=np.int32)
            table = cupy.zeros(2 * k, dtype=np.int64)
        else:
            # a rank names another slice's vertex once a search (its visited bit), so a box of the
            # largest slice's size never fills: no claims bitmap to send
            cap = max(int(np.diff(s.bounds).max()), 1)
            fronts, peer["fronts"] = (list(x) for x in zip(*(peers.buffer((words,), np.uint32) for _ in range(2))))
            pairs, peer["pairs"] = peers.buffer((k, cap + 1, 2), np.int32)
            table, peer["table"] = peers.buffer((4 * k,), np.int64)      # a half for even levels, one for odd
        # per rank: its count, then its pairs; over peer memory only the counts (the pairs go
        # straight into the owners' inboxes: a box the size of theirs was 8.6 GB a GPU at R-MAT 30, K = 4)
        outbox = cupy.zeros((k, cap + 1 if peers is None else 1, 2), dtype=np.int32)
        ws = {"mod": mod, "fn": fn, "threads": threads, "smem": smem, "k": k, "peer": peer,
              "blocks": persistent_blocks(fn["top_down"], threads, smem, None), "words": words,
              "local_words": local_words,
              # bottom-up: a grid-stride wave of resident blocks, as the one-GPU kernel runs it (a warp a
              # word over the whole grid ran R-MAT 24's bottom-up levels 3-4x slower on an H100)
              "bu_blocks": min(resident_blocks(threads), blocks_for(32 * local_words, threads)),
              "word_blocks": blocks_for(max(local_words, 1), threads),
              "visited": visited, "bitmaps": fronts, "lp": lp,
              "cap": cap, "outbox": outbox, "pairs": pairs, "bounds": cupy.asarray(s.bounds.astype(np.int64)),
              "queues": [cupy.empty((max(size, 1), 2), dtype=np.int64) for _ in range(2)],
              "items": cupy.empty(csr.nnz // (do.CHUNK // 2) + 1, dtype=np.uint64),
              "ctl": cupy.zeros(do.Ctl.SIZE, dtype=np.uint64),
              "table": table,
              "dead": do.empty_rows(cupy, csr.offsets, size)[0], "word_bounds": word_bounds,
              # the slice's arrays indexed by global vertex id (rows moved back by lo), and its own
              # words of the visited and frontier bitmaps
              "offsets_global": shifted(csr.offsets, s.lo), "lp_global": shifted(lp, s.lo),
              "visited_here": visited[first:first + local_words],
              "bitmaps_here": [b[first:first + local_words] for b in fronts], "first_word": first}
        if peers is not None:
            # the whole search in one launch a rank (graphsweep_bfs_slice_search)
            ws["search_blocks"] = persistent_blocks(fn["search"], threads, smem, None)
            ws["records"] = cupy.empty((do.Rec.FIELDS, do.RECORDS), dtype=np.int64)
            ws["meetings"] = cupy.zeros(3 * do.RECORDS, dtype=np.int64)   # waits, bytes, own steps' ends
        elif k > 1:
            # the levels queued launch by launch, their exchanges NCCL's collectives
            claims = cupy.zeros(words, dtype=np.uint32)
            inbox = cupy.zeros((k, max(local_words, 1)), dtype=np.uint32)
            ws.update({
                "claims": claims, "inbox": inbox,
                "skip": cupy.empty(max(local_words, 1), dtype=np.uint32),
                "found": cupy.empty(max(local_words, 1), dtype=np.uint32),
                # slice j's words of the claims go to rank j, into its inbox row of this rank
                "claim_pieces": [claims[int(word_bounds[j]):int(word_bounds[j + 1])] for j in range(k)],
                "inbox_rows": [inbox[j, :local_words] for j in range(k)],
                "claim_blocks": min(blocks_for(k * cap, threads * UNROLL), resident_blocks(threads)),
                "sctl": cupy.zeros(SCTL, dtype=np.uint64),
                "dctl": cupy.zeros(C.SIZE, dtype=np.int64),
                "snapshots": cupyx.empty_pinned((SNAPSHOTS, C.SIZE), dtype=np.int64),
                "table_bounds": np.arange(0, 2 * k + 1, 2)})
        if k == 1:
            # K = 1: the whole search is the one-GPU kernel's single persistent launch
            levels = mod.get_function("graphsweep_bfs_levels")
            ws["levels"] = levels
            ws["whole"] = do._Workspace(visited=ws["visited"], lp=ws["lp"], bitmaps=ws["bitmaps"],
                                        queues=ws["queues"], items=ws["items"], ctl=ws["ctl"], smem=smem,
                                        blocks=persistent_blocks(levels, threads, smem, None))
            ws["records"] = cupy.empty((do.Rec.FIELDS, do.RECORDS), dtype=np.int64)
        return ws

    def whole(self, root: int, mode: str, alpha: float, beta: float, edges_to_check: int) -> dict:
        """K = 1: the slice is the whole graph and nothing is exchanged, so every level runs in
        ``bfs.direction-optimizing``'s single persistent launch (no host round trip a level), which
        also writes the outputs (kept); its control block and level records are read once at the end."""
        ws, s, csr, rank = self.ws, self.s, self.s.csr, self.rank
        whole = ws["whole"]
        with rank.phase("init"):
            do.init_search(ws["mod"], whole, csr, root, self.threads)
        level, parent = self.xp.empty(s.size, dtype=np.int32), self.xp.empty(s.size, dtype=np.int32)
        with rank.phase("levels"):
            do.launch_levels(ws["levels"], whole, self.threads, csr, csr, ws["dead"], level, parent, ws["records"],
                             recorded=0, depth=0, edges_to_check=edges_to_check, reached=1, levels_per_launch=0,
                             mode=do.Mode.of(mode), bottom_up=0, check=1, alpha=alpha,
                             beta=beta)
        rank.done()          # as bfs.best, the control block and level records are read after timing
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

    def _zero(self, a) -> None:
        if a.nbytes:
            self.xp.cuda.runtime.memsetAsync(a.data.ptr, 0, a.nbytes, self.xp.cuda.get_current_stream().ptr)

    def _decide(self, mode: int, alpha: float, beta: float) -> None:
        ws, s = self.ws, self.s
        ws["fn"]["decide"]((1,), (32,), (ws["table"], np.int32(ws["k"]), np.int32(s.index), ws["dctl"], ws["sctl"],
                                          np.int64(s.n), np.int32(mode), np.float64(alpha), np.float64(beta),
                                          np.int64(do.min_switch(s.n, beta))))

    def start(self, root: int, mode: int, alpha: float, beta: float, edges_to_check: int) -> None:
        """Queue the search's start: visited cleared, the root in queue and frontier, the counts
        gathered and level 0 decided."""
        ws, s, comm = self.ws, self.s, self.comm
        mine = s.lo <= root < s.hi
        ws["fn"]["start"]((blocks_for(ws["words"], 2 * self.threads),), (self.threads,),
                          (ws["visited"], ws["bitmaps"][0], ws["claims"], np.int32(ws["words"]), ws["lp_global"],
                           ws["queues"][0], ws["offsets_global"], np.int32(root), np.int32(mine), ws["table"],
                           np.int32(s.index), ws["dctl"], ws["sctl"], np.int64(edges_to_check)))
        comm.allgatherv(ws["table"], ws["table_bounds"])
        self._decide(mode, alpha, beta)

    def _queue_level(self, depth: int, mode: int, alpha: float, beta: float, cooperative: bool = True) -> None:
        """Queue level ``depth``'s launches and collectives (see the module doc); nothing here waits
        for the device.  ``cooperative=False`` launches the top-down step plainly (its grid is
        resident blocks only, so its barrier holds as long as nothing else runs beside it)."""
        ws, s, comm, t, fn = self.ws, self.s, self.comm, self.threads, self.ws["fn"]
        cur, nxt = depth & 1, 1 - (depth & 1)
        front, front_next = ws["bitmaps"][cur], ws["bitmaps"][nxt]
        here_front, here_next = ws["bitmaps_here"][cur], ws["bitmaps_here"][nxt]
        qin, qout = ws["queues"][cur], ws["queues"][nxt]
        sctl, dctl, lw = ws["sctl"], ws["dctl"], np.int32(ws["local_words"])
        self._zero(here_next)
        fn["to_queue"]((ws["word_blocks"],), (t,), (here_front, lw, s.csr.offsets, qin, sctl, np.int32(s.lo), dctl))
        top_down = (ws["offsets_global"], s.csr.indices, ws["visited"], ws["lp_global"], qin, qout, ws["items"], sctl,
                    ws["ctl"], dctl, np.int64(s.lo), np.int64(s.hi), ws["bounds"], np.int32(ws["k"]), ws["outbox"],
                    np.int32(ws["cap"]), ws["claims"], front_next)
        if cooperative:
            launch_cooperative(fn["top_down"], ws["blocks"], t, top_down, ws["smem"])
        else:
            fn["top_down"]((ws["blocks"],), (t,), top_down, shared_mem=ws["smem"])
        if lw:
            fn["bottom_up"]((ws["bu_blocks"],), (t,), (s.csr.offsets, s.csr.indices, ws["visited_here"], ws["dead"],
                                                       front, here_next, ws["lp"], np.int32(s.size), lw, sctl, dctl))
        with comm.group():
            comm.alltoallv_into(list(ws["outbox"]), list(ws["pairs"]))
            comm.alltoallv_into(ws["claim_pieces"], ws["inbox_rows"])
        self._zero(ws["outbox"])
        self._zero(ws["claims"])
        fn["claim"]((ws["claim_blocks"],), (t,), (
            ws["pairs"], np.int32(ws["k"]), np.int32(s.index), np.int32(ws["cap"]), ws["offsets_global"],
            s.csr.indices, ws["visited"], ws["lp_global"], qout, sctl, dctl, np.int64(s.lo), np.int64(s.hi),
            front_next), shared_mem=(t // 32) * do.WARP_BUFFER * 16)
        if lw:
            fn["unclaimed"]((ws["word_blocks"],), (t,), (ws["inbox"], np.int32(ws["k"]), np.int32(s.index), lw,
                                                         ws["skip"], dctl))
            fn["resolve"]((ws["bu_blocks"],), (t,), (s.csr.offsets, s.csr.indices, ws["visited_here"], ws["skip"],
                                                     front, ws["found"], ws["lp"], np.int32(s.size), lw, sctl, dctl))
            fn["found"]((ws["word_blocks"],), (t,), (ws["found"], lw, here_next, s.csr.offsets, qout, sctl,
                                                     np.int64(s.lo), dctl))
        fn["counts"]((1,), (32,), (sctl, ws["table"], np.int32(s.index), dctl))
        with comm.group():
            comm.allgatherv(front_next, ws["word_bounds"])
            comm.allgatherv(ws["table"], ws["table_bounds"])
        self._decide(mode, alpha, beta)
        self._snapshot(depth)

    def _snapshot(self, depth: int) -> None:
        """The control block into the host's snapshot slot of level ``depth``.  The runtime's copy,
        not ndarray.get: CuPy refuses a device-to-host copy while capturing, which CUDA captures as
        a copy node into this pinned buffer."""
        snapshot, dctl = self.ws["snapshots"][depth % SNAPSHOTS], self.ws["dctl"]
        self.xp.cuda.runtime.memcpyAsync(snapshot.ctypes.data, dctl.data.ptr, snapshot.nbytes, DEVICE_TO_HOST,
                                         self.xp.cuda.get_current_stream().ptr)

    def _graphs(self, mode: int, alpha: float, beta: float):
        """Level ``d``'s launches and collectives captured once as a CUDA graph for every d modulo
        SNAPSHOTS (a level's parity and snapshot slot are all that change between levels; the
        arrays stay in the workspace), so queuing a level is one launch from the host instead of
        about fifteen launches and two NCCL groups.  The top-down step is captured as a cooperative
        launch where the driver captures one, else plainly; None where nothing is captured (the
        ``graphs`` parameter, a transport that cannot be captured, or a capture that failed: the
        host then queues each level itself).  Kept in the workspace per (mode, alpha, beta)."""
        ws = self.ws
        if not self.capture:
            return None
        key = ("graphs", mode, alpha, beta)
        if key not in ws:
            ws[key] = self._capture(mode, alpha, beta)
        graphs, self.launched = ws[key]
        return graphs

    def _capture(self, mode: int, alpha: float, beta: float) -> tuple:
        """(the graphs or None, how the top-down step was captured: cooperative, plain or none)."""
        import cupy
        stream = cupy.cuda.Stream(non_blocking=True)
        for cooperative in (True, False):
            graphs = []
            try:
                with stream:
                    for depth in range(SNAPSHOTS):
                        with self.comm.capturing() as counts:
                            stream.begin_capture()
                            try:
                                self._queue_level(depth, mode, alpha, beta, cooperative)
                            finally:
                                graph = stream.end_capture()
                        graphs.append((graph, counts))
            except (cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError):
                continue
            return graphs, "cooperative" if cooperative else "plain"
        return None, "none"

    def level(self, depth: int, mode: int, alpha: float, beta: float) -> tuple:
        """Queue level ``depth``: its captured graph (``_graphs``) or its launches one by one;
        returns its end event and the ledger's rounds and bytes before and after it."""
        comm = self.comm
        before = (comm.rounds, comm.received)
        graphs = self._graphs(mode, alpha, beta)
        if graphs:
            graph, counts = graphs[depth % SNAPSHOTS]
            graph.launch()
            comm.replayed(**counts)
        else:
            self._queue_level(depth, mode, alpha, beta)
        done = self.xp.cuda.Event()
        done.record()
        return done, before, (comm.rounds, comm.received)

    def in_one_launch(self, root: int, mode: str, alpha: float, beta: float, edges_to_check: int) -> dict:
        """Over peer memory: the whole search in one persistent launch a rank
        (``graphsweep_bfs_slice_search``), the ranks meeting inside it; phases and level rows from
        its device records, read after timing: ``init``, each direction's levels less the leader's
        waits in their meetings, and those waits as ``meetings`` (the rank's share of the others'
        imbalance and the meetings' latency)."""
        rank, s, ws, xp, peers = self.rank, self.s, self.ws, self.xp, self.peers
        level, parent = xp.empty(s.size, dtype=np.int32), xp.empty(s.size, dtype=np.int32)
        records, meetings = ws["records"], ws["meetings"]
        # the arguments made before the GPUs meet: after it, a rank's host time before its launch
        # is time its peers wait at the start's meeting
        args = (
            s.csr.offsets, ws["offsets_global"], s.csr.indices, ws["visited"], ws["dead"], ws["lp"], ws["lp_global"],
            level, parent, ws["queues"][0], ws["queues"][1], ws["bitmaps"][0], ws["bitmaps"][1], ws["items"],
            ws["ctl"], ws["outbox"], np.int32(ws["cap"]), ws["peer"]["pairs"], ws["peer"]["table"],
            ws["peer"]["fronts"][0], ws["peer"]["fronts"][1], peers.flags[1], *peers.meeting()[2:],
            ws["bounds"], np.int32(ws["k"]), np.int32(s.index), records, meetings, np.int32(records.shape[1]),
            np.int64(s.n), np.int64(s.lo), np.int64(s.hi), np.int32(root), np.int64(edges_to_check),
            np.int32(do.Mode.of(mode)), np.float64(alpha), np.float64(beta), np.int64(do.min_switch(s.n, beta)))
        rank.restart()
        self._zero(ws["ctl"])
        launch_cooperative(ws["fn"]["search"], ws["search_blocks"], self.threads, args, ws["smem"])
        rank.done()          # the error words and the records are read after timing
        rank.keep(level=level, parent=parent)
        peers.check("bfs.distributed")
        ctl = self.comm.host(ws["ctl"])
        error = int(ctl[do.Ctl.ERROR])
        if error == 1:
            raise RuntimeError("bfs.distributed: a grid barrier of the search kernel timed out (blocks not "
                               "co-resident?)")
        if error:
            raise RuntimeError(f"bfs.distributed: rank {s.index}'s search kernel failed (code {error})")
        levels = int(ctl[do.Ctl.DEPTH])
        rec = self.comm.host(records[:, :min(levels, do.RECORDS - 1)])
        met = self.comm.host(meetings).reshape(3, -1)
        started = int(ctl[do.Ctl.STARTED])
        waits = met[0, :1 + levels] / 1e9
        rank.phases["init"] = (started - int(ctl[do.Ctl.T0])) / 1e9 - float(waits[0])
        rank.phases["meetings"] = float(waits.sum())
        self.comm.received += int(met[1, :1 + levels].sum())
        steps, began = [], started
        for k, f, e, c, items, checked, kind, ms in do.level_records(rec, started):
            direction = "bottom-up" if kind & do.Kind.BOTTOM_UP else "top-down"
            rank.phases[direction] = rank.phases.get(direction, 0.0) + ms / 1e3 - float(waits[1 + k])
            # work_ms: the rank's own step of the level (expansion or rows checked), without the
            # exchange, the claims and the meetings after it; across ranks its spread is the imbalance
            steps.append({"ms": ms, "comm_ms": 1e3 * waits[1 + k], "bytes": int(met[1, 1 + k]), "rounds": 0,
                          "step": k, "direction": direction, "frontier": f,
                          "work_ms": (int(met[2, 1 + k]) - began) / 1e6})
            began = int(rec[do.Rec.TIME, k])
        return {"steps": steps, "levels": levels, "bottom_up_levels": int(ctl[do.Ctl.BU_LEVELS]), "graphs": "none",
                "exchange": "peer"}

    def search(self, root: int, mode: str, alpha: float, beta: float, edges_to_check: int) -> dict:
        """Every level queued one ahead of the host's read of the last (see the module doc)."""
        if self.peers:
            return self.in_one_launch(root, mode, alpha, beta, edges_to_check)
        rank, s, comm, ws = self.rank, self.s, self.comm, self.ws
        mode_ = int(do.Mode.of(mode))
        rank.restart()
        with rank.phase("init"):
            self.start(root, mode_, alpha, beta, edges_to_check)
        began = self.xp.cuda.Event()
        began.record()
        queued = [self.level(0, mode_, alpha, beta)]
        seen = []
        while True:
            depth = len(seen)
            if depth + 1 > s.n:
                raise RuntimeError(f"bfs.distributed: level {depth + 1} on {s.n} vertices (a rank lost count)")
            queued.append(self.level(depth + 1, mode_, alpha, beta))
            comm.wait(queued[depth][0])
            snap = ws["snapshots"][depth % SNAPSHOTS].copy()
            seen.append(snap)
            if snap[C.DONE]:
                break
        with rank.phase("outputs"):
            level, parent = self.xp.empty(s.size, dtype=np.int32), self.xp.empty(s.size, dtype=np.int32)
            if s.size:
                ws["fn"]["outputs"]((blocks_for(max(s.size // 4, 1), self.threads),), (self.threads,),
                                    (ws["visited_here"], ws["lp"], level, parent, np.int32(s.size)))
        rank.done()          # the error flag and the levels' times are read after timing
        rank.keep(level=level, parent=parent)
        if self.peers:
            self.peers.check("bfs.distributed")
        if comm.host(ws["ctl"])[do.Ctl.ERROR]:
            raise RuntimeError("bfs.distributed: a top-down level's grid barrier timed out (blocks not co-resident?)")
        steps, last = [], began
        for depth, snap in enumerate(seen):
            done, before, after = queued[depth]
            ms = self.xp.cuda.get_elapsed_time(last, done)
            last = done
            direction = DIRECTIONS[int(snap[C.LAST_DIRECTION])]
            rank.phases[direction] = rank.phases.get(direction, 0.0) + ms / 1e3
            steps.append({"ms": ms, "comm_ms": 1e3 * comm.seconds_between(before[0], after[0]),
                          "bytes": after[1] - before[1], "rounds": after[0] - before[0], "step": depth,
                          "direction": direction, "frontier": int(snap[C.LAST_COUNT])})
        return {"steps": steps, "levels": len(seen), "bottom_up_levels": int(seen[-1][C.BOTTOM_UP_LEVELS]),
                "graphs": self.launched, "exchange": "peer" if self.peers else "collectives"}


# --- CPU twin: the same levels with Numba, the same exchanges

@numba.njit(cache=True)
def _cpu_top_down(off, idx, lo, hi, level, parent, sent, claims, outbox, bounds, queue, count, depth, out, nxt):
    """Expand queue[:count] (global ids of this slice): own neighbours claimed into ``out`` and
    ``nxt``; another slice's, the first time this slice names it, a (vertex, parent) pair in its
    owner's outbox (outbox[j, 0, 0] its count) or, once that is full, its bit in ``claims``;
    returns (claimed, their out-edges)."""
    claimed, scout, cap = 0, 0, outbox.shape[1] - 1
    for i in range(count):
        u = queue[i]
        for e in range(off[u - lo], off[u - lo + 1]):
            w = idx[e]
            if lo <= w < hi:
                claimed, scout = _cpu_claim_one(off, lo, level, parent, w, u, depth, out, nxt, claimed, scout)
            elif not sent[w]:
                sent[w] = True
                j = np.searchsorted(bounds, w, side="right") - 1
                at = outbox[j, 0, 0]
                outbox[j, 0, 0] = at + 1
                if at < cap:
                    outbox[j, 1 + at, 0] = w
                    outbox[j, 1 + at, 1] = u
                else:
                    claims[w] = True
    return claimed, scout


@numba.njit(cache=True)
def _cpu_claim_one(off, lo, level, parent, w, u, depth, out, nxt, claimed, scout):
    """Claim this slice's vertex w from u unless reached; returns (claimed, scout) updated."""
    if level[w - lo] < 0:
        level[w - lo] = depth + 1
        parent[w - lo] = u
        nxt[w] = True
        out[claimed] = w
        return claimed + 1, scout + off[w - lo + 1] - off[w - lo]
    return claimed, scout


@numba.njit(cache=True)
def _cpu_claim(off, lo, level, parent, pairs, row, depth, out, nxt, claimed):
    """Claim the pairs the other ranks sent (pairs[j]: rank j's outbox for this slice)."""
    scout, cap = 0, pairs.shape[1] - 1
    for j in range(pairs.shape[0]):
        if j != row:
            for i in range(min(pairs[j, 0, 0], cap)):
                claimed, scout = _cpu_claim_one(off, lo, level, parent, pairs[j, 1 + i, 0], pairs[j, 1 + i, 1], depth,
                                                out, nxt, claimed, scout)
    return claimed, scout


@numba.njit(cache=True)
def _cpu_resolve(off, idx, lo, level, parent, got, front, nxt, out, claimed, depth):
    """The vertices other slices claimed (``got``, this slice's) not yet reached take their first
    neighbour in ``front`` as parent and join ``out`` after ``claimed``; returns (claimed, the new
    ones' out-edges), claimed -1 if one has no such neighbour (a broken exchange)."""
    scout = 0
    for i in range(got.shape[0]):
        if got[i] and level[i] < 0:
            found = False
            for e in range(off[i], off[i + 1]):
                if front[idx[e]]:
                    level[i] = depth + 1
                    parent[i] = idx[e]
                    nxt[lo + i] = True
                    out[claimed] = lo + i
                    claimed += 1
                    scout += off[i + 1] - off[i]
                    found = True
                    break
            if not found:
                return -1, scout
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


def compile_cpu_twins() -> None:
    """Compile the twins above for the types ``_cpu_search`` passes them (see
    ``dist.driver.compile_cpu_twins``): a slice of no rows, so nothing runs."""
    off, idx = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)   # a slice's CSR: n < 2^31, int32 ids
    level, parent = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=idx.dtype)
    bits = np.zeros(1, dtype=np.bool_)                       # sent, claims, frontiers: one per vertex
    outbox = np.zeros((2, 2, 2), dtype=np.int64)             # two ranks' outboxes (and the pairs received)
    bounds, queue = np.zeros(3, dtype=np.int64), np.zeros(1, dtype=np.int64)
    claimed, _ = _cpu_top_down(off, idx, 0, 0, level, parent, bits, bits, outbox, bounds, queue, 0, 0, queue, bits)
    _cpu_bottom_up(off, idx, 0, level, parent, bits, bits, 0)
    claimed, _ = _cpu_claim(off, 0, level, parent, outbox, 0, 0, queue, bits, claimed)
    _cpu_resolve(off, idx, 0, level, parent, level >= 0, bits, bits, queue, claimed, 0)


def _cpu_search(rank, root: int, mode: str, alpha: float, beta: float, edges_to_check: int, params: dict) -> dict:
    """The same levels on the host (NumPy + Numba), the direction by ``_Switch``."""
    s, comm = rank.slice, rank.comm
    n, lo, hi, k = s.n, s.lo, s.hi, comm.size
    off, idx = s.csr.offsets, s.csr.indices
    level = np.full(s.size, -1, dtype=np.int32)
    parent = np.full(s.size, -1, dtype=idx.dtype)
    sent, claims = np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_)
    fronts = [np.zeros(n, dtype=np.bool_) for _ in range(2)]
    inbox = [np.zeros(s.size, dtype=np.bool_) for _ in range(k)]
    outbox = np.zeros((k, params["outbox"] + 1, 2), dtype=np.int64)
    pairs = np.zeros_like(outbox)
    queue, out = np.empty(max(s.size, 1), dtype=np.int64), np.empty(max(s.size, 1), dtype=np.int64)
    mine = lo <= root < hi
    with rank.phase("init"):
        if mine:
            level[root - lo], parent[root - lo], queue[0] = 0, root, root
        fronts[0][root] = True
        count, scout = (int(x) for x in comm.allreduce_host([mine, off[root - lo + 1] - off[root - lo] if mine else 0]))
    switch = _Switch(mode, alpha, beta, n, edges_to_check)
    switch.next(count, scout)
    local, depth, steps = int(mine), 0, []
    while switch.count:
        start, direction, frontier = rank.mark(), switch.direction, switch.count
        front, nxt = fronts[depth & 1], fronts[1 - (depth & 1)]
        with rank.phase(direction):
            if switch.to_queue:
                here = np.flatnonzero(front[lo:hi]) + lo
                queue[:here.shape[0]], local = here, here.shape[0]
            if direction == "top-down":
                nxt[lo:hi] = False
                claimed, found_scout = _cpu_top_down(off, idx, lo, hi, level, parent, sent, claims, outbox, s.bounds,
                                                     queue, local, depth, out, nxt)
            else:
                claimed, found_scout = _cpu_bottom_up(off, idx, lo, level, parent, front, nxt, depth)
            comm.alltoallv_into(list(outbox), list(pairs))
            comm.alltoallv_into([claims[s.bounds[j]:s.bounds[j + 1]] for j in range(k)], inbox)
            outbox[:, 0, 0], claims[:] = 0, False
            if direction == "top-down" and k > 1:
                claimed, more = _cpu_claim(off, lo, level, parent, pairs, s.index, depth, out, nxt, claimed)
                found_scout += more
                got = np.logical_or.reduce([inbox[j] for j in range(k) if j != s.index])
                claimed, more = _cpu_resolve(off, idx, lo, level, parent, got, front, nxt, out, claimed, depth)
                if claimed < 0:
                    raise RuntimeError(f"bfs.distributed: rank {s.index} got a claim at level {depth} for a vertex "
                                       f"with no neighbour in the frontier (a broken exchange)")
                found_scout += more
            comm.allgatherv(nxt, s.bounds)
            count, scout = (int(x) for x in comm.allreduce_host([claimed, found_scout]))
        local, queue, out = claimed, out, queue
        switch.next(count, scout)
        steps.append(rank.since(start, step=depth, direction=direction, frontier=frontier))
        depth += 1
        if depth > n:
            raise RuntimeError(f"bfs.distributed: level {depth} on {n} vertices (a rank lost count)")
    rank.keep(level=level, parent=parent)
    return {"steps": steps, "levels": depth, "bottom_up_levels": switch.bottom_levels,
            "exchange": "collectives" if k > 1 else "none"}


def _search(rank, root: int, mode: str, alpha: float, beta: float, edges_total: int, params: dict) -> dict:
    """The whole search on this rank, level by level in step with the others (see the module doc)."""
    if rank.backend != "gpu":
        return _cpu_search(rank, root, mode, alpha, beta, edges_total, params)
    search = _GpuSearch(rank, params)
    if rank.comm.size == 1:
        return search.whole(root, mode, alpha, beta, edges_total)
    return search.search(root, mode, alpha, beta, edges_total)


def outbox_pairs(n: int, k: int) -> int:
    """The default outbox: 65,536 pairs a peer, or n / (256 K) rounded down to a power of two where
    that is more.  Claims past the outbox go as bits whose owner searches a parent among the
    vertex's neighbours: R-MAT 30 (ef 24, K = 4) sent most of a large top-down level's claims so,
    and its top-down levels took 45 ms a root against 9 ms with 2^20 pairs; on R-MAT 26 the fixed
    bytes of a larger outbox would cost more than they save (every level sends all of it)."""
    return max(1 << 16, 1 << max(0, (n // (256 * k)).bit_length() - 1))


def _setup(inp, params):
    """Refuse what the backend cannot do before the graph is sliced, then slice it."""
    if inp.backend != "gpu" and params["exchange"] == "peer":
        raise ParameterError("parameter 'exchange': peer needs GPU workers (NCCL ranks of one host); this run's "
                             f"backend is {inp.backend}")
    return slice_graph(inp, params)


def _run(inp, params, timer, backend: str):
    part = partitioned(inp, params, backend)
    ledger = Ledger(part, timer)
    outbox = params["outbox"] or outbox_pairs(part.n, part.k)
    records = ledger.run(_search, params["root"], params["direction"], params["alpha"], params["beta"],
                         part.facts["slice_edges_total"],
                         {"threads": params["threads"], "outbox": outbox, "graphs": params["graphs"],
                          "exchange": params["exchange"], "registers": params["registers"]},
                         name="bfs.distributed")
    timer.stat("outbox", outbox)
    ledger.steps("level", ("direction", "frontier"), spread=("work_ms",))
    timer.stat("levels", records[0]["levels"])
    timer.stat("bottom_up_levels", records[0]["bottom_up_levels"])
    timer.stat("level_graphs", records[0].get("graphs", "none"))
    timer.stat("exchange", records[0].get("exchange", "none"))
    return Remote(part, ("level", "parent"), backend)


def _check(output: Remote, params: dict) -> dict:
    return partitioned_verify.check(output, partitioned_verify.bfs, params["root"])


KERNEL = Kernel(name="bfs.distributed", problem=BFS,
                summary="one graph sliced over K workers: bfs.direction-optimizing's level steps per slice, the "
                        "direction decided on the device; per level the claims' bitmap all-to-all and the frontier's "
                        "all-gathered, NCCL between GPUs, no host read between levels",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=_setup,
                requires=frozenset({"undirected"}), drives_workers=True, collect=collect, check=_check,
                compile_cpu_twins=compile_cpu_twins)
