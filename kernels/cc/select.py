"""cc.select — runs the CC kernel that is fastest on graphs like the one given, chosen from a
statistic the host already holds, and says in its row which (``cc.best``).

Returns what the chosen kernel returns: label[v] = the smallest vertex id of v's component.

The choice.  The CSR's average degree d = nnz / n (both directions of each edge, self-loops
dropped) is known on the host once the CSR is built, so choosing costs nothing on the device.
It says how many smaller neighbours a vertex has to link beyond the two that
cc.sampled-union-find links with no sample (init and the first slot of the final pass):

  d < SPARSE_BELOW   lists, trees, road-like grids, many small components: init and one pass
                     link nearly every edge, so Afforest's sample and the skip buy nothing and cost
                     a pass (link2) and a compress: cc.sampled-union-find with sample=false.
  otherwise          cc.sampled-union-find as it is (link2, sample, skip the giant tree or link
                     every remaining edge once).

Measured (benchmarks/cc_families.py, H200, 2026-11-24, docs/results/cc-families, round 2): without
the sample, lists 32M 2.75 ms against 3.18 with it, trees 32M 2.79 / 3.90, grid 4096^2 1.44 / 1.59,
many small components 1.58 / 2.21 and 0.58 / 0.87; at average degree 6 (uniform 10M/30M,
scale-free) the two are within 3%; at 32-40 (R-MAT 24, uniform 2M/40M, density) the sample is
1.5-5.5x faster (R-MAT 24: 1.75 ms against 9.6).  ``RULES`` is that table.  Statistics: ``chose`` (the kernel and parameters run,
e.g. "cc.sampled-union-find sample=false") and ``average_degree``, then the chosen kernel's own.
"""

from ..contract import Kernel
from . import CC
from . import sampled_union_find as suf

SPARSE_BELOW = 4.0
# (average degree below, kernel module, parameters); the last row has no bound.
RULES = [(SPARSE_BELOW, suf, {"sample": False}),
         (None, suf, {})]


def choose(n: int, nnz: int):
    """(kernel module, parameters, average degree) for a CSR of n vertices and nnz entries."""
    degree = nnz / n if n else 0.0
    for bound, module, params in RULES:
        if bound is None or degree < bound:
            return module, params, degree
    raise AssertionError("RULES ends with an unbounded row")


def _chosen(inp):
    csr = inp.csr()
    module, overrides, degree = choose(csr.n, csr.nnz)
    return module, module.KERNEL.resolve_params(overrides), overrides, degree


def setup(inp, params) -> None:
    module, resolved, _, _ = _chosen(inp)
    if module.KERNEL.setup is not None:
        module.KERNEL.setup(inp, resolved)


def _run(backend: str):
    def run(inp, params, timer):
        module, resolved, overrides, degree = _chosen(inp)
        timer.stat("chose", " ".join([module.KERNEL.name, *(f"{k}={str(v).lower()}" for k, v in overrides.items())]))
        timer.stat("average_degree", round(degree, 3))
        return getattr(module.KERNEL, backend)(inp, resolved, timer)
    return run


KERNEL = Kernel(name="cc.select", problem=CC,
                summary="runs the CC kernel fastest on graphs of this average degree (benchmarks/cc_families.py) "
                        "and names it in its row",
                gpu=_run("gpu"), cpu=_run("cpu"), needs=("csr",), setup=setup)
