"""pagerank.distributed — PageRank of one graph sliced over K workers (``partitions=K``; the
slices, workers, communicator and ledger are ``kernels/dist``'s).

Returns ``{"score"}`` (see the package doc): the scores ``pagerank.spmv`` (``pagerank.best``)
converges to, within the tolerance the verifier checks.

Algorithm (1-D pull).  Rank i owns the scores of its range.  Once per graph (``setup``, untimed)
each rank makes its product over its rows of the simple graph (duplicate neighbours dropped) and
its vertices' inverse simple degrees (``product``):
  renamed      (auto on the GPU where the 4n bytes of contributions outgrow the L2) each rank
               places its range's vertices by falling degree, the places are all-gathered (int32,
               once) and a copy of the slice's neighbour ids is renamed to them and each row sorted
               again: the contributions gathered most often lie together at the front of each
               range, 32 to a cache line, where R-MAT's hubs were spread over the whole vector.
               Vertices without neighbours (R-MAT 18 / 20: 34 / 38% of them) get no place: no row
               names them, so the vector all-gathered holds only the others' contributions (the
               ranks' counts all-gathered once).  Rows keep their order, so no sum is mapped
               back; each rank gathers its places' contributions from its rows.  The copy is as
               large as the slice (R-MAT 30 at K = 4: 51.5 GB beside it on each H200); where a
               GPU has no room for it (every rank asks, all decide alike) auto takes the slice's
               own ids, and renamed asked for by name is refused in one line.  Summed by
               pull.cu's slice kernels, 8 lanes a row and a warp a chunk of a long row; ``hot``
               > 0 flags the ids past a front of that share of the L2, gathered evict-first.
               1.4-2.0x the other products' speed on R-MAT 26-30 at K = 1-4 (H200s);
  cusparse     ``pagerank.spmv``'s product on the slice's rows (cuSPARSE on the GPU, scipy.sparse
               on the CPU), where its simple entries fit 32-bit offsets;
  warp-rows    pull.cu's slice kernels over the slice as it is (no copy; repeated neighbours
               skipped in the sorted rows): any size.
Every iteration, on every rank in step:
  all-gather   each rank's contributions (score / degree, float32) into the whole vector, every
               rank's piece straight to the others (NCCL: device to device; (K - 1) x 4n bytes in
               all an iteration, 4 bytes a vertex with neighbours for the renamed product);
  pull         the slice's rows times the whole vector and ``pagerank.spmv``'s update, on the slice;
  all-reduce   the L1 change and the dangling score (16 bytes), read on the host: every rank takes
               the same decision to stop (the one host read of an iteration, as pagerank.spmv's).
The dangling score of the last iteration is spread in the next, as in ``pagerank.spmv``.  Summing a
row's own-range entries while the all-gather ran on a stream of its own was tried and dropped: the
two slowed each other (4 x H200, R-MAT 26-30: 2-6% slower in all).

Cost model per iteration: the slowest slice's product (its nonzeros x 4 bytes streamed + a
random 4-byte gather each, from the L2 for the renamed front) + the all-gather ((K - 1) / K x 4n bytes into each rank at the link's
bandwidth) + two collective latencies.  Rows: ``total`` (the slowest rank, barrier to end),
``dispatch`` (the driver's call), a step row per iteration (phase ``iteration``: the slowest
rank's time, its time in collectives, the bytes received); ``iterations``, ``error``,
``converged``, ``product`` (the one that ran) and the ledger's statistics.
"""

from functools import partial
from typing import NamedTuple

import numpy as np
from graphsweep.core.capacity import NoRoomError, device_memory, format_bytes
from graphsweep.core.errors import ParameterError

from ..contract import Kernel, Param
from ..cuda import blocks_for, l2_bytes, module, resident_blocks
from ..dist import PARAMS as PARTITION_PARAMS
from ..dist import Ledger, Remote, collect, partitioned, shuffle, slice_graph
from ..dist import verify as partitioned_verify
from ..graph.simple import row_chunks
from . import DAMPING, PAGERANK
from . import PARAMS as PAGERANK_PARAMS

