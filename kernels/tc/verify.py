"""The triangle-count verifier, shared by every TC algorithm and independent of all of them.

It takes the simple graph's edges from the edge list as loaded (``graph.unique_edges``, not the
oriented CSR the kernels read) and asserts of ``triangles``:

  1. shape (n,), non-negative, and the sum is a multiple of 3;
  2. small graphs (up to FULL_LIMIT edges): every vertex's count equals SciPy's, from the simple
     graph's edges each kept once from its lower to its higher end in (degree, id) order (L):
     a triangle a < b < c is one entry of (L L) ∘ L at (a, c) — a's — and one of (Lᵀ L) ∘ L at
     (b, c) — b's and c's.  (A A) ∘ A on the symmetric matrix gives the same counts but forms
     every wedge through a hub: ~4 GB on R-MAT 16; the oriented products form at most
     sqrt(2m) a vertex.
  3. any size: SAMPLES vertices (seeded, chosen among those with an edge, and the vertex of largest
     degree) have as many triangles as there are distinct edges with both ends among their
     neighbours, counted with one mask over the edge list per vertex.

SciPy's counts and the sampled vertices' are the graph's own (``checks.reference``): computed by
the first task of a sweep on the graph, compared with by the next.
"""

import numpy as np

from graphsweep.core.errors import VerificationError

from .. import checks
from ..graph.unique_edges import degrees, unique_edges

FULL_LIMIT = 1 << 21
SAMPLES = 16
SEED = 18


def verify_triangles(inp, triangles) -> dict:
    xp, n = inp.xp, inp.n
    triangles = checks.vector(xp, triangles, n, "triangles", np.int64)
    checks.at_least(xp, triangles, 0, "triangles")
    total = int(triangles.sum()) if n else 0
    if total % 3:
        raise VerificationError(f"the per-vertex counts sum to {total}, not a multiple of 3")
    lo, hi = unique_edges(inp)
    if lo.shape[0] <= FULL_LIMIT:
        expected = checks.reference(inp, ("tc", "counts"), lambda: _scipy_counts(inp, lo, hi))
        bad = np.flatnonzero(_host(triangles) != expected)
        if bad.size:
            v = int(bad[0])
            raise VerificationError(f"vertex {v} is on {int(triangles[v])} triangles, SciPy counts {int(expected[v])}")
    sampled = checks.reference(inp, ("tc", "samples", SAMPLES, SEED),
                               lambda: {v: _count_through(xp, n, lo, hi, v) for v in _samples(inp)})
    for v, expected in sampled.items():
        if int(triangles[v]) != expected:
            raise VerificationError(f"vertex {v} is on {int(triangles[v])} triangles, but {expected} edges join "
                                    f"its neighbours")
    return {"triangles": total // 3}


def _host(arr):
    return arr.get() if hasattr(arr, "get") else np.asarray(arr)


def _scipy_counts(inp, lo, hi):
    import scipy.sparse as sp
    n, lo, hi = inp.n, _host(lo), _host(hi)
    degree = np.bincount(lo, minlength=n) + np.bincount(hi, minlength=n)
    order = np.empty(n, dtype=np.int64)
    order[np.lexsort((np.arange(n), degree))] = np.arange(n)
    up = order[lo] < order[hi]
    low, high = np.where(up, lo, hi), np.where(up, hi, lo)
    oriented = sp.csr_matrix((np.ones(low.shape[0], dtype=np.int64), (low, high)), shape=(n, n))
    lowest = (oriented @ oriented).multiply(oriented)           # (a, c): the b between them
    upper = (oriented.T @ oriented).multiply(oriented)          # (b, c): the a below both
    return (np.asarray(lowest.sum(axis=1)).ravel() + np.asarray(upper.sum(axis=1)).ravel()
            + np.asarray(upper.sum(axis=0)).ravel())


def _samples(inp) -> list[int]:
    xp = inp.xp
    degree = degrees(inp)
    candidates = _host(xp.flatnonzero(degree > 0))
    if candidates.size == 0:
        return []
    rng = np.random.default_rng(SEED)
    picks = rng.choice(candidates, size=min(SAMPLES, candidates.size), replace=False)
    return sorted({int(v) for v in picks} | {int(xp.argmax(degree))})


def _count_through(xp, n, lo, hi, v: int) -> int:
    neighbour = xp.zeros(n, dtype=bool)
    neighbour[hi[lo == v]] = True
    neighbour[lo[hi == v]] = True
    return int(xp.count_nonzero(neighbour[lo] & neighbour[hi]))
