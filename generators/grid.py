"""``grid``: a ROWS x COLS 4-neighbour grid with a fraction ``keep`` of its edges kept, the
road-like family (long diameter, degree at most 4, a giant component plus fragments once edges
are removed: bond percolation on the square lattice keeps a giant component above keep = 0.5).

Vertex ids are row-major (v = r * cols + c), as road networks are usually numbered by place.  The
full grid's edges are numbered in closed form: slots [0, rows * (cols - 1)) are the horizontal
edges (v, v + 1) row by row, the rest the vertical edges (v, v + cols) in order of v.  Exactly
m = round(keep * full) edges are kept, spread evenly over fixed blocks of ``BLOCK_ROWS`` slots:
block b keeps floor(m * end_b / full) - floor(m * start_b / full) of its slots, chosen without
replacement (the ``count`` smallest of one uniform draw per slot) from
``Generator(Philox(K(seed, STREAM_GRID), counter=b << 64))`` and kept in slot order.  So a dataset row maps in closed form to its block, each block is drawn on its own, and
the dataset is the same for any part size or worker count; dataset rows run in slot order (the
edge list of a road map, horizontal edges first).
"""

import numpy as np

from graphsweep.core.params import Param

from .registry import WEIGHTS, Generator, Plan, need, parse_weights, permutable
from .streams import BLOCK_ROWS, STREAM_GRID, block_rng, stream_key


def full_edges(rows: int, cols: int) -> int:
    """Edges of the complete rows x cols 4-neighbour grid."""
    return rows * (cols - 1) + (rows - 1) * cols


def kept_edges(rows: int, cols: int, keep: float) -> int:
    return round(keep * full_edges(rows, cols))


def _plan_grid(params: dict, seed: int) -> Plan:
    rows, cols, keep = params["rows"], params["cols"], params["keep"]
    need(0 <= keep <= 1, "keep", keep, "0 <= keep <= 1")
    full = full_edges(rows, cols)
    return Plan("graph", rows * cols, kept_edges(rows, cols, keep), seed, weights=parse_weights(params["weights"]),
                stats={"rows": rows, "cols": cols, "keep": keep, "full_edges": full},
                state={"rows": rows, "cols": cols, "full": full})


def _choose(rng: np.random.Generator, size: int, count: int) -> np.ndarray:
    """``count`` distinct slots of [0, size), in increasing order: the ranks of ``count`` smallest of
    ``size`` uniform draws (linear time; 5x faster than Generator.choice without replacement)."""
    keep = np.zeros(size, dtype=bool)
    if count:
        keep[np.argpartition(rng.random(size), count - 1)[:count]] = True
    return np.flatnonzero(keep)


def _slots(plan: Plan, start: int, stop: int) -> np.ndarray:
    """Grid slots of the kept rows [start, stop), in order."""
    full = plan.state["full"]
    out = np.empty(stop - start, dtype=np.int64)
    if stop <= start:
        return out
    blocks = -(-full // BLOCK_ROWS)
    # first kept row of each block, and of the end: a closed form, evaluated exactly in Python ints
    firsts = np.array([min(b * BLOCK_ROWS, full) * plan.rows // full for b in range(blocks + 1)], dtype=np.int64)
    key = stream_key(plan.seed, STREAM_GRID)
    first_block = int(np.searchsorted(firsts, start, side="right")) - 1
    for b in range(max(first_block, 0), blocks):
        lo, hi = int(firsts[b]), int(firsts[b + 1])
        if lo >= stop:
            break
        if hi <= start or hi == lo:
            continue
        size = min(BLOCK_ROWS, full - b * BLOCK_ROWS)
        chosen = _choose(block_rng(key, b), size, hi - lo) + b * BLOCK_ROWS
        a, z = max(start, lo), min(stop, hi)
        out[a - start:z - start] = chosen[a - lo:z - lo]
    return out


def _part_grid(plan: Plan, start: int, stop: int, xp) -> dict:
    cols = plan.state["cols"]
    width = max(cols - 1, 1)                  # horizontal edges per row
    horizontal = plan.state["rows"] * (cols - 1)
    slot = _slots(plan, start, stop)
    # Slots come in increasing order: the horizontal edges are a prefix, row by row.  The edge in
    # slot s of row r = s // width joins v = r * cols + s % width = s + r and v + 1; rows are
    # found by a search per row boundary, not a division per edge (4x faster).
    split = int(np.searchsorted(slot, horizontal))
    src = slot.copy()
    if split:
        first, last = int(slot[0]) // width, int(slot[split - 1]) // width
        bounds = np.searchsorted(slot[:split], np.arange(first, last + 2, dtype=np.int64) * width)
        src[:split] += np.repeat(np.arange(first, last + 1, dtype=np.int64), np.diff(bounds))
    src[split:] -= horizontal
    dst = src + 1
    dst[split:] += cols - 1
    dtype = plan.index_dtype
    return {"src": src.astype(dtype), "dst": dst.astype(dtype)}


GRID = permutable(Generator(
    "grid", "graph", "ROWS x COLS 4-neighbour grid keeping a fraction KEEP of its edges (road-like)",
    {"rows": Param(1024, int, minimum=1, help="grid rows"),
     "cols": Param(1024, int, minimum=1, help="grid columns (n = rows * cols, row-major ids)"),
     "keep": Param(1.0, float, help="fraction of the full grid's edges kept, in [0, 1] (road-like: 0.8)"),
     "weights": WEIGHTS},
    _plan_grid, _part_grid))
