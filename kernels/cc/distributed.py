"""cc.distributed — connected components of one graph sliced over K Dask workers (``partitions=K``;
the slices, workers and ledger are ``kernels/graph/partition.py``'s).

Returns label[v] = the smallest vertex id of v's component: the canonical labels, identical to
``cc.best``'s.

Algorithm (local components, then spanning forests reduced in a tree over the workers):
  local    each worker runs ``cc.best`` (the GPU kernel, or its CPU twin) on the subgraph its slice
           induces (edges with both ends in its range, local ids), so each local component's root
           is its smallest vertex.  It then writes how its components touch the other slices as
           edges over global ids: (root(u), v) for every cut edge u - v with u its own and u < v
           (each cut edge once, from its smaller end), and (u, root(u)) for every own vertex u on
           a cut edge that is not its root.  The larger end v of a cut edge is on a cut edge in
           its own slice too, so v - root(v) is there: the union of all slices' edges joins
           root(u) and root(v) exactly when a path does.
  merge    the edge sets are reduced in a tree: ``fan_in`` of them at a time on the worker of the
           first, where the union is relabelled 0..p-1 by its sorted distinct ids (order kept),
           labelled by ``cc.best``, and written back as a forest: (v, the smallest id of v's tree)
           for every v that is not that smallest id — at most p - 1 pairs, whatever went in.
           ceil(log_fan_in K) rounds; ``fan_in`` >= K is the flat gather to one worker.
  relabel  worker 0 splits the final forest by owner and sends each worker its piece (one
           round); a vertex's label is its local root's entry in the forest, or that root.
  gather   the labels come back to the caller (4n bytes: the output, not the algorithm).
Canonical: a component's smallest vertex m roots m's local piece; when the component spans
slices every piece has a vertex on a cut edge, so every piece's root is an id in the forest,
whose tree's smallest id (no id in it is a vertex outside the component) is then m.

``merge=hook`` is the other design, hooking across cut edges: one task per worker, in step with
the others over the mailbox (``kernels/graph/exchange.py``), computes its local components, then
each round pushes the label of every local root whose label changed (at first: all) to the
owners of its cut edges' far ends, one (vertex, smallest label) pair per far vertex; an owner
keeps the smallest label per local root; an all-reduce says whether any label changed.  Labels
start at each local piece's smallest id, so they settle at each component's smallest id after as
many rounds as the longest chain of pieces a component threads (re-entering slices counts), where
the tree moves each forest once in log K rounds.  benchmarks/partitioned.py measures both.

Rows: per phase (local, merge, relabel or hook; gather) the ledger's local work, wait, bytes exchanged
and rounds (``partition.Ledger``); the partition's facts (slice edges, cut entries, build time).
Memory-traffic byte models are not given: a phase's exchange is in ``*_bytes_exchanged``.
"""

from functools import partial

import numpy as np
from graphsweep.datasets.gpu import to_host

from ..contract import Kernel, Param
from ..graph import GraphInput
from ..graph.exchange import Peers
from ..graph.partition import PARAMS as PARTITION_PARAMS
from ..graph.partition import Ledger, answer_on, held, nbytes, partitioned, slice_graph, synchronize
from ..timing import timer_for
from . import CC, label_dtype

PHASES = ("local", "merge", "relabel", "hook", "gather")
PARAMS = {**PARTITION_PARAMS,
          "merge": Param("tree", str, choices=("tree", "hook"),
                         help="tree: the cut's spanning forests reduced in a tree; hook: minimum labels pushed across "
                              "cut edges, one exchange a round, until none changes"),
          "fan_in": Param(2, minimum=2, help="merge=tree: forests merged per task in the reduction tree (K or more: "
                                             "all on one worker in one round)")}


def components(xp, n: int, a, b, backend: str, inp=None):
    """``cc.best``'s labels (smallest vertex id per component) of the graph of n vertices and
    edges a - b (or of ``inp``, a graph input kept for the next run), on this worker's device:
    the GPU kernel or the CPU twin."""
    from .. import registry
    if n == 0:
        return xp.zeros(0, dtype=label_dtype(0))
    kernel = registry.get("cc.best")
    timer = timer_for(backend)
    inp = inp if inp is not None else GraphInput(n, a, b, where="<slice>")
    label = getattr(kernel, backend)(inp, kernel.resolve_params({}), timer)
    timer.finish()
    return label



def _distinct_pairs(xp, a, b):
    """The distinct (a, b) pairs as a 2 x p host array."""
    if a.shape[0] == 0:
        return np.zeros((2, 0), dtype=np.int64)
    key = xp.unique((a.astype(np.int64) << 32) | b.astype(np.int64))
    return to_host(xp.stack([key >> 32, key & 0xFFFFFFFF]))


