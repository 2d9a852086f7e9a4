"""PageRank of the simple undirected graph (GAPBS's ``pr``): score[v] for every vertex, the
stationary distribution of a surfer who follows a random edge with probability ``DAMPING`` and
jumps to a random vertex otherwise.

    score'[v] = (1 - d) / n + d * (sum over neighbours u of score[u] / degree[u] + dangling / n)

``dangling`` is the score held by vertices without edges (isolated, or only self-loops); with
``dangling: spread`` (the default: the textbook and networkx definition) it is spread evenly, so
the scores sum to 1; ``dangling: gapbs`` drops it as GAPBS does (its vertices keep only the
(1 - d) / n share, and the scores sum to 1 - d * D / (1 - d), D the dangling vertices' scores).
Iterations are Jacobi sweeps from score = 1/n until the L1 change between two sweeps is below
``tolerance`` (GAPBS's default 1e-4) or ``max_iterations`` have run.  Scores are float32, as
GAPBS's ``ScoreT``.  Every algorithm runs on the ``simple`` representation (both directions of
every undirected edge once, no self-loops); a run's rate counts input edges.
"""

from graphsweep.datasets.errors import ParameterError

from ..contract import Param, Problem
from ..graph import graph_input
from .verify import verify_scores

DAMPING = 0.85

PARAMS = {
    "tolerance": Param(1e-4, type=float, minimum=0.0, help="stop when the L1 change between two iterations "
                                                           "is below this (GAPBS: 1e-4)"),
    "max_iterations": Param(100, minimum=1, help="stop after this many iterations at most (GAPBS: 20)"),
    "dangling": Param("spread", type=str, choices=("spread", "gapbs"),
                      help="spread: the score of vertices without edges is shared by all (scores sum to 1); "
                           "gapbs: it is dropped, as GAPBS does"),
}


def prepare(data):
    if data.n == 0:
        raise ParameterError(f"{data.path}: PageRank needs a graph with at least one vertex (n = 0)")
    return graph_input(data)


def verify_output(inp, params, out) -> dict:
    return verify_scores(inp, out["score"], tolerance=params["tolerance"], spread=params["dangling"] == "spread",
                         damping=DAMPING)


def input_edges(inp) -> int:
    return inp.m


PAGERANK = Problem(name="pagerank", dataset_kind="graph", prepare=prepare, verify=verify_output, outputs=("score",),
                   requires=frozenset({"undirected"}), element="edge", elements=input_edges)
