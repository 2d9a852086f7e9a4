"""cc.select — runs the CC kernel that is fastest on graphs like the one given, chosen from cheap
statistics, and says in its row which (``cc.best``).

Returns what the chosen kernel returns: label[v] = the smallest vertex id of v's component.

The choice, in two steps:

1. The CSR's average degree d = nnz / n (both directions of each edge, self-loops dropped) is
   known on the host once the CSR is built: no device work.  It says how many smaller neighbours a
   vertex has to link beyond the two that cc.sampled-union-find links with no sample (init and
   the first slot of the final pass).  At d >= SPARSE_BELOW, cc.sampled-union-find as it is
   (link2, sample, skip the giant tree or link every remaining edge once).
2. Below it (lists, trees, road-like grids, many small components) Afforest's sample and skip buy
   nothing, and the graphs split by their components: a sample of SAMPLES vertices (hashed from
   SEED), each searched breadth-first for at most LEVELS levels and LIMIT vertices (select.cu, a
   warp a sample).  When at least SMALL_SHARE of them lie in components that close within those
   bounds and whose ids lie within SPAN of each other, cc.adaptive (Sutton's Atomic-Hook +
   Multi-Jump over the edge list in segments): there most edges are redundant, a component's
   labels share a few cache lines, and the per-segment compression keeps the small trees flat;
   otherwise cc.sampled-union-find with sample=false (init and one pass linking every remaining
   edge once).  cc.adaptive's init (pi[v] = v) is queued right after the sample, and the host reads
   the sample's counts from mapped host memory as soon as it is done, so the host decides while
   the GPU initialises: choosing costs the GPU the sample (phase ``choose``: the sample and that
   init, ~20 us + the init on the H100), and when the union-find is chosen, the init too.
   cc.adaptive needs the edge list whole on the device: a graph placed in slices
   never takes it.

Measured (benchmarks/cc_families.py, docs/results/cc-families).  Round 3 (H200), the degree rule:
without the sample, lists 32M 2.75 ms against 3.18 with it, trees 32M 2.79 / 3.90, grid 4096^2
1.44 / 1.59; at average degree 6 (uniform 10M/30M, scale-free) the two are within 3%; at 32-40
(R-MAT 24, uniform 2M/40M, density) the sample is 1.5-5.5x faster (R-MAT 24: 1.75 ms against 9.6).
Round 4 (H100), the component sample: on 2^18 components of 32 consecutive ids cc.adaptive takes
0.469 ms against the union-find's 0.546, on 16M vertices in components of 1-64 with permuted ids
1.93 against 1.76 (why nearby ids, not size alone, decide); cc.best 0.487-0.496 ms there (the
sample ~22 us of its 0.049 ms choose phase), and everywhere else as the union-find plus choose
(0.05-0.12 ms on the 16-32M-vertex sparse graphs, 1-4%).
Statistics: ``chose`` (the kernel and parameters run, e.g. "cc.sampled-union-find sample=false"),
``average_degree`` and, below SPARSE_BELOW, ``small_share`` (the sampled share in small
components); then the chosen kernel's own.
"""

import numba
import numpy as np

from ..contract import Kernel
from ..cuda import module
from . import CC
from . import adaptive
from . import sampled_union_find as suf
from .cpu import sample_index
from .gpu import c_type
from .hooks import CpuHooks, GpuHooks

SPARSE_BELOW = 4.0            # average degree below which no sample of the largest tree pays
SAMPLES = 256                 # vertices whose component is sampled (a warp each)
LIMIT = 64                    # a component is small when its search closes within LIMIT vertices,
LEVELS = 8                    # ... LEVELS levels (a path-like search gives up early),
SPAN = 1024                   # ... and its ids lie within SPAN of each other (4 KB of labels)
SMALL_SHARE = 0.5             # share of small samples from which cc.adaptive runs
WARPS = 8                     # samples per block of select.cu
ROW = 8                       # row entries a lane reads at once
SEED = 0x5E1EC7
DEFINES = (f"-DGS_SEL_SAMPLES={SAMPLES}", f"-DGS_SEL_LIMIT={LIMIT}", f"-DGS_SEL_LEVELS={LEVELS}",
           f"-DGS_SEL_WARPS={WARPS}", f"-DGS_SEL_ROW={ROW}", f"-DGS_SEL_SPAN={SPAN}")


def _degree(inp) -> float:
    csr = inp.csr()
    return csr.nnz / csr.n if csr.n else 0.0


def setup(inp, params) -> None:
    """The union-find's setup (its int32 offsets, which the sample reads too); cc.adaptive has none."""
    suf.KERNEL.setup(inp, suf.KERNEL.resolve_params({}))


