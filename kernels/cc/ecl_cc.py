"""ECL-CC (Jaiganesh & Burtscher, HPDC'18) compiled from its published CUDA source, as HeCBench
ships it (src/cc-cuda/main.cu), so benchmarks time graphsweep's CC kernels beside it on the same
graph in the same process.

The source is not graphsweep's: it goes in the git-ignored ``peers/`` folder, e.g.

    git -C HeCBench show HEAD:src/cc-cuda/main.cu > peers/ecl-cc/main.cu

Its device code (from the block-size constants to the last kernel, i.e. everything between
``#include "graph.h"`` and the host driver ``computeCC``) is compiled by NVRTC through CuPy as
published, except that ``static __global__`` becomes ``extern "C" __global__`` so the kernels
can be looked up by name.  ``run`` makes the five launches computeCC makes (init, compute1,
compute2, compute3, flatten; SMs x max threads per SM / 256 blocks of 256 threads) on a
graphsweep CSR given in ECL's format (32-bit offsets and neighbours), each run timed by CUDA
events around the five launches, after one untimed run.  Labels are the smallest vertex id of
each component, as graphsweep's canonical labels.  A peer, not a graphsweep kernel: nothing
registers it; ``benchmarks/cc_families.py --ecl`` times it.
"""

from pathlib import Path

import numpy as np

from ..cuda import sm_count, thread_slots_per_sm

KERNELS = ("init", "compute1", "compute2", "compute3", "flatten")
THREADS = 256                 # ECL-CC's ThreadsPerBlock


def device_source(path: Path) -> str:
    """The device part of ECL-CC's main.cu, kernels made extern "C"."""
    text = Path(path).read_text()
    include = '#include "graph.h"'
    if include not in text or "static void computeCC" not in text:
        raise ValueError(f"{path}: not HeCBench's ECL-CC main.cu (no {include} / computeCC)")
    start = text.index(include) + len(include)
    return text[start:text.index("static void computeCC")].replace("static __global__", 'extern "C" __global__')


class EclCC:
    def __init__(self, source: Path):
        import cupy
        self.xp = cupy
        self.source = Path(source)
        module = cupy.RawModule(code=device_source(self.source), options=("-std=c++17",))
        self.kernels = {name: module.get_function(name) for name in KERNELS}
        self.blocks = sm_count() * thread_slots_per_sm() // THREADS

    def run(self, offsets, indices, reps: int = 5):
        """(labels, [ms per timed run]) of ECL-CC on the CSR (offsets, indices); int32 copies made here."""
        cupy = self.xp
        n = offsets.size - 1
        if indices.size >= 2**31 or n >= 2**31:
            raise ValueError("ECL-CC takes 32-bit CSR offsets: graph too large")
        nidx, nlist = offsets.astype(np.int32), indices.astype(np.int32)
        nstat = cupy.empty(n, dtype=np.int32)
        worklist = cupy.empty(max(n, 1), dtype=np.int32)
        grid, block, nodes = (self.blocks,), (THREADS,), np.int32(n)
        times = []
        for rep in range(reps + 1):
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            self.kernels["init"](grid, block, (nodes, nidx, nlist, nstat))
            for name in ("compute1", "compute2", "compute3"):
                self.kernels[name](grid, block, (nodes, nidx, nlist, nstat, worklist))
            self.kernels["flatten"](grid, block, (nodes, nidx, nlist, nstat))
            stop.record()
            stop.synchronize()
            if rep:
                times.append(cupy.cuda.get_elapsed_time(start, stop))
        return nstat, times
