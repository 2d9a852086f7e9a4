"""The 4-neighbour grid ``benchmarks/sssp.py --grid`` still makes with CuPy, as an in-memory dataset.

Every other benchmark takes its graphs from graphsweep's generators (through a sweep, or
``generators.memory.generate(..., backend="gpu")``); this goes once sssp.py runs the ``grid``
generator's graph too.  Weights, when asked for, come from CuPy's generator, so the graph is not
byte-identical to any generated dataset.
"""

import cupy
import numpy as np

from graphsweep.datasets.reader import Dataset


def grid2d(rows: int, cols: int, seed: int = 1, weights=None) -> Dataset:
    """The full rows x cols grid (row-major ids), ``weights=(lo, hi)`` uniform integers."""
    ids = cupy.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    src = cupy.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = cupy.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    weight = None
    if weights is not None:
        lo, hi = weights
        weight = cupy.random.RandomState(seed + 7).randint(lo, hi + 1, size=src.shape[0], dtype=np.int32)
    return Dataset.in_memory("graph", rows * cols, name=f"gpu-grid-{rows}x{cols}", params={"rows": rows, "cols": cols},
                             seed=seed, src=src, dst=dst, weight=weight)
