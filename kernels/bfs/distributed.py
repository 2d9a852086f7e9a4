"""bfs.distributed — level-synchronous breadth-first search of one graph sliced over K Dask
workers (``partitions=K``; the slices, workers and ledger are ``kernels/graph/partition.py``'s).

Returns ``{"level", "parent"}`` (see the package doc): the same levels as ``bfs.best`` (a BFS's
levels are unique), parents valid by the verifier's rules.  Undirected graphs.

Algorithm (1-D, direction-optimising; Buluç & Madduri SC'11 §4 for 1-D top-down, Beamer, Buluç,
Asanović & Patterson IPDPS'13 for the distributed bottom-up).  Each worker owns the levels and
parents of its range and its frontier as local ids.  Every level is one round:
  top-down   each worker expands its frontier's rows: a neighbour it owns and has not reached is
             claimed at once (the first candidate wins); the others become (vertex, parent) pairs,
             one per vertex, sent to their owners as queues (8 bytes a pair; all-to-all), which
             claim the unreached ones.
  bottom-up  each worker sends its frontier to every other (all-gather) as a bitmap of its range
             or as a queue of ids (4 bytes each), whichever is smaller; every unreached vertex
             then looks for a frontier vertex among its neighbours (the first, in id order, is
             its parent), with nothing more to send.
The direction is GAPBS's rule on the global counts the driver gathers after each level (frontier
vertices and their out-edges; alpha, beta; ``bfs.direction-optimizing``'s functions, so both
switch alike): top-down moves the frontier's cut edges, bottom-up (K - 1) x n / 8 bytes at most,
so bottom-up pays on the few wide levels of a scale-free graph and top-down everywhere else.
The per-worker steps are array operations (NumPy on the CPU, CuPy on the GPU), not the
single-GPU kernels: a slice's level is a gather, a claim and a split, all of which the array
libraries do in a few passes; bottom-up examines every edge of the unreached rows (no early
exit), which the byte model says.

Rows: per level a step row (phase top-down or bottom-up, step = level) with the frontier, its
bytes exchanged, local work, wait and rounds; per phase and in all the ledger's statistics;
``levels``, ``bottom_up_levels`` and the partition's facts.
"""

import time

import numpy as np

from ..contract import Kernel, Param
from ..graph.partition import PARAMS as PARTITION_PARAMS
from ..graph.partition import Ledger, held, nbytes, partitioned, synchronize
from . import BFS, ROOT_PARAM
from .direction_optimizing import stays_bottom_up, wants_bottom_up

PHASES = ("init", "top-down", "bottom-up", "gather")
PARAMS = {**ROOT_PARAM, **PARTITION_PARAMS,
          "direction": Param("auto", str, choices=("auto", "top-down", "bottom-up"),
                             help="auto: Beamer's switching on global counts; top-down or bottom-up: that at every level"),
          "alpha": Param(15.0, float, minimum=1e-9, help="to bottom-up when the frontier's edges exceed unexplored "
                                                         "edges / alpha"),
          "beta": Param(18.0, float, minimum=1e-9, help="back to top-down when the frontier shrinks below n / beta")}


def _host(a):
    return a.get() if hasattr(a, "get") else a


def _first_claims(xp, level, parent, v, u, depth: int):
    """Claim each unreached local vertex of ``v`` (parent the first of its ``u``); returns them."""
    free = level[v] == -1
    v, u = v[free], u[free]
    v, first = xp.unique(v, return_index=True)
    level[v] = depth + 1
    parent[v] = u[first].astype(parent.dtype)
    return v


def _advance(s, new) -> dict:
    """Make ``new`` (local ids) the frontier; its global counts and its piece for a bottom-up level."""
    s.scratch["bfs-front"] = new
    off = s.csr.offsets
    count = int(new.shape[0])
    edges = int((off[new + 1] - off[new]).sum()) if count else 0
    size = s.hi - s.lo
    if 4 * count < (size + 7) // 8:
        front = {"ids": _host(new + s.lo).astype(np.int32 if s.n < 2**31 else np.int64), "from": s.index}
    else:
        mask = s.xp.zeros(size, dtype=np.bool_)
        mask[new] = True
        front = {"bits": np.packbits(_host(mask)), "lo": s.lo, "hi": s.hi, "from": s.index}
    return {"facts": {"count": count, "edges": edges}, "front": front}


