"""cc.streaming — union-find over a CSR streamed in blocks: the connected components of a graph
placed in host memory, at the link's copy speed.

The labels (n entries) live on the device; the CSR's entries cross the link once, in blocks of
whole rows (``graph.stream``): the copy of the next block overlaps the linking of this one, two
buffers and two streams.  Linking is ECL-CC's: each undirected edge once, from its larger end,
both ends' roots found with path halving and the larger root CAS-hooked under the smaller; the
forest is flattened at the end, so each label is the smallest vertex of its component.  On a
device-placed CSR the same kernel reads the blocks in place.  Target: the whole run within 1.2x
of the time to copy the CSR's bytes at the host-to-device bandwidth (benchmarks/link.py).

CPU twin: the same links over the CSR in host memory, rows in parallel (``numba.prange``).
"""

import numba
import numpy as np

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS, c_type, check_threads, launch, module
from ..graph.stream import BLOCK_ENTRIES, csr_blocks
from . import CC, label_dtype
from .cpu import link, load, root_of, store
from .gpu import types

RUN = 8   # CSR entries per thread in a block: one binary search for the row, then a walk

PARAMS = {**GRID_PARAMS,
          "block_entries": Param(BLOCK_ENTRIES, minimum=1, help="CSR entries per streamed block (two are on "
                                                                "the device at a time)")}


def setup(inp, params):
    """The blocks of the CSR (row bounds from the offsets, once per graph and block size)."""
    csr_blocks(inp, params["block_entries"])


def _traffic(n: int, nnz: int, isz: int, lsz: int, link: int) -> dict:
    return {"init": {"written": n * lsz},
            # every entry read once (and crossing the link when host-placed); per linked edge two
            # finds of at least one random label read each
            "link": {"read": nnz * isz + 8 * (n + 1), "random": nnz, "link": link},
            "flatten": {"read": 2 * n * lsz, "written": n * lsz, "random": n}}


def run_gpu(inp, params, timer):
    import cupy
    csr = inp.csr()
    n = csr.n
    dtype = label_dtype(n)
    blocks = csr_blocks(inp, params["block_entries"])
    threads = check_threads(params["threads"])
    options = (f"-DRUN={RUN}",)
    st, lt = types(csr.indices.dtype, n), c_type(dtype)
    names = (f"graphsweep_cc_stream_init<{lt}>", f"graphsweep_cc_stream_link<{st}>",
             f"graphsweep_cc_stream_flatten<{lt}>")
    mod = module("cc/streaming.cu", options, names)
    init, link_block, flatten = (mod.get_function(name) for name in names)
    parent = cupy.empty(n, dtype=dtype)
    model = _traffic(n, csr.nnz, csr.indices.itemsize, dtype.itemsize, blocks.link_bytes)
    with timer.phase("init", **model["init"]):
        launch(init, n, threads, params["blocks"], parent, np.int64(n))

    def work(block, r0, r1, lo, count):
        launch(link_block, (count + RUN - 1) // RUN, threads, params["blocks"], block, csr.offsets,
               np.int64(r0), np.int64(r1), np.int64(lo), np.int64(count), parent)

    with timer.phase("link", **model["link"]):
        blocks.each(work)
    with timer.phase("flatten", **model["flatten"]):
        launch(flatten, n, threads, params["blocks"], parent, np.int64(n))
    timer.stat("blocks", len(blocks.bounds))
    timer.stat("streamed", blocks.streamed)
    return parent


@numba.njit(parallel=True, cache=True)
def _link_rows(offsets, indices, parent):
    for v in numba.prange(parent.shape[0]):
        for e in range(offsets[v], offsets[v + 1]):
            u = indices[e]
            if u < v:
                link(parent, v, u)


@numba.njit(parallel=True, cache=True)
def _flatten(parent):
    for v in numba.prange(parent.shape[0]):
        store(parent, v, root_of(parent, load(parent, v)))


def run_cpu(inp, params, timer):
    csr = inp.csr()
    n = csr.n
    dtype = label_dtype(n)
    parent = np.empty(n, dtype=dtype)
    offsets, indices = (csr.host.offsets, csr.host.indices) if csr.host is not None else (csr.offsets, csr.indices)
    model = _traffic(n, csr.nnz, indices.itemsize, dtype.itemsize, 0)
    with timer.phase("init", **model["init"]):
        parent[:] = np.arange(n, dtype=dtype)
    with timer.phase("link", **model["link"]):
        _link_rows(offsets, indices, parent)
    with timer.phase("flatten", **model["flatten"]):
        _flatten(parent)
    return parent


KERNEL = Kernel(name="cc.streaming", problem=CC,
                summary="union-find over the CSR streamed in blocks (copy overlapped with linking): CC of a "
                        "graph in host memory at link speed",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, needs=("csr",), setup=setup)
