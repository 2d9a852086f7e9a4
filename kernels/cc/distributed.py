"""cc.distributed — connected components of one graph sliced over K workers (``partitions=K``;
the slices, workers, communicator and ledger are ``kernels/dist``'s).

Returns label[v] = the smallest vertex id of v's component: the canonical labels, ``cc.best``'s.

Algorithm: ``cc.sampled-union-find`` (what ``cc.best`` runs on every graph that is not made of
small components of nearby ids) over each slice, its kernels unchanged, on a forest over every
vertex that each rank holds whole and the ranks merge.  Each rank links only its slice's rows
(global ids; the CSR offsets passed as if indexed by vertex id), so after a pass its forest
joins what its own edges join.  Forests are merged by an all-reduce taking each vertex's
smallest parent: every hook puts a larger root under a smaller one, so parent[v] <= v and in
v's component in every rank's forest, and the element-wise minimum is again such a forest.  A
merge can separate what one rank had joined (rank A hooked 9 under 5, rank B 9 under 3: the
minimum keeps 9 -> 3 and loses 5 - 9), so rounds repeat until no rank changes its forest:
  round 0   init and link2 of the slice's rows (the first two neighbours, as cc.sampled-union-find),
            merge, compress; the largest tree is sampled from each rank's CSR slots and the ranks
            agree on the one most sampled (an all-reduce of (count, root)): a vertex of that tree
            skips its row in the rounds that follow, as Afforest does (any edge leaving the tree
            is linked from its other end).  Below average degree 4, no sample: every row is linked.
  round r   the final pass over the slice's rows, every slot this time (a merge may have undone a
            link made before); compress; the number of vertices whose root changed here is summed
            over the ranks: none anywhere means every rank's edges are joined in the one forest all
            ranks hold — the components; else merge, compress, next round.
The minimum only ever lowers parents, and a round in which some rank hooks lowers a root for good,
so the rounds end; R-MAT graphs take two rounds after round 0 (one that links, one that finds
nothing to link).  A round that moved fewer parents than n / 2 over all ranks merges only those:
every rank held the same forest when the round began and parents only fall, so the all-reduce's
minimum is the old forest lowered by each rank's moved (vertex, parent) pairs — all-gathered, 8
bytes a pair, and applied as a scatter-min (R-MAT's second merge).  The labels are each root, its
component's smallest vertex: canonical.  K = 1 runs cc.sampled-union-find's passes exactly, no
merge (its init pass writes every vertex's parent; the largest tree's compress is the one-GPU
kernel's one resident wave).

Cost model: per full merge an all-reduce of 4n bytes (a ring moves 2 (K - 1) / K x 4n bytes into
each rank) — the bound once slices are large; a sparse merge 8 bytes per moved parent; per round
the slowest slice's final pass (its rows outside the largest tree) and a few passes over every
vertex (copy, compare, compress).  Rows: ``total`` (the slowest rank, barrier to end),
``dispatch``, the phases ``link``, ``merge`` and ``compress`` (the slowest rank's), statistics
``merge_rounds``, ``sparse_merges`` and the ledger's (bytes exchanged, time in collectives, rounds).
"""

from functools import partial

import numpy as np

from ..contract import Kernel
from ..cuda import check_threads, launch, resident_blocks
from ..dist import PARAMS as PARTITION_PARAMS
from ..dist import Ledger, Remote, collect, partitioned, slice_graph
from ..dist.slices import shifted
from . import CC, label_dtype
from . import sampled_union_find as suf

PARAMS = {**{k: suf.PARAMS[k] for k in ("link", "loads", "flatten", "skip_share", "thread_max", "seed", "threads")},
          **PARTITION_PARAMS}
ROOT_BITS = 32


