"""The SSSP verifier, shared by every algorithm and independent of all of them.

It is handed what the run was handed (the edge list as loaded, the root) and the output, and
asserts, for ``dist`` (int, -1 unreached) and ``parent`` (-1 unreached, parent[root] = root):
  1. dist[root] == 0 and parent[root] == root; dist >= -1; a vertex is reached iff its parent is
     not -1, and a reached vertex's parent is a vertex;
  2. every edge (u, v, w) (both directions when undirected): u reached => v reached, and
     dist[v] <= dist[u] + w (no edge can shorten a distance);
  3. every reached v != root has a parent edge: some copy of an edge (parent[v], v) with
     dist[v] == dist[parent[v]] + w (by 2, that copy has the smallest weight of the duplicates);
     self-loops never count as parent edges;
  4. the parent pointers of reached vertices lead to the root (pointer jumping, ceil(log2 n)
     rounds): no cycle, which zero-weight edges would let slip past 3.
(2) with dist[root] = 0 says no distance is too long; (3)+(4) give every reached vertex a real
path of length dist[v] from the root, so no distance is too short: dist is exact.  The reached
set is closed under edges (2) and every reached vertex is reachable (3)+(4): it is exactly the
root's component (the vertices reachable from the root, for directed graphs).
Works on NumPy or CuPy arrays alike (the edges' array module is used).
"""

from graphsweep.core.errors import VerificationError
from graphsweep.core.gpu import array_module

from .. import checks


def verify_sssp(n: int, src, dst, weight, directed: bool, root: int, dist, parent) -> dict:
    """Check ``dist`` and ``parent`` from ``root`` against the edges; returns {"reached", "max_dist"}."""
    return verify_sssp_chunks(n, [(src, dst, weight)], directed, root, dist, parent, array_module(src))


def verify_sssp_chunks(n: int, edge_chunks, directed: bool, root: int, dist, parent, xp) -> dict:
    """``verify_sssp`` reading the edges from ``edge_chunks`` (an iterable of (src, dst, weight or
    None) chunks on ``xp``'s device), for edge lists that are not in memory whole."""
    dist, parent = checks.vector(xp, dist, n, "dist", xp.int64), checks.vector(xp, parent, n, "parent", xp.int64)
    if not 0 <= root < n:
        raise VerificationError(f"root {root} is outside [0, n={n})")
    checks.search_tree(xp, n, root, dist, parent, "dist")
    reached = dist >= 0

    has_parent_edge = xp.zeros(n, dtype=bool)
    for src, dst, weight in edge_chunks:
        _check_edges(xp, src, dst, weight, directed, dist, parent, reached, has_parent_edge)
    missing = reached & ~has_parent_edge
    missing[root] = False
    if bool(missing.any()):
        v = checks.first(xp, missing)
        p = int(parent[v])
        raise VerificationError(f"vertex {v}: parent {p}, but no edge {p} -> {v} of weight "
                                f"dist[{v}] - dist[{p}] = {int(dist[v]) - int(dist[p])}")

    # Pointer jumping: after k rounds anc[v] is v's 2^k-th ancestor, or the root (a fixed point).
    anc = xp.where(reached, parent, root)
    for _ in range(max(1, (n - 1).bit_length())):
        anc = anc[anc]
    bad = reached & (anc != root)
    if bool(bad.any()):
        v = checks.first(xp, bad)
        raise VerificationError(f"the parent pointers from vertex {v} do not lead to the root {root} (a cycle)")
    return {"reached": int(xp.count_nonzero(reached)), "max_dist": int(dist.max())}


def _check_edges(xp, src, dst, weight, directed, dist, parent, reached, has_parent_edge) -> None:
    """Checks 2 and 3 on one chunk of edges (rows numbered within the chunk)."""
    w = xp.ones(src.shape, dtype=xp.int64) if weight is None else weight.astype(xp.int64, copy=False)
    src = src.astype(xp.int64, copy=False)
    dst = dst.astype(xp.int64, copy=False)
    for a, b, arrow in ((src, dst, "->"), (dst, src, "<-")) if not directed else ((src, dst, "->"),):
        ra = reached[a]
        bad = ra & ~reached[b]
        if bool(bad.any()):
            i = checks.first(xp, bad)
            raise VerificationError(f"edge row {i} ({int(src[i])} {arrow} {int(dst[i])}): vertex {int(a[i])} is "
                                    f"reached but its neighbour {int(b[i])} is not")
        via = dist[a] + w
        bad = ra & (dist[b] > via)
        if bool(bad.any()):
            i = checks.first(xp, bad)
            raise VerificationError(f"edge row {i} ({int(src[i])} {arrow} {int(dst[i])}, weight {int(w[i])}): "
                                    f"dist[{int(b[i])}] = {int(dist[b[i]])} > dist[{int(a[i])}] + w = {int(via[i])}")
        hit = ra & (a != b) & (parent[b] == a) & (dist[b] == via)
        has_parent_edge[b[hit]] = True
