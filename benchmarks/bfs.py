"""bfs.best's ratio table, from the results of the shipped sweep ``sweeps/bfs-best.yaml`` (or
``sweeps/bfs-targets.yaml``).

    graphsweep run sweeps/bfs-best.yaml             # on a GPU machine
    python3 benchmarks/bfs.py results/bfs-best

Per graph, each variant's median time per root (the total phase over every root and rep), GTEPS
(harmonic mean over roots, slowest and fastest root) and time over bfs.best's, then bfs.best
against the BFS issue's targets and peers (quoted from the issue, not re-measured): per root on
R-MAT 24 and the uniform graph, per level on the road-like 4096^2 grid.

``--levels`` adds, per graph, bfs.best's levels, bottom-up levels, launches and time per level,
its phases and per-level step times per root (the step rows of each root's last rep), beside the
floors stamped on its rows: one pass over the CSR at the copy rate and one random access per vertex
at the gather rate.  The sweep's small R-MAT and uniform graphs (256K-1M vertices) are
there for it: launches and host round trips dominate them.  To compare a change with what it
replaces, run the sweep under each checkout (``graphsweep compare`` the two results).

``sweeps/bfs-targets.yaml`` is the issue's graphs alone (R-MAT 24 and 22, the uniform graphs of
2^24 vertices, degree 16 and 6, the 4096^2 grid keeping 0.8), generated in the workers' memory,
bfs.best with 16 seeded roots: minutes where bfs-best.yaml takes an hour.  Run it under each
checkout on one device to compare a change with what it replaces, and print either folder with
``--levels``.
"""

import argparse

from graphsweep.pipeline.ratios import mark_best, print_groups, totals, run_printer

# dataset id -> (target ms per root, {peer: ms per root}), from the BFS issues (R-MAT 24: issue #21's
# 1.0 ms, on an H200; the uniform graph: the first BFS issue's 3 ms)
TARGETS = {"rmat_scale=24_edge_factor=16_seed=1": (1.0, {"GAPBS 16 cores": 38.9, "Gunrock V100": 3.83}),
           "uniform_n=16777216_degree=16_seed=1": (3.0, {"GAPBS 16 cores": 60.8})}
# the road-like grid: issue #21's target and Gunrock on road_usa (V100), microseconds per level
GRID, GRID_TARGET_US_PER_LEVEL, GUNROCK_ROAD_US_PER_LEVEL = "grid_rows=4096_cols=4096_keep=0.8_seed=1", 5.0, 119.0


def table(results: str) -> None:
    spread = lambda r: f"  roots {r['gelems_min']:.2f}-{r['gelems_max']:.2f} GTEPS"  # noqa: E731
    total = totals(results)
    total = total[total["kernel"].str.startswith("bfs.")]
    best = print_groups(total, "bfs.best", "dataset", extra=spread)
    print()
    for dataset, (target, peers) in TARGETS.items():
        if dataset in best:
            ms = best[dataset]
            versus = "; ".join(f"{peer} {peer_ms} ms = {peer_ms / ms:.1f}x" for peer, peer_ms in peers.items())
            print(f"{dataset:<40} bfs.best {ms:.3f} ms per root: target {target} ms "
                  f"{'met' if ms <= target else 'MISSED'}; {versus}")
    for _, row in total[mark_best(total, "bfs.best") & (total["dataset"] == GRID)].iterrows():
        us = 1e3 * row["median_ms"] / row["stat_levels"]     # levels: the mean over the roots
        print(f"{GRID:<40} bfs.best {us:.2f} us per level ({row['stat_levels']:.0f} levels): target "
              f"{GRID_TARGET_US_PER_LEVEL} us {'met' if us <= GRID_TARGET_US_PER_LEVEL else 'MISSED'}; "
              f"Gunrock road_usa (V100) {GUNROCK_ROAD_US_PER_LEVEL} us = {GUNROCK_ROAD_US_PER_LEVEL / us:.1f}x")


def levels(results: str) -> None:
    """bfs.best per graph: levels, launches and time per level beside its floors, from the rows."""
    from graphsweep.pipeline import reduce
    rows = reduce.rows_of(results)
    total = totals(results)
    for _, r in total[mark_best(total, "bfs.best")].sort_values("n").iterrows():
        n, nnz = r["n"], 2 * r["m"]
        csr_ms = (8 * (n + 1) + 4 * nnz) / (r["ceiling_copy_gbps"] * 1e9) * 1e3
        gather_ms = n / (r["ceiling_gather_gelems"] * 1e9) * 1e3
        print(f"{r['dataset']:<40} bfs.best {r['median_ms']:.3f} ms per root ({r['instances']} roots, "
              f"{r['gelems_min']:.1f}-{r['gelems_max']:.1f} GTEPS)  levels {r['stat_levels']:.0f}, bottom-up "
              f"{r['stat_bottom_up_levels']:.1f}, launches {r['stat_launches']:.1f}: "
              f"{1e3 * r['median_ms'] / r['stat_levels']:.2f} us per level  floors: CSR pass {csr_ms:.3f} ms, "
              f"gather per vertex {gather_ms:.3f} ms")
        task = rows[(rows["task"] == r["task"]) & (rows["stage"] == "kernel")]
        phases = task[task["step"].isna() & (task["phase"] != "total")].groupby("phase")["ms"].sum()
        steps = task[task["step"].notna()].groupby("phase")["ms"].sum()     # the last rep of each root
        runs = task[task["step"].isna() & (task["phase"] == "total")].shape[0]
        print("    phases ms per root:", {k: round(v / runs, 4) for k, v in phases.items()})
        print("    steps ms per root:", {k: round(v / r["instances"], 4) for k, v in steps.items()})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/bfs-best.yaml or sweeps/bfs-targets.yaml")
    ap.add_argument("--levels", action="store_true", help="also bfs.best's levels, launches and time per level "
                                                         "beside its floors, per graph")
    args = ap.parse_args()
    table(args.results)
    if args.levels:
        print()
        levels(args.results)


if __name__ == "__main__":
    run_printer(main)
