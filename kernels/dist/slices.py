"""A graph's 1-D slices, worker side: the rows each worker holds and how it builds them.

Worker i holds the rows [bounds[i], bounds[i+1]) of the graph's CSR (both directions of an
undirected edge, self-loops dropped, duplicates kept, neighbours sorted, neighbour ids global:
the whole graph's CSR rows, cut).  Bounds balance edges, not vertices, and fall on multiples of
32 vertices, so a slice's vertices are whole words of a vertex bitmap (a BFS frontier is
all-gathered word for word).

The build never holds the graph in one place (``build``, through the partition's communicator,
made before it): each worker reads or generates only its share of the edges (``edge_chunks``:
every K-th Parquet part, every K-th chunk of a generated edge list — generation is a pure
function of seed and chunk — or a share handed over by the driver for edge lists held only in
memory) and makes two passes over it.  The first counts its share's entries per vertex; summed
per bucket of 2^16 and all-reduced, they give every rank the same edge-balanced bounds, and each
owner's range of them, all-reduced, its rows' degrees (the offsets).  The second sends every
entry to the worker that owns its row, an all-to-all in rounds of fixed buffers, each owner
placing what it receives at its rows' cursors; then each row's neighbours are sorted
(``shuffle``'s module doc).  A worker holds its slice, O(n) counts and fixed chunk, exchange and
sort buffers: on R-MAT 30 ef 24 over 4 GPUs, a few GB beside a 52 GB slice.  No edge passes
through the driver, which receives the bounds and the facts.

A kernel's per-slice work sees global vertex ids: ``shifted(array, lo)`` hands a kernel the
slice's row-indexed arrays as if indexed by global id (the pointer moved back by lo elements).
"""

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from graphsweep.core.gpu import backend_module
from graphsweep.datasets import format as dataset_format
from graphsweep.datasets.reader import read_chunks

from ..graph import CSR
from . import shuffle

BUCKETS = 1 << 16         # degree histogram buckets (all-reduced: the bounds' input)
ALIGN = 32                # slice bounds are multiples of this many vertices (one bitmap word)
CUT_CHUNK = 1 << 24       # CSR entries tested for the cut at a time (its temporaries: 3 B an entry, kept small beside the slice)


@dataclass
class Slice:
    index: int
    lo: int
    hi: int
    n: int
    bounds: np.ndarray        # the K + 1 bounds of every slice (host)
    csr: object               # rows lo..hi-1 (local row ids), global neighbour ids, on the worker's device
    backend: str
    threads: int              # the CPU twins' Numba threads here (the host's cores / K)
    scratch: dict = field(default_factory=dict)   # what the kernel that claimed the slice last keeps on it
    owner: str = ""                                   # that kernel

    def claim(self, owner: str) -> dict:
        """The scratch of kernel ``owner`` (a matrix, workspaces, its verifier's labels).  A slice
        keeps one kernel's at a time: another kernel's goes first, so kernels can run one after
        another on a graph that fills the GPUs (R-MAT 30 ef 24 over 4 H200s: BFS's 17 GB of boxes
        and bitmaps gone before PageRank's verifier needs its 8.6 GB), at the price of set-up again
        when kernels alternate."""
        if owner != self.owner:
            self.scratch.clear()
            self.owner = owner
        return self.scratch

    @property
    def xp(self):
        return backend_module(self.backend)

    @property
    def size(self) -> int:
        return self.hi - self.lo

    def rows(self):
        """The local row of each CSR entry (cached)."""
        if "rows" not in self.scratch:
            xp = self.xp
            entries = xp.arange(self.csr.nnz, dtype=np.int64)
            self.scratch["rows"] = (xp.searchsorted(self.csr.offsets, entries, side="right") - 1).astype(
                self.csr.indices.dtype)
        return self.scratch["rows"]


def shifted(array, lo: int):
    """A device pointer to ``array`` moved back by ``lo`` rows, for a kernel argument: the kernel
    indexes the slice's rows by global vertex id (``array[v - lo]`` as ``ptr[v]``)."""
    return np.uint64(array.data.ptr - lo * array.strides[0])


def set_threads(threads: int) -> None:
    """The CPU twins' Numba threads on this worker (its share of the host's cores)."""
    import numba
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def edge_chunks(source, share: int, shares: int, xp=np, rows: int = shuffle.CHUNK_ROWS):
    """(src, dst) arrays on ``xp``'s device of a share of the edges, ``rows`` edges at a time
    where the source allows: parts share, share + shares, ... of a dataset on disk (row group by
    row group); chunks share, share + shares, ... of a generated edge list (made here, on the GPU
    where the generator can); or rows [share/shares, (share+1)/shares) of arrays handed over in
    memory."""
    kind, what = source
    if kind == "parts":
        count = len(dataset_format.read_manifest(Path(what))["parts"])
        for chunk in read_chunks(what, range(share, count, shares), columns=["src", "dst"]):
            yield xp.asarray(chunk["src"]), xp.asarray(chunk["dst"])
    elif kind == "generated":
        for start in range(share * rows, what.m, shares * rows):
            chunk = what.chunk(start, min(start + rows, what.m), xp)
            yield chunk["src"], chunk["dst"]
    else:
        src, dst = what
        a, b = share * len(src) // shares, (share + 1) * len(src) // shares
        for start in range(a, b, rows):
            stop = min(start + rows, b)
            yield xp.asarray(src[start:stop]), xp.asarray(dst[start:stop])


