"""The simple graph's edges for verifiers, found another way than the ``simple`` builder: each
input edge as (lower id, higher id), self-loops dropped, then ``unique`` of the pairs' keys
lo * n + hi (exact while n^2 < 2^63), a chunk of the edge list at a time (so a graph generated in
memory without its edge list is verified too), by sorting them (``distinct``: NumPy 2.3+'s
``unique`` hashes integers, 1.2 s for 2^20 keys on a CPU where a sort takes 0.02 s).  Cached on the graph input, so every instance's verification
shares one."""

import numpy as np

from .. import checks

KEY = "verify.unique-edges"


def unique_edges(inp):
    """(lo, hi) int64 arrays of the distinct undirected edges of ``inp`` (lo < hi), sorted."""
    if KEY not in inp.cache:
        xp, n = inp.xp, inp.n
        keys = [xp.zeros(0, dtype=np.int64)]
        for src, dst, _ in inp.edge_chunks():     # the edge list as loaded, or generated again
            src, dst = src.astype(np.int64), dst.astype(np.int64)
            keep = src != dst
            src, dst = src[keep], dst[keep]
            keys.append(distinct(xp, xp.minimum(src, dst) * n + xp.maximum(src, dst)))
        key = distinct(xp, xp.concatenate(keys))
        inp.cache[KEY] = (key // n, key % n) if key.shape[0] else (key, key)
    return inp.cache[KEY]


def distinct(xp, keys):
    """The distinct values of ``keys``, sorted (see the module doc: a sort, not a hash)."""
    keys = xp.sort(keys)
    return keys[xp.concatenate([xp.ones(min(1, keys.shape[0]), dtype=bool), keys[1:] != keys[:-1]])]


def degrees(inp):
    """The simple graph's degree of each vertex (int64), counted once per graph (a verifier's
    reference: PageRank's and TC's verifications share it)."""
    return checks.reference(inp, ("degrees",), lambda: _count_degrees(inp))


def _count_degrees(inp):
    xp = inp.xp
    lo, hi = unique_edges(inp)
    if lo.shape[0] == 0:
        return xp.zeros(inp.n, dtype=np.int64)
    return xp.bincount(lo, minlength=inp.n) + xp.bincount(hi, minlength=inp.n)
