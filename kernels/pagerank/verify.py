"""The PageRank verifier, shared by every PageRank algorithm and independent of all of them.

It takes the simple graph's edges from the edge list as loaded (``graph.unique_edges``, not the
``simple`` CSR the kernels read) and asserts of ``score``:

  1. shape (n,), finite and non-negative;
  2. the sum is what the definition gives: 1 when dangling score is spread; with GAPBS's variant,
     1 - d * D / (1 - d) (D the score of vertices without edges), the sum at its fixed point;
  3. one more Jacobi iteration, computed here in float64 by scattering each edge's contribution to
     both ends, changes the scores by less than ``tolerance`` in L1 (the kernel's own stopping rule,
     re-checked: a run that stopped at max_iterations before converging fails here).

(2) allows tolerance + 1e-5 (float32 scores summed over millions of vertices); (2) and (3) divide
by no degree of 0: vertices without edges contribute through D only.
"""

import numpy as np

from graphsweep.core.errors import VerificationError

from .. import checks
from ..graph.unique_edges import degrees, unique_edges

SUM_SLACK = 1e-5


def verify_scores(inp, score, *, tolerance: float, spread: bool, damping: float) -> dict:
    xp, n = inp.xp, inp.n
    score = checks.vector(xp, score, n, "score", np.float64)
    checks.finite_non_negative(xp, score, "score")
    degree = degrees(inp)
    dangling = float(score[degree == 0].sum())
    total = float(score.sum())
    expected = 1.0 if spread else 1.0 - damping * dangling / (1.0 - damping)
    if abs(total - expected) > tolerance + SUM_SLACK:
        rule = "1" if spread else f"1 - d*D/(1-d) with D = {dangling:.6g}"
        raise VerificationError(f"scores sum to {total:.8g}, expected {rule} = {expected:.8g}")
    nxt = _next_iteration(inp, score, degree, dangling if spread else 0.0, damping)
    change = float(xp.abs(nxt - score).sum())
    if not change < tolerance:
        raise VerificationError(f"one more iteration changes the scores by {change:.3g} in L1, not below the "
                                f"tolerance {tolerance:g} (not converged; raise max_iterations?)")
    return {"l1_next": change, "score_sum": total}


def _next_iteration(inp, score, degree, dangling: float, damping: float):
    xp, n = inp.xp, inp.n
    lo, hi = unique_edges(inp)
    contrib = xp.where(degree > 0, score / xp.maximum(degree, 1), 0.0)
    incoming = xp.zeros(n, dtype=np.float64)
    if lo.shape[0]:
        incoming += xp.bincount(hi, weights=contrib[lo], minlength=n)
        incoming += xp.bincount(lo, weights=contrib[hi], minlength=n)
    return (1.0 - damping) / n + damping * (incoming + dangling / n)
