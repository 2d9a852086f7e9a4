"""pagerank.pull-warp — ``pagerank.pull`` with a group of lanes per vertex and long rows split.

Returns ``{"score"}`` (see the package doc).  The same fused Jacobi pass (``pull.cu``), but
``lanes`` threads (a power of two up to a warp) share each vertex: they stride over its row, so
consecutive lanes read consecutive indices (coalesced), and the partial sums meet by shuffles.
Rows longer than ``split`` edges (a Kronecker graph's hubs: one group walking a row of 10^5
edges alone finishes long after the rest) are summed in chunks of ``split`` edges, a warp per
chunk adding its sum to the row's partial sum, then updated by a thread each: three launches per
iteration.  The chunk list (``graph.simple.long_rows``) is made once per graph by ``setup``,
untimed, as ``pagerank.spmv``'s matrix.  Defaults: 4 lanes (the fastest of 1-32) and split 1024
(the fastest of 1024, 4096, 16384 and none) on kron 22 and urand 22 in benchmarks/gap.py (H200).
Splitting took kron 22 from 80 to 40 ms; cuSPARSE's SpMV PageRank still runs in 16 ms there,
so ``pagerank.best`` is ``pagerank.spmv``.  The CPU twin is ``pagerank.pull``'s.
"""

from graphsweep.core.params import Param

from ..contract import Kernel
from ..cuda import GRID_PARAMS
from ..graph.simple import long_rows
from . import DTYPE_PARAM, PAGERANK, PARAMS, check_tolerance
from .pull import run_cpu, run_gpu_lanes


def setup(inp, params) -> None:
    check_tolerance(inp, params)
    if inp.backend == "gpu" and params["split"]:
        long_rows(inp, params["split"])


def run_gpu(inp, params, timer):
    return run_gpu_lanes(inp, params, timer, params["lanes"], params["split"] or None)


KERNEL = Kernel(name="pagerank.pull-warp", problem=PAGERANK,
                summary="pull PageRank, a group of 1-32 lanes per vertex (coalesced rows, shuffle sums), hub rows "
                        "split over warps, fused update",
                gpu=run_gpu, cpu=run_cpu,
                params={**PARAMS, **DTYPE_PARAM, **GRID_PARAMS,
                        "lanes": Param(4, minimum=1, help="lanes per vertex, a power of two up to 32"),
                        "split": Param(1024, minimum=0, help="rows longer than this are summed in chunks of this "
                                                             "many edges, a warp each (0: never)")},
                setup=setup, needs=("simple",))
