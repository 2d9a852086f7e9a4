"""pagerank.blocked — pull PageRank on the graph renamed by degree, its columns cut into blocks
that fit the L2.

Returns ``{"score"}`` (float32, or float64 with ``dtype``; see the package doc), in the dataset's
ids.  Runs on the graph renamed for its gathers' locality, built once per graph and timed apart as
``input`` phases: by degree (``by-degree``, ``graph.by_degree``: descending), or in BFS order
(``by-bfs``, ``bfs.by_bfs``, and its simple graph, ``by-bfs.simple``) where every degree is at most
``by_bfs.NARROW_DEGREE`` (road maps and grids: no hubs, and shuffled ids would scatter every gather), so
whatever order the ids came in:

- a skewed graph's gathers land on its hubs, now the first few cache lines of the contribution
  array (R-MAT 24: 86% of the edges end at the 6% highest-degree vertices);
- the columns are cut into ``column_blocks`` blocks, and an iteration sums every row's entries
  of one block before the next, so its gathers read one block's contributions: a window of
  n / blocks values that stays in the L2 (uniform degree 2^24, whose 64 MB of float32
  contributions exceed the H200's 60 MB L2: 7.7 ms a product with cuSPARSE, 4.4 with 4 blocks);
- rows of one degree class are contiguous, so each class of each block gets its own lanes a row
  (a power of two up to 32 near the class's mean entries in the block / ``edges_per_lane``);
  rows longer than ``split`` entries in a block are summed in chunks, a warp a chunk.

Default blocks (``column_blocks: 0``): the fewest whose window holds the contributions of the
vertices that receive 90% of the edges (the top of the degree order: the degree distribution
decides, not the ids) within a third of the device's L2 — on an H200, 1 on R-MAT 24, 3 on
uniform 2^24 (within 5% of the best count, 4).
An iteration: the block sums (phase ``iteration``), then one pass updating every score and
contribution with the L1 change, which the host reads (GAPBS's test); the scores are mapped back
to the dataset's ids by one gather (phase ``map``).  CPU twin: ``pagerank.pull``'s fused pass on
the same renamed graph (blocks only order the GPU's work), mapped back the same way.
"""

import math

import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import array_module, to_host
from graphsweep.core.params import Param

from ..bfs import by_bfs
from ..contract import Kernel
from ..cuda import check_threads, module, resident_blocks
from ..graph.by_degree import RenamedCSR
from ..graph.simple import row_chunks
from . import DAMPING, DTYPE_PARAM, PAGERANK, PARAMS, check_tolerance, start_of
from .pull import check_gpu_graph, iterate_cpu, stats

# Lower bounds of the degree classes, each its own range of rows (the by-degree order makes each contiguous).
CLASSES = (1024, 256, 64, 32, 16, 8, 4, 2, 1, 0)
COVERED = 0.9      # the share of edges whose source contributions a block's window should hold
WINDOW_SHARE = 3   # a window is at most 1 / WINDOW_SHARE of the L2
MAX_BLOCKS = 16


def default_blocks(csr, itemsize: int, l2_bytes: int) -> int:
    """The fewest column blocks whose window holds the contributions of the vertices receiving
    ``COVERED`` of the edges (the highest degrees: a symmetric graph's column counts are its
    degrees) in 1 / WINDOW_SHARE of the L2."""
    if csr.nnz == 0:
        return 1
    xp = array_module(csr.offsets)
    received = xp.cumsum(xp.sort(csr.degree())[::-1])
    reach = int(xp.searchsorted(received, COVERED * csr.nnz, side="left"))
    return max(1, min(MAX_BLOCKS, math.ceil(reach * itemsize * WINDOW_SHARE / l2_bytes)))


def lanes_for(entries: int, rows: int, edges_per_lane: int) -> int:
    """A power of two from 1 to 32, at most the rows' mean entries / ``edges_per_lane``."""
    lanes = 1
    while lanes < 32 and 2 * lanes * edges_per_lane * rows <= entries:
        lanes *= 2
    return lanes


