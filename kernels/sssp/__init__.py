"""Single-source shortest paths from a root over non-negative integer weights: dist[v] = weight of
a lightest path from the root (-1 when v is unreachable), parent[v] = v's predecessor on one such
path (parent[root] = root, -1 when unreachable).

Every algorithm in this package takes the shared ``GraphInput`` of a weighted graph dataset
(undirected: both directions; directed: out-edges, ``csr()``) and the ``root`` of the current
instance, and returns ``{"dist": int64, "parent": int64}`` on the device it ran on.  Self-loops
never shorten a path (the CSR drops them), duplicate edges act as their lightest copy, zero
weights are allowed; the reader refuses negative weights before any kernel runs.  A run's rate
counts input edges (GTEPS = m / time, as Graph500's SSSP kernel does).
"""

from ..contract import Problem
from ..graph import ROOT_PARAM, graph_input, input_edges, root_instances  # noqa: F401  (ROOT_PARAM: for the kernels)
from .verify import verify_sssp_chunks

def verify(inp, params, out) -> dict:
    return verify_sssp_chunks(inp.n, inp.edge_chunks(), inp.directed, params["root"], out["dist"], out["parent"],
                              inp.xp)


SSSP = Problem(name="sssp", dataset_kind="graph", prepare=graph_input, verify=verify, outputs=("dist", "parent"),
               requires=frozenset({"weighted"}), element="edge", elements=input_edges, instances=root_instances,
               baseline="sssp.harish")
