"""The kernel registry.  Adding an algorithm is one module plus one line in ``MODULES``.

Modules are imported on first use, so importing graphsweep.kernels stays cheap.  Kernels of
one's own (outside this package) are added by naming their modules, separated by commas, in the
environment variable ``GRAPHSWEEP_KERNEL_MODULES``; Dask workers inherit it from the environment.
"""

import importlib
import os

from graphsweep.core.errors import ParameterError

from .contract import Kernel

MODULES = [
    "graphsweep.kernels.listrank.sequential",
    "graphsweep.kernels.listrank.parallel_splitter",
    "graphsweep.kernels.listrank.wyllie",
    "graphsweep.kernels.listrank.random_splitter",
    "graphsweep.kernels.listrank.helman_jaja",
    "graphsweep.kernels.listrank.scan",
    "graphsweep.kernels.listrank.recursive_splitter",
    "graphsweep.kernels.cc.sequential",
    "graphsweep.kernels.cc.shiloach_vishkin",
    "graphsweep.kernels.cc.hook_compress",
    "graphsweep.kernels.cc.adaptive",
    "graphsweep.kernels.cc.sampled_union_find",
    "graphsweep.kernels.cc.streaming",
    "graphsweep.kernels.cc.select",
    "graphsweep.kernels.cc.distributed",
    "graphsweep.kernels.bfs.harish",
    "graphsweep.kernels.bfs.direction_optimizing",
    "graphsweep.kernels.bfs.emogi",
    "graphsweep.kernels.bfs.distributed",
    "graphsweep.kernels.sssp.harish",
    "graphsweep.kernels.sssp.near_far",
    "graphsweep.kernels.sssp.strips",
    "graphsweep.kernels.sssp.select",
    "graphsweep.kernels.apsp.floyd_warshall",
    "graphsweep.kernels.apsp.blocked",
    "graphsweep.kernels.apsp.repeated_sssp",
    "graphsweep.kernels.pagerank.pull",
    "graphsweep.kernels.pagerank.pull_warp",
    "graphsweep.kernels.pagerank.spmv",
    "graphsweep.kernels.pagerank.blocked",
    "graphsweep.kernels.pagerank.distributed",
    "graphsweep.kernels.tc.search",
    "graphsweep.kernels.bc.brandes",
    "graphsweep.kernels.bc.batched",
]

