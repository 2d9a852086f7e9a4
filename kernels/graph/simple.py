"""The simple undirected graph, as GAPBS builds it for PageRank, BC and TC, in two representations
registered with the graph input (``inp.build(["simple", "oriented"])``, each timed as its own
``input`` phase):

- ``simple``: a ``CSR`` holding both directions of every undirected edge once: self-loops and
  duplicate edges (either orientation) removed, each row's neighbours sorted by id, no weights.
  One sort of packed (row << 32 | col) keys of both directions, then a keep-the-first-of-each-run
  compaction (lexsort of the pairs past 2^31 vertices); offsets by binary search of each row's
  first key, as ``csr`` does.
- ``oriented``: the simple graph with each edge kept once, from its lower to its higher end in
  (degree, id) order (Schank & Wagner's orientation: a hub keeps only the few neighbours of
  higher degree, so no adjacency list is longer than sqrt(2m)), rows still sorted by id, plus
  ``sources`` (the row of each edge), so an edge-parallel kernel needs no search for its row.
  GAPBS also relabels vertices by degree when a sample says the degrees are skewed; this
  orientation gives the same bound on list lengths without a relabelling pass.

Both are built from the arrays of the module that holds the graph (NumPy or CuPy).
"""

from dataclasses import dataclass

import numpy as np

from . import csr as layout
from .csr import CSR, Builder, bincount, register


@dataclass(frozen=True)
class OrientedCSR(CSR):
    sources: object = None   # the row of each edge (index dtype), nnz


def build_simple(inp) -> CSR:
    xp, n = inp.xp, inp.n
    rows = xp.concatenate([inp.src, inp.dst])
    cols = xp.concatenate([inp.dst, inp.src])
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    del keep
    if n >= layout.PACK_LIMIT:  # ids too wide to pack two in a word
        order = xp.lexsort(xp.stack([cols, rows]))
        rows, cols = rows[order], cols[order]
        del order
        first = xp.ones(rows.shape[0], dtype=bool)
        first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
        rows, cols = rows[first], cols[first]
        offsets = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(bincount(xp, rows, n), out=offsets[1:])
        return CSR(offsets, cols.astype(inp.index_dtype), None, n)
    key = rows.astype(np.int64)
    del rows
    key <<= 32
    key |= cols.astype(np.int64)
    del cols
    key.sort()
    first = xp.ones(key.shape[0], dtype=bool)
    first[1:] = key[1:] != key[:-1]
    key = key[first]
    del first
    offsets = xp.searchsorted(key, xp.arange(n + 1, dtype=np.int64) << 32).astype(np.int64)
    key &= 0xFFFFFFFF
    return CSR(offsets, key.astype(inp.index_dtype), None, n)


def edge_sources(xp, csr: CSR):
    """The row of each of ``csr``'s edges (the index dtype): the last row whose offset is at most the edge."""
    edges = xp.arange(csr.nnz, dtype=np.int64)
    return (xp.searchsorted(csr.offsets, edges, side="right") - 1).astype(csr.indices.dtype)


def build_oriented(inp) -> OrientedCSR:
    xp, n = inp.xp, inp.n
    simple = inp.representation("simple")
    degree = simple.degree()
    rows, cols = edge_sources(xp, simple), simple.indices
    du, dv = degree[rows], degree[cols]
    keep = (du < dv) | ((du == dv) & (rows < cols))
    del du, dv
    rows, cols = rows[keep], cols[keep]
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(bincount(xp, rows, n), out=offsets[1:])
    return OrientedCSR(offsets, cols, None, n, sources=rows)


def long_rows(inp, split: int):
    """The simple graph's rows longer than ``split`` edges and their chunks of ``split`` edges, for
    kernels that give a hub's row to many warps: (long-row vertices int32, each chunk's vertex int32,
    each chunk's first edge int64).  Made once per graph and split (cached on the input)."""
    key = ("simple.long-rows", split)
    if key not in inp.cache:
        csr = inp.representation("simple")
        inp.cache[key] = row_chunks(inp.xp, csr.offsets, csr.degree(), split)
    return inp.cache[key]


def row_chunks(xp, offsets, degree, split: int):
    """The rows of a CSR (``offsets``, each row's ``degree`` entries) longer than ``split`` and
    their chunks of ``split`` entries: (the rows int32, each chunk's row int32, its first entry int64)."""
    heavy = xp.flatnonzero(degree > split).astype(np.int32)
    counts = (degree[heavy] + split - 1) // split
    ends = xp.cumsum(counts)
    chunks = int(ends[-1]) if heavy.shape[0] else 0
    chunk = xp.arange(chunks, dtype=np.int64)
    owner = xp.searchsorted(ends, chunk, side="right")
    vertex = heavy[owner]
    begin = offsets[vertex] + (chunk - (ends - counts)[owner]) * split
    return heavy, vertex, begin.astype(np.int64)


def _simple_traffic(inp) -> dict:
    """The COO read once, the simple CSR written once (at most 2m entries; the sort's own passes
    over the keys show as GB/s below that)."""
    isz = inp.src.itemsize
    return {"read": inp.m * 2 * isz, "written": 2 * inp.m * inp.index_dtype.itemsize + 8 * (inp.n + 1)}


def _oriented_traffic(inp) -> dict:
    """The simple CSR read once with a degree gather at both ends of each edge, the oriented CSR
    (indices and sources of half the edges) written; sizes of the simple graph, known after its
    build, so evaluated after timing."""
    def read():
        simple = inp.representation("simple")
        return simple.nnz * (simple.indices.itemsize + 16) + 8 * (inp.n + 1)

    def written():
        simple = inp.representation("simple")
        return simple.nnz * simple.indices.itemsize + 8 * (inp.n + 1)
    return {"read": read, "written": written}


def tiny(inp):
    """A three-vertex graph of ``inp``'s kind (its class: this module sits below the graph input)."""
    edges = inp.xp.asarray([0, 1, 1], dtype=inp.src.dtype)
    return type(inp)(3, edges, edges[::-1].copy(), where="<warm-up>")


def _warm_up_simple(inp) -> None:
    build_simple(tiny(inp))


def _warm_up_oriented(inp) -> None:
    build_oriented(tiny(inp))


register("simple", Builder(build_simple, _simple_traffic, _warm_up_simple))
register("oriented", Builder(build_oriented, _oriented_traffic, _warm_up_oriented))
