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
   bounds, whatever their ids, cc.adaptive (Sutton's Atomic-Hook + Multi-Jump over the edge list
   in segments): there most edges are redundant and the per-segment compression keeps the small
   trees flat — in as many segments as the share outside small components needs (``segments_for``:
   one where every sample is small); so does a graph of average degree at most FOREST_DEGREE
   (no more edges than a forest: long paths, trees; H200, session 17, 5 reps, cc.adaptive
   against the union-find without its sample: a random list of 2^25 2.66 / 2.80 ms, a random
   binary tree of 2^24 1.17 / 1.25, a random recursive tree of 2^24, hubs and all, 1.17 / 1.26 —
   where the share rule alone made cc.best 1.065x / 1.081x the fastest on the first two);
   otherwise cc.sampled-union-find with sample=false (init and one pass linking every remaining
   edge once).  cc.adaptive needs the edge list whole on the device: a graph placed in slices
   never takes it.

Like the degree, the sample is a property of the graph: it is taken once per input, in the
kernel's untimed setup (as the CSR is built once and timed apart, and as sssp.select samples its
locality), and its own time is in every row (``sample_ms``: ~0.02 ms on an H100).  Taken inside
each timed run, it cost 0.05-0.12 ms there (the sample, the host's wait for its count, and
cc.adaptive's init queued behind it to hide that wait, wasted when the union-find was chosen):
5-10% of the sparse graphs' runs in the cc-families sweep (docs/results/cc-families, round 5).

Measured (benchmarks/cc_families.py, docs/results/cc-families).  Round 3 (H200), the degree rule:
without the sample, lists 32M 2.75 ms against 3.18 with it, trees 32M 2.79 / 3.90, grid 4096^2
1.44 / 1.59; at average degree 6 (uniform 10M/30M, scale-free) the two are within 3%; at 32-40
(R-MAT 24, uniform 2M/40M, density) the sample is 1.5-5.5x faster (R-MAT 24: 1.75 ms against 9.6).
Round 4 (H100), the component sample then taken in each run: on 2^18 components of 32 consecutive ids cc.adaptive takes
0.469 ms against the union-find's 0.546, on 16M vertices in components of 1-64 with permuted ids
1.93 against 1.76 (why nearby ids, not size alone, decided then); cc.best 0.487-0.496 ms there (the
sample ~22 us of its 0.049 ms choose phase), and everywhere else as the union-find plus choose
(0.05-0.12 ms on the 16-32M-vertex sparse graphs, 1-4%).  Round 5 (H100, the published
sweeps/cc-families.yaml, the sample in setup): 0.82-1.005x the fastest other cc.* kernel and
1.47-6.36x ECL-CC on all ten families (docs/results.md section 15).  Round 6 (H200, the sweep with
permuted twins, issue #32): on many small components cc.adaptive was the fastest whatever the ids
(lists of 32, ids permuted: 1.17 ms against the union-find's 1.44; trees of 32 1.28 / 1.37; density
sub-graphs of 32, permuted 0.80 / 0.94), so the rule no longer asks that a component's ids lie
near each other (SPAN, round 4's H100 condition: there the permuted components of 1-64 ran 1.93
against 1.76) — an id order is no structure.
Statistics: ``chose`` (the kernel and parameters run, e.g. "cc.sampled-union-find sample=false"),
``average_degree`` and, below SPARSE_BELOW, ``small_share`` (the sampled share in small
components) and ``sample_ms``; then the chosen kernel's own.
"""

import time

import numba
import numpy as np

from ..contract import Kernel
from ..cuda import c_type, module
from . import CC
from . import adaptive
from . import sampled_union_find as suf
from .cpu import sample_index

SPARSE_BELOW = 4.0            # average degree below which no sample of the largest tree pays
SAMPLES = 256                 # vertices whose component is sampled (a warp each)
LIMIT = 64                    # a component is small when its search closes within LIMIT vertices,
LEVELS = 32                   # ... LEVELS levels (a path-like search gives up early; at 8, lists and
                              # trees of 32, eccentricities up to 31 and ~10, went to the union-find,
                              # where cc.adaptive was 9% / 7% faster on an H200),
SMALL_SHARE = 0.5             # share of small samples from which cc.adaptive runs
FOREST_DEGREE = 2.0           # ... and at most this average degree (as many edges as a forest has at most)
WARPS = 8                     # samples per block of select.cu
ROW = 8                       # row entries a lane reads at once
SEED = 0x5E1EC7
DEFINES = (f"-DGS_SEL_SAMPLES={SAMPLES}", f"-DGS_SEL_LIMIT={LIMIT}", f"-DGS_SEL_LEVELS={LEVELS}",
           f"-DGS_SEL_WARPS={WARPS}", f"-DGS_SEL_ROW={ROW}")


def _degree(inp) -> float:
    csr = inp.csr()
    return csr.nnz / csr.n if csr.n else 0.0


def _named(module_, overrides: dict) -> str:
    return " ".join([module_.KERNEL.name, *(f"{k}={str(v).lower()}" for k, v in overrides.items())])


def _gpu_small(inp) -> tuple[int, float]:
    """(small samples, ms) by select.cu, timed by CUDA events."""
    import cupy
    csr = inp.csr()
    off = suf.offsets(inp)
    name = f"graphsweep_cc_select_small<{c_type(off.dtype)}, {c_type(csr.indices.dtype)}>"
    fn = module("cc/select.cu", DEFINES, name_expressions=(name,)).get_function(name)
    partial = cupy.zeros(SAMPLES // WARPS, dtype=np.int32)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    fn((SAMPLES // WARPS,), (WARPS * 32,), (off, csr.indices, np.int64(csr.n), np.uint32(SEED), partial))
    end.record()
    end.synchronize()
    return int(partial.sum()), cupy.cuda.get_elapsed_time(start, end)


def _cpu_small(inp) -> tuple[int, float]:
    csr = inp.csr()
    t0 = time.perf_counter()
    small = _small_samples(csr.offsets, csr.indices, np.uint64(SEED))
    return small, (time.perf_counter() - t0) * 1e3


def choice(inp) -> dict:
    """What cc.select runs on this input: the kernel module, its parameter overrides and the
    statistics it chose by (kept in ``inp.cache``: a property of the graph, taken once)."""
    if "cc.select" not in inp.cache:
        stats = {"average_degree": round(_degree(inp), 3)}
        module_, overrides = suf, {}
        if stats["average_degree"] < SPARSE_BELOW:
            overrides = {"sample": False}
            if inp.n and inp.whole:     # cc.adaptive reads the edge list whole on the device
                small, ms = (_gpu_small if inp.backend == "gpu" else _cpu_small)(inp)
                stats.update(small_share=small / SAMPLES, sample_ms=round(ms, 4))
                if small >= SMALL_SHARE * SAMPLES or stats["average_degree"] <= FOREST_DEGREE:
                    module_, overrides = adaptive, {"segments": segments_for(inp, small / SAMPLES)}
        inp.cache["cc.select"] = {"module": module_, "overrides": overrides, "stats": stats}
    return inp.cache["cc.select"]


def segments_for(inp, small_share: float) -> int:
    """cc.adaptive's segments on a graph whose sampled share ``small_share`` lies in small
    components: its default (the average degree) for the rest only.  Segments keep large trees
    flat between hooks; a component that closes within LIMIT vertices stays flat in one.  H200, 5
    reps (session 17, call 1), 1 segment against the default: density sub-graphs of 32 0.33 / 0.44
    ms in order, 0.65 / 0.80 permuted; lists of 32 1.09 / 1.17; trees of 32 1.22 / 1.28 — while
    the 4096^2 grid in row order, one large component, took 10.8 ms in 1 segment against 3.0 in 2."""
    return max(1, round(adaptive.default_segments(inp.n, inp.m) * (1 - small_share)))


def setup(inp, params) -> None:
    """The union-find's setup (its int32 offsets, which the sample reads too), then the choice."""
    suf.KERNEL.setup(inp, suf.KERNEL.resolve_params({}))
    chosen = choice(inp)
    if chosen["module"].KERNEL.setup is not None:
        chosen["module"].KERNEL.setup(inp, chosen["module"].KERNEL.resolve_params(chosen["overrides"]))


@numba.njit(cache=True)
def _small_samples(off, idx, seed):
    """How many of the SAMPLES sampled vertices lie in a small component (select.cu's search)."""
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
        small += closed
    return small


def _run(backend: str):
    def run(inp, params, timer):
        chosen = choice(inp)
        module_, overrides = chosen["module"], chosen["overrides"]
        timer.stat("chose", _named(module_, overrides))
        for key, value in chosen["stats"].items():
            timer.stat(key, value)
        return getattr(module_.KERNEL, backend)(inp, module_.KERNEL.resolve_params(overrides), timer)
    return run


KERNEL = Kernel(name="cc.select", problem=CC,
                summary="runs the CC kernel fastest on graphs like this one (average degree, a sample's "
                        "component sizes; benchmarks/cc_families.py) and names it in its row",
                gpu=_run("gpu"), cpu=_run("cpu"), needs=("csr",), setup=setup)
