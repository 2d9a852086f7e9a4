"""Betweenness centrality (Brandes) of the simple undirected graph, from seeded roots.

Each instance is one root s (``root`` parameter, or the sweep's ``roots`` seeded roots of
non-zero degree, as BFS); its output ``centrality[v]`` is s's dependency on v,
delta_s(v) = sum over t of sigma_st(v) / sigma_st (sigma_st: shortest s-t paths, sigma_st(v):
those through v), with delta_s(s) = 0.  Betweenness from a set of roots is the sum of their
instances' outputs (GAPBS's trial of k roots, ``-i k``, sums k of them); nothing is normalised
(GAPBS divides by the largest score when it prints; networkx by (n-1)(n-2)), and an undirected
pair is counted from each of its ends that is a root.  Path counts and dependencies are float64.

A kernel that takes a ``sources`` parameter (bc.batched) runs several roots in one traversal: its
instances are the drawn roots grouped ``sources`` at a time, ``{"roots": (r0, ..., rk-1)}`` (the
last group may be shorter; a ``root`` parameter gives one group of one), and its output is the sum
of the group's dependencies, as a GAPBS trial sums its roots'.

Every algorithm runs on the ``simple`` representation and returns ``{"centrality": float64}`` on
the device it ran on; a run's rate counts input edges once per root (GTEPS, as BFS: a group of k
roots counts k m, ``Problem.covers``).
"""

from ..contract import Problem
from ..graph import graph_input, input_edges, root_instances
from .verify import verify_centrality


def root_groups(inp, params: dict, count: int | None, seed: int) -> list[dict]:
    """BC's instances: a root each (``graph.root_instances``), or for a kernel with ``sources``,
    the same roots in groups of ``sources`` (the last group may be shorter)."""
    single = root_instances(inp, params, count, seed)
    size = params.get("sources")
    if size is None:
        return single
    roots = [i["root"] for i in single]
    return [{"roots": tuple(roots[i:i + size])} for i in range(0, len(roots), size)]


def roots_of(instance: dict) -> tuple:
    """The roots of an instance: its group, or its one root."""
    return instance["roots"] if "roots" in instance else (instance["root"],)


def verify_output(inp, params, out) -> dict:
    return verify_centrality(inp, roots_of(params), out["centrality"])


BC = Problem(name="bc", dataset_kind="graph", prepare=graph_input, verify=verify_output, outputs=("centrality",),
             requires=frozenset({"undirected"}), element="edge", elements=input_edges, instances=root_groups,
             covers=lambda instance: len(roots_of(instance)))
