"""Triangle counting on the simple undirected graph: triangles[v], the triangles through vertex v
(their sum is three times the graph's triangle count, which every run's statistics carry as
``triangles``).

Every algorithm here takes the ``oriented`` representation (``kernels/graph/simple.py``: self-loops
and duplicate edges removed, each edge once from its lower to its higher end in (degree, id)
order, rows sorted by id), so each triangle is found once, at its edge between its two lowest
vertices, and returns ``{"triangles": int64}`` on the device it ran on.  A run's rate counts input
edges.  A directed dataset is refused (triangles of an undirected graph only).
"""

from ..contract import Problem
from ..graph import graph_input, input_edges
from .verify import verify_triangles


def verify_output(inp, params, out) -> dict:
    return verify_triangles(inp, out["triangles"])


TC = Problem(name="tc", dataset_kind="graph", prepare=graph_input, verify=verify_output, outputs=("triangles",),
             requires=frozenset({"undirected"}), element="edge", elements=input_edges)
