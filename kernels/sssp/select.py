"""sssp.select — runs the SSSP kernel that is fastest on graphs like the one given, chosen from a
statistic read in the untimed setup, and says in its row which (``sssp.best``).

Returns what the chosen kernel returns: dist and parent (int64, -1 unreached).

The choice.  sssp.strips gives each thread block a strip of consecutive vertex ids and lets it
expand its strip without grid barriers; it pays off when most edges stay inside a strip (road maps
and grids numbered by place), and on graphs whose ids carry no locality (R-MAT, uniform,
scale-free) nearly every edge is a message between blocks.  ``locality`` is the fraction of
``SAMPLE`` CSR entries, spread evenly over the CSR, whose two ends lie in the same strip
(sssp.strips' strips on this device); ``LOCAL_FROM`` and above runs sssp.strips, below it (or
where strips do not fit in shared memory, or the CSR is in host memory) sssp.near-far.  Measured
(benchmarks/sssp_road.py, H100, 4 roots each): the 4096^2 road-like grid, locality 0.969:
sssp.strips 43.9 ms per root, near-far 97.3 at its best hand-tuned delta; R-MAT 22 (0.004):
near-far 7.8 ms, strips 181; uniform 2^24 degree 6 (0.004): near-far 14.5 ms, strips 96 (the CSR kernel).  The
sweep's scale-free graph has 0.003 (2^22 vertices, this host), R-MAT 20 0.004: near-far on every
family of sweeps/sssp-best.yaml.  No graph between 0.01 and 0.97 was measured: the bound is the
middle of that gap.
Statistics: ``chose`` (the kernel run) and ``locality``, then the chosen kernel's own.
"""

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import array_module

from ..contract import Kernel
from . import ROOT_PARAM, SSSP
from . import near_far, strips

SAMPLE = 4096
LOCAL_FROM = 0.5
PARAMS = {**ROOT_PARAM, "delta": near_far.PARAMS["delta"]}


def strip_count(inp) -> int | None:
    """The strips sssp.strips would use on this input's device, or None where they do not fit."""
    if inp.backend != "gpu":
        return strips.CPU_BLOCKS
    defaults = strips.KERNEL.resolve_params({})
    try:
        return strips.grid_for(inp.n, defaults["threads"], None, defaults["shared_list"])[0]
    except ParameterError:
        return None


def locality(csr, blocks: int) -> float:
    """Fraction of SAMPLE evenly spaced CSR entries (u, v) with u and v in the same strip."""
    if csr.nnz == 0:
        return 1.0
    rows, cols = csr.spread_entries(SAMPLE)
    size = strips.strip_size(csr.n, blocks)
    return float(array_module(rows).count_nonzero(rows // size == cols // size)) / rows.size


def choose(inp):
    """(kernel module, locality): sssp.strips where its strips fit and hold most edges, else near-far
    (also for a CSR in host memory: near-far's reads are the ones measured over the link)."""
    if "sssp.select" not in inp.cache:
        csr = inp.csr()
        blocks = strip_count(inp) if csr.placement == "device" else None
        share = locality(csr, blocks) if blocks else 0.0
        inp.cache["sssp.select"] = (strips if share >= LOCAL_FROM else near_far, share)
    return inp.cache["sssp.select"]


def setup(inp, params) -> None:
    module, _ = choose(inp)
    module.KERNEL.setup(inp, module.KERNEL.resolve_params({"delta": params.get("delta")}))


def _run(backend: str):
    def run(inp, params, timer):
        module, share = choose(inp)
        resolved = module.KERNEL.resolve_params({"root": params["root"], "delta": params.get("delta")})
        timer.stat("chose", module.KERNEL.name)
        timer.stat("locality", round(share, 3))
        return getattr(module.KERNEL, backend)(inp, resolved, timer)
    return run


KERNEL = Kernel(name="sssp.select", problem=SSSP,
                summary="runs sssp.strips on graphs whose ids keep most edges inside a block's strip, else "
                        "sssp.near-far, and names it in its row",
                gpu=_run("gpu"), cpu=_run("cpu"), params=PARAMS, setup=setup, needs=("csr",))