# It starts from 1/n (GAPBS's start; no ``start``): its figures are per iteration, against K = 1.
PARAMS = {**{name: p for name, p in PAGERANK_PARAMS.items() if name != "start"}, **PARTITION_PARAMS,
          "product": Param("auto", str, choices=("auto", "cusparse", "warp-rows", "renamed"),
                           help="the slice's product on the GPU: cuSPARSE's on its simple rows (32-bit offsets), "
                                "lanes a row over the slice as it is (duplicates skipped in the sorted rows, long "
                                "rows a warp a chunk; no copy), or those lanes over a copy of the slice's neighbour "
                                "ids renamed so that each slice's contributions lie in order of degree (the most "
                                "gathered first: they share cache lines and stay in the L2); auto: renamed where "
                                "the contributions (4n bytes) outgrow the L2, else cuSPARSE where the slice's "
                                "simple entries fit 32 bits"),
          "hot": Param(0.0, float, minimum=0.0, maximum=1.0,
                       help="the renamed product on the GPU: the share of the L2 the hot front of the "
                            "contributions takes (split evenly over the slices' ranges); gathers past it are read "
                            "evict-first so they do not push the front out (0: every gather alike; 0.5 ran 6% "
                            "faster on R-MAT 30, 5-13% slower on R-MAT 26 and 28, 4 x H200)")}
NAME = "pagerank.distributed"
KEY = "pagerank-matrix"
INT32_MAX = np.iinfo(np.int32).max
WARP_THREADS = 256
SLICE_LANES = 8       # lanes a row of pull.cu's slice_sum (R-MAT's rows: most short, most entries in long ones)
SLICE_SPLIT = 1024    # rows longer than this are summed a warp a chunk of it (slice_heavy)
DEGREE_CAP = (1 << 31) - 1    # degrees at or past this sort together (the renamed product's keys: degree, then id)
RENAME_CHUNK = 1 << 26        # neighbour ids renamed at a time (the gather's temporaries kept small beside the slice)


class _Product(NamedTuple):
    """What setup keeps with a slice for its iterations."""
    pull: object        # the contributions of every vertex -> the rows' sums
    weights: object     # a contribution is score x weight: the inverse simple degrees of its rows (renamed: of
                        # the rows placed, in place order)
    dangling: object    # the rows without neighbours
    nnz: int            # the simple graph's entries in the rows
    placed: object      # renamed: the rows of the vertices with neighbours, in place order (None: ids as they are)
    bounds: tuple       # each rank's range of the contributions' vector (renamed: its vertices with neighbours)
    chosen: str         # the product that runs (auto settled)


def _matrix(rank, product: str, hot: float) -> dict:
    """Set-up on every rank in step (the renamed product all-gathers its positions): the slice's
    product, kept with the slice."""
    _slice_matrix(rank.slice, rank.comm, product, hot)
    return {}


def _slice_matrix(s, comm, product: str, hot: float) -> int:
    """This slice's product (the contributions of every vertex in, its rows' sums out), its
    vertices' inverse simple degrees, its dangling vertices and, for the renamed product, where
    each of its vertices' contributions lies in its range (kept with the slice); returns the simple
    graph's entries in its rows."""
    scratch = s.claim(NAME)
    if (KEY, product, hot) in scratch:
        return scratch[KEY, product, hot].nnz
    for other in [key for key in scratch if isinstance(key, tuple) and key[0] == KEY]:
        del scratch[other]      # one product's at a time (a renamed copy is as large as the slice)
    xp, placed, bounds = s.xp, None, tuple(int(b) for b in s.bounds)
    chosen = choose(product, s.backend, s.n, l2_bytes() if s.backend == "gpu" else 0)
    if chosen == "renamed" and int(comm.allreduce_host([0 if _room_for_copy(s) else 1])[0]):
        # a GPU without room for the copy: every rank takes the slice's own ids (they decide alike)
        if product == "renamed":
            raise NoRoomError(f"pagerank.distributed product=renamed: a GPU has no room for its copy of the "
                              f"slice's neighbour ids ({format_bytes(_copy_bytes(s))} with its set-up); use "
                              f"product=warp-rows (no copy) or more partitions")
        chosen = "auto"
    if chosen == "renamed":
        if s.backend == "gpu":
            inverse, nnz = _simple_degrees(s)
        else:
            matrix, inverse = _simple_rows(s, s.csr.indices)
            nnz = int(matrix.nnz)
            del matrix
        front = int(hot * l2_bytes()) // (4 * comm.size) if s.backend == "gpu" else 0
        placed, bounds, indices = _renamed(s, comm, inverse, front)
        pull = (_warp_rows(s, indices, front > 0) if s.backend == "gpu"
                else _simple_rows(s, indices, bounds[-1])[0].__matmul__)
    elif s.backend == "gpu" and chosen != "cusparse":
        inverse, nnz = _simple_degrees(s)
        if chosen == "warp-rows" or nnz > INT32_MAX:
            pull, chosen = _warp_rows(s, s.csr.indices, False), "warp-rows"
        else:
            pull, chosen = _simple_rows(s, s.csr.indices)[0].__matmul__, "cusparse"
    else:
        matrix, inverse = _simple_rows(s, s.csr.indices)
        pull, nnz = matrix.__matmul__, int(matrix.nnz)
    weights = inverse if placed is None else inverse[placed]
    scratch[KEY, product, hot] = _Product(pull, weights, xp.flatnonzero(inverse == 0), nnz, placed, bounds, chosen)
    scratch["pagerank-contrib"] = xp.empty(bounds[-1], dtype=np.float32)
    return nnz


