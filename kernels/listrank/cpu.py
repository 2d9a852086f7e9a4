"""CPU helpers shared by the list-ranking twins: pointer jumping, list positions, sub-list stats."""

import numba
import numpy as np

from .gpu import jump_rounds


def jump(value, nxt, timer, phase: str):
    """Wyllie's rounds on (value, next) arrays; value ends as the sum of values from i to the end.

    The end points to itself with value 0.  Each round gathers whole arrays before updating
    (ping-pong), one ``phase`` call per round.  Returns the value array.
    """
    m = value.shape[0]
    gathered, jumped = np.empty_like(value), np.empty_like(nxt)
    width = value.itemsize + nxt.itemsize
    for _ in range(jump_rounds(m)):
        with timer.phase(phase, read=2 * m * width, written=m * width, random=m):
            np.take(value, nxt, out=gathered, mode="clip")
            value += gathered
            np.take(nxt, nxt, out=jumped, mode="clip")
            nxt, jumped = jumped, nxt
    return value


@numba.njit(cache=True, nogil=True)
def nodes_at(succ, head, positions):
    """The nodes at the given (increasing) list positions counted from the head (0 = head)."""
    out = np.empty(positions.shape[0], np.int64)
    x = head
    pos = 0
    for k in range(positions.shape[0]):
        while pos < positions[k]:
            x = succ[x]
            pos += 1
        out[k] = x
    return out


def sublist_stats(lengths) -> dict:
    """Sub-list length statistics as in 000 Table 3 (lengths count nodes, splitter included)."""
    lengths = np.asarray(lengths)
    return {"sublists": int(lengths.size), "sublist_min": int(lengths.min()), "sublist_max": int(lengths.max()),
            "sublist_mean": float(lengths.mean()), "sublist_std": float(lengths.std()),
            "singletons": int(np.count_nonzero(lengths == 1))}