def _structure(s) -> dict:
    """What ``_local`` needs of this slice's graph, whatever the labels (made on the first run and
    kept with the slice, as a one-worker kernel keeps its CSR): the subgraph its range induces
    (each edge once, local ids) as a graph input, and its cut: the cut edges' ends, each edge from
    its smaller end, and the vertices on a cut edge."""
    if "cc-structure" not in s.scratch:
        xp, lo, hi = s.xp, s.lo, s.hi
        rows, cols = s.rows(), s.csr.indices
        inside = (cols >= lo) & (cols < hi)
        once = inside & (rows + lo < cols)
        inner = GraphInput(hi - lo, rows[once], cols[once] - lo, where="<slice>")
        cut = ~inside
        own, other = rows[cut], cols[cut]
        first = own + lo < other
        s.scratch["cc-structure"] = {"inner": inner, "own": own[first], "other": other[first],
                                     "boundary": xp.unique(own), "cut_own": own, "cut_other": other}
    return s.scratch["cc-structure"]


def _local(key) -> dict:
    """Local components of this slice, then the edges that tie them to the other slices."""
    import time
    t0 = time.perf_counter()
    s = held(key)
    xp, lo, hi = s.xp, s.lo, s.hi
    g = _structure(s)
    root = components(xp, hi - lo, None, None, s.backend, g["inner"]).astype(s.csr.indices.dtype) + lo
    s.scratch["cc-root"] = root
    boundary = g["boundary"]
    not_root = root[boundary] != boundary + lo
    pairs = _distinct_pairs(xp, xp.concatenate([root[g["own"]], (boundary + lo)[not_root]]),
                            xp.concatenate([g["other"], root[boundary][not_root]]))
    synchronize(s.backend)
    s.record("local", None, time.perf_counter() - t0)
    return {"pairs": pairs, "from": s.index}


def _min_by(xp, index, value):
    """(distinct ``index``, the smallest ``value`` of each): one sort of (index << 32 | value)."""
    key = xp.unique((index.astype(np.int64) << 32) | value.astype(np.int64))
    first = xp.ones(key.shape[0], dtype=np.bool_)
    first[1:] = (key[1:] >> 32) != (key[:-1] >> 32)
    key = key[first]
    return key >> 32, key & 0xFFFFFFFF


def _hook(key, addresses: list) -> dict:
    """merge=hook, one task per worker in step with the others: local components, then rounds
    of pushing each local root's label to the owners of its cut edges' far ends, who keep the
    smallest per local root, until no label changes anywhere (an all-reduce each round)."""
    import time
    t0 = time.perf_counter()
    s = held(key)
    peers = Peers(key[1], s.index, addresses)
    xp, lo, hi = s.xp, s.lo, s.hi
    g = _structure(s)
    root = components(xp, hi - lo, None, None, s.backend, g["inner"]).astype(np.int64)   # local ids
    own, other = g["cut_own"], g["cut_other"].astype(np.int64)
    label = xp.arange(lo, hi, dtype=np.int64)          # per local root: the smallest id it has heard of
    changed = xp.ones(hi - lo, dtype=np.bool_)
    rounds = 0
    while True:
        send = changed[root[own]]
        far, smallest = _min_by(xp, other[send], label[root[own[send]]])
        pairs = to_host(xp.stack([far, smallest]))
        cuts = np.searchsorted(pairs[0], s.bounds)
        got = peers.exchange(("hook", rounds), {j: pairs[:, cuts[j]:cuts[j + 1]] for j in range(peers.k)})
        changed = xp.zeros(hi - lo, dtype=np.bool_)
        if got:
            pairs = xp.asarray(np.concatenate(list(got.values()), axis=1))
            roots, smallest = _min_by(xp, root[pairs[0] - lo], pairs[1])
            lower = smallest < label[roots]
            label[roots[lower]] = smallest[lower]
            changed[roots[lower]] = True
        rounds += 1
        if not int(peers.allreduce(("hook-changed", rounds), np.array([int(changed.any())]))[0]):
            break
    s.scratch["cc-label"] = label[root]
    synchronize(s.backend)
    s.record("hook", None, time.perf_counter() - t0 - peers.waited, peers.received)
    return {"rounds": peers.rounds, "iterations": rounds}


