"""The checks every verifier makes first, written once (each family's verify.py adds what is its
own): an output is a vector of n values of the expected kind, its values are in range, and a
search tree's root and parent pointers are well formed.  Each failure raises one
VerificationError naming the output, the index and the value at fault.  NumPy or CuPy alike
(``xp``: the arrays' module).

``reference`` keeps what a verifier computes from the input alone (a triangle count, a Brandes
from a root, a component count), never from an output, on the graph input, so the next task of a
sweep on the same graph compares its output with the same answer instead of computing it again;
on a dataset read from disk it is also kept beside the dataset (``reference_store``), for the
sweep's other workers and later runs.
"""

from graphsweep.core.errors import VerificationError

from . import reference_store


def first(xp, bad) -> int:
    """The first index where ``bad`` holds (there is one)."""
    return int(xp.flatnonzero(bad)[0])


def vector(xp, arr, n: int, name: str, dtype=None, integers: bool = False):
    """``arr`` as a vector of n values (``integers``: of an integer type), as ``dtype`` when given."""
    arr = xp.asarray(arr)
    if arr.shape != (n,):
        raise VerificationError(f"{name} has shape {arr.shape}, expected ({n},)")
    if integers and arr.dtype.kind not in "iu":
        raise VerificationError(f"{name} has dtype {arr.dtype}, expected integers")
    return arr if dtype is None else arr.astype(dtype, copy=False)


def at_least(xp, values, low: int, name: str, lo: int = 0) -> None:
    """Every value at least ``low``; ``lo``: the values are of vertices lo, lo + 1, ... (a slice's),
    a fault named by vertex id."""
    bad = values < low
    if bool(bad.any()):
        v = first(xp, bad)
        raise VerificationError(f"{name}[{lo + v}] is {int(values[v])}, below {low}")


def finite_non_negative(xp, values, name: str, lo: int = 0) -> None:
    """Every value finite and non-negative; ``lo`` as in ``at_least``."""
    bad = ~xp.isfinite(values) | (values < 0)
    if bool(bad.any()):
        v = first(xp, bad)
        raise VerificationError(f"{name}[{lo + v}] is {float(values[v])}: values are finite and non-negative")


def search_tree(xp, n: int, root: int, value, parent, name: str, lo: int = 0) -> None:
    """A search from ``root`` (``value``: level or distance, -1 where unreached; ``parent``: -1
    where unreached): value[root] == 0 and parent[root] == root, values >= -1, a vertex unreached in
    both or in neither, parents vertices.  ``lo``: value and parent are of vertices lo, lo + 1, ...
    (a slice's): the root is checked where it is among them, faults named by vertex id."""
    if lo <= root < lo + value.shape[0] and (int(value[root - lo]) != 0 or int(parent[root - lo]) != root):
        raise VerificationError(f"root {root}: {name}[root] is {int(value[root - lo])} and parent[root] is "
                                f"{int(parent[root - lo])}, expected 0 and {root}")
    at_least(xp, value, -1, name, lo)
    bad = (value < 0) != (parent < 0)
    if bool(bad.any()):
        v = first(xp, bad)
        raise VerificationError(f"vertex {lo + v} has {name} {int(value[v])} but parent {int(parent[v])}: -1 in one "
                                f"and not the other")
    bad = (parent < -1) | (parent >= n)
    if bool(bad.any()):
        v = first(xp, bad)
        raise VerificationError(f"parent[{lo + v}] is {int(parent[v])}, not a vertex (outside [0, n={n}))")


REFERENCES = "verify.references"
# What a graph's references may hold together, in n-vectors of 8 bytes (O(n), never O(m)): room for
# gap-suite's 4 BC roots, the triangle counts and the degrees; a reference past it is computed
# each time, as before.
REFERENCE_VECTORS = 8


def reference(inp, key: tuple, compute):
    """``compute()`` — an answer that depends on the graph ``inp`` and ``key`` alone (``key`` names
    the problem, the reference and every instance or parameter it depends on: a root, a sample
    count) — computed once and kept on ``inp`` (one per loaded dataset, placement and backend, so
    another graph never sees it), while the references kept stay within ``REFERENCE_VECTORS``
    n-vectors.  What is kept first stays (a sweep's tasks ask for the same references in the same
    order: a cache that evicted would drop each before its next use whenever they did not all fit)."""
    kept = inp.cache.setdefault(REFERENCES, {})
    if key in kept:
        return kept[key]
    store = inp.cache.get(reference_store.STORE)     # a stored dataset's: what another process computed
    value = store.load(key, compute) if store is not None else None
    computed = value is None
    if computed:
        value = compute()
    bound = REFERENCE_VECTORS * 8 * max(inp.n, 1)
    size = nbytes(value)
    if computed and store is not None and size <= bound:
        store.save(key, compute, value)
    if sum(map(nbytes, kept.values())) + size <= bound:
        kept[key] = value
    return value


def nbytes(value) -> int:
    """Bytes ``value`` holds: its arrays' (NumPy or CuPy), 8 for each number, summed through tuples,
    lists and dicts."""
    if hasattr(value, "nbytes"):
        return int(value.nbytes)
    if isinstance(value, dict):
        return sum(nbytes(k) + nbytes(v) for k, v in value.items())
    if isinstance(value, (tuple, list)):
        return sum(map(nbytes, value))
    return 8