def choose(product: str, backend: str, n: int, l2: int) -> str:
    """The product asked for, settled as far as the graph's size goes: auto is renamed on the GPU
    where the 4n bytes of contributions outgrow the L2 (1.4-1.9x faster than cuSPARSE or
    warp-rows on R-MAT 26 to 30 at K = 1 to 4, 4 x H200); on the CPU anything but renamed is
    scipy's product on the slice's own ids."""
    if product == "renamed" or (product == "auto" and backend == "gpu" and 4 * n > l2):
        return "renamed"
    return product if backend == "gpu" else "scipy"


COPY_SLACK = 4 << 30      # the renamed copy's set-up beside it: the sort's keys and scratch, the rename's chunks


def _copy_bytes(s) -> int:
    """What the renamed product's set-up needs beside the slice: the copy, the places of every
    vertex (int32, all-gathered) and ``COPY_SLACK``."""
    return s.csr.indices.nbytes + 4 * s.n + COPY_SLACK


def _room_for_copy(s) -> bool:
    """Whether this rank's GPU has room for the renamed copy now (``capacity.device_memory``: free
    device memory and the pool's free blocks; the capacity planner counts the slice, not a kernel's
    copy of it).  On the CPU the copy is not checked."""
    return s.backend != "gpu" or device_memory() >= _copy_bytes(s)


def _renamed(s, comm, inverse, front: int = 0):
    """Each slice's vertices with neighbours placed in its range of the contributions' vector by
    falling degree (ties by id; the ranges one after another, each as long as its vertices with
    neighbours: the others, named by no row, get no place), and a copy of this slice's neighbour
    ids renamed to those places: the contributions gathered most often then lie together at the
    front of each range, 32 to a cache line, where R-MAT's hubs were spread over the whole vector.
    Rows stay as they are (their sums need no mapping back); each row's renamed ids are sorted
    again (repeated neighbours next to each other, as the product skips them; a row's lanes reading
    the front of a range read it a line at a time).  Where ``front`` > 0 (the GPU), an id past the
    first ``front`` places of its range has its sign bit set (pull.cu reads those evict-first).
    Returns (the rows of this slice's vertices with neighbours in place order, the K + 1 bounds of
    the ranges, the renamed neighbour ids)."""
    xp, size, k = s.xp, s.size, comm.size
    # 1 / inverse is the simple degree (0: none; rounded past 2^24, where a hub's exact place does
    # not matter); sort keys fall with degree, then rise with id
    degree = xp.where(inverse > 0, xp.rint(1.0 / xp.maximum(inverse, 1e-30)), 0).astype(np.int64)
    keys = ((DEGREE_CAP - xp.minimum(degree, DEGREE_CAP)) << 32) | xp.arange(size, dtype=np.int64)
    order = (xp.sort(keys) & 0xFFFFFFFF).astype(np.int64)
    live = int((degree > 0).sum())          # the rows with neighbours: the front of the order
    del keys, degree
    counts = xp.zeros(k, dtype=np.int64)
    counts[s.index] = live
    comm.allgatherv(counts, np.arange(k + 1))
    bounds = tuple(int(b) for b in np.concatenate([[0], np.cumsum(comm.host(counts))]))
    place = xp.empty(size, dtype=np.int32)
    place[order] = xp.arange(size, dtype=np.int32)
    placed = order[:live].astype(np.int32)          # kept: 4 bytes a row, not the order's 8
    del order
    names = xp.empty(s.n, dtype=np.int32)
    names[s.lo:s.hi] = place + np.int32(bounds[s.index])     # past `live`: never named by a row
    del place
    comm.allgatherv(names, s.bounds)
    indices = xp.empty_like(s.csr.indices)
    for start in range(0, s.csr.nnz, RENAME_CHUNK):
        stop = min(start + RENAME_CHUNK, s.csr.nnz)
        indices[start:stop] = names[s.csr.indices[start:stop]]
    del names
    shuffle.sort_rows(comm, s.csr.offsets, indices, shuffle.SORT_ENTRIES)
    if front:
        starts = xp.asarray(bounds)
        for start in range(0, s.csr.nnz, RENAME_CHUNK):
            part = indices[start:start + RENAME_CHUNK]
            first = starts[xp.searchsorted(starts, part, side="right") - 1]
            part |= xp.where(part - first >= front, np.int32(np.iinfo(np.int32).min), np.int32(0))
    return placed, bounds, indices


