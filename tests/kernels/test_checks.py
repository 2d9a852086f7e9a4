"""The verifiers' shared references (``checks.reference``): computed once per graph and key, never
another graph's or key's, and bounded in O(n) bytes."""

import numpy as np

from graphsweep.kernels import checks
from graphsweep.kernels.graph import from_edges


def graph(n=10):
    return from_edges(np.arange(n - 1), np.arange(1, n), n)


def counted(values):
    """A compute function returning ``values`` in turn, and the list of its calls."""
    calls = []

    def compute():
        calls.append(1)
        return values[len(calls) - 1]
    return compute, calls


def test_a_reference_is_computed_once_per_graph_and_key():
    inp, other = graph(), graph()
    compute, calls = counted([np.arange(10), np.ones(10), np.zeros(10)])
    first = checks.reference(inp, ("bc", "dependencies", 3), compute)
    assert checks.reference(inp, ("bc", "dependencies", 3), compute) is first and len(calls) == 1
    # another root, or the same key on another graph, is computed for itself
    assert checks.reference(inp, ("bc", "dependencies", 4), compute).tolist() == [1.0] * 10
    assert checks.reference(other, ("bc", "dependencies", 3), compute).tolist() == [0.0] * 10
    assert len(calls) == 3


def test_references_kept_stay_within_their_bound():
    n = 10
    inp = graph(n)
    bound = checks.REFERENCE_VECTORS * 8 * n
    for root in range(checks.REFERENCE_VECTORS + 3):
        checks.reference(inp, ("bc", root), lambda: np.zeros(n))
    kept = inp.cache[checks.REFERENCES]
    assert sum(map(checks.nbytes, kept.values())) <= bound
    assert sorted(k[1] for k in kept) == list(range(checks.REFERENCE_VECTORS))   # the first stay
    # one past the bound is answered, not kept, each time it is asked for
    compute, calls = counted([np.zeros(n), np.zeros(n)])
    assert checks.reference(inp, ("bc", 99), compute).shape == (n,)
    checks.reference(inp, ("bc", 99), compute)
    assert len(calls) == 2 and ("bc", 99) not in kept
    # an O(m) answer is never kept
    big = graph(n)
    checks.reference(big, ("edges",), lambda: np.zeros(bound // 8 + 1))
    assert big.cache[checks.REFERENCES] == {}


def test_nbytes_counts_arrays_numbers_and_containers():
    assert checks.nbytes((np.zeros(4), 3)) == 40
    assert checks.nbytes({1: 2, 3: np.int64(4)}) == 32
