"""The PageRank verifier, shared by every PageRank algorithm and independent of all of them.

It takes the simple graph's edges from the edge list as loaded (``graph.unique_edges``, not the
``simple`` CSR the kernels read) and asserts of ``score``:

  1. shape (n,), finite and non-negative;
  2. the sum is what the definition gives: 1 when dangling score is spread; with GAPBS's variant,
     1 - d * D / (1 - d) (D the score of vertices without edges), the sum at its fixed point;
  3. one more Jacobi iteration, computed here in float64 by scattering each edge's contribution to
     both ends, changes the scores by less than ``tolerance`` in L1 (the kernel's own stopping rule,
     re-checked: a run that stopped at max_iterations before converging fails here).

The scores must be of the type the run asked for (``dtype``), and each check allows for that
type's rounding: (2) the tolerance plus ``SUM_SLACK`` (1e-5 for float32 scores summed over
millions of vertices) scaled by the type's unit roundoff (float64: 1.9e-14); (3) the tolerance
plus this check's own rounding, the L1 floor of its float64 iteration (``l1_floor``: 3e-16 to
4e-15 for R 9 to 1245, the graphs measured): negligible beside any tolerance float32 scores reach, and for
float64 scores no more than the smallest tolerance they reach, so a converged run is not failed
by the check's own noise.  (2) and (3) divide by no degree of 0: vertices without edges
contribute through D only.
"""

import numpy as np

from graphsweep.core.errors import VerificationError

from .. import checks
from ..graph.unique_edges import degrees, unique_edges

SUM_SLACK = 1e-5          # float32 scores; other types scaled by their unit roundoff
# Unit roundoff of the score types: half the distance from 1 to the next representable value.
UNIT_ROUNDOFF = {"float32": 2.0**-24, "float64": 2.0**-53}


def l1_floor(degree, dtype: str) -> float:
    """Where the L1 change of ``dtype`` scores stalls on a simple graph of these vertex degrees,
    4-7x above the measured floor (the package doc): u sqrt(sum d^2 / sum d)."""
    degree = degree.astype(np.float64)
    edges = float(degree.sum())
    return UNIT_ROUNDOFF[dtype] * max(1.0, float((degree * degree).sum()) / edges if edges else 1.0) ** 0.5


def verify_scores(inp, score, *, tolerance: float, spread: bool, damping: float, dtype: str = "float32") -> dict:
    xp, n = inp.xp, inp.n
    if xp.asarray(score).dtype != np.dtype(dtype):
        raise VerificationError(f"score has dtype {xp.asarray(score).dtype}, the run asked for {dtype}")
    score = checks.vector(xp, score, n, "score", np.float64)
    checks.finite_non_negative(xp, score, "score")
    degree = degrees(inp)
    dangling = float(score[degree == 0].sum())
    total = float(score.sum())
    expected = 1.0 if spread else 1.0 - damping * dangling / (1.0 - damping)
    if abs(total - expected) > tolerance + SUM_SLACK * UNIT_ROUNDOFF[dtype] / UNIT_ROUNDOFF["float32"]:
        rule = "1" if spread else f"1 - d*D/(1-d) with D = {dangling:.6g}"
        raise VerificationError(f"scores sum to {total:.8g}, expected {rule} = {expected:.8g}")
    nxt = _next_iteration(inp, score, degree, dangling if spread else 0.0, damping)
    change = float(xp.abs(nxt - score).sum())
    if not change < tolerance + l1_floor(degree, "float64"):
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
