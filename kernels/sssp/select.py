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

Ids that came in another order (the same grid with its ids shuffled: locality 0.00) must not make
the choice: where the given ids keep few edges in a strip but every degree is small (at most
``by_bfs.NARROW_DEGREE``, 16: road maps and grids, not the skewed or dense graphs near-far is for), the graph
renamed in BFS order (``by-bfs``: a search from a pseudo-peripheral vertex, then ids by level;
built once per graph, timed as an ``input`` phase) is measured the same way, and sssp.strips runs
on it when it keeps LOCAL_FROM; the root goes in renamed and dist and parent come back in the
dataset's ids (phase ``map``).
Strips pay for one network whose wavefront crosses them, not for many small components, whose
searches reach a few vertices wherever they lie: sssp.strips runs only where the search from a
pseudo-peripheral vertex (``by_bfs.peripheral_levels``, the one near-far's deep rule reads) reaches
at least NETWORK_FROM of the vertices.  4096 density sub-graphs of 32 vertices on consecutive ids
keep 0.979 of their edges in a strip and took strips; with their ids permuted (0.004, and the
BFS-renamed graph orders only the searched component) near-far: now near-far both ways
(tests/kernels/test_rules_ignore_ids.py).
Statistics: ``chose`` (the kernel run), ``locality`` (of the ids it ran on), ``renamed`` (whether
it ran on the BFS-renamed graph), then the chosen kernel's own.
"""

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import array_module

from ..contract import Kernel
from . import ROOT_PARAM, SSSP
from ..bfs import by_bfs
from . import near_far, strips

SAMPLE = 4096
LOCAL_FROM = 0.5
NETWORK_FROM = 0.5
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


def one_network(inp) -> bool:
    """Whether the search from a pseudo-peripheral vertex reaches NETWORK_FROM of the vertices."""
    return int((by_bfs.peripheral_levels(inp) >= 0).sum()) >= NETWORK_FROM * inp.n


def choose(inp):
    """(kernel module, locality, renamed): sssp.strips where its strips fit and hold most edges of
    the given ids, or of the BFS-renamed ones on a graph of small degrees (renamed: that graph's
    ``BfsRenamed``), where the search from a pseudo-peripheral vertex reaches most vertices; else
    near-far (also for a CSR in host memory: near-far's reads are the ones measured over the link)."""
    if "sssp.select" not in inp.cache:
        csr = inp.csr()
        blocks = strip_count(inp) if csr.placement == "device" else None
        share, renamed = locality(csr, blocks) if blocks else 0.0, None
        if blocks and share < LOCAL_FROM and by_bfs.narrow(csr):
            inp.cache["sssp.select.built"] = inp.build(["by-bfs"])
            candidate = inp.representation("by-bfs")
            renamed_share = locality(candidate.graph.csr(), blocks)
            if renamed_share >= LOCAL_FROM:
                share, renamed = renamed_share, candidate
        if share >= LOCAL_FROM and one_network(inp):
            inp.cache["sssp.select"] = (strips, share, renamed)
        else:
            inp.cache["sssp.select"] = (near_far, share, None)
    return inp.cache["sssp.select"]


def setup(inp, params) -> list:
    """The choice, and the chosen kernel's setup on the graph it will run on; returns the row of
    the BFS-renamed graph's build where the choice measured it, chosen or not (the harness adds it
    to the input rows: built now the first time, cached after)."""
    module, _, renamed = choose(inp)
    module.KERNEL.setup(renamed.graph if renamed else inp, module.KERNEL.resolve_params({"delta": params.get("delta")}))
    built = inp.cache.pop("sssp.select.built", None)
    return built if built is not None else inp.build(["by-bfs"]) if "by-bfs" in inp.builds else []


def _run(backend: str):
    def run(inp, params, timer):
        module, share, renamed = choose(inp)
        root = params["root"] if renamed is None else int(renamed.rename[params["root"]])
        resolved = module.KERNEL.resolve_params({"root": root, "delta": params.get("delta")})
        timer.stat("chose", module.KERNEL.name)
        timer.stat("locality", round(share, 3))
        timer.stat("renamed", renamed is not None)
        out = getattr(module.KERNEL, backend)(renamed.graph if renamed else inp, resolved, timer)
        return out if renamed is None else _mapped_back(inp.xp, renamed, out, timer)
    return run


def _mapped_back(xp, renamed, out, timer) -> dict:
    """dist and parent in the dataset's ids: a gather through ``rename``, parents renamed back."""
    n = renamed.rename.shape[0]
    with timer.phase("map", read=8 * n + 16 * n, written=16 * n, random=2 * n):
        dist, parent = out["dist"][renamed.rename], out["parent"][renamed.rename]
        parent = xp.where(parent >= 0, renamed.order[xp.maximum(parent, 0)], -1)
    return {"dist": dist, "parent": parent}


KERNEL = Kernel(name="sssp.select", problem=SSSP,
                summary="runs sssp.strips on graphs whose ids keep most edges inside a block's strip, else "
                        "sssp.near-far, and names it in its row",
                gpu=_run("gpu"), cpu=_run("cpu"), params=PARAMS, setup=setup, needs=("csr",))
