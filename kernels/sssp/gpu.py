"""Launch helpers shared by the SSSP GPU launchers (device code in sssp.cuh)."""

import numpy as np

from graphsweep.core.errors import ParameterError

from ..cuda import blocks_for


def check_gpu_graph(csr) -> None:
    """The GPU kernels pack a parent id in 32 bits and read int32 indices and weights."""
    if csr.n >= 2**31:
        raise ParameterError(f"GPU SSSP packs vertex ids in 32 bits: n = {csr.n} must be below 2^31 "
                             "(use --backend cpu)")
    if csr.weights is None:
        raise ParameterError("SSSP needs a weighted graph")
    if csr.indices.dtype != np.int32 or csr.weights.dtype != np.int32 or csr.offsets.dtype != np.int64:
        raise ParameterError(f"GPU SSSP reads int64 offsets and int32 indices and weights, got "
                             f"{csr.offsets.dtype}, {csr.indices.dtype}, {csr.weights.dtype}")


def unpack_words(mod, timer, word, dist, parent, threads: int) -> None:
    """dist / parent (int64, -1 unreached) from the packed (dist, parent) words."""
    n = word.shape[0]
    with timer.phase("unpack", read=8 * n, written=16 * n):
        mod.get_function("graphsweep_sssp_unpack")((blocks_for(n, threads),), (threads,),
                                                   (word, dist, parent, np.int64(n)))
