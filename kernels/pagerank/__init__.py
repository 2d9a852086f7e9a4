"""PageRank of the simple undirected graph (GAPBS's ``pr``): score[v] for every vertex, the
stationary distribution of a surfer who follows a random edge with probability ``DAMPING`` and
jumps to a random vertex otherwise.

    score'[v] = (1 - d) / n + d * (sum over neighbours u of score[u] / degree[u] + dangling / n)

``dangling`` is the score held by vertices without edges (isolated, or only self-loops); with
``dangling: spread`` (the default: the textbook and networkx definition) it is spread evenly, so
the scores sum to 1; ``dangling: gapbs`` drops it as GAPBS does (its vertices keep only the
(1 - d) / n share, and the scores sum to 1 - d * D / (1 - d), D the dangling vertices' scores).
Iterations are Jacobi sweeps until the L1 change between two sweeps is below ``tolerance``
(GAPBS's default 1e-4) or ``max_iterations`` have run, from score = 1/n (GAPBS's start) or from
the degree-proportional scores (``start``).  On an undirected graph the surfer's walk without jumps
has the stationary distribution degree / 2m, so where walks mix fast (many edges a vertex) the
scores lie near the degree-proportional vector: ``start: degree`` begins there (a + c x degree, a
vertex without edges at a: the dangling share solved for as if the rest were exact; the scores sum
as the definition says).  Measured on the CPU (``tolerance`` 1e-4): R-MAT 20 edge factor 16 10 → 7
sweeps, R-MAT 19 edge factor 32 8 → 5, R-MAT 20 edge factor 8 12 → 10, uniform degree 32 6 → 4,
degree 16 8 → 5, degree 8 12 → 8; but where walks mix slowly the degree vector's error sits in slow
modes: the 512² grid 5 → 11, R-MAT 18 edge factor 4 (many small components, whose share of the
scores follows their vertices, not their edges) 13 → 15.  ``start: auto`` takes it where the simple
graph has at least DEGREE_START_FROM entries a vertex, whatever the ids (a degree distribution).
Scores are float32, as GAPBS's ``ScoreT``, or float64 with ``dtype: float64`` (as cuGraph offers;
``pull``, ``pull-warp`` and ``spmv``, hence ``pagerank.best``).  Every algorithm runs on the
``simple`` representation (both directions of every undirected edge once, no self-loops); a run's
rate counts input edges.

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
    "start": Param("auto", type=str, choices=("auto", "uniform", "degree"),
                   help="first scores: uniform (1/n, GAPBS's) or degree-proportional (fewer sweeps where walks "
                        "mix fast); auto: degree from 8 simple entries a vertex"),
}

# start: auto begins from the degree-proportional scores on graphs with at least this many simple
# entries a vertex (every graph measured there converged in 17-40% fewer sweeps; below it the grid
# and sparse R-MAT took more).
DEGREE_START_FROM = 8.0

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
    (``pagerank.spmv`` checks again inside its runs), and with them the count of vertices without
    edges that ``start_of`` reads, so that every kernel's setup (each calls this) takes that count
    out of the timed runs."""
    if "pagerank.reachable" not in inp.cache:
        simple = inp.representation("simple")
        inp.cache["pagerank.reachable"] = {dtype: reachable_tolerance(simple, dtype) for dtype in UNIT_ROUNDOFF}
        _isolated(inp)
    floors = inp.cache["pagerank.reachable"]
    dtype, tolerance = params.get("dtype", "float32"), params["tolerance"]
    if tolerance >= floors[dtype]:
        return
    reaching = [f"dtype={d} reaches down to {floors[d]:.2g}" for d in UNIT_ROUNDOFF if tolerance >= floors[d]]
    raise ParameterError(f"parameter 'tolerance': {tolerance:g} is below what {dtype} scores reach on this graph; "
                         f"the smallest reachable is {floors[dtype]:.2g}" + (f" ({reaching[0]})" if reaching else ""))


def _isolated(inp) -> int:
    """Vertices without edges in the simple graph (counted once per graph, in the kernels' setup)."""
    if "pagerank.isolated" not in inp.cache:
        simple = inp.representation("simple")
        inp.cache["pagerank.isolated"] = int((simple.degree() == 0).sum())
    return inp.cache["pagerank.isolated"]


def start_of(inp, params, timer=None) -> tuple[float, float]:
    """(a, c): the first sweep's scores are a + c x degree for a vertex with edges and a for one
    without (``start``; c = 0, a = 1/n: uniform).  Degree-proportional: a is the score the
    definition gives a vertex without edges if the others' scores were exact (with ``dangling:
    spread``, (1 - d) / n plus its share of the dangling score D = k a, k such vertices; with
    ``gapbs``, (1 - d) / n), and c spreads the rest over the edges' ends."""
    n = inp.n
    simple = inp.representation("simple")
    entries = simple.nnz
    rule = params["start"]
    degree = entries > 0 and (rule == "degree" or (rule == "auto" and entries >= DEGREE_START_FROM * n))
    if timer is not None:
        timer.stat("start", "degree" if degree else "uniform")
    if not degree:
        return 1.0 / n, 0.0
    k, d = _isolated(inp), DAMPING
    if params["dangling"] == "spread":
        dangling = k * (1 - d) / n / (1 - d * k / n)
        a = (1 - d) / n + d * dangling / n
        return a, (1 - dangling - (n - k) * a) / entries
    return (1 - d) / n, d * (n - k) / (n * entries)


def verify_output(inp, params, out) -> dict:
    return verify_scores(inp, out["score"], tolerance=params["tolerance"], spread=params["dangling"] == "spread",
                         damping=DAMPING, dtype=params.get("dtype", "float32"))


PAGERANK = Problem(name="pagerank", dataset_kind="graph", prepare=prepare, verify=verify_output, outputs=("score",),
                   requires=frozenset({"undirected"}), element="edge", elements=input_edges)