def column_split(xp, csr, blocks: int):
    """``csr``'s entries by column block: (offsets, indices) of each block, columns [b w, (b + 1) w)
    for w = ceil(n / blocks); each row's entries stay sorted."""
    if blocks == 1:
        return [(csr.offsets, csr.indices)]
    n = csr.n
    width = -(-n // blocks)
    rows = (xp.searchsorted(csr.offsets, xp.arange(csr.nnz, dtype=np.int64), side="right") - 1).astype(np.int64)
    which = (csr.indices // width).astype(np.int64)
    counts = xp.bincount(which * n + rows, minlength=blocks * n).reshape(blocks, n)
    del rows
    out = []
    for b in range(blocks):
        offsets = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(counts[b], out=offsets[1:])
        out.append((offsets, csr.indices[which == b]))
    return out


def plan(inp, params) -> dict:
    """The column blocks, their degree-class ranges and lanes, and their long rows' chunks: made
    once per graph and (blocks, split, edges per lane), cached on the input (``setup``, untimed,
    as ``pagerank.spmv``'s matrix)."""
    xp = inp.xp
    csr = renamed(inp)
    dtype = np.dtype(params["dtype"])
    if not params["column_blocks"] and ("pagerank.blocked", dtype.itemsize) not in inp.cache:
        inp.cache["pagerank.blocked", dtype.itemsize] = default_blocks(csr, dtype.itemsize, _l2_bytes())
    blocks = params["column_blocks"] or inp.cache["pagerank.blocked", dtype.itemsize]
    if blocks > MAX_BLOCKS:
        raise ParameterError(f"parameter 'column_blocks': {blocks} is more than {MAX_BLOCKS}")
    key = ("pagerank.blocked", blocks, params["split"], params["edges_per_lane"])
    if key in inp.cache:
        return inp.cache[key]
    degree = np.diff(to_host(csr.offsets))
    bounds = [0]
    for low in CLASSES if (degree[:-1] >= degree[1:]).all() else (0,):    # BFS order: one range
        end = int(np.searchsorted(-degree, -low, side="right")) if low else csr.n
        if end > bounds[-1]:
            bounds.append(end)
    parts = []
    for b, (block_offsets, block_indices) in enumerate(column_split(xp, csr, blocks)):
        at = to_host(block_offsets[xp.asarray(bounds)])
        ranges = [(lo, hi, lanes_for(int(at[i + 1] - at[i]), hi - lo, params["edges_per_lane"]))
                  for i, (lo, hi) in enumerate(zip(bounds, bounds[1:]))
                  if b == 0 or at[i + 1] > at[i]]     # the first block sets every sum, the others add
        _, chunk_vertex, chunk_begin = row_chunks(xp, block_offsets, block_offsets[1:] - block_offsets[:-1],
                                                  params["split"])
        parts.append({"offsets": block_offsets, "indices": block_indices, "ranges": ranges,
                      "chunk_vertex": chunk_vertex, "chunk_begin": chunk_begin})
    inp.cache[key] = {"blocks": blocks, "parts": parts}
    return inp.cache[key]


def _l2_bytes() -> int:
    import cupy
    return int(cupy.cuda.Device().attributes["L2CacheSize"])


def renamed(inp):
    """The simple graph renamed for its gathers' locality (a ``RenamedCSR``), made once per graph: by
    degree, or in BFS order where every degree is at most by_bfs.NARROW_DEGREE (a road map or grid has no
    hubs, and its shuffled ids would scatter every gather: the 4096^2 grid 23.4 ms in generation
    order, 29.8 shuffled, renamed by degree)."""
    if "pagerank.blocked.csr" not in inp.cache:
        if _narrow(inp):
            bfs = inp.representation("by-bfs")
            simple = bfs.graph.representation("simple")
            inp.cache["pagerank.blocked.csr"] = RenamedCSR(simple.offsets, simple.indices, None, simple.n,
                                                           order=bfs.order, rename=bfs.rename)
        else:
            inp.cache["pagerank.blocked.csr"] = inp.representation("by-degree")
    return inp.cache["pagerank.blocked.csr"]


def _narrow(inp) -> bool:
    return by_bfs.narrow(inp.representation("simple"))


def _builds(inp) -> list:
    """The renamed graph's timed builds (rows: built now the first time, cached after)."""
    if not _narrow(inp):
        return inp.build(["by-degree"])
    rows = inp.build(["by-bfs"])
    return rows + [{**row, "phase": "by-bfs.simple"} for row in inp.representation("by-bfs").graph.build(["simple"])]


def setup(inp, params) -> list:
    """The tolerance check, the renamed graph and, on the GPU, the plan; returns the renamed graph's
    build rows (the harness adds them to the input rows)."""
    check_tolerance(inp, params)
    built = _builds(inp)         # first, so the builds are timed (renamed() then finds them made)
    renamed(inp)
    if inp.backend == "gpu":
        check_gpu_graph(inp.representation("simple"))
        plan(inp, params)
    return built


def iteration_traffic(n: int, nnz: int, blocks: int, size: int) -> dict:
    """Per block: its offsets (8 B a vertex) and the sums read back (after the first); per entry a
    4-byte index and a gather.  The update reads offsets, sums and scores and writes scores and
    contributions."""
    return {"read": blocks * 8 * (n + 1) + (blocks - 1) * size * n + 4 * nnz + 8 * (n + 1) + 2 * size * n,
            "written": blocks * size * n + 2 * size * n, "random": nnz}


def run_gpu(inp, params, timer):
    import cupy
    csr = renamed(inp)
    n, nnz = csr.n, csr.nnz
    threads = check_threads(params["threads"])
    chosen = plan(inp, params)
    dtype = np.dtype(params["dtype"])
    real = "float" if dtype == np.float32 else "double"
    names = {"init": f"graphsweep_pagerank_init<{real}>", "heavy": f"graphsweep_pagerank_heavy_sums<{real}>",
             "update": f"graphsweep_pagerank_blocked_update<{real}>",
             **{lanes: f"graphsweep_pagerank_blocked_sum<{real}, {lanes}>" for lanes in (1, 2, 4, 8, 16, 32)}}
    mod = module("pagerank/blocked.cu", name_expressions=tuple(names.values()))
    fn = {k: mod.get_function(name) for k, name in names.items()}
    score, contrib, incoming = (cupy.empty(n, dtype=dtype) for _ in range(3))
    iterations = params["max_iterations"]
    sums = cupy.zeros((iterations + 1, 2), dtype=np.float64)
    resident = resident_blocks(threads)
    base, damping = dtype.type((1.0 - DAMPING) / n), dtype.type(DAMPING)
    spread = np.int32(params["dangling"] == "spread")
    split = np.int64(params["split"])
    a, c = start_of(inp, params, timer)
    with timer.phase("init", read=8 * (n + 1), written=2 * dtype.itemsize * n):
        fn["init"]((min(resident, -(-n // threads)),), (threads,),
                   (csr.offsets, score, contrib, sums, np.int32(n), np.float64(a), np.float64(c)))
    errors = []
    for it in range(iterations):
        with timer.phase("iteration", step=it, info={"error": lambda it=it: errors[it]},
                         **iteration_traffic(n, nnz, chosen["blocks"], dtype.itemsize)):
            for b, part in enumerate(chosen["parts"]):
                for lo, hi, lanes in part["ranges"]:
                    grid = min(resident, -(-(hi - lo) * lanes // threads))
                    fn[lanes]((grid,), (threads,), (part["offsets"], part["indices"], contrib, incoming,
                                                    np.int64(lo), np.int64(hi), split, np.int32(b > 0)))
                chunks = int(part["chunk_vertex"].shape[0])
                if chunks:
                    fn["heavy"]((min(resident, -(-chunks * 32 // threads)),), (threads,),
                                (part["offsets"], part["indices"], contrib, part["chunk_vertex"], part["chunk_begin"],
                                 np.int64(chunks), split, incoming))
            fn["update"]((min(resident, -(-n // threads)),), (threads,),
                         (csr.offsets, incoming, score, contrib, sums[it], sums[it + 1], np.int32(n), base, damping,
                          spread))
        errors.append(float(sums[it + 1, 0].get()))     # GAPBS's test after every iteration: a host read
        if errors[-1] < params["tolerance"]:
            break
    stats(timer, errors, params["tolerance"])
    timer.stat("column_blocks", chosen["blocks"])
    return {"score": _mapped_back(cupy, csr, score, timer)}


def _mapped_back(xp, csr, score, timer):
    """The scores in the dataset's ids: a gather through ``rename``."""
    with timer.phase("map", read=csr.rename.itemsize * csr.n, written=score.itemsize * csr.n, random=csr.n):
        return xp.take(score, csr.rename)


def run_cpu(inp, params, timer):
    csr = renamed(inp)
    return {"score": _mapped_back(np, csr, iterate_cpu(csr, params, timer, start_of(inp, params, timer)), timer)}


KERNEL = Kernel(name="pagerank.blocked", problem=PAGERANK,
                summary="pull PageRank on the graph renamed by degree, columns in L2-sized blocks, lanes per "
                        "degree class, four gathers in flight a lane",
                gpu=run_gpu, cpu=run_cpu,
                params={**PARAMS, **DTYPE_PARAM,
                        "threads": Param(256, minimum=32, help="threads per block (a multiple of 32)"),
                        "column_blocks": Param(0, minimum=0,
                                               help="column blocks (0: the fewest whose window holds the sources "
                                                    "of 90% of the edges in a third of the L2)"),
                        "split": Param(16384, minimum=1, help="a row with more entries in a block is summed in "
                                                              "chunks of this many, a warp a chunk"),
                        "edges_per_lane": Param(2, minimum=1, help="lanes a row: a power of two up to 32, at most "
                                                                   "its class's mean entries in the block / this")},
                setup=setup, needs=("simple",))
