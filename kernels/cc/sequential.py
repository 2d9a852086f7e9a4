"""cc.sequential — the serial baseline: label components by traversal, one vertex at a time.

Returns label[v] = the smallest vertex id of v's component (canonical).  Algorithm: 002 §6.1.1
(Listing 6.1): scan the vertices in id order; an unlabelled one starts a new component, whose
vertices are reached by traversal of the vertex-based representation and labelled.  The thesis
recurses (depth first); this twin keeps an explicit queue (breadth first) so a list of 2^25
vertices cannot overflow a stack.  The thesis converts its edge list to the vertex list inside
the timed region; here that conversion is the shared CSR build, timed apart (stage ``input``).
CPU only: it is the baseline the parallel algorithms are measured against (000 Fig. 4).
"""

import numba
import numpy as np

from ..contract import Kernel
from . import CC, label_dtype


@numba.njit(cache=True, nogil=True)
def label_by_traversal(offsets, indices, label):
    """label[v] = the first vertex (in id order) of v's component; returns the component count."""
    n = label.shape[0]
    label[:] = -1
    queue = np.empty(n, dtype=np.int64)
    components = 0
    for start in range(n):
        if label[start] >= 0:
            continue
        components += 1
        label[start] = start
        head, tail = 0, 1
        queue[0] = start
        while head < tail:
            v = queue[head]
            head += 1
            for e in range(offsets[v], offsets[v + 1]):
                u = indices[e]
                if label[u] < 0:
                    label[u] = start
                    queue[tail] = u
                    tail += 1
    return components


def run_cpu(inp, params, timer):
    csr = inp.csr()
    n = inp.n
    label = np.empty(n, dtype=label_dtype(n))
    with timer.phase("traverse", read=8 * (n + 1) + csr.indices.nbytes, written=label.nbytes * 2,
                     random=csr.nnz):
        components = label_by_traversal(csr.offsets, csr.indices, label)
    timer.stat("components", components)
    return label


KERNEL = Kernel(name="cc.sequential", problem=CC,
                summary="serial labelling by breadth-first traversal of the CSR (002 §6.1.1), the CPU baseline",
                cpu=run_cpu, needs=("csr",))