class _GpuPasses:
    """cc.sampled-union-find's kernels over one slice's rows (the forest: every vertex's)."""

    def __init__(self, s, params, edges_total: int):
        import cupy
        self.xp = cupy
        csr, n = s.csr, s.n
        key = "cc-offsets32"
        if key not in s.scratch:
            s.scratch[key] = csr.offsets.astype(np.int32) if csr.nnz < 2**31 else csr.offsets
        off = s.scratch[key]
        self.fn = suf.gpu_functions(off.dtype, csr.indices.dtype, n, {**params, "rows": "thread"})
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
        self.resident = min(resident_blocks(self.threads), -(-n // self.threads)) or 1

    def round0(self, parent) -> None:
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
            launch(self.fn["link2"], self.rows, self.threads, None, self.off, self.idx, parent, self.state, rows, lo)

    def largest(self, parent, min_count: int):
        """(this rank's most sampled root or -1, its count) as a key to agree on: count << 32 |
        (2^31 - 1 - root), 0 when no root holds min_count samples."""
        if self.nnz:
            self.fn["largest"]((1,), (suf.SAMPLES,), (self.idx, parent, np.int64(self.nnz), np.uint32(self.seed),
                                                      np.int32(min_count), self.state))
        else:
            self.state[0] = -1
        root, count = self.state[0], self.state[1]
        return self.xp.where(root >= 0, (count << ROOT_BITS) | ((1 << 31) - 1 - root), 0).reshape(1)

    def skip(self, key) -> None:
        """The root every rank's rows skip from now (from the agreed key), or none."""
        self.state[0] = self.xp.where(key[0] > 0, (1 << 31) - 1 - (key[0] & 0xFFFFFFFF), -1)

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
        """K = 1, skip mode: cc.sampled-union-find's pass that lets the largest tree's vertices
        be told by their parent (one resident wave; nothing when no tree is skipped)."""
        launch(self.fn["compress"], self.n, self.threads, self.resident, parent, np.int64(self.n), self.state,
               np.int32(1))

    def skipped(self):
        """The largest tree's root the rounds skipped (-1: none), on the device."""
        return self.state[:1]


class _CpuPasses:
    """The CPU twins of the same passes (Numba, a real CAS)."""

    def __init__(self, s, params, edges_total: int):
        self.xp = np
        self.off, self.idx, self.lo, self.n, self.nnz = s.csr.offsets, s.csr.indices, s.lo, s.n, s.csr.nnz
        self.params, self.edges_total = params, edges_total
        self.big, self.use_hook = -1, False

    def round0(self, parent) -> None:
        suf.init(self.off, self.idx, parent, self.lo)
        steps = suf.probe(parent, self.params["seed"])
        self.use_hook = suf.uses_hook(self.params, self.n, self.edges_total, steps)
        if self.params["flatten"] and suf.long_chains(steps):
            suf.compress(parent)
        if not suf.sparse(self.n, self.edges_total):
            suf.link2(self.off, self.idx, parent, self.use_hook, self.lo)

    def largest(self, parent, min_count: int):
        root, count = suf.largest(self.idx, parent, self.params["seed"], min_count)
        return np.array([(count << ROOT_BITS) | ((1 << 31) - 1 - root) if root >= 0 else 0], dtype=np.int64)

    def skip(self, key) -> None:
        self.big = int((1 << 31) - 1 - (key[0] & 0xFFFFFFFF)) if key[0] > 0 else -1

    def follow(self, parent) -> None:
        if self.big >= 0:
            self.big = int(parent[self.big])

    def final(self, parent, first: int) -> None:
        suf.final(self.off, self.idx, parent, self.big, self.use_hook, first, self.lo)

    def compress(self, parent) -> None:
        suf.compress(parent)

    def compress_largest(self, parent) -> None:
        suf.compress(parent)

    def skipped(self):
        return np.array([self.big])


def _components(rank, params: dict, edges_total: int) -> dict:
    """The rounds on this rank (see the module doc)."""
    s, xp, comm = rank.slice, rank.xp, rank.comm
    n, k = s.n, comm.size
    key = ("cc.distributed passes", tuple(sorted(params.items())), edges_total)
    passes = s.scratch.get(key)
    if passes is None:
        passes = s.scratch[key] = (_GpuPasses if rank.backend == "gpu" else _CpuPasses)(s, params, edges_total)
    sample = not suf.sparse(n, edges_total)
    # every vertex its own root; at K = 1 the slice's init pass writes every vertex's
    parent = xp.empty(n, dtype=label_dtype(n)) if k == 1 else xp.arange(n, dtype=label_dtype(n))
    with rank.phase("link"):
        passes.round0(parent)
    if k > 1:
        with rank.phase("merge"):
            parent = comm.allreduce(parent, "min")
        with rank.phase("compress"):
            passes.compress(parent)
    if sample:
        passes.skip(comm.allreduce(passes.largest(parent, suf.min_count(params)), "max"))
        if k == 1:
            passes.compress_largest(parent)   # skip mode tells the largest tree's vertices by their parent
    first = (2 if sample else 1) if k == 1 else 0
    rounds, sparse_merges = 0, 0
    while True:
        before = parent.copy() if k > 1 else None
        with rank.phase("link"):
            passes.final(parent, first)
        with rank.phase("compress"):
            passes.compress(parent)
        if k == 1:
            break
        rounds += 1
        moved = xp.flatnonzero(parent != before).astype(parent.dtype)
        sizes = _sizes(rank, moved.shape[0])
        if not sizes.sum():
            break
        with rank.phase("merge"):
            if 2 * int(sizes.sum()) < n:
                _merge_moved(rank, parent, moved, sizes)
                sparse_merges += 1
            else:
                parent = comm.allreduce(parent, "min")
        with rank.phase("compress"):
            passes.compress(parent)
        passes.follow(parent)
        first = 0
    rank.keep(label=parent[s.lo:s.hi])
    return {"merge_rounds": rounds, "sparse_merges": sparse_merges,
            "skipped_tree": int(comm.host(passes.skipped())[0])}


def _sizes(rank, count: int) -> np.ndarray:
    """Every rank's ``count`` (an all-gather, read here)."""
    xp, comm, k = rank.xp, rank.comm, rank.comm.size
    table = xp.zeros(k, dtype=np.int64)
    table[rank.slice.index] = count
    comm.allgatherv(table, np.arange(k + 1))
    return comm.host(table)


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
    timer.stat("merge_rounds", records[0]["merge_rounds"])
    timer.stat("sparse_merges", records[0]["sparse_merges"])
    timer.stat("skipped_tree", records[0]["skipped_tree"])
    return Remote(part, ("label",), backend)


KERNEL = Kernel(name="cc.distributed", problem=CC,
                summary="one graph sliced over K workers: cc.sampled-union-find's passes over each slice's rows on "
                        "a forest of every vertex, forests merged by an all-reduce of the minimum parent until none "
                        "changes (NCCL between GPUs); labels canonical",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=slice_graph,
                drives_workers=True, collect=collect)
