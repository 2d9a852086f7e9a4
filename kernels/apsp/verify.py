"""The APSP verifier, shared by every algorithm and independent of all of them.

For the n x n matrix ``dist`` (-1 where there is no path) it asserts:
  1. the diagonal is 0 and no entry is below -1;
  2. the triangle inequality over every edge (u, v, w) (both directions when undirected) in every
     row s: dist[s, u] reached => dist[s, v] reached and dist[s, v] <= dist[s, u] + w.  With (1)
     this proves no entry is too long (induction along a lightest path) and every reachable pair
     reached; it runs where the matrix is (NumPy or CuPy), an edge chunk at a time;
  3. SAMPLES seeded rows equal SciPy's Dijkstra on the host (the lightest copy of each edge,
     weights w (n + 1) + 1 so SciPy sees no zero weight; see weighted_graphs in the tests): no
     entry of those rows is too short either.
"""

import numpy as np

from graphsweep.core.errors import VerificationError
from graphsweep.core.gpu import array_module, to_host

SAMPLES = 16
SEED = 0x5EED
CHUNK_VALUES = 1 << 25          # column gathers of at most this many entries at a time


def lightest_edges(n: int, src, dst, weight, directed: bool):
    """Host (rows, cols, weights): self-loops dropped, both directions when undirected, the lightest
    copy of each (row, col)."""
    src, dst = to_host(src).astype(np.int64), to_host(dst).astype(np.int64)
    w = np.ones(src.shape, np.int64) if weight is None else to_host(weight).astype(np.int64)
    if not directed:
        src, dst, w = np.r_[src, dst], np.r_[dst, src], np.r_[w, w]
    keep = src != dst
    src, dst, w = src[keep], dst[keep], w[keep]
    order = np.lexsort((w, dst, src))
    src, dst, w = src[order], dst[order], w[order]
    first = np.r_[True, (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])] if src.size else np.zeros(0, bool)
    return src[first], dst[first], w[first]


def dijkstra_rows(n: int, src, dst, weight, directed: bool, sources) -> np.ndarray:
    """Distances (int64, -1 unreachable) from each of ``sources``, by SciPy's Dijkstra on the host."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra
    rows, cols, w = lightest_edges(n, src, dst, weight, directed)
    scale = n + 1                  # hop counts (< n) only break ties; dist = floor(dist' / scale)
    mat = csr_matrix((w.astype(np.float64) * scale + 1, (rows, cols)), shape=(n, n))
    d = np.atleast_2d(dijkstra(mat, directed=True, indices=np.asarray(sources)))
    out = np.full(d.shape, -1, np.int64)
    ok = np.isfinite(d)
    out[ok] = np.floor(d[ok] / scale).astype(np.int64)
    return out


def verify_apsp(n: int, src, dst, weight, directed: bool, dist, samples: int = SAMPLES) -> dict:
    xp = array_module(src)
    dist = xp.asarray(dist)
    if dist.shape != (n, n):
        raise VerificationError(f"dist has shape {dist.shape}, expected ({n}, {n})")
    diag = xp.diagonal(dist)
    if bool((diag != 0).any()):
        v = int(xp.argmax(diag != 0))
        raise VerificationError(f"dist[{v}, {v}] is {int(diag[v])}, expected 0")
    low = dist < -1
    if bool(low.any()):
        s, v = divmod(int(xp.argmax(low.ravel())), n)
        raise VerificationError(f"dist[{s}, {v}] is {int(dist[s, v])}: distances are >= 0, or -1 for no path")

    w = xp.ones(src.shape, dtype=xp.int64) if weight is None else weight.astype(xp.int64)
    src, dst = src.astype(xp.int64), dst.astype(xp.int64)
    chunk = max(1, CHUNK_VALUES // n)
    for a, b, arrow in ((src, dst, "->"), (dst, src, "<-")) if not directed else ((src, dst, "->"),):
        for lo in range(0, int(src.shape[0]), chunk):
            hi = lo + chunk
            du = dist[:, a[lo:hi]].astype(xp.int64)
            dv = dist[:, b[lo:hi]].astype(xp.int64)
            bad = (du >= 0) & ((dv < 0) | (dv > du + w[lo:hi]))
            if bool(bad.any()):
                s, e = divmod(int(xp.argmax(bad.ravel())), bad.shape[1])
                i = lo + e
                u, v = int(a[i]), int(b[i])
                got = int(dist[s, v])
                raise VerificationError(
                    f"edge row {i} ({int(src[i])} {arrow} {int(dst[i])}, weight {int(w[i])}), source {s}: "
                    f"dist[{s}, {v}] = {got if got >= 0 else 'no path'} but dist[{s}, {u}] + w = "
                    f"{int(dist[s, u]) + int(w[i])}")

    sources = np.sort(np.random.default_rng(SEED).choice(n, size=min(n, samples), replace=False))
    expected = dijkstra_rows(n, src, dst, weight, directed, sources)
    got = to_host(dist[xp.asarray(sources)]).astype(np.int64)
    wrong = got != expected
    if wrong.any():
        r, v = np.argwhere(wrong)[0]
        raise VerificationError(f"dist[{sources[r]}, {v}] is {got[r, v]}, but Dijkstra from {sources[r]} gives "
                                f"{expected[r, v]} (-1: no path)")
    return {"rows_checked": int(sources.size), "reachable_pairs": int(xp.count_nonzero(dist >= 0))}
