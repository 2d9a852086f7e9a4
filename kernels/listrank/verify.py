"""The list-ranking verifier, shared by every algorithm and independent of all of them.

It asserts three properties of ``rank`` for the list ``succ`` with tail ``t``:
  1. rank[t] == 0;
  2. rank[i] == rank[succ[i]] + 1 for every i != t (each link is one step nearer the tail);
  3. rank is a permutation of 0..n-1.
(1) and (2) alone fix rank on a valid list; (3) guards against a cycle slipping through.
Works on NumPy or CuPy arrays alike.
"""

from graphsweep.datasets.errors import VerificationError
from graphsweep.datasets.gpu import array_module


def verify_ranks(succ, tail: int, rank) -> dict:
    xp = array_module(succ)
    rank = xp.asarray(rank)
    n = succ.shape[0]
    if rank.shape != (n,):
        raise VerificationError(f"rank has shape {rank.shape}, expected ({n},)")
    if int(rank[tail]) != 0:
        raise VerificationError(f"rank[tail={tail}] is {int(rank[tail])}, expected 0")
    rank = rank.astype(xp.int64, copy=False)
    bad = (rank != rank[succ] + 1)
    bad[tail] = False
    if bool(bad.any()):
        i = int(xp.argmax(bad))
        raise VerificationError(f"rank[{i}] is {int(rank[i])} but rank[succ[{i}]={int(succ[i])}] is "
                                f"{int(rank[succ[i]])}: a link must be one step")
    if int(rank.min()) < 0 or int(rank.max()) != n - 1 or \
            int(xp.count_nonzero(xp.bincount(rank, minlength=n) == 1)) != n:
        raise VerificationError("rank is not a permutation of 0..n-1")
    return {}
