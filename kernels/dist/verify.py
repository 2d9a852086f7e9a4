"""A partitioned run's output verified where it lies: each rank checks the edges of its slice's
rows against the output of every vertex (all-gathered: O(n) numbers, never the graph), and the
counts the checks compare come from the same independent method the one-GPU verifiers use,
reduced through the communicator — the properties of ``kernels/bfs/verify.py`` and
``kernels/cc/verify.py``, as strong, for a graph no single device holds.

- ``components(rank)``: the CC verifier's min-label hooking (``cc.verify.hooked_labels``) over the
  slices' rows, each round's labels met by an all-reduce min: a component label per vertex, the
  same on every rank (kept on the slice: every BFS root's check shares it);
- ``bfs(rank, root)``, ``cc(rank)`` and ``pagerank(rank, ...)``: one rank's check, run by
  ``check`` on every rank of the run's partition; a rank that finds a fault still takes part in
  every collective, and the driver raises the first fault found, naming its slice.

Works on NumPy and CuPy arrays alike (the CPU twins' workers and the GPU workers).
"""

import numpy as np
from graphsweep.core.errors import VerificationError

from .. import checks
from ..cc.verify import distinct_count, hooked_labels
from ..pagerank.verify import SUM_SLACK

CHUNK = 1 << 22          # entries of the slice's rows a pass checks at a time (a few int64 temporaries of 32 MB)


def edges(s, chunk: int = CHUNK, simple: bool = False):
    """(src, dst) of the slice's rows, global ids (both directions of an undirected edge: the
    slice's CSR holds each row whole), ``chunk`` entries at a time; ``simple``: of the simple
    graph, a duplicate neighbour of a row dropped (rows are sorted, so duplicates are neighbours
    in them; the slices hold no self-loops)."""
    xp, off = s.xp, s.csr.offsets
    for e0 in range(0, s.csr.nnz, chunk):
        e1 = min(e0 + chunk, s.csr.nnz)
        a = max(e0 - 1, 0) if simple else e0      # one entry before the chunk: a run of duplicates may cross it
        entries = xp.arange(a, e1, dtype=np.int64)
        src = xp.searchsorted(off, entries, side="right") - 1 + s.lo
        dst = s.csr.indices[a:e1].astype(np.int64)
        if not simple:
            yield src, dst
            continue
        first = xp.ones(entries.shape[0], dtype=bool)
        first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        keep = first[e0 - a:]
        yield src[e0 - a:][keep], dst[e0 - a:][keep]


def gathered(rank, local, fill, dtype=np.int64):
    """A per-vertex output of every slice (``local``: this rank's), on every rank."""
    s, xp = rank.slice, rank.xp
    whole = xp.full(s.n, fill, dtype=dtype)
    whole[s.lo:s.hi] = local
    rank.comm.allgatherv(whole, s.bounds)
    return whole


def components(rank):
    """A component label per vertex (its smallest id), by min-label hooking over every slice's rows."""
    s, comm = rank.slice, rank.comm
    key = "verify.components"
    if key not in s.scratch:
        s.scratch[key] = hooked_labels(
            s.n, lambda: edges(s), rank.xp, combine=lambda label: comm.allreduce(label, "min"),
            agree=lambda changed: bool(comm.allreduce_host([int(changed)], "max")[0]))
    return s.scratch[key]


def _fault(fn, *args) -> str | None:
    try:
        fn(*args)
    except VerificationError as exc:
        return str(exc)
    return None


def bfs(rank, root: int) -> dict:
    """One rank's check of a BFS from ``root`` (kernels/bfs/verify.py's rules, undirected): the
    search tree's shape over this slice's vertices, its edges spanning at most one level, its
    vertices' parents one level up along one of its edges, and as many reached vertices as the
    root's component has (an all-reduce).  One vector of n is gathered, the levels (int32: R-MAT 30
    over 4 GPUs, 4.3 GB beside a 54 GB slice); the parents stay where they are."""
    s, xp = rank.slice, rank.xp
    kept = rank.store.outputs[rank.key]
    level, parent = (checks.vector(xp, kept[k], s.size, k, np.int64, integers=True) for k in ("level", "parent"))
    fault = _fault(_search_tree_here, s, root, level, parent)
    # a malformed tree is reported by the slice that holds it: the others then check no edge (an
    # edge to a vertex of a bad level would otherwise be reported first, by a slice before it)
    malformed = int(rank.comm.allreduce_host([int(fault is not None)])[0])
    level_all = gathered(rank, xp.minimum(level, s.n).astype(np.int32), -1, np.int32)
    labels = components(rank)
    if not malformed:
        fault = _fault(_level_spans, s, level_all) or _fault(_parent_edges, s, root, level_all, level, parent)
    reached, faulty = (int(v) for v in rank.comm.allreduce_host([int(xp.count_nonzero(level >= 0)),
                                                                 int(fault is not None)]))
    levels = int(rank.comm.allreduce_host([int(level.max()) + 1 if s.size else 0], "max")[0])
    expected = int(xp.count_nonzero(labels == labels[root]))
    if not faulty and reached != expected:
        fault = f"{reached} vertices reached from root {root}, but {expected} are reachable (counted by connected " \
                f"components)"
    return {"fault": fault, "reached": reached, "levels": levels}


def _search_tree_here(s, root: int, level, parent) -> None:
    """checks.search_tree over this slice's vertices, and levels below n (gathered as int32)."""
    checks.search_tree(s.xp, s.n, root, level, parent, "level", s.lo)
    bad = level >= s.n
    if bool(bad.any()):
        v = checks.first(s.xp, bad)
        raise VerificationError(f"level[{s.lo + v}] is {int(level[v])}, not below n = {s.n}")


