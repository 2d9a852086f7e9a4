"""Soman's Hook and Jump and Sutton's Atomic-Hook and Multi-Jump (``hooks.cuh`` on the GPU), as two
sets of passes with one interface, so cc.hook-compress and cc.adaptive each write their host loop
once for both backends (``run_gpu`` and ``run_cpu`` only pick the passes).

``GpuHooks`` launches the kernels of ``hooks.cuh``; ``CpuHooks`` runs the Numba twins (``prange``;
Atomic-Hook with a real compare-and-swap, cpu.hook).  Each gives ``empty()`` (a label array) and
``identity(pi)`` (pi(v) = v),
``hook(pi, first, last)`` (returns a callable: did the round change a label? — on the GPU read
back only when called, so a compress can be queued first), ``atomic_hook``, ``jump(pi)`` (labels
moved) and ``multi_jump``.  ``compress`` is Soman's Compress over either.
"""

import numba
import numpy as np

from ..cuda import check_threads, launch, module
from . import label_dtype
from .cpu import hook as cas_hook, load, store
from .gpu import rounds_guard, types


def hook_traffic(m: int, label_bytes: int, index_bytes: int) -> dict:
    """A hook pass: the edges read in order, the labels of both ends gathered (the conditional
    write of pi(H) is not counted)."""
    return {"read": m * (2 * index_bytes + 2 * label_bytes), "random": 2 * m}


def jump_traffic(n: int, label_bytes: int) -> dict:
    """A jump pass: pi read in order and gathered once per vertex, written back (at most) once."""
    return {"read": 2 * n * label_bytes, "written": n * label_bytes, "random": n}


class GpuHooks:
    """The passes as launches of ``source``'s kernels (which include hooks.cuh) on one graph."""

    def __init__(self, source: str, inp, params):
        import cupy
        st = types(inp.src.dtype, inp.n)
        lt = st.split(", ")[1]
        names = {"identity": f"graphsweep_cc_identity<{lt}>",
                 "hook": f"graphsweep_cc_hook<{st}>", "jump": f"graphsweep_cc_jump<{lt}>",
                 "atomic_hook": f"graphsweep_cc_atomic_hook<{st}>", "multi_jump": f"graphsweep_cc_multi_jump<{lt}>"}
        mod = module(source, name_expressions=tuple(names.values()))
        self.fn = {k: mod.get_function(v) for k, v in names.items()}
        self.inp, self.n = inp, inp.n
        self.threads, self.blocks = check_threads(params["threads"]), params["blocks"]
        self.dtype = label_dtype(inp.n)
        self.hook_flag, self.jump_flag = cupy.zeros(1, dtype=np.int32), cupy.zeros(1, dtype=np.int32)

    def empty(self):
        import cupy
        return cupy.empty(self.n, dtype=self.dtype)

    def identity(self, pi):
        launch(self.fn["identity"], self.n, self.threads, self.blocks, pi, np.int64(self.n))

    def hook(self, pi, first: int, last: int):
        self.hook_flag.fill(0)
        launch(self.fn["hook"], last - first, self.threads, self.blocks, self.inp.src, self.inp.dst, pi,
               self.hook_flag, np.int64(first), np.int64(last))
        return lambda: int(self.hook_flag.get()[0])

    def atomic_hook(self, pi, first: int, last: int):
        launch(self.fn["atomic_hook"], last - first, self.threads, self.blocks, self.inp.src, self.inp.dst, pi,
               np.int64(first), np.int64(last))

    def jump(self, pi) -> int:
        self.jump_flag.fill(0)
        launch(self.fn["jump"], self.n, self.threads, self.blocks, pi, self.jump_flag, np.int64(self.n))
        return int(self.jump_flag.get()[0])

    def multi_jump(self, pi):
        launch(self.fn["multi_jump"], self.n, self.threads, self.blocks, pi, np.int64(self.n))


@numba.njit(cache=True, parallel=True)
def _hook(src, dst, pi, first, last):
    """Soman's Hook over edges [first, last) (racy writes, as on the GPU); edges that still joined two labels."""
    changed = 0
    for e in numba.prange(first, last):
        pu, pv = pi[src[e]], pi[dst[e]]
        if pu != pv:
            if pu > pv:
                pi[pu] = pv
            else:
                pi[pv] = pu
            changed += 1
    return changed


@numba.njit(cache=True, parallel=True)
def _jump(pi):
    """Soman's Jump; how many labels moved."""
    moved = 0
    for v in numba.prange(pi.shape[0]):
        p = pi[v]
        g = pi[p]
        if g != p:
            pi[v] = g
            moved += 1
    return moved


@numba.njit(cache=True, parallel=True)
def _atomic_hook(src, dst, pi, first, last):
    for e in numba.prange(first, last):
        cas_hook(pi, src[e], dst[e])


@numba.njit(cache=True, parallel=True)
def _multi_jump(pi):
    for v in numba.prange(pi.shape[0]):
        p = load(pi, v)
        g = load(pi, p)
        while g != p:
            store(pi, v, g)
            p = g
            g = load(pi, p)


class CpuHooks:
    """The same passes as Numba ``prange`` loops."""

    def __init__(self, inp):
        self.inp, self.n, self.dtype = inp, inp.n, label_dtype(inp.n)

    def empty(self):
        return np.empty(self.n, dtype=self.dtype)

    def identity(self, pi):
        pi[:] = np.arange(self.n, dtype=self.dtype)

    def hook(self, pi, first: int, last: int):
        changed = _hook(self.inp.src, self.inp.dst, pi, first, last)
        return lambda: changed

    def atomic_hook(self, pi, first: int, last: int):
        _atomic_hook(self.inp.src, self.inp.dst, pi, first, last)

    def jump(self, pi) -> int:
        return _jump(pi)

    def multi_jump(self, pi):
        _multi_jump(pi)


def compress(hooks, timer, pi, step: int) -> int:
    """Soman's Compress: Jump until no label moves; returns the number of jumps."""
    n, label_bytes = hooks.n, hooks.dtype.itemsize
    jumps, guard = 0, rounds_guard(n)
    while True:
        jumps += 1
        with timer.phase("jump", step=step, **jump_traffic(n, label_bytes)):
            moved = hooks.jump(pi)
        if not moved:
            return jumps
        if jumps > guard:
            raise RuntimeError(f"jump: labels still moving after {jumps} jumps on {n} vertices")
