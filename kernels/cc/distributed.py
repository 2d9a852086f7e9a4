"""cc.distributed — connected components of one graph sliced over K workers (``partitions=K``;
the slices, workers, communicator and ledger are ``kernels/dist``'s).

Returns label[v] = the smallest vertex id of v's component: the canonical labels, ``cc.best``'s.

Algorithm: each rank runs ``cc.sampled-union-find`` (what ``cc.best`` runs on every graph that is
not made of small components of nearby ids) over its slice's rows, its kernels unchanged, on a
forest over every vertex (global ids; the CSR offsets passed as if indexed by vertex id) — K = 1 is
exactly the one-GPU kernel.  At K > 1 link2 links each row's first two neighbours whatever their
order (an edge's larger end may be another rank's row: without it the slice of the smallest ids
links almost nothing before the sample, and finds no tree to skip).  Then, when the graph is
sampled (average degree 4 and up), every rank in skip mode:
  local     the final pass skipping the tree its sample found (any edge leaving it is linked from
            its other end's row, on whichever rank holds it: every rank is in skip mode; a rank
            whose sample found none skips nothing, so nothing is left to ECL mode's one end).
  encode    the forest compressed (parent[v] = v's root over this slice's edges, in the same pass)
            and described in two parts: a bitmap of the vertices whose root is the rank's giant (the
            skipped tree's root now: on R-MAT most vertices, 1 bit each; its words of rank j's
            range go to rank j, an all-to-all) and (vertex, root) pairs for every other vertex that
            is not a root (8 bytes each; R-MAT 16, K = 4: 4% of n in all), all-gathered with the
            ranks' counts and giants in blocks of a room fixed before the run (fitted to the last
            run's counts), so nothing is read on the host until the merged forest is made.
  merge     each rank builds the merged forest over its own range only: each pair's ends
            replaced by their first layer (the smallest giant root among the ranks whose giant
            holds the end, else the end itself), which their owners read in their bitmaps (an
            all-reduce min: every end has one owner), those stand-ins and the giant roots made
            roots, giants that share a vertex joined and the pairs linked (union-find, the same on
            every rank), then its range's labels set in one pass: a vertex in some giant gets its
            first layer's root, any other climbs from itself.  parent[v] <= v throughout, so the
            roots are the components' smallest vertices: canonical.
The merged forest joins every edge except those between two skipped vertices of two ranks' giants;
they are joined through the giants when all the giants end in one tree, read on the host after the
merge (R-MAT's giants overlap in most of their vertices).  When they do not, the ranks' ranges are
all-gathered into the merged forest every rank then holds; that, or when the graph is not sampled
(average degree below 4), the exact rounds follow from a forest every rank holds alike (the merged
one, or the element-wise minimum of the local forests by an all-reduce: every hook put a larger
root under a smaller one, so it is again such a forest):
the ranks agree on its largest tree (sampled, an all-reduce of the keys) and skip its rows; per
round each rank links every other slot of its rows from slot 0 (a merge may have undone a link)
and compresses; the vertices whose root moved are merged — as (vertex, parent) pairs all-gathered
and applied as a scatter-min when fewer than n / 2 moved over all ranks (every rank began the
round with the same forest and parents only fall), else by the all-reduce — until no rank moves
anything.

Cost model: the slowest slice's passes over its rows plus a few passes over every vertex (the
encode, which compresses) and the merge's over its range (its labels) and the pairs; the
exchange n / 8 / K bytes from each other rank plus 8 bytes a slot of each rank's block of pairs,
and 4 bytes a slot in the all-reduce, in two NCCL groups, and one host read (the merge's outcome).
The rounds' merges cost an all-reduce of 4n bytes (a ring moves 2 (K - 1) / K x 4n bytes into each
rank) or 8 bytes per moved parent.  Rows: ``total`` (the slowest rank, barrier to end),
``dispatch``, the phases ``link``, ``compress`` (K = 1 and the exact rounds: at K > 1 the encode
compresses), ``encode`` (with the exchange) and ``merge`` (each the slowest rank's), statistics ``merge_pairs`` (pairs all-gathered),
``merge_retries`` (merges run again for room: their time is in the run's), ``merge_rounds`` (the
exact rounds; 0 when the one-step merge answered), ``sparse_merges`` and the ledger's (bytes exchanged, time in
collectives, rounds).
"""

