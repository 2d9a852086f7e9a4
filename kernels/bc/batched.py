"""bc.batched — Brandes's betweenness from a group of roots in one traversal: the forward sweep
counts shortest paths from every root of the group level by level together, the backward sweep
accumulates every root's dependencies, and the output is their sum (a GAPBS trial's).

Returns ``{"centrality"}``: the sum over the instance's ``roots`` of their dependencies (see the
package doc; the drawn roots come in groups of ``sources``).  Algorithm: Brandes (2001) as
bc.brandes runs it from one root (GAPBS src/bc.cc), with the K roots of a group sharing the
levels as MS-BFS shares a traversal among sources (Then et al., "The More the Merrier", PVLDB 8(4),
2014): per vertex and root a level, a path count and coef = (1 + delta) / sigma, interleaved
[n][K] so a vertex's K levels are one load.  One queue holds each vertex once per distinct depth
among its roots; the slice of depth d is level d's frontier.

GPU (``batched.cu``, K = 1, 2, 4 or 8 slots, the group padded with slots no root fills): each
forward level runs top-down while the frontier's edges are below the graph's arcs / ``alpha``
(GAPBS's rule), a warp per frontier vertex claiming neighbours by CAS and adding path counts by
double atomics, else bottom-up, a warp walking in turn the rows of 32 vertices with a root still
unreached, summing the path counts of their neighbours on the level, without atomics.  Backward,
deepest depth first, each vertex of the slice pulls coef from its neighbours one level down for
each root it sits at that depth for — or, when the slice one level down has under half the edges
(``backward``: kron 24's slice past its hubs has a quarter; the deepest slice's next is empty), that
slice's vertices push their coefs to their neighbours one level up by double atomics and a thread
per vertex of the slice settles it.  Rows longer than ``split`` entries are cut in chunks, a warp
each, in every phase (``graph.simple.long_rows``, made once per graph by ``setup``).  One launch
(or three, with the long rows) per level and direction; the host reads the queue's tail and the
queued vertices' degrees after each forward level.  CPU twin: the same levels under Numba prange,
always pulling (race-free), the same queue.  Each level of each sweep is a step row (frontier,
its edges, direction).
"""

import functools

import numba
import numpy as np

from graphsweep.core.errors import ParameterError

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS, check_threads, module, resident_blocks
from ..graph import ROOT_PARAM
from ..graph.simple import long_rows
from . import BC
from .brandes import NO_SPLIT, setup

WIDTHS = (1, 2, 4, 8)        # the slots a vertex holds on the GPU: a group's roots, padded up
LAUNCHES = ("init", "push", "push_long", "pull", "pull_long_sums", "pull_long_settle", "backward",
            "backward_long_sums", "backward_long_settle", "backward_push", "backward_push_long", "backward_settle")
# A backward step pushes when the slice one level down has fewer than 1 / PUSH_BACK of its edges:
# a pushed edge costs a double atomic at a match where a pulled one costs a plain add.
PUSH_BACK = 2.0


def _width(roots: int) -> int:
    return next(w for w in WIDTHS if w >= roots)


def _push(params, edges: int, arcs: int) -> bool:
    """Whether a forward level whose frontier has ``edges`` runs top-down (``direction``)."""
    rule = params["direction"]
    return rule == "top-down" or (rule == "auto" and edges < arcs / params["alpha"])


def _push_back(params, edges: int, next_edges: int) -> bool:
    """Whether a backward step whose slice has ``edges`` pushes from the slice one level down, of
    ``next_edges`` (``backward``); the deepest slice, whose next is empty, gathers nothing either way."""
    rule = params["backward"]
    return rule == "push" or (rule == "auto" and (next_edges == 0 or next_edges * PUSH_BACK < edges))


