"""cc.adaptive — Sutton, Ben-Nun, Barak, Pai & Pingali's adaptive work-efficient hook-compress.

Returns label[v] = the smallest vertex id of v's component.  Algorithm (004 §III, Figs 3-4): the
edge list is split into ``segments`` contiguous pieces (default 2|E|/|V|, the average degree, so
each piece has about |V| edges); each piece is linked by one Atomic-Hook pass (per edge: while
pi(u) != pi(v), CAS pi(H) from H to L for H = max, L = min of the two labels, else continue from
(pi(H), L)) and then flattened by one Multi-Jump pass (per vertex: while pi(pi(v)) != pi(v):
pi(v) = pi(pi(v)), vertices in increasing order so parents are flat before their children).
The ablation of 004 Fig. 5 switches each piece off: ``atomic_hook=false`` hooks a segment with
Soman's atomic-free Hook, repeated (with compression) until a round changes nothing;
``multi_jump=false`` compresses with Soman's Jump repeated until no label moves; with both off
and ``segments=1`` this is cc.hook-compress.  ``segments`` is the x axis of Fig. 6.  Works on the
edge list as loaded.  Statistics: segments, hook rounds, jump launches; one step row per segment.

The CPU twin runs the same passes with Numba ``prange`` and a real compare-and-swap (cpu.cas).
"""

import numba
import numpy as np

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS
from . import CC, label_dtype
from .cpu import hook, load, store
from .gpu import rounds_guard
from .hook_compress import GpuHooks, compress_cpu, hook_cpu, hook_traffic, jump_traffic

PARAMS = {
    "segments": Param(None, minimum=1, help="edge-list segments, each hooked then compressed "
                                            "(default: 2|E|/|V| rounded, at least 1; 004 Fig. 4)"),
    "atomic_hook": Param(True, bool, help="Atomic-Hook (one CAS pass per segment); false: Soman's "
                                          "hook rounds until nothing changes (004 Fig. 5)"),
    "multi_jump": Param(True, bool, help="Multi-Jump (one pass flattens every tree); false: Soman's "
                                         "jumps until nothing moves (004 Fig. 5)"),
    **GRID_PARAMS,
}


def segment_count(params, n: int, m: int) -> int:
    if params["segments"] is not None:
        return params["segments"]
    return max(1, round(2 * m / max(n, 1)))


def bounds(m: int, segments: int, k: int) -> tuple[int, int]:
    """Edges [first, last) of segment k of ``segments`` (contiguous, sizes differing by at most one)."""
    return m * k // segments, m * (k + 1) // segments


def run_gpu(inp, params, timer):
    import cupy
    n, m = inp.n, inp.m
    segments = segment_count(params, n, m)
    gpu = GpuHooks("components/adaptive.cu", inp, params)
    lb, ib = gpu.label_bytes, inp.src.itemsize
    pi = cupy.empty(n, dtype=label_dtype(n))
    hook_flag, jump_flag = cupy.zeros(1, dtype=np.int32), cupy.zeros(1, dtype=np.int32)
    with timer.phase("init", written=n * lb):
        gpu.identity(pi)
    rounds, jumps, guard = 0, 0, rounds_guard(n) + segments
    for k in range(segments):
        first, last = bounds(m, segments, k)
        while True:
            rounds += 1
            if params["atomic_hook"]:
                with timer.phase("atomic-hook", step=k, **hook_traffic(last - first, lb, ib)):
                    gpu.atomic_hook(pi, first, last)
                hooked = False
            else:
                with timer.phase("hook", step=k, **hook_traffic(last - first, lb, ib)):
                    hook_flag.fill(0)
                    gpu.hook(pi, hook_flag, first, last)
            if params["multi_jump"]:
                with timer.phase("multi-jump", step=k, **jump_traffic(n, lb)):
                    gpu.multi_jump(pi)
                jumps += 1
            else:
                jumps += gpu.compress(timer, pi, jump_flag, k)
            if not params["atomic_hook"]:
                hooked = bool(int(hook_flag.get()[0]))
            if not hooked:
                break
            if rounds > guard:
                raise RuntimeError(f"cc.adaptive: hooks still changing labels after {rounds} rounds")
    _stats(timer, segments, rounds, jumps)
    return pi


def _stats(timer, segments: int, rounds: int, jumps: int):
    timer.stat("segments", segments)
    timer.stat("iterations", rounds)
    timer.stat("jumps", jumps)


# --- CPU twin: the same passes; Atomic-Hook with a real CAS, loads that see other threads' writes.

@numba.njit(cache=True, parallel=True)
def atomic_hook_cpu(src, dst, pi, first, last):
    for e in numba.prange(first, last):
        hook(pi, src[e], dst[e])


@numba.njit(cache=True, parallel=True)
def multi_jump_cpu(pi):
    for v in numba.prange(pi.shape[0]):
        p = load(pi, v)
        g = load(pi, p)
        while g != p:
            store(pi, v, g)
            p = g
            g = load(pi, p)


def run_cpu(inp, params, timer):
    n, m = inp.n, inp.m
    segments = segment_count(params, n, m)
    dtype = label_dtype(n)
    lb, ib = dtype.itemsize, inp.src.itemsize
    pi = np.empty(n, dtype=dtype)
    with timer.phase("init", written=n * lb):
        pi[:] = np.arange(n, dtype=dtype)
    rounds, jumps, guard = 0, 0, rounds_guard(n) + segments
    for k in range(segments):
        first, last = bounds(m, segments, k)
        while True:
            rounds += 1
            hooked = 0
            if params["atomic_hook"]:
                with timer.phase("atomic-hook", step=k, **hook_traffic(last - first, lb, ib)):
                    atomic_hook_cpu(inp.src, inp.dst, pi, first, last)
            else:
                with timer.phase("hook", step=k, **hook_traffic(last - first, lb, ib)):
                    hooked = hook_cpu(inp.src, inp.dst, pi, first, last)
            if params["multi_jump"]:
                with timer.phase("multi-jump", step=k, **jump_traffic(n, lb)):
                    multi_jump_cpu(pi)
                jumps += 1
            else:
                jumps += compress_cpu(timer, pi, k)
            if not hooked:
                break
            if rounds > guard:
                raise RuntimeError(f"cc.adaptive: hooks still changing labels after {rounds} rounds")
    _stats(timer, segments, rounds, jumps)
    return pi


KERNEL = Kernel(name="cc.adaptive", problem=CC,
                summary="Sutton et al.'s Atomic-Hook (CAS) + Multi-Jump over 2|E|/|V| edge segments, "
                        "each optimisation switchable (004 Figs 3-6)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS)
