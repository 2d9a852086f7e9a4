"""cc.shiloach-vishkin — Shiloach and Vishkin's CRCW-PRAM connectivity as Dehne & Yogaratnam ran it.

Returns label[v] = the root of v's star when the iterations stop (not canonical).  Algorithm
(000 §4 Alg. 4; 002 §4.2.4, §6.1.2, Listings 6.3-6.7): two pointer arrays D(s) and D(s-1) and a
step array Q.  SV0 initialises D(0)[j] = j, Q[j] = 0; then each iteration s runs, as separate
launches with the barrier a launch gives between them,
  SV1a  short-cut:      D(s)[j] = D(s-1)[D(s-1)[j]]
  SV1b  mark:           Q[D(s)[j]] = s where the short-cut changed D[j]
        (Step 1 split in two because marking needs every short-cut done: the "1a/1b split")
  SV2   hook edges:     if D(s)[a] = D(s-1)[a] and D(s)[b] < D(s)[a]: D(s)[D(s)[a]] = D(s)[b], Q[D(s)[b]] = s
  SV3   hook stagnant:  if Q[D(s)[a]] < s, D(s)[a] = D(s)[D(s)[a]], D(s)[a] != D(s)[b]: D(s)[D(s)[a]] = D(s)[b]
  SV4   short-cut:      D(s)[j] = D(s)[D(s)[j]]
  SV5   more work?:     every thread that strides over a j with Q[j] = s writes 1 to a flag w
                        (a parallel OR by concurrent writes), which the host reads back,
and D(s), D(s-1) swap.  It stops after an iteration that marked nothing; ``iterations`` (002
Table 6.1, Fig. 6.3) is a statistic and each kernel's time per iteration a step row (000 Fig. 6,
002 Fig. 6.5).  Concurrent writes to one address (SV2, SV3) leave one of them, the "arbitrary"
CRCW model the proof assumes.  The PRAM algorithm runs on 2m directed edges; a thread here takes
an edge of the list and applies the step to (a, b) and to (b, a).  Threads stride over vertices
and edges (``blocks`` fixes their number, as the thesis' q thread blocks of 256 threads).

The CPU twin is the thesis' multi-threaded SV (002 §6.1.3, Listing 6.9): the same steps as Numba
``prange`` loops over contiguous partitions, a barrier after each, run by the same host loop
(``_run`` over ``GpuSV`` or ``CpuSV``).  Work O((n + m) log n).
"""

from functools import partial

import numba
import numpy as np

from ..contract import Kernel
from ..cuda import GRID_PARAMS, check_threads, launch, module
from . import CC, label_dtype
from .gpu import iteration_guard, types


def _names(inp) -> dict:
    st = types(inp.src.dtype, inp.n)
    lt = st.split(", ")[1]
    return {"sv0": f"graphsweep_cc_sv0<{lt}>", "sv1a": f"graphsweep_cc_sv1a<{lt}>",
            "sv1b": f"graphsweep_cc_sv1b<{lt}>", "sv2": f"graphsweep_cc_sv2<{st}>",
            "sv3": f"graphsweep_cc_sv3<{st}>", "sv4": f"graphsweep_cc_sv4<{lt}>"}


def _traffic(n: int, m: int, label_bytes: int, index_bytes: int) -> dict:
    """Per-kernel byte model (unconditional traffic; the conditional hook and mark writes are not
    counted): vertex kernels read their arrays in order and gather once per vertex; edge kernels
    read the edge list in order and gather D (and D(s-1)) at both ends of every edge."""
    vb, eb = n * label_bytes, m * 2 * index_bytes
    return {"SV0": {"written": vb + 4 * n},
            "SV1a": {"read": 2 * vb, "written": vb, "random": n},
            "SV1b": {"read": 2 * vb},
            "SV2": {"read": eb + 2 * m * label_bytes, "random": 2 * m},
            "SV3": {"read": eb + 2 * m * label_bytes, "random": 2 * m},
            "SV4": {"read": 2 * vb, "written": vb, "random": n},
            "SV5": {"read": 4 * n}}


def _run(passes, inp, params, timer):
    """SV0, then iterations of SV1a-SV5 until one marks nothing, over either backend's ``passes``."""
    n, m = inp.n, inp.m
    sv = passes(inp, params)
    d, dp, q = sv.arrays()
    model = _traffic(n, m, sv.dtype.itemsize, inp.src.itemsize)
    with timer.phase("SV0", **model["SV0"]):
        sv.sv0(dp, q)
    guard, s = iteration_guard(n), 0
    while True:
        s += 1
        with timer.phase("SV1a", step=s, **model["SV1a"]):
            sv.sv1a(d, dp)
        with timer.phase("SV1b", step=s, **model["SV1b"]):
            sv.sv1b(d, dp, q, s)
        with timer.phase("SV2", step=s, **model["SV2"]):
            sv.sv2(d, dp, q, s)
        with timer.phase("SV3", step=s, **model["SV3"]):
            sv.sv3(d, q, s)
        with timer.phase("SV4", step=s, **model["SV4"]):
            sv.sv4(d)
        with timer.phase("SV5", step=s, **model["SV5"]):      # the GPU reads w back in it, as 002 Listing 6.2
            more = sv.sv5(q, s)
        d, dp = dp, d
        if not more:
            break
        if s >= guard:
            raise RuntimeError(f"cc.shiloach-vishkin: still marking after {s} iterations on {n} vertices")
    timer.stat("iterations", s)
    return dp