def _forward_traffic(csr, levels, depth: int, size: int, edges: int, push: bool) -> dict:
    """A forward level's bytes (``levels``: the group's, read after timing; K slots a vertex,
    padding too).  Top-down: per frontier vertex its queue entry, offsets, K levels and K path
    counts; per edge its index and the neighbour's K levels, and a path count added (every edge
    counted as adding one, as bc.brandes's).  Bottom-up: every vertex's K levels, then, for the
    vertices with a root unreached before this level, offsets and per edge its index and the
    neighbour's K levels (the path counts gathered at matches are not counted); the joined
    vertices' records are added by the caller."""
    width = levels.slots
    if push:
        return {"read": size * (4 + 16 + 12 * width) + edges * (4 + 4 * width), "written": 8 * edges,
                "random": 2 * edges}

    @functools.cache
    def rows():
        opened = ((levels.array == -1) | (levels.array > depth)).any(axis=1)
        return int(opened.sum()), int(csr.degree()[opened].sum())
    return {"read": lambda: levels.array.shape[0] * 4 * width + 16 * rows()[0] + rows()[1] * (4 + 4 * width),
            "random": lambda: rows()[1]}


def _backward_traffic(width: int, size: int, edges: int, push: bool, next_size: int, next_edges: int) -> dict:
    """A backward step's bytes.  Pulled: per vertex of the slice its queue entry, offsets, K levels,
    path counts and its centrality; per edge its index, the neighbour's K levels and a coef; written:
    the K coefs and the centrality.  Pushed: per vertex of the next slice its queue entry, offsets,
    K levels and K coefs, per edge of it its index and the neighbour's K levels and a coef added
    (every edge counted as adding one); then per vertex of the slice its queue entry, K levels,
    path counts and coefs (the sums), written: the K coefs and the centrality."""
    if not push:
        return {"read": size * (4 + 16 + 12 * width + 8) + edges * (4 + 4 * width + 8),
                "written": size * (8 * width + 8), "random": 2 * edges}
    return {"read": next_size * (4 + 16 + 12 * width) + next_edges * (4 + 4 * width) + size * (4 + 20 * width + 8),
            "written": 8 * next_edges + size * (8 * width + 8), "random": 2 * next_edges}


class _Levels:
    """A level array of ``slots`` a vertex: ``array``, its final [n][k] levels of the group's k
    roots (padding left out), for statistics and byte models evaluated after timing."""

    def __init__(self, level, n: int, slots: int, roots: int):
        self.array = level.reshape(n, slots)[:, :roots]
        self.slots = slots


