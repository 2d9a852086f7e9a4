"""bfs.best's ratio table, from the results of the shipped sweep ``sweeps/bfs-best.yaml``.

    graphsweep run sweeps/bfs-best.yaml             # on a GPU machine
    python3 benchmarks/bfs.py results/bfs-best
    python3 benchmarks/bfs.py --grid                # the 4096^2 grid, in process (see below)

Per graph, each variant's median time per root (the total phase over every root and rep), GTEPS
(harmonic mean over roots, slowest and fastest root) and time over bfs.best's, then bfs.best
against the BFS issue's targets and peers (quoted from the issue, not re-measured).

The grid waits for the ``grid`` generator to become a dataset of the sweep; ``--grid`` makes it
with ``gpu_graphs.grid2d`` meanwhile and prints bfs.best's time per level against the target.

``--levels`` (GPU, in process) measures the floors and runs bfs.best on the issue's graphs for the
per-root and per-level targets: R-MAT scale 24 (16 roots), R-MAT and uniform graphs of 256K-1M
vertices (where launches and host round trips dominate) and the road-like 4096^2 grid keeping 0.8
of its edges (the ``grid`` generator's edges, built in memory).  It prints per graph the mean time
per root, levels, bottom-up levels, launches and the time per level, beside the floors: one pass
over the CSR at the copy rate, one random access per vertex at the gather rate, and the
dependent-access latency (a level on a small frontier is a chain of such round trips plus a
barrier).  Run it under two checkouts to compare a change with what it replaces.
"""

import argparse
import statistics
import sys
from pathlib import Path

from ratios import print_groups, totals

# dataset id -> (target ms per root, {peer: ms per root}), from the BFS issue
TARGETS = {"rmat_scale=24_edge_factor=16_seed=1": (1.5, {"GAPBS 16 cores": 38.9, "Gunrock V100": 3.83}),
           "uniform_n=16777216_degree=16_seed=1": (3.0, {"GAPBS 16 cores": 60.8})}
GRID_TARGET_US_PER_LEVEL, GUNROCK_ROAD_US_PER_LEVEL = 10.0, 119.0


def table(results: str) -> None:
    spread = lambda r: f"  roots {r['gelems_min']:.2f}-{r['gelems_max']:.2f} GTEPS"  # noqa: E731
    best = print_groups(totals(results), "bfs.best", "dataset", extra=spread)
    print()
    for dataset, (target, peers) in TARGETS.items():
        if dataset in best:
            ms = best[dataset]
            versus = "; ".join(f"{peer} {peer_ms} ms = {peer_ms / ms:.1f}x" for peer, peer_ms in peers.items())
            print(f"{dataset:<40} bfs.best {ms:.3f} ms per root: target {target} ms "
                  f"{'met' if ms <= target else 'MISSED'}; {versus}")


def grid() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import gpu_graphs

    from graphsweep.kernels import harness
    data = gpu_graphs.grid2d(4096, 4096)
    for name, params, roots, reps in (("bfs.best", {}, 4, 5), ("bfs.best", {"levels_per_launch": 1}, 2, 1),
                                      ("bfs.best", {"threads": 128}, 4, 2), ("bfs.best", {"threads": 512}, 4, 2),
                                      ("bfs.harish", {}, 1, 1)):
        res = harness.run(name, data, backend="gpu", reps=reps, warmup=1, instances=roots, instance_seed=24301,
                          keep_output=False, **params)
        per_level = [1e3 * statistics.median(r["ms"] for r in res.rows if r["instance"] == i and r["phase"] == "total")
                     / stats["levels"] for i, stats in enumerate(res.instance_stats)]
        us = statistics.median(per_level)
        print(f"grid 4096^2  {res.kernel} {params}  {us:.2f} us per level (target {GRID_TARGET_US_PER_LEVEL}; "
              f"Gunrock road_usa {GUNROCK_ROAD_US_PER_LEVEL}){'' if res.verified else '  NOT VERIFIED'}")


