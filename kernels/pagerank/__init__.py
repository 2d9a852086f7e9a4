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
GAPBS's ``ScoreT``, or float64 with ``dtype: float64`` (as cuGraph offers; ``pull``, ``pull-warp``
and ``spmv``, hence ``pagerank.best``).  Every algorithm runs on the ``simple`` representation
(both directions of every undirected edge once, no self-loops); a run's rate counts input edges.

Scores stop converging where rounding moves them as much as an iteration does: the L1 change then
wanders at a floor instead of falling.  Measured on the CPU with each row summed in a different
order every iteration (as split rows' atomics and cuSPARSE sum on the GPU; a fixed order, the CPU
twin's, stalls lower), the floor is 0.15-0.23 x u x sqrt(R), u the score type's unit roundoff
(2^-24 for float32, 2^-53 for float64: the same factor for both, R-MAT 12 and 14 and uniform
degree 8), R = sum(d^2) / sum(d) of the simple graph's degrees (the degree of the vertex an edge's
end lands on, on average): float32 on R-MAT 10 ... 18 (R 98 ... 1245) 1.1e-7 ... 3.4e-7, uniform
degree 8 at 10^3 ... 10^6 vertices (R 9) 3.7e-8 ... 4.0e-8.  The vertex count does not enter:
the scores sum to 1, so the n roundings the L1 change adds up are each of a score near 1/n (a
vertex's sum of d rounded terms is off by about u sqrt(d) of its score; weighted by the scores,
which follow the degrees, that is u sqrt(R) in all).  A ``tolerance`` below ``reachable_tolerance``
(u x sqrt(R): 4-7x that floor) is refused before any iteration rather than run to
``max_iterations`` and fail, naming the score type that would reach it.
"""

import math

from graphsweep.core.errors import ParameterError

from ..contract import Param, Problem
from ..graph import graph_input, input_edges
from .verify import UNIT_ROUNDOFF, l1_floor, verify_scores

DAMPING = 0.85

PARAMS = {
    "tolerance": Param(1e-4, type=float, minimum=0.0, help="stop when the L1 change between two iterations "
                                                           "is below this (GAPBS: 1e-4)"),
    "max_iterations": Param(100, minimum=1, help="stop after this many iterations at most (GAPBS: 20)"),
    "dangling": Param("spread", type=str, choices=("spread", "gapbs"),
                      help="spread: the score of vertices without edges is shared by all (scores sum to 1); "
                           "gapbs: it is dropped, as GAPBS does"),
}

# The score type, for the kernels that offer both (not pagerank.distributed: float32).
DTYPE_PARAM = {"dtype": Param("float32", type=str, choices=tuple(UNIT_ROUNDOFF),
                              help="score type: float32 (GAPBS) or float64 (cuGraph's option), for tolerances "
                                   "float32 cannot reach")}


def prepare(data):
    if data.n == 0:
        raise ParameterError(f"{data.path}: PageRank needs a graph with at least one vertex (n = 0)")
    return graph_input(data)


def reachable_tolerance(csr, dtype: str = "float32") -> float:
    """The smallest ``tolerance`` ``dtype`` scores reach on the simple graph ``csr`` (see the module
    doc), rounded up to two significant digits: the figure a refusal names is itself reachable."""
    floor = l1_floor(csr.degree(), dtype)
    unit = 10.0 ** (math.floor(math.log10(floor)) - 1)
    return math.ceil(floor / unit) * unit


def check_tolerance(inp, params) -> None:
    """Refuse a tolerance the run's score type cannot reach on ``inp`` (one line: the value, the
    floor, and the score type that reaches it, if one does); the floors are computed once per graph
    (``pagerank.spmv`` checks again inside its runs)."""
    if "pagerank.reachable" not in inp.cache:
        simple = inp.representation("simple")
        inp.cache["pagerank.reachable"] = {dtype: reachable_tolerance(simple, dtype) for dtype in UNIT_ROUNDOFF}
    floors = inp.cache["pagerank.reachable"]
    dtype, tolerance = params.get("dtype", "float32"), params["tolerance"]
    if tolerance >= floors[dtype]:
        return
    reaching = [f"dtype={d} reaches down to {floors[d]:.2g}" for d in UNIT_ROUNDOFF if tolerance >= floors[d]]
    raise ParameterError(f"parameter 'tolerance': {tolerance:g} is below what {dtype} scores reach on this graph; "
                         f"the smallest reachable is {floors[dtype]:.2g}" + (f" ({reaching[0]})" if reaching else ""))


def verify_output(inp, params, out) -> dict:
    return verify_scores(inp, out["score"], tolerance=params["tolerance"], spread=params["dangling"] == "spread",
                         damping=DAMPING, dtype=params.get("dtype", "float32"))


PAGERANK = Problem(name="pagerank", dataset_kind="graph", prepare=prepare, verify=verify_output, outputs=("score",),
                   requires=frozenset({"undirected"}), element="edge", elements=input_edges)