import itertools
from functools import partial

import numba
import numpy as np

from ..contract import Kernel
from ..cuda import c_type, check_threads, launch, module, resident_blocks
from ..dist import PARAMS as PARTITION_PARAMS
from ..dist import Ledger, Remote, collect, partitioned, slice_graph
from ..dist import verify as partitioned_verify
from ..dist.slices import shifted
from . import CC, label_dtype
from . import sampled_union_find as suf

PARAMS = {**{k: suf.PARAMS[k] for k in ("link", "loads", "flatten", "skip_share", "thread_max", "seed", "threads")},
          **PARTITION_PARAMS}
ROOT_BITS = 32
NO_TREE = 1 << 62      # the skipped tree of a rank in skip mode that found none: no vertex's root
ENCODE_TILE = 16       # distributed.cu's GS_CCD_TILE: bitmap words a warp encodes a step


class _MergeBuffers:
    """What both passes keep for the one-step merge: its buffers (``_MergeSpace``) and its room for
    pairs (``cap``, set by ``_merge``); a bitmap word of ``WORD``."""

    WORD = np.uint32
    space, cap = None, None

    def merge_space(self, s, cap: int) -> "_MergeSpace":
        """The buffers for room ``cap``, made again when the room changes (the old ones freed first)."""
        if self.space is None or self.space.cap != cap:
            self.space = None
            self.space = _MergeSpace(self.xp, s, cap, self.WORD, label_dtype(s.n))
        return self.space


