"""bfs.emogi — level-synchronous top-down BFS for a graph in host memory, each level reading the
adjacency in the access shape the link serves best (EMOGI, Min et al., VLDB 2021).

Per level, from the frontier's rows: ``lines``, the 128-byte lines those rows span (offsets are
on the device, so this costs no link traffic), and the candidates of a bottom-up step (vertices
not reached yet that have an edge).  The level is then expanded one of three ways, whichever the
byte model prices lowest at the link rates measured in this run (``kernels.ceilings``:
``mapped_lines_gbps``, ``h2d_gbps``):

- ``lines``: a warp per line reads it whole from mapped host memory (zero-copy, 32 lanes × 4 bytes,
  aligned), claiming unvisited neighbours — ``lines × 128`` bytes over the link;
- ``stream``: the whole CSR copied over the link in blocks (``graph.stream``, copy overlapped
  with the expansion), every entry of a row on the current level claiming its neighbour —
  ``nnz × 4`` bytes at the copy bandwidth;
- ``bottom-up``: a warp per candidate reads its row a line at a time and stops at the first line
  holding a vertex of the current level — at least a line per candidate, priced so, and chosen
  only when there are fewer candidates than frontier lines; on the big middle levels of a
  small-world graph most candidates find a parent in their first line.

Claims are CAS on the level array; the next frontier is appended with one atomic per warp.  On
a device-placed graph every level is ``lines`` (the same kernels reading device memory).  The
row's ``line_bytes`` statistic sums the lines each level asked for (those the frontier's rows
span, a row at a time, or those the bottom-up step read), and ``floor_ms`` prices each level the
way the choice does (those lines at the line rate, or the whole CSR at the copy rate, whichever
is less): the byte model's time, not a floor, as a line asked for twice may cross once.

Bytes over the link (a level's ``link`` term) are bytes that crossed it: a streamed level's
blocks, and the lines a level read for the first time in the run — each warp reading a line sets
its bit in a bitmap of the CSR's lines (one bit per 128 bytes, cleared by ``init``) and counts it
if it was clear.  Why distinct lines over the run: a zero-copy read moves whole requests, so each
distinct line the run touched crossed at least once; a line asked for again — by a row sharing
it, in the same level or a later one — crosses again unless the L2 still holds it (a bottom-up
level rereads its candidates' first lines, mostly gone from a 50 MB L2 on a graph of tens of GB,
but not always), and nothing here sees which.  Counting it once per request is what claimed
88.5 GB in 546 ms, 162 GB/s over a link measured at 55 GB/s; counting it once per run is a lower
bound, so the rate never exceeds what the link did (but for lines an earlier rep left in the L2:
at most its size per run).  ``kernels.throughput`` flags any rate above the link's ceiling.

CPU twin: the same three ways of expanding a level over the CSR in host memory (parallel over
frontier vertices, rows, or candidates), chosen by the same byte model with equal rates.
"""

import numba
import numpy as np

from graphsweep.datasets.format import index_dtype_for

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS, check_threads, launch, module
from ..graph.stream import BLOCK_ENTRIES, csr_blocks
from . import BFS, ROOT_PARAM
from ..cc.cpu import cas
from .gpu import check_gpu_graph

RUN = 8          # entries per thread in a streamed block
LINE = 128       # bytes per line read by a warp
WIDTH = 32       # int32 entries per line
MODES = ("auto", "lines", "stream", "bottom-up")

PARAMS = {**ROOT_PARAM, **GRID_PARAMS,
          "mode": Param("auto", str, choices=MODES, help="how each level reads the adjacency: by the byte "
                                                          "model (auto), always whole lines top-down, always "
                                                          "streamed, always bottom-up by lines"),
          "block_entries": Param(BLOCK_ENTRIES, minimum=1, help="CSR entries per streamed block")}