# name -> (target, why): names that stand for another kernel, e.g. the fastest of a family.
ALIASES = {
    "listrank.best": ("listrank.recursive-splitter", "fastest GPU algorithm on random lists 2^22-2^31 in "
                                                     "benchmarks/listrank.py (H200, 2026-11-21); with in-place "
                                                     "records 1.00x / 0.98x the chase-with-store floor at "
                                                     "2^26 / 2^28 (benchmarks/listrank.py --floor, H100, "
                                                     "2026-11-25)"),
    "cc.best": ("cc.select", "runs cc.sampled-union-find with or without its sample by average degree, or "
                             "cc.adaptive where a sample finds small components (whatever their ids): the "
                             "fastest or within 0.5% of it on all ten families of sweeps/cc-families.yaml, "
                             "1.47-6.36x ECL-CC (H100, 2026-11-25; docs/results.md section 15); with permuted "
                             "twins on an H200 1.19-1.58x ECL-CC (2026-11-28, section 18)"),
    "sssp.best": ("sssp.select", "runs sssp.strips where sampled edges stay inside a block's strip of ids (given, "
                                 "or renamed in BFS order on a graph of small degrees), else sssp.near-far "
                                 "(sweeps/sssp-road.yaml, H200, 2026-11-28: the 4096^2 road-like grid 43.9 ms a root "
                                 "in generation order, 60.3 shuffled, against 94-104 for near-far at its best "
                                 "hand-tuned delta; earlier, H100: 54.3 ms = 1.84x tuned near-far's 99.8 ms); "
                                 "R-MAT 22 7.8 ms and uniform 2^24 14.5 ms (near-far; strips 181 and 96); near-far: "
                                 "R-MAT 22 = 12.5x GAPBS delta-stepping on 16 cores, 562x SciPy's Dijkstra "
                                 "(benchmarks/sssp.py, H200, 2026-11-22); rerun: sweeps/sssp-best.yaml"),
    "bfs.best": ("bfs.direction-optimizing", "benchmarks/bfs.py (H200, 2026-11-22): R-MAT 24 ef 16 1.18 ms per "
                                             "root (221 GTEPS), uniform 2^24 d16 2.21 ms, 4096^2 grid 7.6 us/level; "
                                             "bfs.harish up to 110x slower (R-MAT 24); rerun: sweeps/bfs-best.yaml"),
    "pagerank.best": ("pagerank.blocked", "fastest PageRank on kron and urand 24 in sweeps/pagerank-24.yaml (H200, "
                                          "2026-11-28): 1.8-2.0x cuSPARSE's SpMV PageRank (pagerank.spmv) a trial; "
                                          "its column blocks by the degree rule within 4% of the best count; "
                                          "benchmarks/gap.py prints it beside GAPBS"),
    "bc.best": ("bc.batched", "4 roots a traversal: kron 24 13.2 ms a root, urand 24 18.1 ms, against bc.brandes's "
                              "41.8 and 43.4 (sweeps/bc-24.yaml, H200, 2026-11-28): 85x / 115x GAPBS's bc -i 4 on the "
                              "same host; rerun: sweeps/bc-24.yaml, benchmarks/gap.py --gapbs"),
    "tc.best": ("tc.search", "the one TC design: kron 24 0.78 s = 61x GAPBS, urand 24 35 ms = 188x "
                             "(benchmarks/gap.py, H200, 2026-11-24); lanes from the oriented graph's edge-weighted "
                             "mean out-degree, the best of 1-32 on kron and urand 22 (benchmarks/best_rules.py, "
                             "H100, 2026-11-25); rerun: sweeps/gap-suite.yaml"),
}

# name -> (target, why) where the graph lives in host memory (kernels.placement): the kernels
# whose access shape suits the link stand in for the device's fastest.
HOST_ALIASES = {
    "cc.best": ("cc.streaming", "streams the CSR over the link in blocks, copy overlapped with "
                                "union-find hooking (benchmarks/link.py; rerun: sweeps/placement-price.yaml)"),
    "sssp.best": ("sssp.near-far", "reads (index, weight) zero-copy over the link, measured and priced "
                                   "(docs/results.md §9); sssp.select picks it for a CSR in host memory too"),
    "bfs.best": ("bfs.emogi", "reads adjacency from host memory as whole 128-byte lines, a warp per line, top-down "
                              "or bottom-up, or streams the CSR, per level by its byte model (benchmarks/link.py: "
                              "R-MAT 29 ef 20 on an H100, 6.8 GTEPS, 1.32x its link floor; rerun: "
                              "sweeps/host-memory.yaml)"),
}

_kernels: dict[str, Kernel] = {}


def _add(kernel: Kernel) -> None:
    _kernels[kernel.name] = kernel


def _load() -> dict[str, Kernel]:
    if not _kernels:
        extra = [m.strip() for m in os.environ.get("GRAPHSWEEP_KERNEL_MODULES", "").split(",") if m.strip()]
        for module in MODULES:
            _add(importlib.import_module(module).KERNEL)
        for module in extra:
            try:
                _add(importlib.import_module(module).KERNEL)
            except (ImportError, AttributeError) as exc:
                raise ParameterError(f"GRAPHSWEEP_KERNEL_MODULES: {module}: {exc}") from None
    return _kernels


def for_placement(name: str, placement: str) -> str:
    """The kernel ``name`` stands for when the graph is placed in ``placement``."""
    if placement == "host" and name in HOST_ALIASES:
        return HOST_ALIASES[name][0]
    return name


def names() -> list[str]:
    return sorted([*_load(), *ALIASES])


def get(name: str) -> Kernel:
    """The kernel called ``name`` (aliases resolved), or a ParameterError listing the known ones."""
    kernels = _load()
    target = ALIASES.get(name, (name, ""))[0]
    if target not in kernels:
        raise ParameterError(f"unknown kernel {name!r} (known: {', '.join(names())})")
    return kernels[target]