class _GpuPasses(_MergeBuffers):
    """cc.sampled-union-find's kernels over one slice's rows (the forest: every vertex's), and the
    merge's (distributed.cu)."""

    def __init__(self, s, params, edges_total: int):
        import cupy
        self.xp = cupy
        csr, n = s.csr, s.n
        key = "cc-offsets32"
        if key not in s.scratch:
            s.scratch[key] = csr.offsets.astype(np.int32) if csr.nnz < 2**31 else csr.offsets
        off = s.scratch[key]
        self.fn = suf.gpu_functions(off.dtype, csr.indices.dtype, n, {**params, "rows": "thread"})
        lt = c_type(label_dtype(n))
        # keys apart from sampled-union-find's (its "compress" is another kernel)
        names = {k: f"graphsweep_ccd_{k}<{lt}>" for k in ("identity", "giant", "encode", "reps", "seed", "join",
                                                             "link", "settle", "roots")}
        names["shared"] = "graphsweep_ccd_shared"
        assert not set(names) & set(self.fn), "a merge kernel's key hides one of sampled-union-find's"
        mod = module("cc/distributed.cu", name_expressions=tuple(names.values()))
        self.fn.update({k: mod.get_function(v) for k, v in names.items()})
        self.off, self.idx, self.lo, self.rows = shifted(off, s.lo), csr.indices, s.lo, s.size
        self.n, self.nnz = n, csr.nnz
        self.threads = check_threads(params["threads"])
        self.thread_max, self.seed = params["thread_max"], params["seed"]
        self.state = cupy.zeros(8, dtype=np.int64)
        chunks = suf.capacity(max(self.rows, 1), self.nnz, self.thread_max)
        self.chunk_vertex = cupy.empty(chunks, dtype=label_dtype(n))
        self.chunk_index = cupy.empty(chunks, dtype=np.int32)
        self.link_code = suf.LINK_CODES[params["link"]]
        self.sparse = suf.sparse(n, edges_total)
        self.flatten_on = params["flatten"]
        self.both = len(s.bounds) > 2          # K > 1: link2 links the first two neighbours, whatever their order
        self.resident = min(resident_blocks(self.threads), -(-n // self.threads)) or 1

    def identity(self, parent) -> None:
        launch(self.fn["identity"], self.n, self.threads, self.resident, parent, np.int64(self.n))

    def local(self, parent) -> None:
        """init, probe (the hook-or-find choice), flatten, and link2 when sampling."""
        rows, lo = np.int64(self.rows), np.int64(self.lo)
        if self.rows:
            launch(self.fn["init"], self.rows, self.threads, None, self.off, self.idx, parent, self.state, rows, lo)
        else:
            self.state[:5] = self.xp.asarray([-1, 0, 0, 0, 0])
        self.fn["probe"]((1,), (suf.SAMPLES,), (parent, np.int64(self.n), np.uint32(self.seed),
                                               np.int32(self.link_code), np.int32(self.sparse),
                                               np.int64(suf.LONG_CHAIN * suf.SAMPLES), self.state))
        if self.flatten_on:
            launch(self.fn["compress"], self.n, self.threads, self.resident, parent, np.int64(self.n), self.state,
                   np.int32(2))
        if not self.sparse and self.rows:
            launch(self.fn["link2"], self.rows, self.threads, None, self.off, self.idx, parent, self.state, rows, lo,
                   np.int32(self.both))

    def largest(self, parent, min_count: int):
        """(this rank's most sampled root or -1, its count) as a key: count << 32 | (2^31 - 1 - root),
        0 when no root holds min_count samples."""
        if self.nnz:
            self.fn["largest"]((1,), (suf.SAMPLES,), (self.idx, parent, np.int64(self.nnz), np.uint32(self.seed),
                                                      np.int32(min_count), self.state))
        else:
            self.state[0] = -1
        root, count = self.state[0], self.state[1]
        return self.xp.where(root >= 0, (count << ROOT_BITS) | ((1 << 31) - 1 - root), 0).reshape(1)

    def skip(self, key, none: int = -1) -> None:
        """The tree whose rows the final pass skips (from a sampled key); ``none`` where the key
        names none (-1: ECL mode; NO_TREE: skip mode skipping nothing)."""
        self.state[0] = self.xp.where(key[0] > 0, (1 << 31) - 1 - (key[0] & 0xFFFFFFFF), none)

    def follow(self, parent) -> None:
        """The skipped root moved under a smaller one by a merge: skip its new root."""
        big = self.state[0]
        self.state[0] = self.xp.where(big >= 0, parent[self.xp.maximum(big, 0)], -1)

    def final(self, parent, first: int) -> None:
        if self.rows:
            launch(self.fn["final"], self.rows, self.threads, None, self.off, self.idx, parent, self.state,
                   self.chunk_vertex, self.chunk_index, np.int64(self.rows), np.int32(self.thread_max),
                   np.int32(first), np.int64(self.lo))
            self.fn["spread"]((resident_blocks(self.threads),), (self.threads,),
                              (self.off, self.idx, parent, self.state, self.chunk_vertex, self.chunk_index,
                               np.int32(first)))
            self.state[2] = 0

    def compress(self, parent) -> None:
        launch(self.fn["compress"], self.n, self.threads, None, parent, np.int64(self.n), self.state, np.int32(0))

    def compress_largest(self, parent) -> None:
        """Skip mode: the pass that lets the largest tree's vertices be told by their parent (one
        resident wave; nothing in ECL mode)."""
        launch(self.fn["compress"], self.n, self.threads, self.resident, parent, np.int64(self.n), self.state,
               np.int32(1))

    def encode(self, parent, m) -> None:
        """This rank's part of the merge, its forest compressed on the way: its row of
        ``m.table``, its giant's bitmap ``m.row`` (its own range's words also into its row of
        ``m.inbox``) and its other non-root vertices with their roots in its block of ``m.pairs``;
        ``m.shared`` cleared."""
        r = np.int32(m.r)
        self.fn["giant"]((1,), (1,), (self.state, parent, np.int64(self.n), m.table, r, m.shared, np.int32(m.k)))
        words = (self.n + 31) // 32
        if words:
            steps = -(-words // (self.threads // 32 * ENCODE_TILE))
            launch(self.fn["encode"], 0, self.threads, min(self.resident, steps), parent, np.int64(self.n), m.table, r,
                   m.row, m.pairs, np.int64(m.cap), m.inbox[m.r], np.int64(m.cut[m.r]), np.int64(m.cut[m.r + 1]))

    def shared(self, m):
        """Which giants share a vertex of this rank's range (``m.shared``: k x k bytes), from every
        rank's bitmap words of it (``m.inbox``: a row a rank)."""
        words = m.inbox.shape[1]
        launch(self.fn["shared"], words, self.threads, min(self.resident, -(-words // self.threads)), m.inbox,
               np.int32(m.k), np.int64(words), m.table, np.int64(m.cap), m.shared)
        return m.shared

    def reps(self, m, lo: int, hi: int):
        """Each pair end's first layer (from the bitmaps) where this rank owns the end, the type's
        maximum elsewhere and in the blocks' unused slots."""
        rep = m.rep
        if rep.size:
            launch(self.fn["reps"], rep.size, self.threads, None, m.pairs, m.table, np.int32(m.k), np.int64(m.cap),
                   m.inbox, np.int64(m.inbox.shape[1]), np.int64(lo), np.int64(hi),
                   rep.dtype.type(np.iinfo(rep.dtype).max), rep)
        return rep

    def link_reps(self, parent, rep, m, shared) -> None:
        """The stand-ins and giant roots made roots, the giants that share a vertex joined, every
        pair's stand-ins linked."""
        k, cap = np.int32(m.k), np.int64(m.cap)
        launch(self.fn["seed"], rep.size + m.k, self.threads, None, rep, np.int64(rep.size), m.table, k, cap,
               np.int64(self.n), parent)
        self.fn["join"]((1,), (1,), (m.table, cap, shared, k, parent))
        if rep.size:
            launch(self.fn["link"], rep.size // 2, self.threads, None, rep, m.table, k, cap, parent)

    def settle(self, parent, m, lo: int, hi: int) -> None:
        """[lo, hi)'s labels in the merged forest, after the links."""
        if hi > lo:
            launch(self.fn["settle"], hi - lo, self.threads, min(self.resident, -(-(hi - lo) // self.threads)),
                   m.inbox, np.int32(m.k), np.int64(m.inbox.shape[1]), m.table, np.int64(m.cap), parent,
                   np.int64(lo), np.int64(hi))

    def outcome(self, parent, m):
        """Each rank's count of pairs, then its giant's root in the merged forest (-1: none)."""
        self.fn["roots"]((1,), (1,), (m.table, np.int32(m.k), parent, m.outcome))
        return m.outcome


class _CpuPasses(_MergeBuffers):
    """The CPU twins of the same passes (Numba, a real CAS); bitmaps in bytes."""

    WORD = np.uint8

    def __init__(self, s, params, edges_total: int):
        self.xp = np
        self.off, self.idx, self.lo, self.n, self.nnz = s.csr.offsets, s.csr.indices, s.lo, s.n, s.csr.nnz
        self.params, self.edges_total = params, edges_total
        self.big, self.use_hook = -1, False
        self.both = len(s.bounds) > 2

    def identity(self, parent) -> None:
        parent[:] = np.arange(self.n, dtype=parent.dtype)

    def local(self, parent) -> None:
        suf.init(self.off, self.idx, parent, self.lo)
        steps = suf.probe(parent, self.params["seed"])
        self.use_hook = suf.uses_hook(self.params, self.n, self.edges_total, steps)
        if self.params["flatten"] and suf.long_chains(steps):
            suf.compress(parent)
        if not suf.sparse(self.n, self.edges_total):
            suf.link2(self.off, self.idx, parent, self.use_hook, self.lo, self.both)

    def largest(self, parent, min_count: int):
        root, count = suf.largest(self.idx, parent, self.params["seed"], min_count)
        return np.array([(count << ROOT_BITS) | ((1 << 31) - 1 - root) if root >= 0 else 0], dtype=np.int64)

    def skip(self, key, none: int = -1) -> None:
        self.big = int((1 << 31) - 1 - (key[0] & 0xFFFFFFFF)) if key[0] > 0 else none

    def follow(self, parent) -> None:
        if self.big >= 0:
            self.big = int(parent[self.big])

    def final(self, parent, first: int) -> None:
        suf.final(self.off, self.idx, parent, self.big, self.use_hook, first, self.lo)

    def compress(self, parent) -> None:
        suf.compress(parent)

    def compress_largest(self, parent) -> None:
        if self.big >= 0:
            suf.compress(parent)

    def encode(self, parent, m) -> None:
        _cpu_encode(parent, self.big, m.table, m.r, m.row, m.pairs, m.cap)
        m.inbox_rows[m.r][...] = m.row_pieces[m.r]

    def shared(self, m):
        adj = _cpu_shared(m.inbox, m.table, m.cap)
        return ((adj[:, None] >> np.arange(m.k, dtype=np.uint64)) & 1).astype(np.uint8).ravel()

    def reps(self, m, lo: int, hi: int):
        return _cpu_reps(m.pairs, m.table, m.cap, m.inbox, lo, hi)

    def link_reps(self, parent, rep, m, shared) -> None:
        _cpu_link_reps(parent, rep, m.table, m.cap, shared.reshape(m.k, m.k))

    def settle(self, parent, m, lo: int, hi: int) -> None:
        _cpu_settle(m.inbox, m.table, m.cap, parent, lo, hi)

    def outcome(self, parent, m):
        giants = m.table[1::2]
        roots = [suf.root_of(parent, g) if g >= 0 else -1 for g in giants]
        return np.concatenate([m.table[0::2], np.array(roots, dtype=np.int64)])


class _MergeSpace:
    """The one-step merge's buffers, their sizes fixed before the run (see distributed.cu):
    ``table`` (every rank's count of pairs and giant), ``row`` (this rank's giant as a bitmap over
    all n; words on the GPU, bytes on the CPU: ``cut`` the ranges' starts in them), ``inbox``
    (every rank's bitmap of this rank's range), ``pairs`` (a block of ``cap`` vertices then their
    ``cap`` roots a rank) and ``rep`` (their stand-ins), ``shared`` (which giants share a vertex, k
    x k bytes) and ``outcome`` (what the host reads at the end)."""

    def __init__(self, xp, s, cap: int, word, label):
        k, r = len(s.bounds) - 1, s.index
        self.k, self.r, self.cap = k, r, cap
        per = 8 * np.dtype(word).itemsize
        cut = [int(c) for c in -(-s.bounds // per)]            # the ranges' words (bounds: multiples of 32)
        own = cut[r + 1] - cut[r]
        self.cut = cut
        self.row = xp.zeros(cut[-1], dtype=word)
        self.inbox = xp.zeros((k, max(own, 1)), dtype=word)
        self.row_pieces = [self.row[cut[j]:cut[j + 1]] for j in range(k)]
        self.inbox_rows = [self.inbox[j, :own] for j in range(k)]
        self.table = xp.zeros(2 * k, dtype=np.int64)
        self.table_bounds = np.arange(0, 2 * k + 1, 2)
        self.pairs = xp.zeros(2 * cap * k, dtype=label)
        self.pair_bounds = 2 * cap * np.arange(k + 1)
        self.rep = xp.empty_like(self.pairs)
        self.shared = xp.zeros(k * k, dtype=np.uint8)
        self.outcome = xp.empty(2 * k, dtype=np.int64)


@numba.njit(cache=True)
def _cpu_encode(parent, big, table, r, bitmap, pairs, cap):
    """distributed.cu's giant and encode, the forest compressed on the way (bitmap: bytes, bit
    v & 7 of byte v >> 3)."""
    g = suf.root_of(parent, big) if 0 <= big < parent.shape[0] else -1
    bitmap[:] = 0
    base, count = 2 * cap * r, 0
    for v in range(parent.shape[0]):
        p = suf.root_of(parent, v)
        parent[v] = p
        if p == g:
            bitmap[v >> 3] |= np.uint8(1 << (v & 7))
        elif p != v:
            if count < cap:
                pairs[base + count] = v
                pairs[base + cap + count] = p
            count += 1
    table[2 * r] = count
    table[2 * r + 1] = g


@numba.njit(cache=True)
def _overflow(table, cap):
    for j in range(table.shape[0] // 2):
        if table[2 * j] > cap:
            return True
    return False


@numba.njit(cache=True)
def _cpu_first(inbox, table, i, v):
    """distributed.cu's gs_ccd_first (inbox: a row of bytes per rank over [lo, hi), bit i & 7 of
    byte i >> 3): (the first layer at v = lo + i, the rank of its giant or -1)."""
    best, giant = v, -1
    for r in range(table.shape[0] // 2):
        if (inbox[r, i >> 3] >> (i & 7)) & 1 and table[2 * r + 1] < best:
            best, giant = table[2 * r + 1], r
    return best, giant


@numba.njit(cache=True)
def _cpu_shared(inbox, table, cap):
    """distributed.cu's shared (a byte of 8 vertices at a time): adj[r] bit s when giants r < s
    share a vertex."""
    k = table.shape[0] // 2
    adj = np.zeros(k, dtype=np.uint64)
    if _overflow(table, cap):
        return adj
    for w in range(inbox.shape[1]):
        for r in range(k):
            for s in range(r + 1, k):
                if inbox[r, w] & inbox[s, w]:
                    adj[r] |= np.uint64(1) << np.uint64(s)
    return adj


@numba.njit(cache=True)
def _cpu_reps(pairs, table, cap, inbox, lo, hi):
    """distributed.cu's reps."""
    none = np.iinfo(pairs.dtype).max
    rep = np.full_like(pairs, none)
    for t in range(pairs.shape[0]):
        x = pairs[t]
        if t % cap < table[2 * (t // (2 * cap))] and lo <= x < hi:
            rep[t] = _cpu_first(inbox, table, x - lo, x)[0]
    return rep


@numba.njit(cache=True)
def _cpu_link_reps(parent, rep, table, cap, shared):
    """distributed.cu's seed, join and link."""
    k, n = table.shape[0] // 2, parent.shape[0]
    if _overflow(table, cap):
        return
    for t in range(rep.shape[0]):
        if rep[t] < n:
            parent[rep[t]] = rep[t]
    for r in range(k):
        if table[2 * r + 1] >= 0:
            parent[table[2 * r + 1]] = table[2 * r + 1]
    for r in range(k):
        for s in range(k):
            if shared[r, s]:
                suf.link(parent, table[2 * r + 1], table[2 * s + 1])
    for j in range(k):
        at = 2 * cap * j
        for i in range(min(table[2 * j], cap)):
            suf.link(parent, rep[at + i], rep[at + cap + i])


@numba.njit(cache=True)
def _cpu_settle(inbox, table, cap, parent, lo, hi):
    """distributed.cu's settle."""
    if _overflow(table, cap):
        return
    k = table.shape[0] // 2
    giant_root = np.full(k, -1, dtype=np.int64)
    for r in range(k):
        if table[2 * r + 1] >= 0:
            giant_root[r] = suf.root_of(parent, table[2 * r + 1])
    for v in range(lo, hi):
        giant = _cpu_first(inbox, table, v - lo, v)[1]
        parent[v] = giant_root[giant] if giant >= 0 else suf.root_of(parent, v)


def compile_cpu_twins() -> None:
    """Compile every Numba function ``_CpuPasses`` calls, for the types it passes them (see
    ``dist.driver.compile_cpu_twins``): a slice of no rows in a forest of one vertex, so nothing
    runs."""
    off, idx = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)   # a slice's CSR: n < 2^31, int32 ids
    parent = np.zeros(1, dtype=label_dtype(1))
    suf.init(off, idx, parent, 0)
    suf.probe(parent, 0)
    suf.compress(parent)
    suf.link2(off, idx, parent, False, 0, False)
    suf.largest(idx, parent, 0, 1)
    suf.final(off, idx, parent, -1, False, 0, 0)
    table, cap = np.array([0, -1, 0, -1], dtype=np.int64), 1   # two ranks, no pairs, no giants
    pairs = np.zeros(2 * 2 * cap, dtype=parent.dtype)
    _cpu_encode(parent, -1, table, 0, np.zeros(1, dtype=np.uint8), pairs, cap)
    inbox = np.zeros((2, 1), dtype=np.uint8)
    _cpu_shared(inbox, table, cap)
    rep = _cpu_reps(pairs, table, cap, inbox, 0, 0)
    _cpu_link_reps(parent, rep, table, cap, np.zeros((2, 2), dtype=np.uint8))
    _cpu_settle(inbox, table, cap, parent, 0, 0)
    suf.root_of(parent, table[1])                            # as outcome() passes a giant's id


def _components(rank, params: dict, edges_total: int) -> dict:
    """cc.sampled-union-find over this rank's slice, then the one-step merge when every rank has a
    tree to skip, else the exact rounds (see the module doc)."""
    s, xp, comm = rank.slice, rank.xp, rank.comm
    n, k = s.n, comm.size
    key = ("cc.distributed passes", tuple(sorted(params.items())), edges_total)
    passes = s.claim("cc.distributed").get(key)
    if passes is None:
        passes = s.scratch[key] = (_GpuPasses if rank.backend == "gpu" else _CpuPasses)(s, params, edges_total)
    sample, least = not suf.sparse(n, edges_total), suf.min_count(params)
    stats = {"merge_pairs": 0, "merge_retries": 0, "merge_rounds": 0, "sparse_merges": 0}
    parent = xp.empty(n, dtype=label_dtype(n))
    # the device work starts here: the output's allocation (a cudaMalloc when the pool has no block
    # of n free: ~0.35 ms of an idle GPU at R-MAT 26) is set-up, as in the one-GPU harness's
    rank.restart()
    with rank.phase("link"):
        if k > 1:
            passes.identity(parent)     # every vertex its own root; at K = 1 the slice's init writes every vertex's
        passes.local(parent)
        own = passes.largest(parent, least) if sample else None
    if sample:
        with rank.phase("link"):
            # K > 1: every rank in skip mode, one without a tree skipping nothing (ECL mode links
            # an edge from one end only, which a peer skipping the other end would leave unlinked)
            passes.skip(own, NO_TREE if k > 1 else -1)
            passes.compress_largest(parent)   # skip mode tells the largest tree's vertices by their parent
            passes.final(parent, 2)
        if k > 1:
            parent, stats = _merge(rank, passes, parent, least)    # its encode compresses the forest
        else:
            with rank.phase("compress"):
                passes.compress(parent)
    elif k == 1:
        with rank.phase("link"):
            passes.final(parent, 1)
        with rank.phase("compress"):
            passes.compress(parent)
    else:
        with rank.phase("merge"):
            parent = comm.allreduce(parent, "min")
        with rank.phase("compress"):
            passes.compress(parent)
        stats.update(_rounds(rank, passes, parent, least if sample else 0))
    rank.keep(label=parent[s.lo:s.hi])
    return stats


def _gathered(rank, x) -> np.ndarray:
    """Every rank's one-element ``x`` (an all-gather, read here)."""
    k, r = rank.comm.size, rank.slice.index
    table = rank.xp.zeros(k, dtype=np.int64)
    table[r:r + 1] = x
    rank.comm.allgatherv(table, np.arange(k + 1))
    return rank.comm.host(table)


def _merge(rank, passes, parent, least: int) -> tuple:
    """The K forests merged in one step, then the exact rounds if some edge between two ranks'
    skipped trees may be missing (see the module doc); returns the merged forest, the same on every
    rank, and the statistics.  Nothing is read on the host until the merged forest is made: the
    pairs go in blocks of a capacity fixed beforehand (``passes.cap``, fitted to the last run's
    counts); when some rank had more, nothing was merged, and the merge runs again with room."""
    s, comm = rank.slice, rank.comm
    k, lo, hi = comm.size, s.lo, s.hi
    if passes.cap is None:
        passes.cap = first_capacity(s.n, k)
    for retries in itertools.count():
        m = passes.merge_space(s, passes.cap)
        with rank.phase("encode"):
            passes.encode(parent, m)
            with comm.group():
                comm.allgatherv(m.table, m.table_bounds)
                comm.alltoallv_into(m.row_pieces, m.inbox_rows)
                comm.allgatherv(m.pairs, m.pair_bounds)
        with rank.phase("merge"):
            shared = passes.shared(m)
            rep = passes.reps(m, lo, hi)
            with comm.group():
                rep = comm.allreduce(rep, "min")
                shared = comm.allreduce(shared, "max")
            passes.link_reps(parent, rep, m, shared)
            passes.settle(parent, m, lo, hi)
            outcome = comm.host(passes.outcome(parent, m))
        sizes, roots = outcome[:k], outcome[k:]
        most, room = int(sizes.max()), passes.cap
        passes.cap = fitted_capacity(most, room)
        if most <= room:
            break
    stats = {"merge_pairs": int(sizes.sum()), "merge_retries": retries, "merge_rounds": 0, "sparse_merges": 0}
    if np.unique(roots[roots >= 0]).size > 1:
        with rank.phase("merge"):
            comm.allgatherv(parent, s.bounds)     # the merged forest, every rank's range: the same on all
        stats.update(_rounds(rank, passes, parent, least))
    return parent, stats


MIN_CAPACITY = 1024


def first_capacity(n: int, k: int) -> int:
    """A first run's room for a rank's pairs: 1/16 of a rank's share of the vertices (R-MAT at
    scale 26 on 4 ranks had 0.6% of n a rank; a graph with more merges again once, with room)."""
    return max(MIN_CAPACITY, n // (16 * k))


def fitted_capacity(most: int, room: int) -> int:
    """The next run's room for ``most`` pairs on the busiest rank, where ``room`` held them or not:
    an eighth over ``most`` (a run's counts move a little with the order of its hooks), ``room``
    kept while it holds that with at most a quarter more (a fixed room keeps the buffers; the
    bytes every merge sends grow with it)."""
    fit = max(MIN_CAPACITY, -(-(most + most // 8) // 1024) * 1024)
    return room if fit <= room <= fit + fit // 4 else fit


def _rounds(rank, passes, parent, least: int) -> dict:
    """The exact rounds from a forest every rank holds alike: the ranks agree on its largest tree
    (sampled; none when ``least`` is 0) and skip its rows; each round every rank links its rows'
    slots (from slot 0: a merge may have undone a link) and compresses; the vertices whose root
    moved are merged, until none moved."""
    xp, comm, n = rank.xp, rank.comm, rank.slice.n
    if least:
        passes.skip(comm.allreduce(passes.largest(parent, least), "max"))
    rounds, sparse_merges = 0, 0
    while True:
        before = parent.copy()
        with rank.phase("link"):
            passes.final(parent, 0)
        with rank.phase("compress"):
            passes.compress(parent)
        rounds += 1
        moved = xp.flatnonzero(parent != before).astype(parent.dtype)
        sizes = _gathered(rank, xp.asarray([moved.shape[0]]))
        if not sizes.sum():
            break
        with rank.phase("merge"):
            if 2 * int(sizes.sum()) < n:
                _merge_moved(rank, parent, moved, sizes)
                sparse_merges += 1
            else:
                parent[:] = comm.allreduce(parent, "min")
        with rank.phase("compress"):
            passes.compress(parent)
        passes.follow(parent)
    return {"merge_rounds": rounds, "sparse_merges": sparse_merges}


def _merge_moved(rank, parent, moved, sizes: np.ndarray) -> None:
    """The merge of a round that moved few parents: the (vertex, parent) pairs each rank moved,
    all-gathered (8 bytes a pair instead of the all-reduce's 4n) and applied as a scatter-min.
    Every rank held the same forest when the round began and parents only fall, so each vertex's
    minimum over the ranks is its old parent lowered by the pairs: the all-reduce's answer."""
    xp, comm, r = rank.xp, rank.comm, rank.slice.index
    bounds = 2 * np.concatenate([[0], np.cumsum(sizes)])
    pairs = xp.empty(int(bounds[-1]), dtype=parent.dtype)      # per rank: its vertices, then their parents
    a, c = int(bounds[r]), int(sizes[r])
    pairs[a:a + c] = moved
    pairs[a + c:a + 2 * c] = parent[moved]
    comm.allgatherv(pairs, bounds)
    for j in range(comm.size):
        a, c = int(bounds[j]), int(sizes[j])
        if j != r and c:
            _scatter_min(xp, parent, pairs[a:a + c], pairs[a + c:a + 2 * c])


def _scatter_min(xp, out, index, values) -> None:
    if xp is np:
        np.minimum.at(out, index, values)
    else:
        import cupyx
        cupyx.scatter_min(out, index, values)


def _run(inp, params, timer, backend: str):
    part = partitioned(inp, params, backend)
    ledger = Ledger(part, timer)
    records = ledger.run(_components, {k: params[k] for k in suf.PARAMS if k in params},
                         part.facts["slice_edges_total"], name="cc.distributed")
    for name in ("merge_pairs", "merge_retries", "merge_rounds", "sparse_merges"):
        timer.stat(name, records[0][name])
    return Remote(part, ("label",), backend)


def _check(output: Remote, params: dict) -> dict:
    return partitioned_verify.check(output, partitioned_verify.cc)


KERNEL = Kernel(name="cc.distributed", problem=CC,
                summary="one graph sliced over K workers: cc.sampled-union-find over each slice's rows on a forest "
                        "of every vertex, the forests merged in one step (each rank's giant as a bitmap, its other "
                        "vertices as pairs, all-gathered; NCCL between GPUs), exact rounds where that cannot "
                        "answer; labels canonical",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=slice_graph,
                drives_workers=True, collect=collect, check=_check,
                compile_cpu_twins=compile_cpu_twins)
