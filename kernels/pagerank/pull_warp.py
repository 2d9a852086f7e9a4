"""pagerank.pull-warp — ``pagerank.pull`` with a group of lanes per vertex and hubs split.

Returns ``{"score"}`` (see the package doc).  The same fused Jacobi pass (``pull.cu``), but
``lanes`` threads (a power of two up to a warp; by default the one nearest half the average
degree) share each vertex: they stride over its row, so consecutive lanes read consecutive
indices (coalesced) and a hub's row is split over up to 32 lanes instead of serialising one
thread; the partial sums meet by shuffles.  The CPU twin is ``pagerank.pull``'s (a core per
vertex at a time is already the whole row in cache lines).
"""

from graphsweep.datasets.params import Param

from ..contract import Kernel
from ..cuda import GRID_PARAMS
from . import PAGERANK, PARAMS
from ..graph.simple import long_rows
from .pull import lanes_for, run_cpu, run_gpu_lanes


def setup(inp, params) -> None:
    if inp.device == "gpu" and params["split"]:
        long_rows(inp, params["split"])


def run_gpu(inp, params, timer):
    return run_gpu_lanes(inp, params, timer, lanes_for(inp.representation("simple"), params["lanes"]),
                         params["split"] or None)


KERNEL = Kernel(name="pagerank.pull-warp", problem=PAGERANK,
                summary="pull PageRank, a group of 1-32 lanes per vertex (coalesced rows, shuffle sums), hub rows "
                        "split over warps, fused update",
                gpu=run_gpu, cpu=run_cpu,
                params={**PARAMS, **GRID_PARAMS,
                        "lanes": Param(None, minimum=1, help="lanes per vertex, a power of two up to 32 (default: "
                                                             "nearest half the average degree)"),
                        "split": Param(4096, minimum=0, help="rows longer than this are summed in chunks of this "
                                                             "many edges, a warp each (0: never)")},
                setup=setup, needs=("simple",))
