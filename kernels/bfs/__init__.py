"""Breadth-first search from a root: level[v] = edges on a shortest path from the root (-1 when v
is unreachable) and parent[v] = v's predecessor on one such path (parent[root] = root, -1 when
unreachable).

Every algorithm in this package takes the shared ``GraphInput`` of a graph dataset (undirected,
or directed as imported: out-edges ``csr()``, in-edges ``rcsr()``) and the ``root`` of the current
instance, and returns ``{"level": int32, "parent": int32}`` (int64 parents past 2^31 vertices) on
the device it ran on.  A run's rate counts input edges (GTEPS = m / time, as Graph500 does).
"""

from ..contract import Param, Problem
from ..graph import graph_input, root_instances
from .verify import verify_bfs

ROOT_PARAM = {"root": Param(None, minimum=0, help="root vertex (default: the sweep's seeded roots of "
                                                  "non-zero degree, or one)")}


def prepare(data):
    return graph_input(data)


def verify_output(inp, params, out) -> dict:
    return verify_bfs(inp, params["root"], out["level"], out["parent"])


def input_edges(inp) -> int:
    return inp.m


BFS = Problem(name="bfs", dataset_kind="graph", prepare=prepare, verify=verify_output, outputs=("level", "parent"),
              element="edge", elements=input_edges, instances=root_instances, baseline="bfs.harish")
