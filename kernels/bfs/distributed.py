"""bfs.distributed — level-synchronous breadth-first search of one graph sliced over K Dask
workers (``partitions=K``; the slices, workers and ledger are ``kernels/graph/partition.py``'s).

Returns ``{"level", "parent"}`` (see the package doc): the same levels as ``bfs.best`` (a BFS's
levels are unique), parents valid by the verifier's rules.  Undirected graphs.

Algorithm (1-D, direction-optimising; Buluç & Madduri SC'11 §4 for 1-D top-down, Beamer, Buluç,
Asanović & Patterson IPDPS'13 for the distributed bottom-up).  One task per worker runs the whole
search on its slice, in step with the others: the pieces of a level go straight from worker to
worker (``kernels/graph/exchange.py``: Dask's comms, no scheduler in the loop), so a level costs
two message hops, not a scheduler round trip per task.  Each worker owns the levels and parents
of its range and its frontier as local ids.  Every level:
  top-down   each worker expands its frontier's rows: a neighbour it owns and has not reached is
             claimed at once (the first candidate wins); the others become (vertex, parent) pairs,
             one per vertex, sent to their owners (8 bytes a pair; all-to-all), which claim the
             unreached ones.
  bottom-up  each worker sends its frontier to every other (all-gather) as a bitmap of its range
             or as a queue of ids (4 bytes each), whichever is smaller; every unreached vertex
             then looks for a frontier vertex among its neighbours (the first, in id order, is
             its parent), with nothing more to send.
  counts     the new frontier's size and out-edges, summed over the workers (all-reduce), from
             which every worker takes the same direction for the next level by GAPBS's rule
             (alpha, beta; ``bfs.direction-optimizing``'s functions, so both switch alike):
             top-down moves the frontier's cut edges, bottom-up (K - 1) x n / 8 bytes at most,
             so bottom-up pays on the few wide levels of a scale-free graph.
The per-worker steps are array operations (NumPy on the CPU, CuPy on the GPU), not the
single-GPU kernels; bottom-up examines every edge of the unreached rows (no early exit).  A
worker lost during a search fails the run in one line; the driver tells the others to stop
waiting (``exchange.cancel``).

Rows: a step row per level (phase ``level``: the slowest worker's wall time, its compute, the
least wait, the bytes all workers received, the frontier and direction, 2 rounds); phases
``search`` and ``gather`` with the ledger's local work, wait, bytes and rounds; ``levels``,
``bottom_up_levels`` and the partition's facts.
"""

import time
from functools import partial

import numpy as np
from graphsweep.datasets.gpu import to_host

from ..contract import Kernel, Param
from ..graph.exchange import Peers
from ..graph.partition import PARAMS as PARTITION_PARAMS
from ..graph.partition import Ledger, answer_on, held, lockstep_rows, partitioned, slice_graph, synchronize
from . import BFS, ROOT_PARAM
from .direction_optimizing import stays_bottom_up, wants_bottom_up

PHASES = ("search", "gather")
PARAMS = {**ROOT_PARAM, **PARTITION_PARAMS,
          "direction": Param("auto", str, choices=("auto", "top-down", "bottom-up"),
                             help="auto: Beamer's switching on global counts; top-down or bottom-up: that at every level"),
          "alpha": Param(15.0, float, minimum=1e-9, help="to bottom-up when the frontier's edges exceed unexplored "
                                                         "edges / alpha"),
          "beta": Param(18.0, float, minimum=1e-9, help="back to top-down when the frontier shrinks below n / beta")}



def _first_claims(xp, level, parent, v, u, depth: int):
    """Claim each unreached local vertex of ``v`` (parent the first of its ``u``); returns them."""
    free = level[v] == -1
    v, u = v[free], u[free]
    v, first = xp.unique(v, return_index=True)
    level[v] = depth + 1
    parent[v] = u[first].astype(parent.dtype)
    return v


def _claim(s, pairs, depth: int):
    """Claim the vertices of ``pairs`` (2 x p: global vertex, parent) not reached yet."""
    xp = s.xp
    if pairs.shape[1] == 0:
        return xp.zeros(0, dtype=np.int64)
    pairs = xp.asarray(pairs)
    return _first_claims(xp, s.scratch["bfs-level"], s.scratch["bfs-parent"], pairs[0] - s.lo, pairs[1], depth)


def _top_down(s, peers, depth: int):
    """Expand the frontier's rows: own neighbours claimed at once, the others sent to their
    owners as (vertex, parent) pairs, one per vertex; returns the next frontier (local ids)."""
    xp, lo, hi = s.xp, s.lo, s.hi
    front = s.scratch["bfs-front"]
    which, entries = s.row_entries(front)
    v, u = s.csr.indices[entries], front[which] + lo
    own = (v >= lo) & (v < hi)
    claimed = _first_claims(xp, s.scratch["bfs-level"], s.scratch["bfs-parent"], v[own] - lo, u[own], depth)
    away, first = xp.unique(v[~own], return_index=True)       # one candidate parent per vertex
    pairs = to_host(xp.stack([away, u[~own][first].astype(away.dtype)]))
    cuts = np.searchsorted(pairs[0], s.bounds)
    got = peers.exchange(("pairs", depth), {j: pairs[:, cuts[j]:cuts[j + 1]] for j in range(peers.k)})
    if got:
        claimed = xp.concatenate([claimed, _claim(s, np.concatenate(list(got.values()), axis=1), depth)])
    return claimed


