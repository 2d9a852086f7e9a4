"""List ranking: rank[i] = number of links from node i to the tail (tail 0, head n-1).

Every algorithm in this package takes a ``ListInput`` and returns the rank array (int32 when
n < 2^31, else int64) on the device it ran on.
"""

from dataclasses import dataclass, field

import numpy as np

from graphsweep.datasets.format import index_dtype_for
from graphsweep.datasets.gpu import is_device
from graphsweep.datasets.structure import check_list

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


def prepare(data) -> ListInput:
    """Refuse anything but one list (one head, one tail, no cycle) before a kernel sees it."""
    head, tail = check_list(data.succ, where=str(data.path))
    return ListInput(data.succ, head, tail)


def verify(inp: ListInput, params: dict, out: dict) -> dict:
    return verify_ranks(inp.succ, inp.tail, out["rank"])


# A random list of this many nodes takes every launch a longer one takes (the recursive kernels
# reduce it at least twice before their base), in about a millisecond.
SAMPLE_NODES = 1 << 20


def sample(inp: ListInput) -> ListInput | None:
    """A random list of ``SAMPLE_NODES`` nodes (the ``list`` generator's), of ``inp``'s index type
    and on its device, for a warm-up that pays compilation and module loading only; None for a
    list not much longer."""
    if inp.n <= 4 * SAMPLE_NODES:
        return None
    from graphsweep.generators import memory   # imported when used: generators use kernels' CUDA helpers
    data = memory.generate("list", seed=1, params={"n": SAMPLE_NODES},
                           backend="gpu" if is_device(inp.succ) else "cpu")
    ends = data.manifest["stats"]
    return ListInput(data.succ.astype(inp.succ.dtype, copy=False), ends["head"], ends["tail"])


LISTRANK = Problem(name="listrank", dataset_kind="list", prepare=prepare, verify=verify, outputs=("rank",),
                   sample=sample)
