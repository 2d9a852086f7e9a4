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


# --- The levels of the recursive splitter twins (Helman-JáJá, recursive-splitter).
# A record is (owner << 32) | weight before the node; a reduced node is (weight, next) in two arrays.

@numba.njit(cache=True, parallel=True)
def walk_sublists(succ, weight, rec, spl, out_weight, out_next):
    """From each splitter k, walk its sub-list: rec[j] = (k << 32) | weight before j; the reduced
    node k gets the sub-list's weight and the next sub-list (itself at the tail)."""
    for k in numba.prange(spl.shape[0]):
        j = spl[k]
        acc = 0
        while True:
            rec[j] = (k << 32) | acc
            acc += weight[j]
            nx = succ[j]
            if nx == j:
                out_next[k] = k
                break
            o = rec[nx] >> 32
            if o != -1:
                out_next[k] = o
                break
            j = nx
        out_weight[k] = acc


@numba.njit(cache=True)
def rank_inclusive(succ, weight, head, incl):
    """Sequential: incl[i] = weight from i to the end (walk once for the total, once to assign)."""
    total = 0
    x = head
    while True:
        total += weight[x]
        if succ[x] == x:
            break
        x = succ[x]
    x = head
    while True:
        incl[x] = total
        total -= weight[x]
        if succ[x] == x:
            break
        x = succ[x]


@numba.njit(cache=True, parallel=True)
def expand_level(rec, upper, out, minus):
    for j in numba.prange(rec.shape[0]):
        out[j] = upper[rec[j] >> 32] - (rec[j] & 0xFFFFFFFF) - minus


def rank_by_levels(inp, levels, select, base_head, timer, select_phase=None, walk_phase="walk"):
    """Rank ``inp`` through ``levels`` ((nodes, splitters, ...) per reduced level).

    ``select(level, rec, spl)`` marks the level's splitters (in ``select_phase``, or inside the walk
    phase when None); each level's sub-lists are walked in parallel into the next, smaller list;
    the last list is ranked sequentially from ``base_head``; each level then adds its sub-list's rank.
    """
    n = inp.n
    rank = np.empty(n, dtype=inp.rank_dtype)
    succs, weights = [inp.succ], [np.ones(n, np.int64)]
    rec = [np.empty(m, np.int64) for m, *_ in levels]
    spl = [np.empty(p, np.int64) for _, p, *_ in levels]
    succs += [np.empty(p, np.int64) for _, p, *_ in levels]
    weights += [np.empty(p, np.int64) for _, p, *_ in levels]
    incl = [np.empty(m, np.int64) for m, *_ in levels] + [np.empty(levels[-1][1] if levels else n, np.int64)]
    for level, (m, p, *_) in enumerate(levels):
        marking = dict(written=8 * m + 16 * p, random=p)
        if select_phase:
            with timer.phase(select_phase, **marking):
                select(level, rec[level], spl[level])
        with timer.phase(walk_phase, read=24 * m, written=8 * m + 16 * p, random=3 * m) as traffic:
            if not select_phase:
                traffic.add(**marking)
                select(level, rec[level], spl[level])
            walk_sublists(succs[level], weights[level], rec[level], spl[level], weights[level + 1],
                          succs[level + 1])
    m = succs[-1].shape[0]
    with timer.phase("base", read=32 * m, written=8 * m, random=2 * m):
        rank_inclusive(succs[-1], weights[-1], base_head, incl[-1])
    for level in reversed(range(len(levels))):
        m = levels[level][0]
        with timer.phase("expand", read=16 * m, written=8 * m, random=m):
            expand_level(rec[level], incl[level + 1], incl[level], 0)
    with timer.phase("expand", read=8 * n, written=n * rank.itemsize):
        np.subtract(incl[0], 1, out=rank, casting="unsafe")
    timer.stat("depth", len(levels))
    timer.stat("level_sizes", [m for m, *_ in levels] + [levels[-1][1] if levels else n])
    if levels:
        timer.stat("sublists", lambda: sublist_stats(weights[1]))
    return rank
