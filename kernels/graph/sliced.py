"""A CSR built by slices of rows, for graphs whose edge list is not on the device whole: an edge
list in host memory, or one computed again by its generator (``store: memory``).

Pass 1 streams the edges once and counts each row's entries (bincount, self-loops dropped,
both directions of an undirected edge): the offsets.  The rows are then cut into slices of at
most ``budget`` bytes of work each, and for each slice the edges are streamed again, the
entries of its rows selected and sorted as (row, column) keys — exactly the order of the
whole-graph build — and its indices (and weights) copied to their place in the destination:
device memory (placement ``device``) or pinned, device-mapped host memory (``host``).  No step
holds more than one slice and one chunk of edges on the device, so a CSR of any size the
destination holds can be built; a generated graph is generated once per slice (the GPU R-MAT
makes 7 G edges/s, faster than the link carries them).

Works with NumPy as the compute module too (the CPU twin of the same logic, tested in CI).
"""

import logging

import numpy as np

from . import csr as layout
from .csr import CSR, bincount

log = logging.getLogger("graphsweep.build")

# Bytes of device memory per selected entry while a slice is sorted: the packed key, the sort's
# alternate buffer, the indices cut from it (and slack); weighted: also the sort's order and the
# weights before and after it.
SLICE_BYTES_PER_ENTRY = 24
SLICE_BYTES_PER_WEIGHTED_ENTRY = 56


class ArrayEdges:
    """An edge list held as arrays (NumPy or CuPy), as an edge source."""

    def __init__(self, src, dst, weight=None):
        self.src, self.dst, self.weight = src, dst, weight

    @property
    def m(self) -> int:
        return int(self.src.shape[0])

    @property
    def weighted(self) -> bool:
        return self.weight is not None

    def chunks(self, xp, rows: int = 1 << 25):
        """(start, {"src", "dst"[, "weight"]}) of each chunk of ``rows`` edges, on ``xp``'s device."""
        for start in range(0, self.m, rows):
            stop = min(start + rows, self.m)
            chunk = {"src": xp.asarray(self.src[start:stop]), "dst": xp.asarray(self.dst[start:stop])}
            if self.weight is not None:
                chunk["weight"] = xp.asarray(self.weight[start:stop])
            yield start, chunk


class Reversed:
    """An edge source with every edge turned around (a directed graph's in-edges)."""

    def __init__(self, edges):
        self.edges = edges

    m = property(lambda self: self.edges.m)
    weighted = property(lambda self: self.edges.weighted)

    def chunks(self, xp, rows: int = 1 << 25):
        for start, chunk in self.edges.chunks(xp, rows):
            yield start, {**chunk, "src": chunk["dst"], "dst": chunk["src"]}


def degrees(xp, edges, n: int, *, both: bool):
    """Entries per row of the CSR of ``edges`` (self-loops dropped; both directions when ``both``)."""
    deg = xp.zeros(n, dtype=np.int64)
    for _, chunk in edges.chunks(xp):
        src, dst = chunk["src"], chunk["dst"]
        keep = src != dst
        deg += bincount(xp, src[keep], n)
        if both:
            deg += bincount(xp, dst[keep], n)
    return deg


def slice_bounds(offsets: np.ndarray, capacity: int) -> list[tuple[int, int]]:
    """Row ranges [r0, r1) of at most ``capacity`` entries each (a row larger than that alone)."""
    n = offsets.shape[0] - 1
    bounds, r0 = [], 0
    while r0 < n:
        r1 = int(np.searchsorted(offsets, offsets[r0] + capacity, side="right")) - 1
        r1 = min(max(r1, r0 + 1), n)
        bounds.append((r0, r1))
        r0 = r1
    return bounds


