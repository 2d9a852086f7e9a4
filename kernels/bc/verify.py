"""The betweenness verifier, shared by every BC algorithm and independent of all of them: an
edge-centric Brandes in array operations (NumPy or CuPy) on the simple graph's edges taken from
the edge list as loaded (``graph.unique_edges``, not the ``simple`` CSR the kernels read).

Forward, level by level over every edge (a, b) in both directions: b is at level d + 1 when a is
at d and b was unreached; then sigma[b] += sigma[a] over the edges from level d to d + 1 (a
weighted ``bincount``).  Backward, deepest level first: delta[a] += sigma[a] / sigma[b] *
(1 + delta[b]) over the same edges.  It asserts centrality has shape (n,), is finite and
non-negative, and equals delta (summed over the roots of a group: each root's computed alone)
within RTOL (relative) + ATOL; from one root, that it is 0 at the root (in a group a root's own
dependency is 0, the others' on it not).  Cost: two passes over the edges per level (a 2-D grid's
thousands of levels make it slow there), once per graph and root: the dependencies are kept on the
graph input (``checks.reference``), so the next task from the same root compares with them.
"""

import numpy as np

from graphsweep.core.errors import VerificationError

from .. import checks
from ..graph.unique_edges import unique_edges

RTOL = 1e-9
ATOL = 1e-9


def verify_centrality(inp, roots, centrality) -> dict:
    """Check ``centrality`` against the dependencies of ``roots`` (a root, or a group of roots whose
    dependencies it sums); returns the most levels a root's search had."""
    xp, n = inp.xp, inp.n
    group = tuple(int(r) for r in roots) if np.ndim(roots) else (int(roots),)
    centrality = checks.vector(xp, centrality, n, "centrality", np.float64)
    checks.finite_non_negative(xp, centrality, "centrality")
    if len(group) == 1 and float(centrality[group[0]]) != 0.0:
        raise VerificationError(f"centrality[{group[0]}] of the root is {float(centrality[group[0]])}, expected 0")
    expected, levels = None, 0
    for root in group:
        delta, depth = checks.reference(inp, ("bc", "dependencies", root), lambda: brandes_dependencies(inp, root))
        expected, levels = delta if expected is None else expected + delta, max(levels, depth)
    bad = xp.abs(centrality - expected) > RTOL * xp.abs(expected) + ATOL
    if bool(bad.any()):
        v = checks.first(xp, bad)
        source = f"root {group[0]}" if len(group) == 1 else f"roots {', '.join(map(str, group))} summed"
        raise VerificationError(f"centrality[{v}] is {float(centrality[v])!r}, an independent Brandes from {source} "
                                f"gives {float(expected[v])!r}")
    return {"levels": levels}


def brandes_dependencies(inp, root: int):
    """delta_root(v) for every v (0 at the root and where unreached), and the number of levels."""
    xp, n = inp.xp, inp.n
    lo, hi = unique_edges(inp)
    a, b = xp.concatenate([lo, hi]), xp.concatenate([hi, lo])
    level = xp.full(n, -1, dtype=np.int64)
    sigma = xp.zeros(n, dtype=np.float64)
    level[root], sigma[root] = 0, 1.0
    depth = 0
    while True:
        from_level = level[a] == depth
        fresh = b[from_level & (level[b] == -1)]
        if fresh.shape[0] == 0:
            break
        level[fresh] = depth + 1
        step = from_level & (level[b] == depth + 1)
        sigma += xp.bincount(b[step], weights=sigma[a[step]], minlength=n)
        depth += 1
    delta = xp.zeros(n, dtype=np.float64)
    for d in range(depth - 1, -1, -1):
        step = (level[a] == d) & (level[b] == d + 1)
        src, dst = a[step], b[step]
        delta += xp.bincount(src, weights=sigma[src] / sigma[dst] * (1.0 + delta[dst]), minlength=n)
    delta[root] = 0.0
    return delta, depth + 1
