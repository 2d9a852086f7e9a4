"""``recursive-tree``: the random recursive tree — vertex i >= 1 hangs from a uniformly random
earlier vertex — with vertex ids relabelled by a keyed Feistel permutation (so id order says
nothing of depth).  The CC issue's "random tree", on which cc.best was chosen (sweeps/cc-best.yaml):
shallow, ln n expected depth, about half the vertices leaves; the thesis' ``tree`` (at most k
children per vertex, sequential attachment) is another shape.

Edge row e (0 <= e < n - 1) is the edge (π(e + 1), π(floor(u_e (e + 1)))) for the row's Philox
draw u_e (``streams.blockwise``: blocks of 2^16 rows) and the permutation π of [0, n): a pure
function of the row, so parts are computed independently and the dataset is the same whatever
the part size.  n - 1 edges, stored once each (undirected), one component.
"""

import numpy as np

from .graphs import _columns, _edges, _uniform_below
from .registry import WEIGHTS, Generator, Plan, n_param, parse_weights, permutable
from .streams import Feistel


def _plan(params: dict, seed: int) -> Plan:
    n = params["n"]
    return Plan("graph", n, n - 1, seed, weights=parse_weights(params["weights"]), stats={"components": 1},
                state={"perm": Feistel.for_seed(n, seed)})


def _part(plan: Plan, start: int, stop: int, xp) -> dict:
    def draw(rng, rows):
        child = rows + np.uint64(1)
        return child, _uniform_below(rng.random(len(rows)), child)

    child, parent = _edges(plan, start, stop, draw)
    perm = plan.state["perm"]
    return _columns(plan, perm.forward(child), perm.forward(parent))


RECURSIVE_TREE = permutable(Generator(
    "recursive-tree", "graph", "random recursive tree: vertex i hangs from a uniformly random earlier one, "
                               "ids permuted",
    {"n": n_param(), "weights": WEIGHTS}, _plan, _part))