def _level_spans(s, level_all) -> None:
    xp = s.xp
    for src, dst in edges(s):
        lu, lv = level_all[src], level_all[dst]
        bad = ((lu >= 0) != (lv >= 0)) | ((lu >= 0) & (xp.abs(lu - lv) > 1))
        if bool(bad.any()):
            i = checks.first(xp, bad)
            raise VerificationError(f"edge ({int(src[i])}, {int(dst[i])}) joins level {int(lu[i])} to level "
                                    f"{int(lv[i])}: an edge joins two reached vertices at most one level apart, or "
                                    f"two unreached ones")


def _parent_edges(s, root: int, level_all, level, parent) -> None:
    xp = s.xp
    tree = level >= 0
    if s.lo <= root < s.hi:
        tree[root - s.lo] = False
    bad = tree & (level_all[xp.where(tree, parent, root)] != level - 1)
    if bool(bad.any()):
        v = checks.first(xp, bad)
        p = int(parent[v])
        raise VerificationError(f"vertex {s.lo + v} at level {int(level[v])} has parent {p} at level "
                                f"{int(level_all[p])}: a parent is one level up")
    has_edge = xp.zeros(s.size, dtype=bool)
    for src, dst in edges(s):
        has_edge[src[parent[src - s.lo] == dst] - s.lo] = True
    bad = tree & ~has_edge
    if bool(bad.any()):
        v = checks.first(xp, bad)
        raise VerificationError(f"parent[{s.lo + v}] is {int(parent[v])} but there is no edge {int(parent[v])} - "
                                f"{s.lo + v}")


def cc(rank) -> dict:
    """One rank's check of component labels (kernels/cc/verify.py's properties): both ends of each
    of this slice's edges carry one label, and there are as many distinct labels as components."""
    s, xp = rank.slice, rank.xp
    label = checks.vector(xp, rank.store.outputs[rank.key]["label"], s.size, "label", np.int64, integers=True)
    label_all = gathered(rank, label, -1)
    roots = components(rank)
    components_ = int(xp.count_nonzero(roots == xp.arange(s.n, dtype=roots.dtype)))
    fault = _fault(_one_label_per_edge, s, label_all)
    labels = distinct_count(label_all, s.n)
    if fault is None and labels != components_:
        fault = f"{labels} distinct labels for {components_} components: different components share a label"
    return {"fault": fault, "components": components_}


def _one_label_per_edge(s, label_all) -> None:
    xp = s.xp
    for src, dst in edges(s):
        split = label_all[src] != label_all[dst]
        if bool(split.any()):
            i = checks.first(xp, split)
            u, v = int(src[i]), int(dst[i])
            raise VerificationError(f"edge ({u} - {v}) joins labels {int(label_all[u])} and {int(label_all[v])}: a "
                                    f"component must carry one label")


def pagerank(rank, tolerance: float, spread: bool, damping: float) -> dict:
    """One rank's check of PageRank scores (kernels/pagerank/verify.py's properties, on the simple
    graph): finite and non-negative, their sum the definition's, and one more Jacobi iteration over
    this slice's rows (float64) changing the scores, in L1 over all ranks (an all-reduce), by less
    than the tolerance."""
    s, xp = rank.slice, rank.xp
    score = checks.vector(xp, rank.store.outputs[rank.key]["score"], s.size, "score", np.float64)
    degree = xp.zeros(s.size, dtype=np.int64)
    for src, _ in edges(s, simple=True):
        degree += xp.bincount(src - s.lo, minlength=s.size)
    fault = _fault(checks.finite_non_negative, xp, score, "score", s.lo)
    # one vector of n gathered, the contributions (R-MAT 30 over 4 GPUs: 8.6 GB beside a 54 GB slice)
    total, dangling, faulty = (float(v) for v in rank.comm.allreduce_host(
        [float(score.sum()), float(score[degree == 0].sum()), float(fault is not None)]))
    expected = 1.0 if spread else 1.0 - damping * dangling / (1.0 - damping)
    if fault is None and not faulty and abs(total - expected) > tolerance + SUM_SLACK:
        rule = "1" if spread else f"1 - d*D/(1-d) with D = {dangling:.6g}"
        fault = f"scores sum to {total:.8g}, expected {rule} = {expected:.8g}"
    contrib = gathered(rank, xp.where(degree > 0, score / xp.maximum(degree, 1), 0.0), 0.0, np.float64)
    del degree
    incoming = xp.zeros(s.size, dtype=np.float64)
    for src, dst in edges(s, simple=True):
        incoming += xp.bincount(src - s.lo, weights=contrib[dst], minlength=s.size)
    nxt = (1.0 - damping) / s.n + damping * (incoming + (dangling if spread else 0.0) / s.n)
    change = float(rank.comm.allreduce_host([float(xp.abs(nxt - score).sum())])[0])
    if fault is None and not faulty and not change < tolerance:
        fault = (f"one more iteration changes the scores by {change:.3g} in L1, not below the tolerance "
                 f"{tolerance:g} (not converged; raise max_iterations?)")
    return {"fault": fault, "l1_next": change, "score_sum": total}


def check(output, fn, *args) -> dict:
    """``fn(rank, *args)`` (``bfs`` or ``cc``) on every rank of the run that left ``output`` (a
    ``Remote``); raises the first fault found (VerificationError, naming its slice), else returns
    rank 0's facts."""
    part = output.part
    records = part.spmd(fn, *args, name="verify")
    for i, record in enumerate(records):
        if record["fault"]:
            raise VerificationError(f"{part.slice_range(i)}: {record['fault']}")
    return {k: v for k, v in records[0].items() if k in ("reached", "levels", "components", "l1_next", "score_sum")}
