"""What the BFS GPU launchers share: the graph's limits and per-level sizes (persistent grids:
``kernels/cuda.py``)."""

import numpy as np

from graphsweep.core.errors import ParameterError


def check_gpu_graph(csr) -> None:
    """GPU BFS kernels hold vertex ids in 32 bits (indices int32, n < 2^31)."""
    if csr.indices.dtype != np.int32:
        raise ParameterError(f"GPU BFS takes graphs of fewer than 2^31 vertices (n = {csr.n}); use the CPU twin")


class LevelSizes:
    """Per-level frontier sizes and out-edges, computed from a finished level array on first use
    (after timing): the step rows' ``info`` of algorithms whose host learns only a done flag."""

    def __init__(self, level, csr):
        self._level, self._csr, self._sizes = level, csr, None

    def _compute(self):
        if self._sizes is None:
            xp = np if isinstance(self._level, np.ndarray) else __import__("cupy")
            reached = self._level >= 0
            lv = self._level[reached].astype(np.int64)
            frontier = xp.bincount(lv) if lv.shape[0] else xp.zeros(1, dtype=np.int64)
            degree = self._csr.degree()[reached].astype(np.float64)
            edges = xp.bincount(lv, weights=degree) if lv.shape[0] else frontier
            self._sizes = ([int(x) for x in frontier.tolist()], [int(x) for x in edges.tolist()])
        return self._sizes

    def frontier(self, depth: int) -> int:
        sizes = self._compute()[0]
        return sizes[depth] if depth < len(sizes) else 0

    def edges(self, depth: int) -> int:
        sizes = self._compute()[1]
        return sizes[depth] if depth < len(sizes) else 0
