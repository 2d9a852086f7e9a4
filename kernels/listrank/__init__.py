"""List ranking: rank[i] = number of links from node i to the tail (tail 0, head n-1).

Every algorithm in this package takes a ``ListInput`` and returns the rank array (int32 when
n < 2^31, else int64) on the device it ran on.
"""

from dataclasses import dataclass, field

import numpy as np

from graphsweep.datasets.format import index_dtype_for
from graphsweep.core.gpu import array_module
from graphsweep.datasets.structure import check_list

from .. import reference_store
from ..contract import Problem
from .verify import verify_ranks


@dataclass(frozen=True)
class ListInput:
    succ: object          # NumPy or CuPy array, int32 or int64
    head: int
    tail: int
    # What kernels' setup derived from this list (it lives and dies with the loaded dataset).
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n(self) -> int:
        return int(self.succ.shape[0])

    @property
    def rank_dtype(self):
        return np.dtype(index_dtype_for(self.n))


CHECKED = ("listrank", "check_list")    # the reference store's key of a stored list's (head, tail)


def prepare(data) -> ListInput:
    """Refuse anything but one list (one head, one tail, no cycle) before a kernel sees it.  A stored
    list's check is kept in its reference store (it depends on the list alone, and the store on its
    parts' sha256s), so later processes read (head, tail) instead of checking again (a list of 2^28
    nodes: 23 ms on an H200, each run of a sweep)."""
    store = reference_store.store_for(data)
    checked = store.load(CHECKED, check_list) if store is not None else None
    if checked is None:
        checked = check_list(data.succ, where=str(data.path))
        if store is not None:
            store.save(CHECKED, check_list, checked)
    head, tail = (int(v) for v in checked)
    return ListInput(data.succ, head, tail)


def verify(inp: ListInput, params: dict, out: dict) -> dict:
    return verify_ranks(inp.succ, inp.tail, out["rank"])


# A random list of this many nodes takes every launch a longer one takes (the recursive kernels
# reduce it at least twice before their base), in about a millisecond.
SAMPLE_NODES = 1 << 20


def sample(inp: ListInput) -> ListInput | None:
    """A random list of ``SAMPLE_NODES`` nodes (head 0, the rest in a seeded random order, the tail
    pointing to itself, as the ``list`` generator makes them), of ``inp``'s index type and on its
    device, for a warm-up that pays compilation and module loading only; None for a list not much
    longer."""
    if inp.n <= 4 * SAMPLE_NODES:
        return None
    xp = array_module(inp.succ)
    dtype = inp.succ.dtype
    order = xp.concatenate([xp.zeros(1, dtype=dtype),
                            (xp.random.RandomState(1).permutation(SAMPLE_NODES - 1) + 1).astype(dtype)])
    succ = xp.empty(SAMPLE_NODES, dtype=dtype)
    succ[order[:-1]] = order[1:]
    tail = int(order[-1])
    succ[tail] = tail
    return ListInput(succ, 0, tail)


LISTRANK = Problem(name="listrank", dataset_kind="list", prepare=prepare, verify=verify, outputs=("rank",),
                   sample=sample, unique=True)   # a list has one ranking
