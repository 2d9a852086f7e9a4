"""The BFS verifier (Graph500 rules), shared by every BFS algorithm and independent of all of them.

It reads the edge list as loaded (``inp.src``, ``inp.dst``; not the CSR the kernels traverse),
ignores self-loops, accepts duplicates, and asserts of ``level`` and ``parent`` for ``root``:

  1. shapes (n,); level[root] == 0 and parent[root] == root; level >= -1; a vertex is unreached
     (level -1) exactly when its parent is -1; parents are vertices;
  2. every edge (u, v) spans at most one level: undirected, both ends reached or neither and
     |level[u] - level[v]| <= 1; directed (u -> v), if u is reached then v is, and
     level[v] <= level[u] + 1;
  3. every reached v != root has level[parent[v]] == level[v] - 1 and an edge (parent[v], v)
     (directed: parent[v] -> v);
  4. the number of reached vertices equals the size of the root's component (undirected) or the
     number of vertices reachable from it (directed), counted by a different method: SciPy's
     connected_components / breadth_first_order on the host, or on the GPU (or for an edge list
     not in memory whole) the CC verifier's min-label hooking over the edge list (cached per graph).

(3) makes every reached vertex reachable (by induction on level) and (2) closes the reached set
under edges, so (2)+(3) already pin the reached set; (4) checks it by an unrelated count.
Works on NumPy or CuPy arrays; edges are checked in chunks so the temporaries stay bounded.
"""

import numpy as np

from graphsweep.core.errors import VerificationError

from .. import checks
from ..cc.verify import graph_components

CHUNK = 1 << 26          # edges per pass of the edge checks (bounds the temporaries: ~1.3 GB at most)


def verify_bfs(inp, root: int, level, parent) -> dict:
    """Check ``level``/``parent`` from ``root`` on the graph ``inp`` (a GraphInput); returns facts
    (``reached``: vertices reached, ``levels``: max level + 1)."""
    xp, n = inp.xp, inp.n
    level = checks.vector(xp, level, n, "level", np.int64, integers=True)
    parent = checks.vector(xp, parent, n, "parent", np.int64, integers=True)
    checks.search_tree(xp, n, root, level, parent, "level")
    reached = level >= 0
    _check_edges(inp, level)
    _check_parents(inp, root, level, parent, reached)
    count = int(xp.count_nonzero(reached))
    expected = _reachable_count(inp, root)
    if count != expected:
        raise VerificationError(f"{count} vertices reached from root {root}, but {expected} are reachable "
                                f"(counted by {'reachability' if inp.directed else 'connected components'})")
    return {"reached": count, "levels": int(level.max()) + 1}


def _edge_chunks(inp):
    """(src, dst) of the non-loop edges, CHUNK at a time."""
    for src, dst, _ in inp.edge_chunks(CHUNK):
        keep = src != dst
        yield src[keep], dst[keep]


def _check_edges(inp, level) -> None:
    xp = inp.xp
    for src, dst in _edge_chunks(inp):
        lu, lv = level[src], level[dst]
        if inp.directed:
            bad = (lu >= 0) & ((lv < 0) | (lv > lu + 1))
            what = "an edge may lead at most one level down from a reached vertex"
        else:
            bad = ((lu >= 0) != (lv >= 0)) | ((lu >= 0) & (xp.abs(lu - lv) > 1))
            what = "an edge joins two reached vertices at most one level apart, or two unreached ones"
        if bool(bad.any()):
            i = checks.first(xp, bad)
            u, v = int(src[i]), int(dst[i])
            raise VerificationError(f"edge ({u}, {v}) joins level {int(lu[i])} to level {int(lv[i])}: {what}")


def _check_parents(inp, root, level, parent, reached) -> None:
    xp, n = inp.xp, inp.n
    tree = reached.copy()
    tree[root] = False
    safe = xp.where(tree, parent, root)
    bad = tree & (level[safe] != level - 1)
    if bool(bad.any()):
        v = checks.first(xp, bad)
        p = int(parent[v])
        raise VerificationError(f"vertex {v} at level {int(level[v])} has parent {p} at level {int(level[p])}: "
                                f"a parent is one level up")
    # Mark each tree vertex whose parent edge is among the input edges.
    has_edge = xp.zeros(n, dtype=bool)
    for src, dst in _edge_chunks(inp):
        has_edge[dst[parent[dst] == src]] = True
        if not inp.directed:
            has_edge[src[parent[src] == dst]] = True
    bad = tree & ~has_edge
    if bool(bad.any()):
        v = checks.first(xp, bad)
        arrow = "->" if inp.directed else "-"
        raise VerificationError(f"parent[{v}] is {int(parent[v])} but there is no edge {int(parent[v])} {arrow} {v}")


def _reachable_count(inp, root: int) -> int:
    if inp.directed:        # once per graph and root: a sweep's next BFS task compares with it
        return checks.reference(inp, ("bfs", "reachable", int(root)), lambda: _directed_reachable(inp, root))
    labels = component_labels(inp)
    return int(inp.xp.count_nonzero(labels == labels[root]))


def component_labels(inp):
    """A component label per vertex of the undirected graph ``inp`` (cached on it): SciPy's when
    the edge list is in host memory whole, else hooking rounds over its chunks (the CC verifier's)."""
    key = "bfs.verify.components"
    if key not in inp.cache:
        if inp.backend == "cpu" and inp.whole:
            inp.cache[key] = _scipy_components(inp)
        else:
            inp.cache[key] = graph_components(inp)
    return inp.cache[key]


def _host(arr):
    return arr.get() if hasattr(arr, "get") else np.asarray(arr)


def _scipy_graph(inp):
    from scipy.sparse import coo_matrix
    chunks = [(_host(src), _host(dst)) for src, dst in _edge_chunks(inp)]
    src = np.concatenate([c[0] for c in chunks]) if chunks else np.zeros(0, dtype=np.int64)
    dst = np.concatenate([c[1] for c in chunks]) if chunks else np.zeros(0, dtype=np.int64)
    return coo_matrix((np.ones(src.shape[0], dtype=np.int8), (src, dst)), shape=(inp.n, inp.n)).tocsr()


def _scipy_components(inp):
    from scipy.sparse.csgraph import connected_components
    _, labels = connected_components(_scipy_graph(inp), directed=False)
    return inp.xp.asarray(labels)


def _directed_reachable(inp, root: int) -> int:
    from scipy.sparse.csgraph import breadth_first_order
    return int(breadth_first_order(_scipy_graph(inp), root, directed=True, return_predecessors=False).shape[0])