def where(source) -> str:
    """The source named in a message: its dataset, its generator, or the edge list handed over."""
    kind, what = source
    if kind == "parts":
        return str(what)
    return f"generator {what.name}" if kind == "generated" else "the edge list"


def bucket_width(n: int) -> int:
    """Vertices per histogram bucket: a multiple of ALIGN, so bucket edges are word edges."""
    return ALIGN * max(1, math.ceil(n / (BUCKETS * ALIGN)))


def edge_balanced_bounds(hist: np.ndarray, bucket: int, n: int, k: int) -> np.ndarray:
    """K + 1 vertex bounds cutting the bucketed degree sum ``hist`` into K equal shares (on bucket
    edges; slices may be empty when a few buckets hold most edges)."""
    cum = np.cumsum(hist)
    total = int(cum[-1]) if cum.size else 0
    bounds = np.zeros(k + 1, dtype=np.int64)
    for j in range(1, k):
        bucket_end = int(np.searchsorted(cum, total * j / k, side="left")) + 1 if total else j * BUCKETS // k
        bounds[j] = min(n, bucket_end * bucket)
    bounds[k] = n
    return np.maximum.accumulate(bounds)


def build(comm, source, share: int, shares: int, n: int, backend: str, threads: int,
          sizes: shuffle.Sizes) -> tuple:
    """This rank's slice of the graph whose edges are ``source``'s (this worker's share: ``share``
    of ``shares``), built by the shuffle (``shuffle``'s module doc) through ``comm``, whose rank
    is the slice's index.  Returns (the slice, facts: entries, cut entries, passes over the share,
    rounds of all-to-all, seconds, the slice's bytes and, on the GPU, the most bytes the build
    held beyond what the worker held before: the memory pool's size at the end of each step,
    which keeps freed blocks, its unused blocks freed between steps; the CPU's is not measured)."""
    t0 = time.perf_counter()
    set_threads(threads)
    xp = backend_module(backend)
    pool = xp.get_default_memory_pool() if backend == "gpu" else None
    peak = _Peak(pool)

    def chunks():       # a pass over the share
        return edge_chunks(source, share, shares, xp, sizes.chunk)

    counts = shuffle.share_degrees(xp, chunks(), n, where(source))
    bucket = bucket_width(n)
    hist = comm.host(comm.allreduce(shuffle.bucket_sums(xp, counts, bucket, BUCKETS)))
    bounds = edge_balanced_bounds(hist, bucket, n, comm.size)
    lo, hi = int(bounds[comm.rank]), int(bounds[comm.rank + 1])
    degree = shuffle.owner_degrees(comm, counts, bounds)
    del counts
    offsets = xp.zeros(hi - lo + 1, dtype=np.int64)
    xp.cumsum(degree, out=offsets[1:])
    del degree
    peak.step()
    indices = xp.empty(int(comm.host(offsets[-1:])[0]), dtype=np.int32)     # n < 2^31: the driver refuses more
    rounds = shuffle.scatter(comm, chunks(), bounds, offsets, indices, sizes.exchange)
    peak.step()
    shuffle.sort_rows(comm, offsets, indices, sizes.sort)
    csr = CSR(offsets, indices, None, hi - lo)
    cut = 0           # summed on the device, read once
    for start in range(0, csr.nnz, CUT_CHUNK):
        part = csr.indices[start:start + CUT_CHUNK]
        cut += xp.count_nonzero((part < lo) | (part >= hi))
    cut = int(cut)
    peak.step()
    piece = Slice(comm.rank, lo, hi, n, bounds, csr, backend, threads)
    facts = {"edges": csr.nnz, "cut": cut, "passes": 2, "rounds": rounds, "seconds": time.perf_counter() - t0,
             "bytes": csr.offsets.nbytes + csr.indices.nbytes}
    if pool is not None:
        facts["peak_bytes"] = peak.most
    return piece, facts


class _Peak:
    """The most bytes a GPU build held beyond what its worker held before it: the pool's size at
    the end of each step (the pool keeps what a step freed, so its size then is at least the
    step's high water), its unused blocks then freed for the next step."""

    def __init__(self, pool):
        self.pool, self.most = pool, 0
        if pool is not None:
            pool.free_all_blocks()
            self.before = pool.used_bytes()

    def step(self) -> None:
        if self.pool is not None:
            self.most = max(self.most, self.pool.total_bytes() - self.before)
            self.pool.free_all_blocks()
