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

The CPU twin runs the same host loop (``_run``) over Numba ``prange`` passes with a real
compare-and-swap (hooks.py, cpu.cas).
"""

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS
from . import CC
from .gpu import rounds_guard
from .hooks import CpuHooks, GpuHooks, compress, hook_traffic, jump_traffic

PARAMS = {
    "segments": Param(None, minimum=1, help="edge-list segments, each hooked then compressed "
                                            "(default: 2|E|/|V| rounded, at least 1; 004 Fig. 4)"),
    "atomic_hook": Param(True, bool, help="Atomic-Hook (one CAS pass per segment); false: Soman's "
                                          "hook rounds until nothing changes (004 Fig. 5)"),
    "multi_jump": Param(True, bool, help="Multi-Jump (one pass flattens every tree); false: Soman's "
                                         "jumps until nothing moves (004 Fig. 5)"),
    **GRID_PARAMS,
}


def default_segments(n: int, m: int) -> int:
    """The average degree 2|E|/|V|, rounded, at least 1 (004 Fig. 4)."""
    return max(1, round(2 * m / max(n, 1)))


def segment_count(params, n: int, m: int) -> int:
    return params["segments"] if params["segments"] is not None else default_segments(n, m)


def bounds(m: int, segments: int, k: int) -> tuple[int, int]:
    """Edges [first, last) of segment k of ``segments`` (contiguous, sizes differing by at most one)."""
    return m * k // segments, m * (k + 1) // segments


def _run(hooks, inp, params, timer):
    """The segments, over either backend's passes (hooks.py)."""
    n, m = inp.n, inp.m
    segments = segment_count(params, n, m)
    lb, ib = hooks.dtype.itemsize, inp.src.itemsize
    pi = hooks.empty()
    with timer.phase("init", written=n * lb):
        hooks.identity(pi)
    rounds, jumps, guard = 0, 0, rounds_guard(n) + segments
    for k in range(segments):
        first, last = bounds(m, segments, k)
        while True:
            rounds += 1
            if params["atomic_hook"]:
                with timer.phase("atomic-hook", step=k, **hook_traffic(last - first, lb, ib)):
                    hooks.atomic_hook(pi, first, last)
                hooked = None         # one CAS pass links the whole segment
            else:
                with timer.phase("hook", step=k, **hook_traffic(last - first, lb, ib)):
                    hooked = hooks.hook(pi, first, last)
            if params["multi_jump"]:
                with timer.phase("multi-jump", step=k, **jump_traffic(n, lb)):
                    hooks.multi_jump(pi)
                jumps += 1
            else:
                jumps += compress(hooks, timer, pi, k)
            if hooked is None or not hooked():
                break
            if rounds > guard:
                raise RuntimeError(f"cc.adaptive: hooks still changing labels after {rounds} rounds")
    timer.stat("segments", segments)
    timer.stat("iterations", rounds)
    timer.stat("jumps", jumps)
    return pi


def run_gpu(inp, params, timer):
    return _run(GpuHooks("cc/adaptive.cu", inp, params), inp, params, timer)


def run_cpu(inp, params, timer):
    return _run(CpuHooks(inp), inp, params, timer)


KERNEL = Kernel(name="cc.adaptive", problem=CC,
                summary="Sutton et al.'s Atomic-Hook (CAS) + Multi-Jump over 2|E|/|V| edge segments, "
                        "each optimisation switchable (004 Figs 3-6)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS)
