"""The graph renamed in breadth-first order, registered with the graph input as ``by-bfs`` (built
once per graph, timed as its own ``input`` phase: the search and the renamed graph's CSR).

A kernel whose speed rests on ids that name nearby vertices (``sssp.strips``: a block's strip of
consecutive ids should hold most of its edges) gets that locality from the graph's structure
instead of the order its ids came in: on a road-like graph a BFS level is a thin front, so
consecutive levels, hence consecutive renamed ids, are neighbours (the 4096^2 grid: in row order
or renamed, a strip of 64K ids keeps 90%+ of its edges; with its ids shuffled, none).

The search (``bfs.direction-optimizing``) starts at the first of the deepest vertices of a search
from the first vertex of the largest degree (a pseudo-peripheral vertex, as RCM finds one; not the
lowest id with an edge, which on a road-like grid in row order is a corner, now and then cut off
in a fragment of a few vertices: issue #32); renamed ids follow (level, across, id), the vertices
it does not reach last, by id.  ``across`` orders each level along its front, from the graph, not
its ids: the level of a search from an end of the middle level (the vertex of that level farthest
from its first vertex; on a grid from a corner, a corner beside it, so each diagonal runs from one
side to the other).  By id alone, a level of a graph whose ids were shuffled lay in random order,
and a strip's neighbouring vertices in scattered cache lines: on the 4096^2 grid with permuted ids
(H200, docs/results/sssp-road/id-order/) sssp.strips' step took 4.11 us against 3.64 in row order,
along the front 3.61, and sssp.best 48.4-48.7 ms a root against 52.0-52.4 (row order 44.3-44.7);
pagerank.best 17.5 ms a trial against 22.4 (row order 17.4); the renaming's build, two searches
more, 113-192 ms against 16-98.  ``graph`` is the renamed graph
(same weights, its CSR built), ``rename[v]`` the renamed id of vertex v, ``order[i]`` the vertex renamed
i, ``levels`` the search's depth (the root's eccentricity: a lower bound on the diameter).
"""

from dataclasses import dataclass

import numpy as np

from ..graph import GraphInput, register
from ..graph.csr import Builder
# the renaming's searches (the SSSP rules read depth and peripheral_levels from here too)
from .direction_optimizing import depth, levels_from, peripheral_levels


# The largest degree of a graph its kernels treat as a road map or grid (no hubs: a search's fronts are
# thin, so BFS order keeps neighbours near; sssp.select, sssp.near-far and pagerank.blocked read it).
NARROW_DEGREE = 16


@dataclass(frozen=True)
class BfsRenamed:
    graph: GraphInput
    rename: object     # int64, n
    order: object      # int64, n
    levels: int


def narrow(csr) -> bool:
    """Whether every degree is at most NARROW_DEGREE (and there is an edge)."""
    return csr.nnz > 0 and int(csr.degree().max()) <= NARROW_DEGREE


def build_by_bfs(inp) -> BfsRenamed:
    xp, n = inp.xp, inp.n
    level = peripheral_levels(inp)
    levels = depth(inp)
    ids = xp.arange(n, dtype=np.int64)
    order = xp.lexsort(xp.stack([ids, across(inp, level, levels), xp.where(level < 0, levels, level).astype(np.int64)]))
    rename = xp.empty(n, dtype=np.int64)
    rename[order] = xp.arange(n, dtype=np.int64)
    graph = GraphInput(n, rename[inp.src].astype(inp.src.dtype), rename[inp.dst].astype(inp.dst.dtype), inp.weight,
                       directed=inp.directed, where=f"{inp.where} (renamed by BFS)", xp=xp)
    graph.csr()
    return BfsRenamed(graph, rename, order, levels)


def across(inp, level, levels: int):
    """Each vertex's place along its level's front (int64; 0 where unreached): its level in a search
    from the vertex of the middle level farthest from that level's first vertex (two searches)."""
    xp = inp.xp
    middle = xp.flatnonzero(level == levels // 2)
    if middle.shape[0] < 2:
        return xp.zeros(inp.n, dtype=np.int64)
    from_first = levels_from(inp, int(middle[0]))[middle]
    end = int(middle[int(xp.argmax(from_first))])
    return xp.maximum(levels_from(inp, end), 0).astype(np.int64)


def _traffic(inp) -> dict:
    """The four searches' CSR passes (about two each: top-down then bottom-up), the edge list read and renamed,
    the renamed CSR written (its sort's passes show as GB/s below the model)."""
    isz, wsz = inp.index_dtype.itemsize, 4 if inp.weighted else 0
    arcs = (1 if inp.directed else 2) * inp.m
    return {"read": 8 * arcs * isz + inp.m * (2 * isz + wsz) + 8 * inp.n,
            "written": inp.m * (2 * isz + wsz) + arcs * (isz + wsz) + 24 * inp.n, "random": 2 * inp.m}


def _warm_up(inp) -> None:
    xp = inp.xp
    edges = xp.asarray([0, 1, 1], dtype=inp.src.dtype)
    weight = None if inp.weight is None else xp.ones(3, dtype=np.int32)
    build_by_bfs(GraphInput(3, edges, edges[::-1].copy(), weight, directed=inp.directed, where="<warm-up>", xp=xp))


register("by-bfs", Builder(build_by_bfs, _traffic, _warm_up))
