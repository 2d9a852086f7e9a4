"""What every representation builder shares, below the graph input: the ``CSR`` type, ``bincount``,
the packing limit, and the registry of representations other modules add by name (``register``:
``simple`` adds "simple" and "oriented"), which ``GraphInput.build`` looks up."""

from dataclasses import dataclass
from typing import Callable

import numpy as np

from graphsweep.core.gpu import array_module

# Graphs of fewer vertices sort one packed (row << 32 | col) key per edge; larger ones lexsort (read
# at call time as ``layout.PACK_LIMIT``, so a test can take the lexsort path on a small graph).
PACK_LIMIT = 2**31


@dataclass(frozen=True)
class Builder:
    """A representation another module adds by name (``register``): ``build(inp)`` makes it,
    ``traffic(inp)`` is its build's byte model (``read``, ``written``), ``warm_up(inp)`` compiles
    what the build uses on a tiny graph so the timed build does not include it."""
    build: Callable
    traffic: Callable
    warm_up: Callable


BUILDERS: dict[str, Builder] = {}


def register(name: str, builder: Builder) -> None:
    BUILDERS[name] = builder


@dataclass(frozen=True)
class CSR:
    offsets: object      # int64, n + 1
    indices: object      # int32 (n < 2^31) or int64, nnz
    weights: object      # int32, nnz, or None
    n: int
    placement: str = "device"   # where indices and weights live: device memory, or pinned host memory
    host: "CSR | None" = None   # host placement: NumPy views of the same arrays (CPU code, bulk copies)

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    def degree(self):
        return self.offsets[1:] - self.offsets[:-1]

    def spread_entries(self, count: int):
        """(rows, columns), int64 on the CSR's device, of min(count, nnz) entries spread evenly
        over it (nnz > 0): a sample of the edges as stored, for statistics read in a setup."""
        xp = array_module(self.indices)
        count = min(count, self.nnz)
        at = (xp.arange(count, dtype=xp.int64) * self.nnz) // count
        return xp.searchsorted(self.offsets, at, side="right") - 1, self.indices[at].astype(xp.int64)


def bincount(xp, values, n: int):
    """Counts of each id in [0, n) (CuPy's bincount refuses an empty input)."""
    if values.shape[0] == 0:
        return xp.zeros(n, dtype=np.int64)
    return xp.bincount(values, minlength=n)
