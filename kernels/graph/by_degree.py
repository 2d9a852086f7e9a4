"""The simple graph with its vertices renamed by degree, registered with the graph input as
``by-degree`` (built once per graph, timed as its own ``input`` phase, like ``simple``):

- vertex ``order[i]`` of the graph is vertex ``i`` here: degrees descending, ties by id (GAPBS
  relabels by degree the same way before counting triangles);
- rows in that order, each row's neighbours renamed and sorted.

Why: on a skewed graph most edges end at a few hubs, and after renaming those hubs' data lie in a
few cache lines at the front of every per-vertex array, so a gather over the edges hits the L2
instead of DRAM whatever order the ids came in (R-MAT 24: the 1M highest-degree vertices, 6% of
them, receive 86% of the edges).  Rows of one degree class are contiguous, so a kernel can give
each class its own lanes per row without a list of rows.  A kernel that runs here maps its answer
back with ``rename`` (one gather); the renaming depends on the degrees only, not on the order the
ids came in, except among vertices of equal degree.
"""

from dataclasses import dataclass

import numpy as np

from . import csr as layout
from .csr import CSR, Builder, register
from .simple import tiny


@dataclass(frozen=True)
class RenamedCSR(CSR):
    """A CSR of a graph under a renaming of its vertices (by degree here; ``pagerank.blocked`` also
    makes one in BFS order)."""
    order: object = None     # int64, n: the original id of each renamed vertex
    rename: object = None    # n: the renamed id of each original vertex


def degree_order(xp, degree):
    """Ids by degree descending, ties by id (a stable sort of the negated degrees)."""
    return xp.argsort(-degree, kind="stable") if xp is np else xp.lexsort(xp.stack([xp.arange(degree.shape[0]),
                                                                                    -degree]))


def build_by_degree(inp) -> RenamedCSR:
    xp, n = inp.xp, inp.n
    simple = inp.representation("simple")
    degree = simple.degree()
    order = degree_order(xp, degree).astype(np.int64)
    rename = xp.empty(n, dtype=np.int64)
    rename[order] = xp.arange(n, dtype=np.int64)
    kept = rename.astype(simple.indices.dtype)
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(degree[order], out=offsets[1:])
    rows = rename[xp.searchsorted(simple.offsets, xp.arange(simple.nnz, dtype=np.int64), side="right") - 1]
    cols = rename[simple.indices]
    del rename
    if n >= layout.PACK_LIMIT:      # n * n past 63 bits
        cols = cols[xp.lexsort(xp.stack([cols, rows]))]
    else:                    # one sort of (new row, new column) keys
        rows *= n
        rows += cols
        rows.sort()
        cols = rows % n if n else rows
    del rows
    return RenamedCSR(offsets, cols.astype(simple.indices.dtype), None, n, order=order, rename=kept)


def _traffic(inp) -> dict:
    """The simple CSR read once with two renaming gathers per entry, one sort of 8-byte keys (its
    passes show as GB/s below the model), the renamed CSR written once."""
    def read():
        simple = inp.representation("simple")
        return simple.nnz * (simple.indices.itemsize + 16) + 8 * (inp.n + 1)

    def written():
        simple = inp.representation("simple")
        return simple.nnz * simple.indices.itemsize + (16 + simple.indices.itemsize) * inp.n
    return {"read": read, "written": written}


def _warm_up(inp) -> None:
    build_by_degree(tiny(inp))


register("by-degree", Builder(build_by_degree, _traffic, _warm_up))
