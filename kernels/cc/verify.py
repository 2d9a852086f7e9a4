"""The connected-components verifier, shared by every algorithm and independent of all of them.

It asserts two properties of ``label`` for the graph of n vertices and edges (src[e], dst[e]):
  1. label[src[e]] == label[dst[e]] for every edge: each component carries one label, so no
     component is split;
  2. the number of distinct labels equals the number of components counted by a different method:
     with (1), fewer labels than components would mean two components share one (merged).
The count comes from SciPy's ``connected_components`` on the CPU, and on the GPU from a plain
method written here with CuPy array operations (no code shared with the kernels, no host copy):
rounds of min-label hooking (every root takes the smallest root across its edges, a scatter-min)
and full pointer jumping, dropping the edges that already join one tree, until none is left; the
count is then the number of roots.  Works on NumPy or CuPy arrays alike.  A graph whose edge
list is not on the compute device whole (placed in host memory, generated in memory) is checked
the same way a chunk of edges at a time (``verify_graph_labels``), the count by hooking rounds
that each stream the edges again (``hooked_labels``).
"""

import numpy as np

from graphsweep.core.errors import VerificationError
from graphsweep.datasets.format import index_dtype_for
from graphsweep.core.gpu import array_module

from .. import checks


def verify_labels(n: int, src, dst, label) -> dict:
    """Check ``label`` (see the module doc); returns {"components": count}."""
    label = _checked(array_module(src), label, n)
    _one_label_per_edge(label, src, dst)
    return _as_many_as(distinct_count(label, n), component_count(n, src, dst))


def verify_graph_labels(inp, label) -> dict:
    """``verify_labels`` for a ``GraphInput``, reading its edge list a chunk at a time when it is
    not on the compute device whole; the component count is counted once per graph
    (``checks.reference``: a sweep's next CC task compares with it)."""
    xp, n = inp.xp, inp.n
    label = _checked(xp, label, n)
    if inp.whole:
        _one_label_per_edge(label, inp.src, inp.dst)
    else:
        for src, dst, _ in inp.edge_chunks():
            _one_label_per_edge(label, src, dst)
    return _as_many_as(distinct_count(label, n), checks.reference(inp, ("cc", "components"), lambda: _components(inp)))


def _components(inp) -> int:
    if inp.whole:
        return component_count(inp.n, inp.src, inp.dst)
    roots = graph_components(inp)
    return int(inp.xp.count_nonzero(roots == inp.xp.arange(inp.n, dtype=roots.dtype)))


def _checked(xp, label, n: int):
    return checks.vector(xp, label, n, "label", integers=True)


def _one_label_per_edge(label, src, dst) -> None:
    """Property 1 on the edges (src[e], dst[e]) (edge numbers count within these arrays)."""
    if not src.shape[0]:
        return
    split = label[src] != label[dst]
    if bool(split.any()):
        e = int(array_module(split).argmax(split))
        u, v = int(src[e]), int(dst[e])
        raise VerificationError(f"edge {e} ({u} - {v}) joins labels {int(label[u])} and {int(label[v])}: "
                                "a component must carry one label")


def _as_many_as(labels: int, components: int) -> dict:
    """Property 2: as many distinct labels as components."""
    if labels != components:
        raise VerificationError(f"{labels} distinct labels for {components} components: "
                                "different components share a label")
    return {"components": components}


def graph_components(inp):
    """``hooked_labels`` of the graph ``inp``, computed once and kept on it (the CC verifier and
    every BFS root's verification share it)."""
    key = "verify.components"
    if key not in inp.cache:
        inp.cache[key] = hooked_labels(inp.n, inp.edge_chunks, inp.xp)
    return inp.cache[key]


def hooked_labels(n: int, edge_chunks, xp, combine=None, agree=None):
    """A component label per vertex (the smallest id of its component) by rounds of min-label
    hooking and full pointer jumping, each round reading the edges from ``edge_chunks()`` (an
    iterable of (src, dst, ...) chunks) again: for edge lists that are not in memory whole.  Over
    a partitioned graph (``kernels/dist/verify.py``) each rank hooks its own edges, ``agree(changed)``
    tells whether any rank's changed a label and ``combine(label)`` meets the ranks' labels (an
    all-reduce min: every rank began the round with the same labels, and hooks only lower them)."""
    dtype = np.dtype(index_dtype_for(n))
    label = xp.arange(n, dtype=dtype)
    for _ in range(_rounds_bound(n)):
        changed = False
        for src, dst, *_ in edge_chunks():
            lu, lv = label[src], label[dst]
            differ = lu != lv
            if bool(differ.any()):
                lu, lv = lu[differ], lv[differ]
                _scatter_min(xp, label, xp.maximum(lu, lv), xp.minimum(lu, lv))
                changed = True
        if agree is not None:
            changed = agree(changed)
        if not changed:
            return label
        if combine is not None:
            label = combine(label)
        while True:
            jumped = label[label]
            if bool((jumped == label).all()):
                break
            label = jumped
    raise RuntimeError(f"the verifier's component labels did not converge in {_rounds_bound(n)} rounds")


def distinct_count(label, n: int) -> int:
    """How many distinct values ``label`` holds (a mark per value when they are vertex ids)."""
    xp = array_module(label)
    if n == 0:
        return 0
    if int(label.min()) >= 0 and int(label.max()) < n:
        seen = xp.zeros(n, dtype=np.bool_)
        seen[label] = True
        return int(xp.count_nonzero(seen))
    return int(xp.unique(label).shape[0])


def component_count(n: int, src, dst) -> int:
    """The number of connected components, by a method no kernel uses (see the module doc)."""
    if array_module(src) is np:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components
        graph = coo_matrix((np.ones(src.shape[0], dtype=np.int8), (src, dst)), shape=(n, n))
        return int(connected_components(graph, directed=False, return_labels=False))
    return count_by_hooking(n, src, dst)


def count_by_hooking(n: int, src, dst) -> int:
    """Components by rounds of min-label hooking and full pointer jumping (the GPU count; it runs
    on NumPy too, which is how it is tested)."""
    xp = array_module(src)
    roots = hooked_labels(n, lambda: [(src, dst)], xp)
    return int(xp.count_nonzero(roots == xp.arange(n, dtype=roots.dtype)))


def _scatter_min(xp, target, index, values) -> None:
    """target[index[i]] = min(target[index[i]], values[i]) for all i, repeated indices included."""
    xp.minimum.at(target, index, values)


def _rounds_bound(n: int) -> int:
    """Far more hooking rounds than min-label hooking needs: a guard against a verifier bug (an
    endless loop), not a limit any graph reaches."""
    return 4 * max(1, int(n)).bit_length() + 64
