"""Structural checks of a successor array: is it exactly one list from one head to one tail?

A sequential walk from the head would prove it, but each step is a dependent cache miss (seconds
for 2^26 nodes).  Instead: one streaming pass counts tails, in-degrees and heads; then every
node whose index is a multiple of ``STRIDE`` (and the head) starts a walk that stops at the next
such node or at the tail.  Walks are independent, so each thread keeps ``LANES`` of them in
flight at once (memory-level parallelism) across all cores.  With one tail, in-degree <= 1 and
one head, the head's chain of walks ends at the tail; the list is whole iff that chain covers
all n nodes — nodes it misses lie on cycles (with no way out, since in-degree is <= 1).
"""

import numba
import numpy as np

from .errors import ListStructureError

STRIDE = 64
LANES = 16


@numba.njit(cache=True, nogil=True)
def _degrees(succ):
    """(tails, first tail, second tail, node with in-degree >= 2 or -1, heads, first two heads)."""
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
            elif t1 < 0:
                t1 = i
        elif indeg[s] == 0:
            indeg[s] = 1
        elif dup < 0:
            dup = s
    heads = 0
    h0 = h1 = -1
    for i in range(n):
        if indeg[i] == 0:
            heads += 1
            if h0 < 0:
                h0 = i
            elif h1 < 0:
                h1 = i
    return tails, t0, t1, dup, heads, h0, h1


@numba.njit(cache=True, nogil=True)
def _starts(n, head):
    starts = np.arange(0, n, STRIDE).astype(np.int64)
    return np.append(starts, np.int64(head))


@numba.njit(cache=True, nogil=True, parallel=True)
def _walk_all(succ, starts, stop, length):
    """From each start, follow succ until a multiple of STRIDE or the tail; LANES walks a thread."""
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
                    if nxt % STRIDE == 0:
                        done[j] = True
                if done[j]:
                    stop[first + j] = cur[j]
                    length[first + j] = steps[j]
                    live -= 1


@numba.njit(cache=True, nogil=True)
def _reached(succ, head, stop, length):
    """Nodes reached from the head, hopping along the walks' results."""
    slot = stop.shape[0] - 1            # the head's walk is the last one
    reached = 1
    while True:
        reached += length[slot]
        x = stop[slot]
        if succ[x] == x:
            return reached
        slot = x // STRIDE


def check_list(succ, where="succ") -> tuple[int, int]:
    """Return (head, tail) of the list ``succ`` or raise ``ListStructureError`` naming the fault.

    ``succ`` is a host array with values already known to lie in [0, n).
    """
    succ = np.ascontiguousarray(succ)
    n = succ.shape[0]
    if n == 0:
        raise ListStructureError(f"{where}: the list is empty (n = 0)")
    tails, t0, t1, dup, heads, h0, h1 = _degrees(succ)
    if tails == 0:
        raise ListStructureError(f"{where}: no tail (no node i with succ[i] = i): the list is a cycle")
    if tails > 1:
        raise ListStructureError(f"{where}: {tails} tails (nodes {t0} and {t1} point to themselves)")
    if dup >= 0:
        raise ListStructureError(f"{where}: node {dup} is the successor of more than one node")
    if heads > 1:
        raise ListStructureError(f"{where}: {heads} heads (nodes {h0} and {h1} have no predecessor)")
    starts = _starts(n, h0)
    stop = np.empty_like(starts)
    length = np.empty_like(starts)
    _walk_all(succ, starts, stop, length)
    reached = _reached(succ, h0, stop, length)
    if reached < n:
        raise ListStructureError(
            f"{where}: {n - reached} of {n} nodes lie on a cycle that never reaches the tail {t0}")
    return int(h0), int(t0)
