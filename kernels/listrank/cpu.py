"""CPU helpers shared by the list-ranking twins: pointer jumping, list positions, sub-list stats;
and the host loop of the recursion of reduced lists (``rank_levels``), which Helman-JáJá runs over
either backend's passes (``gpu.GpuLevels`` or ``CpuLevels``)."""

import numba
import numpy as np

from graphsweep.core.gpu import array_module, to_host

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
    """Sub-list length statistics as in 000 Table 3 (lengths count nodes, splitter included).

    Device lengths are reduced on the device and only the six figures copied back: copying
    millions of lengths to the host and reducing them there took 0.1-0.2 s a task at 2^28."""
    xp = array_module(lengths)
    lengths = xp.asarray(lengths)
    wide = lengths.astype(xp.float64)
    figures = xp.stack([wide.min(), wide.max(), wide.mean(), wide.std(),
                        xp.count_nonzero(lengths == 1).astype(xp.float64)])
    low, high, mean, std, singletons = (float(v) for v in to_host(figures))
    return {"sublists": int(lengths.size), "sublist_min": int(low), "sublist_max": int(high),
            "sublist_mean": mean, "sublist_std": std, "singletons": int(singletons)}


# --- The recursion of reduced lists (003 Alg. 3) of Helman-JáJá and the recursive splitter.
# On the CPU a record is (owner << 32) | weight before the node; a reduced node is (weight, next)
# in two arrays.

def rank_levels(passes, n: int, levels: list, timer, select_phase=None, walk_phase="walk"):
    """Rank a list of ``n`` nodes through ``levels`` ((nodes, splitters, ...) per reduced level),
    over either backend's passes: per level ``select`` marks the splitters (in ``select_phase``, or
    inside the walk phase when None) and ``walk`` walks every sub-list from its splitter into the
    next, smaller list; ``combine`` ranks the last list and gives each level its sub-lists' ranks on
    the way back up.  Each backend gives its own byte model (packed and plain records differ)."""
    for level in range(len(levels)):
        marking = passes.select_traffic(level)
        if select_phase:
            with timer.phase(select_phase, **marking):
                passes.select(level)
        with timer.phase(walk_phase, **passes.walk_traffic(level)) as traffic:
            if not select_phase:
                traffic.add(**marking)
                passes.select(level)
            passes.walk(level)
    rank = passes.combine(timer)
    timer.stat("depth", len(levels))
    timer.stat("level_sizes", [m for m, *_ in levels] + [levels[-1][1] if levels else n])
    if levels:
        timer.stat("sublists", lambda: sublist_stats(passes.sublist_lengths()))
    return rank


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


class CpuLevels:
    """A recursion's passes (rank_levels) on plain int64 arrays: per level the records, the
    splitters and the reduced list (weight, next); ``select(level, rec, spl)`` is the kernel's way to
    mark a level's splitters; the last list is ranked sequentially from ``base_head``."""

    def __init__(self, inp, levels, select, base_head):
        n = inp.n
        self.n, self.levels, self._select, self.base_head = n, levels, select, base_head
        self.rank = np.empty(n, dtype=inp.rank_dtype)
        self.succs, self.weights = [inp.succ], [np.ones(n, np.int64)]
        self.rec = [np.empty(m, np.int64) for m, *_ in levels]
        self.spl = [np.empty(p, np.int64) for _, p, *_ in levels]
        self.succs += [np.empty(p, np.int64) for _, p, *_ in levels]
        self.weights += [np.empty(p, np.int64) for _, p, *_ in levels]
        self.incl = [np.empty(m, np.int64) for m, *_ in levels] + [np.empty(levels[-1][1] if levels else n, np.int64)]

    def select_traffic(self, level: int) -> dict:
        m, p, *_ = self.levels[level]
        return {"written": 8 * m + 16 * p, "random": p}

    def select(self, level: int):
        self._select(level, self.rec[level], self.spl[level])

    def walk_traffic(self, level: int) -> dict:
        m, p, *_ = self.levels[level]
        return {"read": 24 * m, "written": 8 * m + 16 * p, "random": 3 * m}

    def walk(self, level: int):
        walk_sublists(self.succs[level], self.weights[level], self.rec[level], self.spl[level],
                      self.weights[level + 1], self.succs[level + 1])

    def combine(self, timer):
        m = self.succs[-1].shape[0]
        with timer.phase("base", read=32 * m, written=8 * m, random=2 * m):
            rank_inclusive(self.succs[-1], self.weights[-1], self.base_head, self.incl[-1])
        for level in reversed(range(len(self.levels))):
            m = self.levels[level][0]
            with timer.phase("expand", read=16 * m, written=8 * m, random=m):
                expand_level(self.rec[level], self.incl[level + 1], self.incl[level], 0)
        with timer.phase("expand", read=8 * self.n, written=self.n * self.rank.itemsize):
            np.subtract(self.incl[0], 1, out=self.rank, casting="unsafe")
        return self.rank

    def sublist_lengths(self):
        return self.weights[1]


def rank_by_levels(inp, levels, select, base_head, timer, select_phase=None, walk_phase="walk"):
    """Rank ``inp`` through ``levels`` ((nodes, splitters, ...) per reduced level) on the CPU.

    ``select(level, rec, spl)`` marks the level's splitters (in ``select_phase``, or inside the walk
    phase when None); each level's sub-lists are walked in parallel into the next, smaller list;
    the last list is ranked sequentially from ``base_head``; each level then adds its sub-list's rank.
    """
    return rank_levels(CpuLevels(inp, levels, select, base_head), inp.n, levels, timer, select_phase, walk_phase)
