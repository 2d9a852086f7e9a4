"""bfs.best's ratio table, from the results of the shipped sweep ``sweeps/bfs-best.yaml``.

    graphsweep run sweeps/bfs-best.yaml             # on a GPU machine
    python3 benchmarks/bfs.py results/bfs-best
    python3 benchmarks/bfs.py --grid                # the 4096^2 grid, in process (see below)

Per graph, each variant's median time per root (the total phase over every root and rep), GTEPS
(harmonic mean over roots, slowest and fastest root) and time over bfs.best's, then bfs.best
against the BFS issue's targets and peers (quoted from the issue, not re-measured).

The grid waits for the ``grid`` generator to become a dataset of the sweep; ``--grid`` makes it
with ``gpu_graphs.grid2d`` meanwhile and prints bfs.best's time per level against the target.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", help="the results folder of sweeps/bfs-best.yaml")
    ap.add_argument("--grid", action="store_true", help="run the 4096^2 grid in process (GPU)")
    args = ap.parse_args()
    if args.results:
        table(args.results)
    if args.grid:
        grid()
    if not (args.results or args.grid):
        ap.error("give a results folder, --grid, or both")


if __name__ == "__main__":
    main()