def _named(module_, overrides: dict) -> str:
    return " ".join([module_.KERNEL.name, *(f"{k}={str(v).lower()}" for k, v in overrides.items())])


def _union_find(inp, timer, backend: str, overrides: dict):
    timer.stat("chose", _named(suf, overrides))
    return getattr(suf.KERNEL, backend)(inp, suf.KERNEL.resolve_params(overrides), timer)


def _choose_traffic(n: int, label_bytes: int, index_bytes: int) -> dict:
    """cc.adaptive's init (n labels written) and the sample: at most LIMIT rows a sample, their
    offsets and entries (rows past ROW entries not counted)."""
    return {"written": n * label_bytes, "read": SAMPLES * LIMIT * (16 + ROW * index_bytes),
            "random": SAMPLES * LIMIT}


class _GpuSample:
    """select.cu's launch; ``share()`` waits for it alone (cc.adaptive's init may still run)."""

    def __init__(self, inp):
        import cupy
        from .. import pinned
        csr = inp.csr()
        off = suf.offsets(inp)
        name = f"graphsweep_cc_select_small<{c_type(off.dtype)}, {c_type(csr.indices.dtype)}>"
        fn = module("cc/select.cu", DEFINES, name_expressions=(name,)).get_function(name)
        if "cc.select.partial" not in inp.cache:
            inp.cache["cc.select.partial"] = pinned.empty(SAMPLES // WARPS, np.int32)
        self.partial = inp.cache["cc.select.partial"]
        fn((SAMPLES // WARPS,), (WARPS * 32,), (off, csr.indices, np.int64(csr.n), np.uint32(SEED),
                                               self.partial.device))
        self.done = cupy.cuda.Event(disable_timing=True)
        self.done.record()

    def share(self) -> float:
        self.done.synchronize()
        return int(self.partial.host.sum()) / SAMPLES


class _CpuSample:
    def __init__(self, inp):
        csr = inp.csr()
        self.small = _small_samples(csr.offsets, csr.indices, np.uint64(SEED))

    def share(self) -> float:
        return self.small / SAMPLES


@numba.njit(cache=True)
def _small_samples(off, idx, seed):
    """How many of the SAMPLES sampled vertices lie in a small component of nearby ids (select.cu's
    search)."""
    n = off.shape[0] - 1
    small = 0
    seen = np.empty(LIMIT, dtype=idx.dtype)
    for t in range(SAMPLES):
        seen[0] = sample_index(t, seed, SAMPLES, n)
        count, head, closed = 1, 0, True
        for level in range(LEVELS + 1):
            if head == count:
                break
            if level == LEVELS:
                closed = False
                break
            end = count
            for i in range(head, end):
                u = seen[i]
                for at in range(off[u], off[u + 1]):
                    v = idx[at]
                    fresh = True
                    for j in range(count):
                        if seen[j] == v:
                            fresh = False
                            break
                    if fresh:
                        if count == LIMIT:
                            closed = False
                            break
                        seen[count] = v
                        count += 1
                if not closed:
                    break
            if not closed:
                break
            head = end
        small += closed and seen[:count].max() - seen[:count].min() < SPAN
    return small


def _run(backend: str):
    hooks_for, sample_for = {"gpu": (lambda inp, p: GpuHooks("cc/adaptive.cu", inp, p), _GpuSample),
                             "cpu": (lambda inp, p: CpuHooks(inp), _CpuSample)}[backend]

    def run(inp, params, timer):
        degree = _degree(inp)
        timer.stat("average_degree", round(degree, 3))
        if degree >= SPARSE_BELOW:
            return _union_find(inp, timer, backend, {})
        if inp.n == 0 or not inp.whole:     # cc.adaptive reads the edge list whole on the device
            return _union_find(inp, timer, backend, {"sample": False})
        resolved = adaptive.KERNEL.resolve_params({})
        hooks = hooks_for(inp, resolved)
        pi = hooks.empty()
        with timer.phase("choose", **_choose_traffic(inp.n, pi.itemsize, inp.csr().indices.itemsize)):
            sample = sample_for(inp)
            hooks.identity(pi)
        share = sample.share()
        timer.stat("small_share", share)
        if share >= SMALL_SHARE:
            timer.stat("chose", adaptive.KERNEL.name)
            return adaptive.run_hooks(hooks, inp, resolved, timer, pi)
        return _union_find(inp, timer, backend, {"sample": False})
    return run


KERNEL = Kernel(name="cc.select", problem=CC,
                summary="runs the CC kernel fastest on graphs like this one (average degree, a sample's "
                        "component sizes; benchmarks/cc_families.py) and names it in its row",
                gpu=_run("gpu"), cpu=_run("cpu"), needs=("csr",), setup=setup)
