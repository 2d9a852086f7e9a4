"""A graph's 1-D slices, worker side: the rows each worker holds and how it finds them.

Worker i holds the rows [bounds[i], bounds[i+1]) of the graph's CSR (both directions of an
undirected edge, self-loops dropped, duplicates kept, neighbours sorted, neighbour ids global:
``kernels/graph``'s CSR build run on the slice's rows).  Bounds balance edges, not vertices, and
fall on multiples of 32 vertices, so a slice's vertices are whole words of a vertex bitmap (a
BFS frontier is all-gathered word for word).  Every worker first counts the degrees of its share
of the edges in buckets of vertices (a K x 2^16 histogram is all the driver receives); the bounds
cut the summed histogram into K equal shares.  Then each worker builds its rows' CSR by
``kernels/graph/sliced.py``'s sliced build restricted to its range: a pass counting every row's
entries, then a pass per piece of rows of at most a memory budget, each reading the dataset's
parts again (``datasets.reader.read_chunks``) — no worker holds more than its slice and one piece,
and no edge passes through the driver.  A graph generated in memory (``store: memory``) is
generated again by each worker, on its device, from the generator's plan.  Edge lists held only
in memory (tests) are handed over by the driver, each worker its rows' edges.

A kernel's per-slice work sees global vertex ids: ``shifted(array, lo)`` hands a kernel the
slice's row-indexed arrays as if indexed by global id (the pointer moved back by lo elements).
"""

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from graphsweep.datasets import format as dataset_format
from graphsweep.core.gpu import backend_module, to_host
from graphsweep.datasets.reader import read_chunks

from ..graph import PACK_LIMIT, _slice_budget, sliced

BUCKETS = 1 << 16         # degree histogram buckets: the driver receives K x BUCKETS counts
ALIGN = 32                # slice bounds are multiples of this many vertices (one bitmap word)
GENERATED_ROWS = 1 << 25  # edges a worker generates again at a time (a few arrays of 8 B per edge)
CUT_CHUNK = 1 << 28       # CSR entries tested for the cut at a time


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
    scratch: dict = field(default_factory=dict)   # what kernels keep per slice (a matrix, workspaces)

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


def edge_chunks(source, share: int, shares: int, xp=np):
    """(src, dst) arrays on ``xp``'s device of a share of the edges: parts share, share + shares,
    ... of a dataset on disk; chunks share, share + shares, ... of a generated edge list (made
    again here, on the GPU where the generator can); or rows [share/shares, (share+1)/shares) of
    arrays handed over in memory."""
    kind, what = source
    if kind == "parts":
        count = len(dataset_format.read_manifest(Path(what))["parts"])
        for chunk in read_chunks(what, range(share, count, shares), columns=["src", "dst"]):
            yield xp.asarray(chunk["src"]), xp.asarray(chunk["dst"])
    elif kind == "generated":
        for start in range(share * GENERATED_ROWS, what.m, shares * GENERATED_ROWS):
            chunk = what.chunk(start, min(start + GENERATED_ROWS, what.m), xp)
            yield chunk["src"], chunk["dst"]
    else:
        src, dst = what
        a, b = share * len(src) // shares, (share + 1) * len(src) // shares
        yield xp.asarray(src[a:b]), xp.asarray(dst[a:b])


def degree_histogram(source, share: int, shares: int, bucket: int, backend: str) -> np.ndarray:
    """Degrees (both ends of every non-loop edge) of a share of the edges, in buckets of vertices."""
    xp = backend_module(backend)
    hist = xp.zeros(BUCKETS, dtype=np.int64)
    for src, dst in edge_chunks(source, share, shares, xp):
        keep = src != dst
        hist += xp.bincount(src[keep] // bucket, minlength=BUCKETS)
        hist += xp.bincount(dst[keep] // bucket, minlength=BUCKETS)
    return to_host(hist)


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


class SliceEdges:
    """The edges a worker finds for its slice (``edge_chunks`` of ``source``), as an edge source
    for ``sliced.build``: read or generated again on each of its passes."""

    def __init__(self, source, m: int):
        self.source, self.m, self.weighted = source, m, False

    def chunks(self, xp, rows: int = 0):
        start = 0
        for src, dst in edge_chunks(self.source, 0, 1, xp):
            yield start, {"src": src, "dst": dst}
            start += int(src.shape[0])


def build(source, index: int, bounds: np.ndarray, n: int, m: int, backend: str, threads: int,
          sharing: int = 1) -> tuple:
    """This slice's CSR on the worker's device from the edges of ``source`` (read or generated
    again): a sliced build of its rows, no step holding more than a budget's share of its
    entries — the device's budget over the ``sharing`` workers building on it at once (on the
    CPU, the K workers of the host).  Returns (the slice, facts: entries, cut entries, passes,
    seconds, the slice's bytes and, on the GPU, the most bytes the build held: the memory pool's
    high water, which keeps freed blocks; the CPU's is not measured)."""
    t0 = time.perf_counter()
    set_threads(threads)
    xp = backend_module(backend)
    lo, hi = int(bounds[index]), int(bounds[index + 1])
    k = len(bounds) - 1
    budget = _slice_budget(xp) // (sharing if backend == "gpu" else k)
    dtype = np.int32 if n < PACK_LIMIT else np.int64
    csr, pieces = sliced.build(xp, SliceEdges(source, m), n, directed=False, index_dtype=dtype,
                               destination="device", budget=budget, rows=(lo, hi))
    cut = 0
    for start in range(0, csr.nnz, CUT_CHUNK):
        part = csr.indices[start:start + CUT_CHUNK]
        cut += int(xp.count_nonzero((part < lo) | (part >= hi)))
    if backend == "gpu":
        xp.cuda.get_current_stream().synchronize()
    piece = Slice(index, lo, hi, n, bounds, csr, backend, threads)
    facts = {"edges": csr.nnz, "cut": cut, "passes": pieces + 1, "seconds": time.perf_counter() - t0,
             "bytes": csr.offsets.nbytes + csr.indices.nbytes}
    if backend == "gpu":
        facts["peak_bytes"] = xp.get_default_memory_pool().total_bytes()
    return piece, facts
