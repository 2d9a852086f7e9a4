"""cc.hook-compress — Soman, Kothapalli & Narayanan's hook and compress, as 004 describes it.

Returns label[v] = the smallest vertex id of v's component (every hook writes the smaller label
under the larger, so a root is the smallest vertex of its tree).  Algorithm (004 §II, Figs 1-2):
pi(v) = v; repeat { Hook every edge (u, v): pi(max(pi(u), pi(v))) = min(pi(u), pi(v)), atomic-free,
concurrent writes leave one of them; Compress: repeat Jump pi(v) = pi(pi(v)) over all vertices
until no label moves } until a Hook round changes nothing.  The host loops on two flags read back
from the device (004's "CPU-GPU round-trips").  Hook rounds and the jumps of each are statistics;
each hook and jump launch is a step row (step = hook round).  Works on the edge list as loaded.

The CPU twin runs the same rounds (one host loop, ``_run``) with Numba ``prange`` passes (racy
hooks included; hooks.py).
"""

from ..contract import Kernel
from ..cuda import GRID_PARAMS
from . import CC
from .gpu import rounds_guard
from .hooks import CpuHooks, GpuHooks, compress, hook_traffic


def _run(hooks, inp, timer):
    """The rounds, over either backend's passes (hooks.py)."""
    n, m, label_bytes = inp.n, inp.m, hooks.dtype.itemsize
    pi = hooks.empty()
    with timer.phase("init", written=n * label_bytes):
        hooks.identity(pi)
    rounds, jumps, guard = 0, [], rounds_guard(n)
    while True:
        rounds += 1
        with timer.phase("hook", step=rounds, **hook_traffic(m, label_bytes, inp.src.itemsize)):
            hooked = hooks.hook(pi, 0, m)
        jumps.append(compress(hooks, timer, pi, rounds))
        if not hooked():      # read after the compress is queued: one round trip per round on the GPU
            break
        if rounds > guard:
            raise RuntimeError(f"cc.hook-compress: hooks still changing labels after {rounds} rounds on {n} vertices")
    timer.stat("iterations", rounds)
    timer.stat("jumps", sum(jumps))
    return pi


def run_gpu(inp, params, timer):
    return _run(GpuHooks("cc/hook_compress.cu", inp, params), inp, timer)


def run_cpu(inp, params, timer):
    return _run(CpuHooks(inp), inp, timer)


KERNEL = Kernel(name="cc.hook-compress", problem=CC,
                summary="Soman et al.'s atomic-free hook and repeated pointer jumping, host-driven rounds "
                        "(004 Figs 1-2)",
                gpu=run_gpu, cpu=run_cpu, params=GRID_PARAMS)