def _bottom_up(s, peers, depth: int):
    """The global frontier from every worker's piece (a bitmap of its range or a queue of ids,
    whichever is smaller); each unreached own vertex takes its first neighbour in it as parent."""
    xp, lo, hi = s.xp, s.lo, s.hi
    new = s.scratch["bfs-front"]
    size = hi - lo
    if 4 * int(new.shape[0]) < (size + 7) // 8:
        piece = {"ids": to_host(new + lo).astype(np.int32 if s.n < 2**31 else np.int64)}
    else:
        mask = xp.zeros(size, dtype=np.bool_)
        mask[new] = True
        piece = {"bits": np.packbits(to_host(mask)), "lo": lo, "hi": hi}
    frontier = xp.zeros(s.n, dtype=np.bool_)
    frontier[new + lo] = True
    for got in peers.exchange(("front", depth), {j: piece for j in range(peers.k)}).values():
        if "ids" in got:
            frontier[xp.asarray(got["ids"])] = True
        else:
            bits = xp.asarray(np.unpackbits(got["bits"], count=got["hi"] - got["lo"]))
            frontier[got["lo"]:got["hi"]] |= bits.astype(np.bool_)
    level, parent = s.scratch["bfs-level"], s.scratch["bfs-parent"]
    rows, cols = s.rows(), s.csr.indices
    hit = xp.flatnonzero((level[rows] == -1) & frontier[cols])
    return _first_claims(xp, level, parent, rows[hit].astype(np.int64), cols[hit], depth)


def _search(key, root: int, mode: str, alpha: float, beta: float, edges_total: int, addresses: list) -> dict:
    """The whole search on this worker's slice, in step with the others (one task per worker):
    every level a direction chosen alike everywhere from the global counts, the level's
    exchange, then the counts' all-reduce (two rounds a level)."""
    t0 = time.perf_counter()
    s = held(key)
    peers = Peers(key[1], s.index, addresses)
    xp, size, n = s.xp, s.hi - s.lo, s.n
    level = xp.full(size, -1, dtype=np.int32)
    parent = xp.full(size, -1, dtype=s.csr.indices.dtype)
    new = xp.zeros(0, dtype=np.int64)
    if s.lo <= root < s.hi:
        level[root - s.lo], parent[root - s.lo] = 0, root
        new = xp.asarray([root - s.lo], dtype=np.int64)
    s.scratch.update({"bfs-level": level, "bfs-parent": parent})

    def counts(new, depth):
        s.scratch["bfs-front"] = new
        off = s.csr.offsets
        edges = int((off[new + 1] - off[new]).sum()) if new.shape[0] else 0
        total = peers.allreduce(("facts", depth), np.array([int(new.shape[0]), edges], dtype=np.int64))
        return int(total[0]), int(total[1])

    count, scout = counts(new, -1)
    depth, old, bottom, check, steps = 0, count, False, True, []
    while count:
        if not bottom and (mode == "bottom-up" or (mode == "auto" and check and
                                                   wants_bottom_up(scout, edges_total, alpha, n, beta))):
            bottom = True
        if not bottom and check:
            edges_total -= scout
        synchronize(s.backend)
        t1, waited, received = time.perf_counter(), peers.waited, peers.received
        new = _bottom_up(s, peers, depth) if bottom else _top_down(s, peers, depth)
        front = count
        old, (count, scout) = count, counts(new, depth)
        synchronize(s.backend)
        wall = time.perf_counter() - t1
        steps.append({"step": depth, "direction": "bottom-up" if bottom else "top-down", "frontier": front,
                      "ms": 1e3 * wall, "wait_ms": 1e3 * (peers.waited - waited),
                      "bytes_exchanged": peers.received - received})
        if bottom:
            if mode == "auto" and (count == 0 or not stays_bottom_up(count, old, n, beta)):
                bottom, check = False, False     # GAPBS: the step after bottom-up is top-down
        else:
            check = True
        depth += 1
        if depth > n:
            raise RuntimeError(f"bfs.distributed: level {depth} on {n} vertices (a worker lost count)")
    seconds = time.perf_counter() - t0
    s.record("search", None, seconds - peers.waited, peers.received)
    return {"steps": steps, "rounds": peers.rounds, "levels": depth}


def _result(key) -> tuple:
    s = held(key)
    return to_host(s.scratch["bfs-level"]), to_host(s.scratch["bfs-parent"])


def _run(inp, params, timer, backend: str):
    part = partitioned(inp, params, backend)
    ledger = Ledger(part, timer, PHASES)
    name = "bfs.distributed"
    with ledger.phase("search", rounds=0):
        searches = ledger.each(_search, params["root"], params["direction"], params["alpha"], params["beta"],
                               part.facts["slice_edges_total"], part.workers, name=f"{name}-search")
        out = part.gather(searches, "search", cancel=ledger.key[1])
    ledger.rounds[("search", None)] = out[0]["rounds"]
    with ledger.phase("gather", rounds=1, written=8 * inp.n):
        pieces = part.gather(ledger.each(_result, name=f"{name}-gather"), "gather")
        level = np.concatenate([p[0] for p in pieces])
        parent = np.concatenate([p[1] for p in pieces])
        ledger.received("gather", None, level.nbytes + parent.nbytes)
    ledger.stats()
    timer.steps("level", lambda: lockstep_rows(out, ("direction", "frontier")))
    timer.stat("levels", out[0]["levels"])
    timer.stat("bottom_up_levels", sum(st["direction"] == "bottom-up" for st in out[0]["steps"]))
    return {"level": answer_on(backend, level), "parent": answer_on(backend, parent)}


KERNEL = Kernel(name="bfs.distributed", problem=BFS,
                summary="one graph sliced over K Dask workers: level-synchronous BFS, frontier exchanged per level "
                        "as queues of (vertex, parent) pairs (top-down) or bitmaps / id queues (bottom-up)",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=slice_graph,
                requires=frozenset({"undirected"}))
