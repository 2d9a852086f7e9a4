"""Structural checks of a successor array: is it exactly one list from one head to one tail?

A sequential walk from the head would prove it, but each step is a dependent cache miss (seconds
for 2^26 nodes).  Instead: one streaming pass counts tails and in-degrees and finds the head.
Then walks start at the head and at about one node in 2^STRIDE_BITS (splitters, chosen by a
multiplicative hash of the index, so no list order, however regular, makes walks long); each
walk stops at the next splitter or the tail.  Walks are independent, so each thread keeps ``LANES`` of them in
flight at once (memory-level parallelism) across all cores.  With one tail, in-degree <= 1 and
one head, the head's chain of walks ends at the tail; the list is whole iff that chain covers
all n nodes — nodes it misses lie on cycles (with no way out, since in-degree is <= 1).

A CuPy array is checked where it lies, by the same steps in structure.cu (one walk per thread,
longer walks: ``GPU_STRIDE``); only the walks' ends come back to the host for the final hop.
"""

from functools import cache
from pathlib import Path

import numba
import numpy as np

from graphsweep.core.errors import ListStructureError
from graphsweep.core.gpu import array_module

STRIDE_BITS = 6                 # about one splitter in 2^6 nodes on the CPU,
GPU_STRIDE_BITS = 10            # one in 2^10 on the GPU (one walk per thread)
LANES = 16
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True, inline="always")
def _is_splitter(x, bits):
    return (np.uint64(x) * GOLDEN) >> np.uint64(64 - bits) == 0


@numba.njit(cache=True, nogil=True)
def _degrees(succ):
    """(tails, smallest tail, largest tail, smallest node of in-degree >= 2 or -1, smallest node of
    in-degree 0).  With one tail and every in-degree <= 1 that last node is the only head."""
    n = succ.shape[0]
    indeg = np.zeros(n, np.uint8)
    tails = 0
    t0 = t1 = dup = -1
    for i in range(n):
        s = succ[i]
        if s == i:
            tails += 1
            if t0 < 0:
                t0 = i
            t1 = i
        elif indeg[s] == 0:
            indeg[s] = 1
        elif dup < 0 or s < dup:
            dup = s
    head = -1
    for i in range(n):
        if indeg[i] == 0:
            head = i
            break
    return tails, t0, t1, dup, head