def _slice_entries(xp, edges, r0: int, r1: int, size: int, *, both: bool, packed: bool):
    """The entries of rows [r0, r1), unsorted: ``packed``, (one int64 key per entry, (row - r0) << 32
    | column, and weights or None); else (rows relative to r0, columns, weights or None)."""
    keys = xp.empty(size, dtype=np.int64) if packed else None
    rows = None if packed else xp.empty(size, dtype=np.int64)
    cols = None if packed else xp.empty(size, dtype=np.int64)
    weights = xp.empty(size, dtype=np.int32) if edges.weighted else None
    fill = 0
    for _, chunk in edges.chunks(xp):
        src, dst, w = chunk["src"], chunk["dst"], chunk.get("weight")
        loop = src == dst
        for a, b in ((src, dst), (dst, src)) if both else ((src, dst),):
            at = xp.flatnonzero((a >= r0) & (a < r1) & ~loop)   # one scan, then gathers
            count = int(at.shape[0])
            if not count:
                continue
            row = a[at].astype(np.int64) - r0
            if packed:
                row <<= 32
                row |= b[at]
                keys[fill:fill + count] = row
            else:
                rows[fill:fill + count] = row
                cols[fill:fill + count] = b[at]
            if weights is not None:
                weights[fill:fill + count] = w[at]
            fill += count
            del at, row
    if fill != size:
        raise RuntimeError(f"rows {r0}-{r1}: {fill} entries found on the second pass, {size} counted on the first")
    return (keys, weights) if packed else (rows, cols, weights)


def _sorted_slice(xp, entries, *, packed: bool):
    """The slice's columns (and weights or None) in (row, column) order."""
    if not packed:
        rows, cols, weights = entries
        keys = (cols, rows) if weights is None else (weights, cols, rows)
        order = xp.lexsort(xp.stack(keys))
        return cols[order], None if weights is None else weights[order]
    keys, weights = entries
    if weights is None:
        keys.sort()
    else:  # duplicates' weights in any order, as the whole build leaves them
        order = xp.argsort(keys, kind="stable") if xp is np else xp.argsort(keys)
        keys, weights = keys[order], weights[order]
        del order
    keys &= 0xFFFFFFFF
    return keys, weights


def build(xp, edges, n: int, *, directed: bool, index_dtype, destination: str, budget: int) -> tuple[CSR, int]:
    """(the CSR of ``edges``, how many slices it took; see the module doc), with offsets on
    ``xp``'s device and indices and weights in ``destination`` ('device' or 'host');
    ``budget``: device bytes a slice may use."""
    both = not directed
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(degrees(xp, edges, n, both=both), out=offsets[1:])
    host_offsets = offsets.get() if hasattr(offsets, "get") else offsets
    nnz = int(host_offsets[-1])
    indices, weights, host = _destination(xp, nnz, index_dtype, edges.weighted, destination)
    per_entry = SLICE_BYTES_PER_WEIGHTED_ENTRY if edges.weighted else SLICE_BYTES_PER_ENTRY
    bounds = slice_bounds(host_offsets, max(1, budget // per_entry))
    packed = n < layout.PACK_LIMIT  # else lexsort of (row, column[, weight])
    for i, (r0, r1) in enumerate(bounds):
        lo, hi = int(host_offsets[r0]), int(host_offsets[r1])
        entries = _slice_entries(xp, edges, r0, r1, hi - lo, both=both, packed=packed)
        cols, w = _sorted_slice(xp, entries, packed=packed)
        del entries
        _put(indices, host and host[0], lo, hi, cols.astype(index_dtype, copy=False))
        if weights is not None:
            _put(weights, host and host[1], lo, hi, w)
        del cols, w
        log.info("csr slice %d/%d: rows %d-%d, %d entries", i + 1, len(bounds), r0, r1, hi - lo)
    host_csr = None
    if host:
        host_csr = CSR(host_offsets, host[0], host[1], n)
    csr = CSR(offsets, indices, weights, n, placement=destination if xp is not np else "host", host=host_csr)
    return csr, len(bounds)


def _destination(xp, nnz: int, index_dtype, weighted: bool, destination: str):
    """(indices, weights or None, host views or None): the arrays the slices are copied into."""
    if destination == "device" or xp is np:
        return xp.empty(nnz, dtype=index_dtype), xp.empty(nnz, dtype=np.int32) if weighted else None, None
    from .. import pinned
    ind = pinned.empty(nnz, index_dtype)
    wts = pinned.empty(nnz, np.int32) if weighted else None
    return ind.device, None if wts is None else wts.device, (ind.host, None if wts is None else wts.host)


def _put(target, host_view, lo: int, hi: int, values) -> None:
    """target[lo:hi] = values; into pinned host memory by one bulk copy rather than mapped stores."""
    if host_view is not None:
        values.get(out=host_view[lo:hi])
    else:
        target[lo:hi] = values