def road_grid(rows: int, cols: int, keep: float, seed: int = 1):
    """The ``grid`` generator's graph, generated in memory on the GPU."""
    from graphsweep.generators import memory
    return memory.generate("grid", seed=seed, params={"rows": rows, "cols": cols, "keep": keep}, device="gpu")


def levels(params: dict) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import gpu_graphs

    from graphsweep.kernels import ceilings, harness
    floors = ceilings.measure("gpu")
    print("floors:", {k: v for k, v in floors.items() if isinstance(v, (int, float))})
    graphs = (("rmat-24", lambda: gpu_graphs.rmat(24), 16, 5, 1.0),
              ("rmat-20", lambda: gpu_graphs.rmat(20), 16, 10, None),
              ("rmat-18", lambda: gpu_graphs.rmat(18), 16, 10, None),
              ("uniform-1M-d16", lambda: gpu_graphs.uniform(1 << 20, 8 << 20), 16, 10, None),
              ("grid-4096-keep0.8", lambda: road_grid(4096, 4096, 0.8), 4, 3, None))
    for label, make, roots, reps, target in graphs:
        data = make()
        res = harness.run("bfs.best", data, backend="gpu", reps=reps, warmup=1, instances=roots,
                          instance_seed=24301, keep_output=False, **params)
        per_root = [statistics.median(r["ms"] for r in res.rows if r["instance"] == i and r["phase"] == "total")
                    for i in range(len(res.instance_stats))]
        stats = res.instance_stats
        levels_ = [st["levels"] for st in stats]
        per_level_us = statistics.median(1e3 * ms / lv for ms, lv in zip(per_root, levels_))
        launches = [st.get("launches", st.get("td_launches")) for st in stats]
        n, nnz = data.manifest["n"], data.manifest["m"]
        csr_ms = (8 * (n + 1) + 8 * nnz) / floors["copy_gbps"] / 1e6
        gather_ms = n / floors["gather_gelems"] / 1e6
        print(f"{label:<20} {params or ''} n={n} m={nnz}  bfs.best {statistics.mean(per_root):.3f} ms per root (mean of {roots}; "
              f"{min(per_root):.3f}-{max(per_root):.3f})"
              f"{'' if target is None else f' target {target}'}  levels {statistics.median(levels_)}  "
              f"bottom-up {statistics.median(st['bottom_up_levels'] for st in stats)}  "
              f"launches {statistics.median(launches)}  {per_level_us:.2f} us per level  "
              f"floors: CSR pass {csr_ms:.3f} ms, gather/vertex {gather_ms:.3f} ms  "
              f"{'' if res.verified else 'NOT VERIFIED'}")
        phases = {}
        for r in res.rows:
            if r["phase"] != "total":
                phases[r["phase"]] = phases.get(r["phase"], 0.0) + r["ms"] / (reps * roots)
        print("    phases ms per root:", {k: round(v, 4) for k, v in phases.items()})
        steps = {}
        for r in res.step_rows:             # the last rep's levels: the device's per-level times
            steps[r["phase"]] = steps.get(r["phase"], 0.0) + r["ms"] / roots
        print("    steps ms per root:", {k: round(v, 4) for k, v in steps.items()})
        del data, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", help="the results folder of sweeps/bfs-best.yaml")
    ap.add_argument("--grid", action="store_true", help="run the 4096^2 grid in process (GPU)")
    ap.add_argument("--levels", action="store_true", help="floors and bfs.best on the per-root and per-level "
                                                         "targets' graphs, in process (GPU)")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a parameter of bfs.best for --levels (repeatable)")
    args = ap.parse_args()
    if args.results:
        table(args.results)
    if args.grid:
        grid()
    if args.levels:
        levels(dict(item.split("=", 1) for item in args.param))
    if not (args.results or args.grid or args.levels):
        ap.error("give a results folder, --grid or --levels")


if __name__ == "__main__":
    main()
