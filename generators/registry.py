"""What a generator is: declared parameters, a plan (sizes and keys, checked up front) and a
part function that computes any row range of the dataset from the plan alone.

A ``Plan`` is small and picklable (trees carry their parent array), so the driver hands it to
one task per part; ``part(plan, start, stop, xp)`` is a pure function of its arguments.

Every graph kind is ``permutable``: with ``permute_ids: true`` its vertex ids are relabelled by a
keyed Feistel permutation π of [0, n) (stream ``STREAM_IDS`` of the seed), the edge (u, v) of
the kind becoming (π(u), π(v)) in the same row, so rules that key on the order ids come in can
be tested on the same graph numbered otherwise (issue #32).
"""

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.format import INT32_MAX, index_dtype_for
from graphsweep.core.params import Param

from .streams import STREAM_IDS, STREAM_WEIGHTS, Feistel, block_rng, blockwise, stream_key


@dataclass(frozen=True)
class Plan:
    """Everything the part tasks need: n, the row count, whether weighted, keys and derived sizes."""
    kind: str
    n: int
    rows: int
    seed: int
    weights: tuple | None = None  # (lo, hi) inclusive, or None
    stats: dict = field(default_factory=dict)
    state: dict = field(default_factory=dict)
    ids: Feistel | None = None  # the permutation of vertex ids (``permute_ids``), or None

    @property
    def index_dtype(self) -> np.dtype:
        return np.dtype(index_dtype_for(self.n))

    @property
    def weighted(self) -> bool:
        return self.weights is not None


@dataclass(frozen=True)
class Generator:
    """One dataset kind: its CLI name, its parameters and the two functions that make it."""
    name: str
    kind: str  # 'list' or 'graph'
    summary: str
    params: dict
    plan: Callable  # (resolved params, seed) -> Plan; raises ParameterError
    part: Callable  # (plan, start, stop, xp) -> {column: array of rows [start, stop)}
    gpu: bool = False  # part() also runs with xp = CuPy, giving the same arrays


PERMUTE_IDS = Param(False, bool, omit_default=True,
                    help="relabel vertex ids by a keyed random permutation (the same graph, ids in no "
                         "particular order)")


def permutable(generator: Generator) -> Generator:
    """``generator`` (a graph kind) with the parameter ``permute_ids``: its plan then holds the
    permutation π of the ids, and each part's src and dst are π of the kind's, computed on ``xp``."""
    def plan(params: dict, seed: int) -> Plan:
        made = generator.plan(params, seed)
        return replace(made, ids=Feistel.for_seed(made.n, seed, STREAM_IDS)) if params["permute_ids"] else made

    def part(plan: Plan, start: int, stop: int, xp) -> dict:
        columns = generator.part(plan, start, stop, xp)
        if plan.ids is None:
            return columns
        return {**columns, **{c: plan.ids.forward(columns[c], xp).astype(plan.index_dtype) for c in ("src", "dst")}}

    return replace(generator, params={**generator.params, "permute_ids": PERMUTE_IDS}, plan=plan, part=part)


def n_param(what: str = "vertices", default: int = 1 << 20) -> Param:
    return Param(default, int, minimum=1, help=f"number of {what}")


WEIGHTS = Param("none", str, help="edge weights: 'none', or 'LO:HI' for integers drawn uniformly "
                                  "from [LO, HI] (Harish & Narayanan use 1:10)")


def parse_weights(text: str) -> tuple | None:
    """``'none'`` -> None; ``'LO:HI'`` -> (LO, HI) with 0 <= LO <= HI <= 2^31-1, else ParameterError."""
    if text.strip().lower() in ("none", ""):
        return None
    lo, sep, hi = text.partition(":")
    try:
        lo, hi = int(lo), int(hi)
    except ValueError:
        lo = hi = None
    if not sep or lo is None or not 0 <= lo <= hi <= INT32_MAX:
        raise ParameterError(f"parameter 'weights': {text!r} is not 'none' or 'LO:HI' with "
                             f"0 <= LO <= HI <= {INT32_MAX}")
    return lo, hi


def need(ok: bool, name: str, value, allowed: str) -> None:
    """ParameterError naming the parameter, its value and the allowed range unless ``ok``."""
    if not ok:
        raise ParameterError(f"parameter '{name}': {value!r} is outside the allowed range ({allowed})")


def weight_column(plan: Plan, start: int, stop: int) -> np.ndarray:
    """Weights of edge rows [start, stop): uniform integers in [lo, hi], drawn per Philox block."""
    lo, hi = plan.weights
    key = stream_key(plan.seed, STREAM_WEIGHTS)

    def draw(block, rows):
        return (block_rng(key, block).integers(lo, hi, len(rows), dtype=np.int64, endpoint=True)
                .astype(np.int32),)

    return blockwise(start, stop, plan.rows, draw, (np.int32,))[0]

