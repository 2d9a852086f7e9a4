"""Betweenness centrality (Brandes) of the simple undirected graph, from seeded roots.

Each instance is one root s (``root`` parameter, or the sweep's ``roots`` seeded roots of
non-zero degree, as BFS); its output ``centrality[v]`` is s's dependency on v,
delta_s(v) = sum over t of sigma_st(v) / sigma_st (sigma_st: shortest s-t paths, sigma_st(v):
those through v), with delta_s(s) = 0.  Betweenness from a set of roots is the sum of their
instances' outputs (GAPBS's trial of k roots, ``-i k``, sums k of them); nothing is normalised
(GAPBS divides by the largest score when it prints; networkx by (n-1)(n-2)), and an undirected
pair is counted from each of its ends that is a root.  Path counts and dependencies are float64.

Every algorithm runs on the ``simple`` representation and returns ``{"centrality": float64}`` on
the device it ran on; a run's rate counts input edges (GTEPS, as BFS).
"""

from ..contract import Problem
from ..graph import ROOT_PARAM, graph_input, input_edges, root_instances  # noqa: F401  (ROOT_PARAM: for the kernels)
from .verify import verify_centrality

def verify_output(inp, params, out) -> dict:
    return verify_centrality(inp, params["root"], out["centrality"])


BC = Problem(name="bc", dataset_kind="graph", prepare=graph_input, verify=verify_output, outputs=("centrality",),
             requires=frozenset({"undirected"}), element="edge", elements=input_edges, instances=root_instances)