def _simple_rows(s, indices, width: int | None = None):
    """The slice's rows of the simple graph's adjacency matrix over neighbour ids ``indices`` (the
    slice's, or renamed; duplicate neighbours dropped, float32 ones, shape (its rows) x ``width``,
    n by default; cuSPARSE on the GPU, scipy.sparse on the CPU) and the inverse degrees."""
    xp, csr, size = s.xp, s.csr, s.size
    rows = s.rows()
    first = xp.ones(csr.nnz, dtype=np.bool_)
    if csr.nnz:
        first[1:] = (indices[1:] != indices[:-1]) | (rows[1:] != rows[:-1])
    cols = indices[first]
    degree = xp.bincount(rows[first], minlength=size)[:size]
    offsets = xp.zeros(size + 1, dtype=np.int64)
    xp.cumsum(degree, out=offsets[1:])
    if s.backend == "gpu" and cols.shape[0] > INT32_MAX:
        raise ParameterError(f"pagerank.distributed: slice {s.index} holds {cols.shape[0]:,} simple entries, more "
                             f"than the 32-bit offsets of cuSPARSE's product take; use product=warp-rows or auto")
    values = xp.ones(cols.shape[0], dtype=np.float32)
    shape = (size, s.n if width is None else width)
    if s.backend == "gpu":
        import cupyx.scipy.sparse as sparse
        matrix = sparse.csr_matrix((values, cols.astype(np.int32), offsets.astype(np.int32)), shape=shape)
    else:
        import scipy.sparse as sparse
        matrix = sparse.csr_matrix((values, cols, offsets), shape=shape)
    inverse = xp.where(degree > 0, 1.0 / xp.maximum(degree, 1), 0.0).astype(np.float32)
    return matrix, inverse


def _simple_degrees(s):
    """pull.cu's count of each row's distinct neighbours over the slice as it is: the inverse
    degrees and the simple entries (the choice between the products needs the count, not a copy)."""
    import cupy
    csr, size = s.csr, s.size
    inverse, total = cupy.zeros(size, dtype=np.float32), cupy.zeros(1, dtype=np.uint64)
    if size:
        degree = module("pagerank/pull.cu").get_function("graphsweep_pagerank_slice_degree")
        blocks = min(resident_blocks(WARP_THREADS), blocks_for(32 * size, WARP_THREADS))
        degree((blocks,), (WARP_THREADS,), (csr.offsets, csr.indices, np.int64(size), inverse, total))
    return inverse, int(total.get()[0])