class GpuSV:
    """SV0-SV5 as launches of shiloach_vishkin.cu; SV5's flag w is read back by the host."""

    def __init__(self, inp, params):
        self.threads, self.blocks = check_threads(params["threads"]), params["blocks"]
        names = _names(inp)
        mod = module("cc/shiloach_vishkin.cu", name_expressions=tuple(names.values()))
        self.fn = {k: mod.get_function(v) for k, v in names.items()}
        self.fn["sv5"] = mod.get_function("graphsweep_cc_sv5")
        self.src, self.dst, self.n, self.m = inp.src, inp.dst, inp.n, inp.m
        self.dtype = label_dtype(inp.n)

    def arrays(self):
        """D(s), D(s-1) and Q (and the flag w)."""
        import cupy
        d, dp = cupy.empty(self.n, dtype=self.dtype), cupy.empty(self.n, dtype=self.dtype)
        q, self.w = cupy.empty(self.n, dtype=np.int32), cupy.zeros(1, dtype=np.int32)
        return d, dp, q

    def _vertices(self, name, *args):
        launch(self.fn[name], self.n, self.threads, self.blocks, *args, np.int64(self.n))

    def _edges(self, name, *args):
        launch(self.fn[name], self.m, self.threads, self.blocks, self.src, self.dst, *args, np.int64(self.m))

    def sv0(self, dp, q):
        self._vertices("sv0", dp, q)

    def sv1a(self, d, dp):
        self._vertices("sv1a", d, dp, self.w)

    def sv1b(self, d, dp, q, s):
        self._vertices("sv1b", d, dp, q, np.int32(s))

    def sv2(self, d, dp, q, s):
        self._edges("sv2", d, dp, q, np.int32(s))

    def sv3(self, d, q, s):
        self._edges("sv3", d, q, np.int32(s))

    def sv4(self, d):
        self._vertices("sv4", d)

    def sv5(self, q, s) -> int:
        self._vertices("sv5", q, np.int32(s), self.w)
        return int(self.w.get()[0])


# --- CPU twin: 002 Listing 6.9, one prange loop per kernel (contiguous partitions, a barrier after each).

@numba.njit(cache=True, parallel=True)
def _sv0(dp, q):
    for j in numba.prange(dp.shape[0]):
        dp[j] = j
        q[j] = 0


@numba.njit(cache=True, parallel=True)
def _sv1a(d, dp):
    for j in numba.prange(d.shape[0]):
        d[j] = dp[dp[j]]


@numba.njit(cache=True, parallel=True)
def _sv1b(d, dp, q, s):
    for j in numba.prange(d.shape[0]):
        if d[j] != dp[j]:
            q[d[j]] = s


@numba.njit(cache=True, parallel=True)
def _sv2(src, dst, d, dp, q, s):
    for e in numba.prange(src.shape[0]):
        a, b = src[e], dst[e]
        da, db = d[a], d[b]
        if db < da:
            if da == dp[a]:
                d[da] = db
                q[db] = s
        elif da < db:
            if db == dp[b]:
                d[db] = da
                q[da] = s


@numba.njit(cache=True, parallel=True)
def _sv3(src, dst, d, q, s):
    for e in numba.prange(src.shape[0]):
        a, b = src[e], dst[e]
        da, db = d[a], d[b]
        if da != db and d[da] == da and q[da] < s:
            d[da] = db
        da = d[a]
        if db != da and d[db] == db and q[db] < s:
            d[db] = da


@numba.njit(cache=True, parallel=True)
def _sv4(d):
    for j in numba.prange(d.shape[0]):
        d[j] = d[d[j]]


@numba.njit(cache=True, parallel=True)
def _sv5(q, s):
    work = 0
    for j in numba.prange(q.shape[0]):
        if q[j] == s:
            work += 1
    return work


class CpuSV:
    """The same steps as Numba ``prange`` loops; SV5 counts the vertices marked this iteration."""

    def __init__(self, inp, params):
        self.src, self.dst, self.n, self.dtype = inp.src, inp.dst, inp.n, label_dtype(inp.n)

    def arrays(self):
        return np.empty(self.n, dtype=self.dtype), np.empty(self.n, dtype=self.dtype), np.empty(self.n, dtype=np.int32)

    def sv0(self, dp, q):
        _sv0(dp, q)

    def sv1a(self, d, dp):
        _sv1a(d, dp)

    def sv1b(self, d, dp, q, s):
        _sv1b(d, dp, q, s)

    def sv2(self, d, dp, q, s):
        _sv2(self.src, self.dst, d, dp, q, s)

    def sv3(self, d, q, s):
        _sv3(self.src, self.dst, d, q, s)

    def sv4(self, d):
        _sv4(d)

    def sv5(self, q, s) -> int:
        return _sv5(q, s)


KERNEL = Kernel(name="cc.shiloach-vishkin", problem=CC,
                summary="Shiloach-Vishkin SV0-SV5 with the 1a/1b split and a concurrent-write flag (000 Alg. 4)",
                gpu=partial(_run, GpuSV), cpu=partial(_run, CpuSV), params=GRID_PARAMS)
