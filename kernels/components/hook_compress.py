"""cc.hook-compress — Soman, Kothapalli & Narayanan's hook and compress, as 004 describes it.

Returns label[v] = the smallest vertex id of v's component (every hook writes the smaller label
under the larger, so a root is the smallest vertex of its tree).  Algorithm (004 §II, Figs 1-2):
pi(v) = v; repeat { Hook every edge (u, v): pi(max(pi(u), pi(v))) = min(pi(u), pi(v)), atomic-free,
concurrent writes leave one of them; Compress: repeat Jump pi(v) = pi(pi(v)) over all vertices
until no label moves } until a Hook round changes nothing.  The host loops on two flags read back
from the device (004's "CPU-GPU round-trips").  Hook rounds and the jumps of each are statistics;
each hook and jump launch is a step row (step = hook round).  Works on the edge list as loaded.

The CPU twin runs the same rounds with Numba ``prange`` (racy hooks included).
"""

import numba
import numpy as np

from ..contract import Kernel
from ..cuda import GRID_PARAMS, check_threads, launch, module
from . import CC, label_dtype
from .gpu import rounds_guard, types


def hook_traffic(m: int, label_bytes: int, index_bytes: int) -> dict:
    """A hook pass: the edges read in order, the labels of both ends gathered (the conditional
    write of pi(H) is not counted)."""
    return {"read": m * (2 * index_bytes + 2 * label_bytes), "random": 2 * m}


def jump_traffic(n: int, label_bytes: int) -> dict:
    """A jump pass: pi read in order and gathered once per vertex, written back (at most) once."""
    return {"read": 2 * n * label_bytes, "written": n * label_bytes, "random": n}


class GpuHooks:
    """Soman's Hook and Jump (and Sutton's Atomic-Hook and Multi-Jump) launchers on one graph."""

    def __init__(self, source: str, inp, params):
        st = types(inp.src.dtype, inp.n)
        lt = st.split(", ")[1]
        names = {"identity": f"graphsweep_cc_identity<{lt}>",
                 "hook": f"graphsweep_cc_hook<{st}>", "jump": f"graphsweep_cc_jump<{lt}>",
                 "atomic_hook": f"graphsweep_cc_atomic_hook<{st}>", "multi_jump": f"graphsweep_cc_multi_jump<{lt}>"}
        mod = module(source, name_expressions=tuple(names.values()))
        self.fn = {k: mod.get_function(v) for k, v in names.items()}
        self.inp, self.n = inp, inp.n
        self.threads, self.blocks = check_threads(params["threads"]), params["blocks"]
        self.label_bytes = label_dtype(inp.n).itemsize

    def identity(self, pi):
        launch(self.fn["identity"], self.n, self.threads, self.blocks, pi, np.int64(self.n))

    def hook(self, pi, flag, first: int, last: int):
        launch(self.fn["hook"], last - first, self.threads, self.blocks, self.inp.src, self.inp.dst, pi, flag,
               np.int64(first), np.int64(last))

    def jump(self, pi, flag):
        launch(self.fn["jump"], self.n, self.threads, self.blocks, pi, flag, np.int64(self.n))

    def atomic_hook(self, pi, first: int, last: int):
        launch(self.fn["atomic_hook"], last - first, self.threads, self.blocks, self.inp.src, self.inp.dst, pi,
               np.int64(first), np.int64(last))

    def multi_jump(self, pi):
        launch(self.fn["multi_jump"], self.n, self.threads, self.blocks, pi, np.int64(self.n))

    def compress(self, timer, pi, flag, step: int) -> int:
        """Soman's Compress: Jump until no label moves; returns the number of jumps."""
        jumps, guard = 0, rounds_guard(self.n)
        while True:
            jumps += 1
            with timer.phase("jump", step=step, **jump_traffic(self.n, self.label_bytes)):
                flag.fill(0)
                self.jump(pi, flag)
                moved = int(flag.get()[0])
            if not moved:
                return jumps
            if jumps > guard:
                raise RuntimeError(f"jump: labels still moving after {jumps} jumps on {self.n} vertices")


def run_gpu(inp, params, timer):
    import cupy
    n, m = inp.n, inp.m
    gpu = GpuHooks("components/hook_compress.cu", inp, params)
    pi = cupy.empty(n, dtype=label_dtype(n))
    hook_flag, jump_flag = cupy.zeros(1, dtype=np.int32), cupy.zeros(1, dtype=np.int32)
    with timer.phase("init", written=n * gpu.label_bytes):
        gpu.identity(pi)
    rounds, jumps, guard = 0, [], rounds_guard(n)
    while True:
        rounds += 1
        with timer.phase("hook", step=rounds, **hook_traffic(m, gpu.label_bytes, inp.src.itemsize)):
            hook_flag.fill(0)
            gpu.hook(pi, hook_flag, 0, m)
        jumps.append(gpu.compress(timer, pi, jump_flag, rounds))
        if not int(hook_flag.get()[0]):
            break
        if rounds > guard:
            raise RuntimeError(f"cc.hook-compress: hooks still changing labels after {rounds} rounds on {n} vertices")
    timer.stat("iterations", rounds)
    timer.stat("jumps", sum(jumps))
    return pi


# --- CPU twin: the same rounds, one prange loop per pass.

@numba.njit(cache=True, parallel=True)
def hook_cpu(src, dst, pi, first, last):
    """Soman's Hook over edges [first, last); returns how many edges still joined two labels."""
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
def jump_cpu(pi):
    """Soman's Jump; returns how many labels moved."""
    moved = 0
    for v in numba.prange(pi.shape[0]):
        p = pi[v]
        g = pi[p]
        if g != p:
            pi[v] = g
            moved += 1
    return moved


def compress_cpu(timer, pi, step: int) -> int:
    """Jump until no label moves; returns the number of jumps."""
    n, jumps, guard = pi.shape[0], 0, rounds_guard(pi.shape[0])
    while True:
        jumps += 1
        with timer.phase("jump", step=step, **jump_traffic(n, pi.itemsize)):
            moved = jump_cpu(pi)
        if not moved:
            return jumps
        if jumps > guard:
            raise RuntimeError(f"jump: labels still moving after {jumps} jumps on {n} vertices")


def run_cpu(inp, params, timer):
    n, m = inp.n, inp.m
    dtype = label_dtype(n)
    pi = np.empty(n, dtype=dtype)
    with timer.phase("init", written=n * dtype.itemsize):
        pi[:] = np.arange(n, dtype=dtype)
    rounds, jumps, guard = 0, [], rounds_guard(n)
    while True:
        rounds += 1
        with timer.phase("hook", step=rounds, **hook_traffic(m, dtype.itemsize, inp.src.itemsize)):
            hooked = hook_cpu(inp.src, inp.dst, pi, 0, m)
        jumps.append(compress_cpu(timer, pi, rounds))
        if not hooked:
            break
        if rounds > guard:
            raise RuntimeError(f"cc.hook-compress: hooks still changing labels after {rounds} rounds on {n} vertices")
    timer.stat("iterations", rounds)
    timer.stat("jumps", sum(jumps))
    return pi


KERNEL = Kernel(name="cc.hook-compress", problem=CC,
                summary="Soman et al.'s atomic-free hook and repeated pointer jumping, host-driven rounds "
                        "(004 Figs 1-2)",
                gpu=run_gpu, cpu=run_cpu, params=GRID_PARAMS)
