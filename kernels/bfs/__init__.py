"""Breadth-first search from a root: level[v] = edges on a shortest path from the root (-1 when v
is unreachable) and parent[v] = v's predecessor on one such path (parent[root] = root, -1 when
unreachable).

Every algorithm in this package takes the shared ``GraphInput`` of a graph dataset (undirected,
or directed as imported: out-edges ``csr()``, in-edges ``rcsr()``) and the ``root`` of the current
instance, and returns ``{"level": int32, "parent": int32}`` (int64 parents past 2^31 vertices) on
the device it ran on.  A run's rate counts input edges (GTEPS = m / time, as Graph500 does).
"""

from ..contract import Problem
from ..graph import ROOT_PARAM, graph_input, input_edges, root_instances  # noqa: F401  (ROOT_PARAM: for the kernels)
from .verify import verify_bfs

def verify_output(inp, params, out) -> dict:
    return verify_bfs(inp, params["root"], out["level"], out["parent"])


BFS = Problem(name="bfs", dataset_kind="graph", prepare=graph_input, verify=verify_output, outputs=("level", "parent"),
              element="edge", elements=input_edges, instances=root_instances, baseline="bfs.harish")