def _merge(key, *forests) -> dict:
    """The forest of the union of ``forests``: (v, smallest id of v's tree) for each other v."""
    import time
    t0 = time.perf_counter()
    s = held(key)
    xp = s.xp
    received = sum(nbytes(f["pairs"]) for f in forests if f["from"] != s.index)
    pairs = xp.asarray(np.concatenate([f["pairs"] for f in forests], axis=1))
    ids = xp.unique(pairs.ravel())
    label = components(xp, int(ids.shape[0]), xp.searchsorted(ids, pairs[0]).astype(np.int32),
                       xp.searchsorted(ids, pairs[1]).astype(np.int32), s.backend)
    keep = label != xp.arange(label.shape[0], dtype=label.dtype)
    out = to_host(xp.stack([ids[keep], ids[label[keep]]]))
    synchronize(s.backend)
    s.record("merge", None, time.perf_counter() - t0, received)
    return {"pairs": out, "from": s.index}


def _split(key, forest) -> dict:
    """The final forest's pairs by the slice owning their first vertex."""
    import time
    t0 = time.perf_counter()
    s = held(key)
    pairs = forest["pairs"]
    pairs = pairs[:, np.argsort(pairs[0], kind="stable")]
    cuts = np.searchsorted(pairs[0], s.bounds)
    pieces = {j: {"pairs": pairs[:, cuts[j]:cuts[j + 1]], "from": s.index} for j in range(len(s.bounds) - 1)}
    s.record("relabel", None, time.perf_counter() - t0)
    return pieces


def _relabel(key, piece) -> int:
    """Labels of this slice's vertices: each local root's forest entry, or the root."""
    import time
    t0 = time.perf_counter()
    s = held(key)
    xp = s.xp
    received = nbytes(piece["pairs"]) if piece["from"] != s.index else 0
    final = xp.arange(s.lo, s.hi, dtype=s.scratch["cc-root"].dtype)
    pairs = xp.asarray(piece["pairs"])
    final[pairs[0] - s.lo] = pairs[1].astype(final.dtype)
    s.scratch["cc-label"] = final[s.scratch["cc-root"] - s.lo]
    synchronize(s.backend)
    s.record("relabel", None, time.perf_counter() - t0, received)
    return 0


def _labels(key):
    s = held(key)
    return to_host(s.scratch.pop("cc-label"))


def tree_rounds(k: int, fan_in: int) -> int:
    """Rounds of the reduction tree: ceil(log_fan_in k)."""
    rounds, width = 0, k
    while width > 1:
        width = -(-width // fan_in)
        rounds += 1
    return rounds


def _tree(part, ledger, fan_in: int, name: str) -> None:
    """merge=tree: local components and cut forests, the forests reduced in a tree, relabelled."""
    k = part.k
    with ledger.phase("local", rounds=0):
        forests = ledger.each(_local, name=f"{name}-local")
        part.wait(forests, "local")
    with ledger.phase("merge", rounds=tree_rounds(k, fan_in)):
        leaders = list(range(k))
        while True:
            forests = [part.submit(_merge, leaders[g], ledger.key, *forests[g:g + fan_in], name=f"{name}-merge")
                       for g in range(0, len(forests), fan_in)]
            leaders = leaders[::fan_in]
            if len(forests) == 1:
                break
        part.wait(forests, "merge")
    with ledger.phase("relabel", rounds=1 if k > 1 else 0):
        pieces = part.submit(_split, 0, ledger.key, forests[0], name=f"{name}-split")
        done = [part.submit(_relabel, j, ledger.key, part.item(pieces, 0, j, f"{name}-piece"), name=f"{name}-relabel")
                for j in range(k)]
        part.wait(done, "relabel")


def _run(inp, params, timer, backend: str):
    part = partitioned(inp, params, backend)
    ledger = Ledger(part, timer, PHASES)
    fan_in, name = params["fan_in"], "cc.distributed"
    if params["merge"] == "hook":
        with ledger.phase("hook", rounds=0):
            out = part.gather(ledger.each(_hook, part.workers, name=f"{name}-hook"), "hook", cancel=ledger.key[1])
        ledger.rounds[("hook", None)] = out[0]["rounds"]
        timer.stat("hook_iterations", out[0]["iterations"])
    else:
        _tree(part, ledger, fan_in, name)
    with ledger.phase("gather", rounds=1, written=inp.n * label_dtype(inp.n).itemsize):
        labels = part.gather(ledger.each(_labels, name=f"{name}-gather"), "gather")
        label = np.concatenate(labels).astype(label_dtype(inp.n), copy=False)
        ledger.received("gather", None, label.nbytes)
    ledger.stats()
    return answer_on(backend, label)


KERNEL = Kernel(name="cc.distributed", problem=CC,
                summary="one graph sliced over K Dask workers: cc.best per slice, spanning forests of the cut "
                        "reduced in a tree over the workers, labels canonical",
                gpu=partial(_run, backend="gpu"), cpu=partial(_run, backend="cpu"), params=PARAMS, setup=slice_graph)
