"""Structural checks of a successor array: is it exactly one list from one head to one tail?"""

import numba
import numpy as np

from .errors import ListStructureError


@numba.njit(cache=True, nogil=True)
def _scan(succ):
    """(tails, first tail, second tail, node with in-degree 2 or -1, heads, first head, second head,
    nodes reached walking from the first head).  Values are assumed in [0, n)."""
    n = succ.shape[0]
    indeg = np.zeros(n, np.uint8)
    tails = 0
    t0 = -1
    t1 = -1
    dup = -1
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
    h0 = -1
    h1 = -1
    for i in range(n):
        if indeg[i] == 0:
            heads += 1
            if h0 < 0:
                h0 = i
            elif h1 < 0:
                h1 = i
    reached = 0
    if h0 >= 0:
        x = h0
        reached = 1
        while succ[x] != x and reached <= n:
            x = succ[x]
            reached += 1
    return tails, t0, t1, dup, heads, h0, h1, reached


def check_list(succ, where="succ") -> tuple[int, int]:
    """Return (head, tail) of the list ``succ`` or raise ``ListStructureError`` naming the fault.

    ``succ`` is a host array with values already known to lie in [0, n).
    """
    succ = np.ascontiguousarray(succ)
    n = succ.shape[0]
    if n == 0:
        raise ListStructureError(f"{where}: the list is empty (n = 0)")
    tails, t0, t1, dup, heads, h0, h1, reached = _scan(succ)
    if tails == 0:
        raise ListStructureError(f"{where}: no tail (no node i with succ[i] = i): the list is a cycle")
    if tails > 1:
        raise ListStructureError(f"{where}: {tails} tails (nodes {t0} and {t1} point to themselves)")
    if dup >= 0:
        raise ListStructureError(f"{where}: node {dup} is the successor of more than one node")
    if heads > 1:
        raise ListStructureError(f"{where}: {heads} heads (nodes {h0} and {h1} have no predecessor)")
    if reached < n:
        raise ListStructureError(
            f"{where}: {n - reached} of {n} nodes lie on a cycle that never reaches the tail {t0}")
    return h0, t0