def _warp_rows(s, indices, cold_flagged: bool):
    """pull.cu's slice kernels over the slice's rows with neighbour ids ``indices`` (the slice's: no
    copy; or renamed, cold ones flagged or not; any number of entries): the product."""
    import cupy
    csr, size = s.csr, s.size
    flag = "true" if cold_flagged else "false"
    names = (f"graphsweep_pagerank_slice_sum<{SLICE_LANES}, {flag}>", f"graphsweep_pagerank_slice_heavy<{flag}>")
    mod = module("pagerank/pull.cu", name_expressions=names)
    short, heavy = (mod.get_function(name) for name in names)
    _, chunk_row, chunk_begin = row_chunks(cupy, csr.offsets, csr.degree(), SLICE_SPLIT)
    chunks = int(chunk_row.shape[0])
    rows_blocks = min(resident_blocks(WARP_THREADS), blocks_for(SLICE_LANES * max(size, 1), WARP_THREADS))
    chunk_blocks = min(resident_blocks(WARP_THREADS), blocks_for(32 * max(chunks, 1), WARP_THREADS))
    incoming = cupy.empty(size, dtype=np.float32)

    def pull(contrib):
        if size:
            short((rows_blocks,), (WARP_THREADS,), (csr.offsets, indices, contrib, np.int64(size),
                                                    np.int64(SLICE_SPLIT), incoming))
        if chunks:
            heavy((chunk_blocks,), (WARP_THREADS,), (csr.offsets, indices, contrib, chunk_row, chunk_begin,
                                                     np.int64(chunks), np.int64(SLICE_SPLIT), incoming))
        return incoming
    return pull


def _iterate(rank, max_iterations: int, tolerance: float, spread: bool, product: str, hot: float) -> dict:
    """Every iteration on this rank's rows, in step with the others (see the module doc)."""
    s, xp, comm = rank.slice, rank.xp, rank.comm
    n = s.n
    if (KEY, product, hot) not in s.claim(NAME):     # another kernel claimed the slice since setup
        _slice_matrix(s, comm, product, hot)
        rank.restart()
    pull, weights, dangling_vertices, _, placed, bounds, chosen = s.scratch[KEY, product, hot]   # a _Product
    contrib = s.scratch["pagerank-contrib"]
    mine = contrib[bounds[s.index]:bounds[s.index + 1]]
    score = xp.full(s.size, 1.0 / n, dtype=np.float32)
    dangling = float(comm.allreduce_host([dangling_vertices.shape[0]])[0]) / n
    steps, error = [], float("inf")
    for it in range(max_iterations):
        start = rank.mark()
        xp.multiply(score if placed is None else score[placed], weights, out=mine)
        comm.allgatherv(contrib, bounds)
        incoming = pull(contrib)
        share = np.float32(dangling / n if spread else 0.0)
        updated = np.float32((1.0 - DAMPING) / n) + np.float32(DAMPING) * (incoming + share)
        local = xp.stack([xp.abs(updated - score).sum(dtype=np.float64),
                          updated[dangling_vertices].sum(dtype=np.float64)])
        error, dangling = (float(v) for v in comm.host(comm.allreduce(local)))
        score = updated
        steps.append(rank.since(start, step=it))
        if error < tolerance:
            break
    rank.keep(score=score)
    return {"steps": steps, "error": error, "product": chosen}


def _run(inp, params, timer, backend: str):
    part = partitioned(inp, params, backend)
    ledger = Ledger(part, timer)
    records = ledger.run(_iterate, params["max_iterations"], params["tolerance"], params["dangling"] == "spread",
                         params["product"], params["hot"], name=NAME)
    ledger.steps("iteration")
    iterations, error = len(records[0]["steps"]), records[0]["error"]
    timer.stat("iterations", iterations)
    timer.stat("error", error)
    timer.stat("converged", error < params["tolerance"])
    timer.stat("product", records[0]["product"])
    return Remote(part, ("score",), backend)


def setup(inp, params):
    """Slice the graph and make each slice's matrix rows before warm-up (untimed)."""
    part = slice_graph(inp, params)
    part.spmd(_matrix, params["product"], params["hot"], name="pagerank.distributed-matrix")


def _check(output: Remote, params: dict) -> dict:
    return partitioned_verify.check(output, partitioned_verify.pagerank, params["tolerance"],
                                    params["dangling"] == "spread", DAMPING)


KERNEL = Kernel(name=NAME, problem=PAGERANK,
                summary="one graph sliced over K workers: pull PageRank, each rank's rows times the contributions "
                        "all-gathered every iteration (NCCL between GPUs)",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=setup,
                drives_workers=True, collect=collect, check=_check)
