"""The list-ranking verifier, shared by every algorithm and independent of all of them.

It asserts three properties of ``rank`` for the list ``succ`` with tail ``t``:
  1. rank[t] == 0;
  2. rank[i] == rank[succ[i]] + 1 for every i != t (each link is one step nearer the tail);
  3. rank is a permutation of 0..n-1.
(1) and (2) alone fix rank on a valid list; (3) guards against a cycle slipping through.
Works on NumPy or CuPy arrays alike; on the GPU one fused pass (verify.cu) checks (1)-(2) and
marks each rank in a bitmap, and (3) holds when n distinct ranks were marked — no host copies
and no int64 temporaries, so a sweep's verification costs a fraction of a kernel run.
"""

from functools import cache

import numpy as np

from graphsweep.core.errors import VerificationError
from graphsweep.core.gpu import array_module, is_device

from .. import checks


@cache
def _popcount():
    import cupy
    return cupy.ReductionKernel("uint32 x", "int64 y", "__popc(x)", "a + b", "y = a", "0",
                                "graphsweep_listrank_verify_popcount")


def _first_bad_gpu(succ, rank, tail: int) -> tuple[int, bool]:
    """(least node index breaking rule 1 or 2 — n when none, whether the ranks are a permutation)."""
    import cupy

    from ..cuda import c_type, launch, module
    n = succ.shape[0]
    name = f"graphsweep_listrank_verify<{c_type(succ.dtype)}, {c_type(rank.dtype)}>"
    fn = module("listrank/verify.cu", name_expressions=(name,)).get_function(name)
    seen = cupy.zeros((n + 31) // 32, dtype=np.uint32)
    bad = cupy.full(1, n, dtype=np.uint64)
    launch(fn, n, 256, min(-(-n // 256), 65536), succ, rank, np.int64(n), np.int64(tail), seen, bad)
    first = int(bad[0])
    return first, first == n and int(_popcount()(seen)) == n


def verify_ranks(succ, tail: int, rank) -> dict:
    xp = array_module(succ)
    n = succ.shape[0]
    rank = checks.vector(xp, rank, n, "rank")
    if int(rank[tail]) != 0:
        raise VerificationError(f"rank[tail={tail}] is {int(rank[tail])}, expected 0")
    if is_device(rank) and rank.dtype in (np.int32, np.int64) and succ.dtype in (np.int32, np.int64):
        first, permutation = _first_bad_gpu(succ, rank, tail)
        bad_at = None if first == n else first
    else:
        wide = rank.astype(xp.int64, copy=False)
        bad = (wide != wide[succ] + 1)
        bad[tail] = False
        bad_at = int(xp.argmax(bad)) if bool(bad.any()) else None
        permutation = bad_at is None and int(wide.min()) >= 0 and int(wide.max()) == n - 1 and \
            int(xp.count_nonzero(xp.bincount(wide, minlength=n) == 1)) == n
    if bad_at is not None:
        i = bad_at
        raise VerificationError(f"rank[{i}] is {int(rank[i])} but rank[succ[{i}]={int(succ[i])}] is "
                                f"{int(rank[succ[i]])}: a link must be one step")
    if not permutation:
        raise VerificationError("rank is not a permutation of 0..n-1")
    return {}