def setup(inp, params):
    """The CSR's blocks, the link rates the per-level choice uses (measured once per process) and,
    for a host-placed CSR, the bitmap of its lines read (see the module doc)."""
    csr_blocks(inp, params["block_entries"])
    if "bfs.emogi.seen" not in inp.cache and inp.backend == "gpu":
        import cupy
        host = inp.csr().placement == "host"
        words = -(-inp.csr().nnz // (WIDTH * 32)) if host else 1     # a bit per line; a placeholder on the device
        inp.cache["bfs.emogi.seen"] = (host, cupy.zeros(max(words, 1), dtype=np.uint32))
    if "bfs.emogi.rates" not in inp.cache and inp.backend == "gpu":
        from ..ceilings import ceilings
        c = ceilings("gpu")
        inp.cache["bfs.emogi.rates"] = (c.get("mapped_lines_gbps", 0.0) * 1e9, c.get("h2d_gbps", 0.0) * 1e9)


def choose(mode: str, placement: str, seconds: dict) -> str:
    """The level's way to read: forced, or the one the link serves fastest by ``seconds`` (the
    byte model of each way at the measured rates); whole lines top-down on a device-placed graph."""
    if mode != "auto":
        return mode
    if placement != "host":
        return "lines"
    return min(seconds, key=seconds.get)


def run_gpu(inp, params, timer):
    import cupy
    csr = inp.csr()
    check_gpu_graph(csr)
    n, root, nnz = csr.n, params["root"], csr.nnz
    threads = check_threads(params["threads"])
    blocks = csr_blocks(inp, params["block_entries"])
    lines_rate, copy_rate = inp.cache.get("bfs.emogi.rates", (1.0, 1.0))
    host = csr.placement == "host"
    mod = module("bfs/emogi.cu", (f"-DRUN={RUN}",))
    init, count_lines, expand, stream, unvisited, bottom_up = (
        mod.get_function(f"graphsweep_bfs_emogi_{k}")
        for k in ("init", "lines", "expand", "stream", "unvisited", "bottom_up"))
    level, parent = cupy.empty(n, dtype=np.int32), cupy.empty(n, dtype=np.int32)
    frontier, following = cupy.empty(max(n, 1), dtype=np.int32), cupy.empty(max(n, 1), dtype=np.int32)
    candidates = cupy.empty(max(n, 1), dtype=np.int32)
    first = cupy.empty(n + 1, dtype=np.int64)
    # next frontier size, candidates, lines read bottom-up, lines read for the first time in the run
    counters = cupy.zeros(4, dtype=np.uint64)
    next_size, candidate_count, lines_read, fresh = counters[0:1], counters[1:2], counters[2:3], counters[3:4]
    mark, seen = inp.cache["bfs.emogi.seen"]
    marking = (np.int32(mark), seen, fresh)
    warps_per_block = threads // 32
    with timer.phase("init", written=8 * n + 4 + (seen.nbytes if mark else 0)):
        launch(init, n, threads, params["blocks"], level, parent, np.int64(n), np.int32(root))
        frontier[:1] = root
        if mark:
            seen.fill(0)
    size, depth, floor_s, line_total, modes = 1, 0, 0.0, 0, []
    stream_bytes = nnz * 4
    while size:
        with timer.phase("level", step=depth, info={"frontier": size}) as traffic:
            first[0] = 0
            launch(count_lines, size, threads, params["blocks"], frontier, np.int64(size), csr.offsets, first[1:])
            first[1:size + 1] = cupy.cumsum(first[1:size + 1])
            counters.fill(0)
            if (depth and params["mode"] == "auto") or params["mode"] == "bottom-up":
                launch(unvisited, n, threads, params["blocks"], level, csr.offsets, np.int64(n), candidates,
                       candidate_count)
            total = int(first[size].get())
            candidate_total = int(candidate_count.get()[0])
            line_bytes = total * LINE
            seconds = {"lines": line_bytes / lines_rate, "stream": stream_bytes / copy_rate}
            if candidate_total and candidate_total <= total:  # each candidate reads at least one line
                seconds["bottom-up"] = candidate_total * LINE / lines_rate
            way = choose(params["mode"], csr.placement, seconds)
            if way == "lines":
                grid = min(-(-total // warps_per_block), 1 << 20) if total else 1
                expand((grid,), (threads,), (csr.indices, csr.offsets, frontier, first, np.int64(size),
                                             np.int64(total), level, parent, np.int32(depth + 1), following, next_size,
                                             *marking))
                traffic.add(read=line_bytes + 20 * size, random=total)
            elif way == "bottom-up":
                grid = min(-(-candidate_total // warps_per_block), 1 << 20) if candidate_total else 1
                bottom_up((grid,), (threads,), (csr.indices, csr.offsets, candidates, np.int64(candidate_total),
                                                level, parent, np.int32(depth), following, next_size, lines_read,
                                                *marking))
            else:
                def work(block, r0, r1, lo, count):
                    launch(stream, (count + RUN - 1) // RUN, threads, params["blocks"], block, csr.offsets,
                           np.int64(r0), np.int64(r1), np.int64(lo), np.int64(count), level, parent,
                           np.int32(depth), following, next_size)
                blocks.each(work)
                traffic.add(read=stream_bytes + 4 * n, random=0, link=blocks.link_bytes)
            # the level's one read back (its next frontier's size), which also brings its line counts:
            # a callable read after timing would see the last level's counters, reset at every level
            size, _, read_lines, fresh_lines = (int(c) for c in counters.get())
            if way == "bottom-up":
                traffic.add(read=read_lines * LINE + 20 * n, random=read_lines)
            if way != "stream":
                traffic.add(link=fresh_lines * LINE)
        touched = read_lines * LINE if way == "bottom-up" else line_bytes
        floor_s += min(touched / lines_rate, stream_bytes / copy_rate) if host else 0.0
        line_total += touched
        modes.append(way)
        frontier, following = following, frontier
        depth += 1
    timer.stat("levels", depth)
    timer.stat("stream_levels", modes.count("stream"))
    timer.stat("bottom_up_levels", modes.count("bottom-up"))
    timer.stat("line_bytes", line_total)
    timer.stat("floor_ms", floor_s * 1e3)
    return {"level": level, "parent": parent}


@numba.njit(cache=True, inline="always")
def _claim_row(offsets, indices, u, level, parent, depth, marks):
    """Every unreached neighbour of u joins the next level with parent u (CAS on its level)."""
    for e in range(offsets[u], offsets[u + 1]):
        v = indices[e]
        if level[v] == -1 and cas(level, v, -1, depth + 1) == -1:
            parent[v] = u
            marks[v] = 1


@numba.njit(parallel=True, cache=True)
def _top_down(offsets, indices, frontier, level, parent, depth, marks):
    for i in numba.prange(frontier.shape[0]):
        _claim_row(offsets, indices, frontier[i], level, parent, depth, marks)


@numba.njit(parallel=True, cache=True)
def _stream(offsets, indices, level, parent, depth, marks):
    for u in numba.prange(level.shape[0]):
        if level[u] == depth:
            _claim_row(offsets, indices, u, level, parent, depth, marks)


@numba.njit(parallel=True, cache=True)
def _bottom_up(offsets, indices, candidates, level, parent, depth, marks):
    for i in numba.prange(candidates.shape[0]):
        v = candidates[i]
        for e in range(offsets[v], offsets[v + 1]):
            u = indices[e]
            if level[u] == depth:
                level[v] = depth + 1
                parent[v] = u
                marks[v] = 1
                break


def run_cpu(inp, params, timer):
    csr = inp.csr()
    offsets, indices = (csr.host.offsets, csr.host.indices) if csr.host is not None else (csr.offsets, csr.indices)
    n, root = csr.n, params["root"]
    level = np.full(n, -1, dtype=np.int32)
    parent = np.full(n, -1, dtype=index_dtype_for(n))
    marks = np.zeros(n, dtype=np.uint8)
    has_edge = offsets[1:] > offsets[:-1]
    with timer.phase("init", written=8 * n):
        level[root], parent[root] = 0, root
    frontier, depth = np.array([root], dtype=np.int64), 0
    while frontier.shape[0]:
        with timer.phase("level", step=depth, info={"frontier": int(frontier.shape[0])}) as traffic:
            starts, ends = offsets[frontier], offsets[frontier + 1]
            lines = int(np.where(ends > starts, (ends + WIDTH - 1) // WIDTH - starts // WIDTH, 0).sum())
            wanted = (depth and params["mode"] == "auto") or params["mode"] == "bottom-up"
            candidates = np.flatnonzero((level == -1) & has_edge) if wanted else np.zeros(0, dtype=np.int64)
            seconds = {"lines": lines, "stream": indices.shape[0] / WIDTH}
            if candidates.shape[0] and candidates.shape[0] <= lines:
                seconds["bottom-up"] = candidates.shape[0]
            way = choose(params["mode"], "host", seconds)
            if way == "lines":
                _top_down(offsets, indices, frontier, level, parent, depth, marks)
                edges = int((ends - starts).sum())
            elif way == "stream":
                _stream(offsets, indices, level, parent, depth, marks)
                edges = indices.shape[0]
            else:
                _bottom_up(offsets, indices, candidates, level, parent, depth, marks)
                edges = int((offsets[candidates + 1] - offsets[candidates]).sum())   # at most
            following = np.flatnonzero(marks)
            marks[following] = 0
            traffic.add(read=4 * edges + 16 * frontier.shape[0], random=edges, written=8 * following.shape[0])
        frontier = following
        depth += 1
    timer.stat("levels", depth)
    return {"level": level, "parent": parent}


KERNEL = Kernel(name="bfs.emogi", problem=BFS,
                summary="top-down BFS reading a host-placed CSR as whole 128-byte lines, a warp per line, or "
                        "streaming it over the link, per level by the byte model (EMOGI, VLDB 2021)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, needs=("csr",), setup=setup)