@numba.njit(cache=True, nogil=True)
def _splitters(n, bits):
    """The splitter nodes in increasing order."""
    count = 0
    for i in range(n):
        count += _is_splitter(i, bits)
    out = np.empty(count, np.int64)
    count = 0
    for i in range(n):
        if _is_splitter(i, bits):
            out[count] = i
            count += 1
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def _walk_all(succ, starts, bits, stop, length):
    """From each start, follow succ until a splitter or the tail; LANES walks per thread at once."""
    nstarts = starts.shape[0]
    chunks = -(-nstarts // LANES)
    for c in numba.prange(chunks):
        first = c * LANES
        last = min(first + LANES, nstarts)
        cur = np.empty(LANES, np.int64)
        steps = np.zeros(LANES, np.int64)
        live = last - first
        for j in range(live):
            cur[j] = starts[first + j]
        done = np.zeros(LANES, np.bool_)
        while live > 0:
            for j in range(last - first):
                if done[j]:
                    continue
                x = cur[j]
                nxt = succ[x]
                if nxt == x:
                    done[j] = True
                else:
                    steps[j] += 1
                    cur[j] = nxt
                    if _is_splitter(nxt, bits):
                        done[j] = True
                if done[j]:
                    stop[first + j] = cur[j]
                    length[first + j] = steps[j]
                    live -= 1


@numba.njit(cache=True, nogil=True)
def _reached(tail, starts, stop, length):
    """Nodes reached from the head, hopping along the walks' results (the head's walk is last)."""
    splitters = starts[:-1]
    slot = starts.shape[0] - 1
    reached = 1
    while True:
        reached += length[slot]
        x = stop[slot]
        if x == tail:
            return reached
        slot = np.searchsorted(splitters, x)


def _cpu_counts(succ):
    return _degrees(np.ascontiguousarray(succ))


def _cpu_walks(succ, head):
    succ = np.ascontiguousarray(succ)
    starts = np.append(_splitters(succ.shape[0], STRIDE_BITS), np.int64(head))
    stop = np.empty_like(starts)
    length = np.empty_like(starts)
    _walk_all(succ, starts, STRIDE_BITS, stop, length)
    return starts, stop, length


@cache
def _gpu_module(device_id: int):
    import cupy
    return cupy.RawModule(code=(Path(__file__).parent / "structure.cu").read_text(),
                          name_expressions=[f"graphsweep_structure_{k}<{t}>" for k in ("degrees", "walks")
                                            for t in ("int", "long long")])


def _gpu_kernel(name: str, succ):
    import cupy
    ctype = "int" if succ.dtype == np.int32 else "long long"
    return _gpu_module(cupy.cuda.Device().id).get_function(f"graphsweep_structure_{name}<{ctype}>")


def _gpu_counts(succ):
    import cupy
    n = succ.shape[0]
    seen = cupy.zeros((n + 31) // 32, dtype=np.uint32)
    none = np.iinfo(np.uint64).max
    stats = cupy.asarray(np.array([0, none, 0, none, none], dtype=np.uint64))
    grid = (min(-(-n // 256), 65536),)
    _gpu_kernel("degrees", succ)(grid, (256,), (succ, np.int64(n), seen, stats))
    _gpu_module(cupy.cuda.Device().id).get_function("graphsweep_structure_heads")(
        grid, (256,), (seen, np.int64(n), stats))
    tails, t0, t1, dup, head = (int(v) for v in stats.get())
    return tails, t0, t1, -1 if dup == none else dup, head


def _gpu_walks(succ, head):
    import cupy
    n = succ.shape[0]
    flags = cupy.empty(n, dtype=np.bool_)
    _gpu_module(cupy.cuda.Device().id).get_function("graphsweep_structure_splitters")(
        (min(-(-n // 256), 65536),), (256,), (flags, np.int64(n), np.int32(GPU_STRIDE_BITS)))
    starts = cupy.append(cupy.flatnonzero(flags), cupy.int64(head))
    del flags
    stop = cupy.empty_like(starts)
    length = cupy.empty_like(starts)
    _gpu_kernel("walks", succ)((-(-starts.size // 128),), (128,),
                               (succ, starts, np.int64(starts.size), np.int32(GPU_STRIDE_BITS), stop, length))
    return starts, stop, length


def _reached_by_jumping(xp, tail, starts, stop, length) -> int:
    """``_reached`` where the walks lie (the GPU): the walks form a list (walk j continues with
    the walk that starts where j stopped; the walk that stops at the tail ends it), and Wyllie's
    pointer jumping sums the lengths along the head's chain (the head's walk is last).  That chain
    ends at the tail: with every in-degree <= 1, no path can enter a cycle."""
    splitters = starts[:-1]
    nxt = xp.minimum(xp.searchsorted(splitters, stop), splitters.size - 1)
    done = stop == tail
    nxt[done] = xp.flatnonzero(done)   # the walk that ends at the tail points to itself
    dist = length.copy()
    for _ in range(int(starts.size).bit_length()):
        dist = xp.where(done, dist, dist + dist[nxt])
        done = done[nxt]
        nxt = nxt[nxt]
    return 1 + int(dist[-1])


def check_list(succ, where="succ") -> tuple[int, int]:
    """Return (head, tail) of the list ``succ`` or raise ``ListStructureError`` naming the fault.

    ``succ`` is a NumPy or CuPy array with values already known to lie in [0, n).
    """
    n = succ.shape[0]
    if n == 0:
        raise ListStructureError(f"{where}: the list is empty (n = 0)")
    on_gpu = array_module(succ) is not np
    tails, t0, t1, dup, head = (_gpu_counts if on_gpu else _cpu_counts)(succ)
    if tails == 0:
        raise ListStructureError(f"{where}: no tail (no node i with succ[i] = i): the list is a cycle")
    if tails > 1:
        raise ListStructureError(f"{where}: {tails} tails (nodes {t0}{' ... ' if tails > 2 else ' and '}{t1} "
                                 "point to themselves)")
    if dup >= 0:
        raise ListStructureError(f"{where}: node {dup} is the successor of more than one node")
    if on_gpu:
        import cupy
        reached = _reached_by_jumping(cupy, t0, *_gpu_walks(succ, head))
    else:
        reached = _reached(t0, *_cpu_walks(succ, head))
    if reached < n:
        raise ListStructureError(
            f"{where}: {n - reached} of {n} nodes lie on a cycle that never reaches the tail {t0}")
    return int(head), int(t0)