def _init(key, root: int) -> dict:
    t0 = time.perf_counter()
    s = held(key)
    xp, size = s.xp, s.hi - s.lo
    level = xp.full(size, -1, dtype=np.int32)
    parent = xp.full(size, -1, dtype=s.csr.indices.dtype)
    new = xp.zeros(0, dtype=np.int64)
    if s.lo <= root < s.hi:
        level[root - s.lo], parent[root - s.lo] = 0, root
        new = xp.asarray([root - s.lo], dtype=np.int64)
    s.scratch.update({"bfs-level": level, "bfs-parent": parent})
    out = _advance(s, new)
    synchronize(s.device)
    s.record("init", None, time.perf_counter() - t0)
    return out


def _expand(key, depth: int) -> dict:
    """Top-down, sending side: claim own neighbours of the frontier, queue the others by owner."""
    t0 = time.perf_counter()
    s = held(key)
    xp, lo, hi = s.xp, s.lo, s.hi
    front = s.scratch["bfs-front"]
    which, entries = s.row_entries(front)
    v, u = s.csr.indices[entries], front[which] + lo
    own = (v >= lo) & (v < hi)
    s.scratch["bfs-next"] = _first_claims(xp, s.scratch["bfs-level"], s.scratch["bfs-parent"], v[own] - lo, u[own],
                                          depth)
    away, first = xp.unique(v[~own], return_index=True)       # one candidate parent per vertex
    pairs = _host(xp.stack([away, u[~own][first].astype(away.dtype)]))
    cuts = np.searchsorted(pairs[0], s.bounds)
    pieces = {j: {"pairs": pairs[:, cuts[j]:cuts[j + 1]], "from": s.index} for j in range(len(s.bounds) - 1)}
    synchronize(s.device)
    s.record("top-down", depth, time.perf_counter() - t0)
    return pieces


def _receive(key, depth: int, *pieces) -> dict:
    """Top-down, receiving side: claim the queued vertices not reached yet; the next frontier."""
    t0 = time.perf_counter()
    s = held(key)
    xp = s.xp
    claimed = s.scratch.pop("bfs-next")
    if pieces:
        pairs = xp.asarray(np.concatenate([p["pairs"] for p in pieces], axis=1))
        got = _first_claims(xp, s.scratch["bfs-level"], s.scratch["bfs-parent"], pairs[0] - s.lo, pairs[1], depth)
        claimed = xp.concatenate([claimed, got])
    out = _advance(s, claimed)
    synchronize(s.device)
    s.record("top-down", depth, time.perf_counter() - t0, sum(nbytes(p["pairs"]) for p in pieces))
    return out


def _bottom_up(key, depth: int, *fronts) -> dict:
    """Bottom-up: the global frontier from every worker's piece; each unreached own vertex takes
    its first neighbour in it as parent."""
    t0 = time.perf_counter()
    s = held(key)
    xp, lo = s.xp, s.lo
    frontier = xp.zeros(s.n, dtype=np.bool_)
    frontier[s.scratch["bfs-front"] + lo] = True
    for piece in fronts:
        if "ids" in piece:
            frontier[xp.asarray(piece["ids"])] = True
        else:
            bits = xp.asarray(np.unpackbits(piece["bits"], count=piece["hi"] - piece["lo"]))
            frontier[piece["lo"]:piece["hi"]] |= bits.astype(np.bool_)
    level, parent = s.scratch["bfs-level"], s.scratch["bfs-parent"]
    rows, cols = s.rows(), s.csr.indices
    hit = xp.flatnonzero((level[rows] == -1) & frontier[cols])
    found = _first_claims(xp, level, parent, rows[hit].astype(np.int64), cols[hit], depth)
    out = _advance(s, found)
    synchronize(s.device)
    s.record("bottom-up", depth, time.perf_counter() - t0, sum(nbytes(f) for f in fronts))
    return out


