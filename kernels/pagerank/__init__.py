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

float32 scores stop converging where rounding moves them as much as an iteration does: the L1
change then wanders at a floor instead of falling.  Measured on the CPU with each row summed in
a different order every iteration (as split rows' atomics and cuSPARSE sum on the GPU; a fixed
order, the CPU twin's, stalls lower), the floor is 0.15-0.23 x 2^-24 x sqrt(R), R = sum(d^2) / sum(d)
of the simple graph's degrees (the degree of the vertex an edge's end lands on, on average):
R-MAT 10 ... 18 (R 98 ... 1245) 1.1e-7 ... 3.4e-7, uniform degree 8 at 10^3 ... 10^6 vertices
(R 9) 3.7e-8 ... 4.0e-8.  A ``tolerance`` below ``reachable_tolerance`` (2^-24 x sqrt(R): 4-7x
that floor) is refused before any iteration rather than run to ``max_iterations`` and fail.
"""

import math

import numpy as np

from graphsweep.core.errors import ParameterError

from ..contract import Param, Problem
from ..graph import graph_input, input_edges
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


def reachable_tolerance(csr) -> float:
    """The smallest ``tolerance`` float32 scores reach on the simple graph ``csr`` (see the module
    doc), rounded up to two significant digits: the figure a refusal names is itself reachable."""
    degree = csr.degree().astype(np.float64)
    edges = float(degree.sum())
    floor = 2.0**-24 * max(1.0, float((degree * degree).sum()) / edges if edges else 1.0) ** 0.5
    unit = 10.0 ** (math.floor(math.log10(floor)) - 1)
    return math.ceil(floor / unit) * unit


def check_tolerance(inp, params) -> None:
    """Refuse a tolerance float32 scores cannot reach on ``inp`` (one line: the value, the floor);
    the floor is computed once per graph (``pagerank.spmv`` checks again inside its runs)."""
    if "pagerank.reachable" not in inp.cache:
        inp.cache["pagerank.reachable"] = reachable_tolerance(inp.representation("simple"))
    floor = inp.cache["pagerank.reachable"]
    if params["tolerance"] < floor:
        raise ParameterError(f"parameter 'tolerance': {params['tolerance']:g} is below what float32 scores reach on "
                             f"this graph; the smallest reachable is {floor:.2g}")


def verify_output(inp, params, out) -> dict:
    return verify_scores(inp, out["score"], tolerance=params["tolerance"], spread=params["dangling"] == "spread",
                         damping=DAMPING)


PAGERANK = Problem(name="pagerank", dataset_kind="graph", prepare=prepare, verify=verify_output, outputs=("score",),
                   requires=frozenset({"undirected"}), element="edge", elements=input_edges)