class GpuPasses:
    """The levels' launches (``batched.cu``) over device arrays of K = ``_width(k)`` slots a vertex."""
    top_down = pushes_back = True

    def __init__(self, inp, csr, roots: tuple, params):
        import cupy
        if csr.indices.dtype != np.int32:
            raise ParameterError(f"GPU betweenness takes graphs of fewer than 2^31 vertices (n = {inp.n})")
        n, k = inp.n, len(roots)
        self.csr, self.n, self.width = csr, n, _width(k)
        self.threads = check_threads(params["threads"])
        self.most = params["blocks"] or resident_blocks(self.threads)
        names = {(name, w): f"graphsweep_bc_batched_{name}<{w}>" for name in LAUNCHES for w in WIDTHS}
        mod = module("bc/batched.cu", name_expressions=tuple(names.values()))    # every width: one module
        self.fn = {name: mod.get_function(names[name, self.width]) for name in LAUNCHES}
        split = params["split"]
        self.rows, self.chunk_vertex, self.chunk_begin = long_rows(inp, split) if split else (None, None, None)
        self.chunks = 0 if self.rows is None else int(self.chunk_vertex.shape[0])
        self.split = np.int64(split if self.chunks else NO_SPLIT)
        self.split_rows = 0 if self.rows is None else int(self.rows.shape[0])
        slots = n * self.width
        self.roots = cupy.asarray(np.asarray(roots, dtype=np.int32))
        self.level = cupy.empty(slots, dtype=np.int32)
        self.sigma = cupy.empty(slots, dtype=np.float64)
        self.coef = cupy.empty(slots, dtype=np.float64)
        self.partial = cupy.zeros(slots, dtype=np.float64) if self.chunks else None   # zeroed again by each use
        self.queued = cupy.empty(n, dtype=np.int32)
        self.centrality = cupy.empty(n, dtype=np.float64)
        self.queue = cupy.empty(slots, dtype=np.int32)         # a vertex at most once per root
        self.control = cupy.zeros(2, dtype=np.uint64)          # the queue's tail, the queued vertices' degrees
        self.levels = _Levels(self.level, n, self.width, k)
        self.init_bytes = n * (20 * self.width + 12)

    def _grid(self, warps: int) -> int:
        """Blocks for ``warps`` warps' work, at most ``most``."""
        return max(1, min(self.most, -(-warps // (self.threads // 32))))

    def init(self):
        self.fn["init"]((max(1, min(self.most, -(-self.n // self.threads))),), (self.threads,),
                        (self.csr.offsets, self.roots, np.int32(self.roots.shape[0]), self.level, self.sigma,
                         self.coef, self.queued, self.centrality, self.queue, self.control, np.int64(self.n)))

    def counts(self) -> tuple[int, int]:
        tail, edges = self.control.get()     # a host read per level
        return int(tail), int(edges)

    def forward(self, depth: int, begin: int, end: int, push: bool):
        csr, fn, t = self.csr, self.fn, (self.threads,)
        if push:
            fn["push"]((self._grid(end - begin),), t, (csr.offsets, csr.indices, self.level, self.sigma, self.queued,
                                                      self.queue, self.control, np.int64(begin), np.int64(end),
                                                      np.int32(depth), self.split))
            if self.chunks:
                fn["push_long"]((self._grid(self.chunks),), t,
                                (csr.offsets, csr.indices, self.level, self.sigma, self.queued, self.queue,
                                 self.control, self.chunk_vertex, self.chunk_begin, np.int64(self.chunks), self.split,
                                 np.int32(depth)))
            return
        if self.chunks:
            fn["pull_long_sums"]((self._grid(self.chunks),), t,
                                 (csr.offsets, csr.indices, self.level, self.sigma, self.chunk_vertex, self.chunk_begin,
                                  np.int64(self.chunks), self.split, np.int32(depth), self.partial))
        fn["pull"]((self._grid(-(-self.n // 32)),), t, (csr.offsets, csr.indices, self.level, self.sigma, self.queue,
                                                       self.control, np.int64(self.n), np.int32(depth), self.split))
        if self.chunks:
            fn["pull_long_settle"]((-(-self.split_rows // self.threads),), t,
                                   (csr.offsets, self.rows, np.int32(self.split_rows), self.level, self.sigma,
                                    self.partial, self.queue, self.control, np.int32(depth)))

    def backward(self, depth: int, begin: int, end: int, push: bool, next_end: int):
        csr, fn, t = self.csr, self.fn, (self.threads,)
        if push:     # from the slice one level down, [end, next_end), into this slice's coefs; then settled
            if next_end > end:
                fn["backward_push"]((self._grid(next_end - end),), t,
                                    (csr.offsets, csr.indices, self.level, self.coef, self.queue, np.int64(end),
                                     np.int64(next_end), np.int32(depth), self.split))
                if self.chunks:
                    fn["backward_push_long"]((self._grid(self.chunks),), t,
                                             (csr.offsets, csr.indices, self.level, self.coef, self.chunk_vertex,
                                              self.chunk_begin, np.int64(self.chunks), self.split, np.int32(depth)))
            size = end - begin
            fn["backward_settle"]((max(1, min(self.most, -(-size // self.threads))),), t,
                                  (self.queue[begin:end], np.int32(size), self.level, self.sigma, self.coef,
                                   self.centrality, np.int32(depth)))
            return
        if self.chunks:
            fn["backward_long_sums"]((self._grid(self.chunks),), t,
                                     (csr.offsets, csr.indices, self.level, self.coef, self.chunk_vertex,
                                      self.chunk_begin, np.int64(self.chunks), self.split, np.int32(depth),
                                      self.partial))
        fn["backward"]((self._grid(end - begin),), t, (csr.offsets, csr.indices, self.level, self.sigma, self.coef,
                                                      self.centrality, self.queue, np.int64(begin), np.int64(end),
                                                      np.int32(depth), self.split))
        if self.chunks:
            fn["backward_long_settle"]((-(-self.split_rows // self.threads),), t,
                                       (self.rows, np.int32(self.split_rows), self.level, self.sigma, self.coef,
                                        self.centrality, self.partial, np.int32(depth)))


# --- CPU twin: the same levels and queue, pulling (race-free under prange).

@numba.njit(cache=True, parallel=True)
def _pull(offsets, indices, level, sigma, joined, depth):
    """Each vertex's roots still unreached with neighbours at ``depth`` join depth + 1 with their
    path counts summed; ``joined[v]``: whether any of v's did.  A slot changes from -1 to depth + 1
    while others read it for depth: neither is depth."""
    for v in numba.prange(level.shape[0]):
        joined[v] = False
        for s in range(level.shape[1]):
            if level[v, s] != -1:
                continue
            paths = 0.0
            for e in range(offsets[v], offsets[v + 1]):
                if level[indices[e], s] == depth:
                    paths += sigma[indices[e], s]
            if paths > 0.0:
                level[v, s] = depth + 1
                sigma[v, s] = paths
                joined[v] = True


@numba.njit(cache=True, parallel=True)
def _backward(offsets, indices, level, sigma, coef, centrality, queue, begin, end, depth):
    """Each vertex of the slice: for each root it sits at ``depth`` for, coef from its neighbours one
    level down; the deltas added to its centrality but at depth 0 (its own roots')."""
    for i in numba.prange(begin, end):
        v = queue[i]
        total = 0.0
        for s in range(level.shape[1]):
            if level[v, s] != depth:
                continue
            pulled = 0.0
            for e in range(offsets[v], offsets[v + 1]):
                w = indices[e]
                if level[w, s] == depth + 1:
                    pulled += coef[w, s]
            delta = sigma[v, s] * pulled
            coef[v, s] = (1.0 + delta) / sigma[v, s]
            total += delta
        if depth > 0:
            centrality[v] += total


class CpuPasses:
    """The Numba twins over [n][k] arrays (no padding); every forward level and backward step pulls."""
    top_down = pushes_back = False
    split_rows = 0

    def __init__(self, inp, csr, roots: tuple, params):
        n, k = inp.n, len(roots)
        self.csr, self.roots, self.width = csr, np.asarray(roots, dtype=np.int64), k
        self.level = np.empty((n, k), dtype=np.int32)
        self.sigma = np.empty((n, k), dtype=np.float64)
        self.coef = np.empty((n, k), dtype=np.float64)
        self.centrality = np.empty(n, dtype=np.float64)
        self.joined = np.empty(n, dtype=np.bool_)
        self.queue = np.empty(n * k, dtype=np.int32)
        self.levels = _Levels(self.level, n, k, k)
        self.init_bytes = n * (12 * k + 8)
        self.tail = self.edges = 0

    def init(self):
        k = self.width
        self.level.fill(-1)
        self.sigma.fill(0.0)
        self.centrality.fill(0.0)
        self.level[self.roots, np.arange(k)] = 0
        self.sigma[self.roots, np.arange(k)] = 1.0
        self.queue[:k] = self.roots
        self.tail, self.edges = k, self._degrees(self.roots)

    def _degrees(self, vertices) -> int:
        offsets = self.csr.offsets
        return int((offsets[vertices + 1] - offsets[vertices]).sum())

    def counts(self) -> tuple[int, int]:
        return self.tail, self.edges

    def forward(self, depth: int, begin: int, end: int, push: bool):
        _pull(self.csr.offsets, self.csr.indices, self.level, self.sigma, self.joined, depth)
        fresh = np.flatnonzero(self.joined)
        self.queue[self.tail:self.tail + fresh.shape[0]] = fresh
        self.tail += int(fresh.shape[0])
        self.edges += self._degrees(fresh)

    def backward(self, depth: int, begin: int, end: int, push: bool, next_end: int):
        _backward(self.csr.offsets, self.csr.indices, self.level, self.sigma, self.coef, self.centrality, self.queue,
                  begin, end, depth)


def _run(passes, inp, params, timer):
    """The host loop both backends share: forward levels until one queues nothing (each level's
    direction from its frontier's edges), then backward steps from the deepest depth."""
    csr = inp.representation("simple")
    roots = params["roots"]
    p = passes(inp, csr, roots, params)
    with timer.phase("init", written=p.init_bytes):
        p.init()
    tail, queued_edges = p.counts()
    bounds, edges, pushed = [0, tail], [0, queued_edges], []   # queue slice and degree sums by depth
    while True:
        depth = len(bounds) - 2
        size, frontier_edges = bounds[-1] - bounds[-2], edges[-1] - edges[-2]
        push = p.top_down and _push(params, frontier_edges, csr.nnz)
        pushed.append(push)
        with timer.phase("forward", step=depth, **_forward_traffic(csr, p.levels, depth, size, frontier_edges, push),
                         info={"frontier": size, "edges": frontier_edges,
                               "direction": "top-down" if push else "bottom-up"}) as traffic:
            p.forward(depth, bounds[-2], bounds[-1], push)
        tail, queued_edges = p.counts()
        if not push:     # the joined vertices' queue entries, levels and path counts
            traffic.add(written=(4 + 12 * p.levels.slots) * (tail - bounds[-1]))
        if tail == bounds[-1]:
            break
        bounds.append(tail)
        edges.append(queued_edges)
    pulled = 0
    for depth in range(len(bounds) - 2, -1, -1):
        size, slice_edges = bounds[depth + 1] - bounds[depth], edges[depth + 1] - edges[depth]
        next_end = bounds[depth + 2] if depth + 2 < len(bounds) else bounds[depth + 1]
        next_size = next_end - bounds[depth + 1]
        next_edges = edges[depth + 2] - edges[depth + 1] if depth + 2 < len(edges) else 0
        push = p.pushes_back and _push_back(params, slice_edges, next_edges)
        pulled += not push
        with timer.phase("backward", step=depth,
                         info={"frontier": size, "edges": next_edges if push else slice_edges,
                               "direction": "push" if push else "pull"},
                         **_backward_traffic(p.levels.slots, size, slice_edges, push, next_size, next_edges)):
            p.backward(depth, bounds[depth], bounds[depth + 1], push, next_end)
    levels = p.levels
    timer.stat("levels", len(bounds) - 1)
    timer.stat("roots", len(roots))
    timer.stat("reached", lambda: int((levels.array >= 0).sum()))    # (vertex, root) pairs, summed over roots
    timer.stat("queued", bounds[-1])                                  # the queue: vertices once per distinct depth
    timer.stat("top_down_levels", sum(pushed))
    timer.stat("bottom_up_levels", len(pushed) - sum(pushed))
    timer.stat("pulled_back_levels", pulled)
    timer.stat("split_rows", p.split_rows)
    return {"centrality": p.centrality}


KERNEL = Kernel(name="bc.batched", problem=BC,
                summary="Brandes betweenness from a group of roots in one traversal: K path counts a vertex, "
                        "direction-optimised forward levels, backward dependencies pulled or pushed, the group's sum",
                gpu=functools.partial(_run, GpuPasses), cpu=functools.partial(_run, CpuPasses), setup=setup,
                needs=("simple",),
                params={**ROOT_PARAM, **GRID_PARAMS,
                        "sources": Param(4, choices=tuple(range(1, 9)),
                                         help="roots a traversal runs together: the drawn roots in groups of this "
                                              "many (GAPBS's trial, bc -i 4, sums 4)"),
                        "direction": Param("auto", str, choices=("auto", "top-down", "bottom-up"),
                                           help="forward levels: top-down while the frontier's edges are below "
                                                "arcs / alpha, else bottom-up; or always one (GPU; the CPU twin "
                                                "pulls)"),
                        "alpha": Param(15.0, float, minimum=1e-9, help="top-down below arcs / alpha frontier edges"),
                        "backward": Param("auto", str, choices=("auto", "pull", "push"),
                                          help="backward steps: a slice's vertices pull coefs from their "
                                               "neighbours one level down, or that level's vertices push them "
                                               "(atomics) when its edges are under half the slice's; or always "
                                               "one (GPU; the CPU twin pulls)"),
                        "split": Param(4096, minimum=0, help="rows longer than this are cut in chunks of this many "
                                                             "edges, a warp each (0: never; GPU only)")})
