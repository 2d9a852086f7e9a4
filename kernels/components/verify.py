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
count is then the number of roots.  Works on NumPy or CuPy arrays alike.
"""

import numpy as np

from graphsweep.datasets.errors import VerificationError
from graphsweep.datasets.gpu import array_module


def verify_labels(n: int, src, dst, label) -> dict:
    """Check ``label`` (see the module doc); returns {"components": count}."""
    xp = array_module(src)
    label = xp.asarray(label)
    if label.shape != (n,):
        raise VerificationError(f"label has shape {label.shape}, expected ({n},)")
    if label.dtype.kind not in "iu":
        raise VerificationError(f"label has dtype {label.dtype}, expected integers")
    if src.shape[0]:
        split = label[src] != label[dst]
        if bool(split.any()):
            e = int(xp.argmax(split))
            u, v = int(src[e]), int(dst[e])
            raise VerificationError(f"edge {e} ({u} - {v}) joins labels {int(label[u])} and {int(label[v])}: "
                                    "a component must carry one label")
    labels = distinct_count(label, n)
    components = component_count(n, src, dst)
    if labels != components:
        raise VerificationError(f"{labels} distinct labels for {components} components: "
                                "different components share a label")
    return {"components": components}


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
    dtype = np.int32 if n < 2**31 else np.int64
    ids = xp.arange(n, dtype=dtype)
    root = ids.copy()
    a, b = src.astype(dtype, copy=False), dst.astype(dtype, copy=False)
    ra, rb = a, b                      # every vertex is its own root at first
    for _ in range(_rounds_bound(n)):
        joining = ra != rb             # edges whose ends are still in two trees
        if not bool(joining.any()):
            return int(xp.count_nonzero(root == ids))
        a, b, ra, rb = a[joining], b[joining], ra[joining], rb[joining]
        _scatter_min(xp, root, xp.maximum(ra, rb), xp.minimum(ra, rb))
        while True:                    # full pointer jumping: every vertex points at its root
            up = root[root]
            if bool((up == root).all()):
                break
            root = up
        ra, rb = root[a], root[b]
    raise RuntimeError(f"the verifier's component count did not converge in {_rounds_bound(n)} rounds")


def _scatter_min(xp, target, index, values) -> None:
    """target[index[i]] = min(target[index[i]], values[i]) for all i, repeated indices included."""
    xp.minimum.at(target, index, values)


def _rounds_bound(n: int) -> int:
    """Far more hooking rounds than min-label hooking needs: a guard against a verifier bug (an
    endless loop), not a limit any graph reaches."""
    return 4 * max(1, int(n)).bit_length() + 64