def _result(key) -> tuple:
    s = held(key)
    return _host(s.scratch["bfs-level"]), _host(s.scratch["bfs-parent"])


def _run(inp, params, timer, device: str):
    part = partitioned(inp, params, device)
    ledger = Ledger(part, timer, PHASES)
    k, n, root, name = part.k, inp.n, params["root"], "bfs.distributed"
    mode, alpha, beta = params["direction"], params["alpha"], params["beta"]
    rounds = 1 if k > 1 else 0

    def facts_of(results, phase):
        facts = part.gather([part.item(r, i, "facts", f"{name}-facts") for i, r in enumerate(results)], phase)
        return sum(f["count"] for f in facts), sum(f["edges"] for f in facts)

    with ledger.phase("init", rounds=0):
        results = ledger.each(_init, root, name=f"{name}-init")
        count, scout = facts_of(results, "init")
    edges_to_check = part.facts["slice_edges_total"]
    depth, old, bottom, check, bu_levels = 0, count, False, True, 0
    while count:
        if not bottom and (mode == "bottom-up" or (mode == "auto" and check and
                                                   wants_bottom_up(scout, edges_to_check, alpha, n, beta))):
            bottom = True
        info = {"direction": "bottom-up" if bottom else "top-down", "frontier": count}
        if bottom:
            with ledger.phase("bottom-up", step=depth, rounds=rounds, info=info):
                fronts = [part.item(r, i, "front", f"{name}-front") for i, r in enumerate(results)]
                results = [part.submit(_bottom_up, j, ledger.key, depth, *(f for i, f in enumerate(fronts) if i != j),
                                       name=f"{name}-bottom-up") for j in range(k)]
                old, (count, scout) = count, facts_of(results, "bottom-up")
            bu_levels += 1
            if mode == "auto" and (count == 0 or not stays_bottom_up(count, old, n, beta)):
                bottom, check = False, False     # GAPBS: the step after bottom-up is top-down
        else:
            if check:
                edges_to_check -= scout
            check = True
            with ledger.phase("top-down", step=depth, rounds=rounds, info=info):
                sent = ledger.each(_expand, depth, name=f"{name}-expand")
                results = [part.submit(_receive, j, ledger.key, depth,
                                       *(part.item(sent[i], i, j, f"{name}-queue") for i in range(k) if i != j),
                                       name=f"{name}-receive") for j in range(k)]
                count, scout = facts_of(results, "top-down")
        depth += 1
        if depth > n:
            raise RuntimeError(f"{name}: level {depth} on {n} vertices (a worker lost count)")
    with ledger.phase("gather", rounds=1, written=8 * n):
        pieces = part.gather(ledger.each(_result, name=f"{name}-gather"), "gather")
        level = np.concatenate([p[0] for p in pieces])
        parent = np.concatenate([p[1] for p in pieces])
        ledger.received("gather", None, level.nbytes + parent.nbytes)
    ledger.stats()
    timer.stat("levels", depth)
    timer.stat("bottom_up_levels", bu_levels)
    if device == "gpu":
        import cupy
        level, parent = cupy.asarray(level), cupy.asarray(parent)
    return {"level": level, "parent": parent}


def run_cpu(inp, params, timer):
    return _run(inp, params, timer, "cpu")


def run_gpu(inp, params, timer):
    return _run(inp, params, timer, "gpu")


def setup(inp, params):
    """Slice the graph over the workers before warm-up (untimed; its facts become statistics)."""
    partitioned(inp, params, inp.device)


KERNEL = Kernel(name="bfs.distributed", problem=BFS,
                summary="one graph sliced over K Dask workers: level-synchronous BFS, frontier exchanged per level "
                        "as queues of (vertex, parent) pairs (top-down) or bitmaps / id queues (bottom-up)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=setup, requires=frozenset({"undirected"}))
