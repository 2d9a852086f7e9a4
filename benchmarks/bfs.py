"""bfs.best's ratio table, from the results of the shipped sweep ``sweeps/bfs-best.yaml``.

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

``--measure OUT.json`` measures instead, in one process and in a few minutes (the sweep takes an
hour): the issue's graphs generated in memory on the GPU (R-MAT 24 and 22, edge factor 16, and
the uniform graphs of 2^24 vertices, degree 16 and 6, with ``--roots`` seeded roots each; the 4096^2 grid
keeping 0.8 with ``--grid-roots``), bfs.best on each with each parameter set of ``--runs`` (JSON;
default: its defaults), every root verified.  Per graph: the mean over the roots of each root's median
time (the time behind the harmonic mean of GTEPS), µs per level, the phases and the per-level
step time by direction.  Run it under each checkout on one device to compare a change with what
it replaces (``PYTHONPATH`` naming the other tree's package).
"""

import argparse
import json
import statistics

from graphsweep.pipeline.ratios import mark_best, print_groups, totals

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


# graph -> (generator, params, roots option); seed 1, as sweeps/bfs-best.yaml
MEASURED = {"rmat24": ("rmat", {"scale": 24, "edge_factor": 16}, "roots"),
            "grid": ("grid", {"rows": 4096, "cols": 4096, "keep": 0.8}, "grid_roots"),
            "uniform24": ("uniform", {"n": 1 << 24, "degree": 16}, "roots"),
            "rmat22": ("rmat", {"scale": 22, "edge_factor": 16}, "roots"),
            "uniform24d6": ("uniform", {"n": 1 << 24, "degree": 6}, "roots")}
ROOTS_SEED = 24301


def measure(out: str, graphs: list[str], runs: list[dict], roots: int, grid_roots: int, reps: int) -> None:
    """bfs.best on the issue's graphs generated in memory (see the module doc); rows to ``out``."""
    import inspect
    from graphsweep.generators import memory
    from graphsweep.kernels import harness, registry
    print("bfs.best:", inspect.getsourcefile(registry.get("bfs.best").gpu), flush=True)
    rows = []
    for graph in graphs:
        generator, params, count = MEASURED[graph]
        data = memory.generate(generator, seed=1, params=params, backend="gpu")
        for run_params in runs:
            res = harness.run("bfs.best", data, backend="gpu", reps=reps, warmup=1, keep_output=False,
                              instances=grid_roots if count == "grid_roots" else roots, instance_seed=ROOTS_SEED,
                              **run_params)
            per_root, phases = [], {}
            for i in range(len(res.instances)):
                mine = [r for r in res.rows if r["instance"] == i]
                per_root.append(statistics.median(r["ms"] for r in mine if r["phase"] == "total"))
                for phase in {r["phase"] for r in mine} - {"total"}:
                    phases.setdefault(phase, []).append(statistics.median(r["ms"] for r in mine if r["phase"] == phase))
            levels = [s["levels"] for s in res.instance_stats]
            steps = {}
            for r in res.step_rows:
                steps[r["phase"]] = steps.get(r["phase"], 0.0) + r["ms"] / len(res.instances)
            row = {"graph": graph, "params": run_params, "device": res.device, "n": res.dataset["n"],
                   "m": res.dataset["m"], "roots": len(res.instances), "ms_per_root": statistics.fmean(per_root),
                   "median_ms": statistics.median(per_root), "min_ms": min(per_root), "max_ms": max(per_root),
                   "us_per_level": 1e3 * statistics.fmean(t / lv for t, lv in zip(per_root, levels)),
                   "levels": statistics.fmean(levels),
                   "bottom_up_levels": statistics.fmean(s["bottom_up_levels"] for s in res.instance_stats),
                   "phases_ms": {k: statistics.fmean(v) for k, v in sorted(phases.items())},
                   "steps_ms": steps, "verified": res.verified, "verify_error": res.verify_error}
            rows.append(row)
            print(f"{graph:<10} {str(run_params):<18} {row['ms_per_root']:8.3f} ms per root (mean of {row['roots']}; "
                  f"median {row['median_ms']:.3f}, {row['min_ms']:.3f}-{row['max_ms']:.3f})  "
                  f"{row['us_per_level']:.2f} us per level ({row['levels']:.0f} levels, bottom-up "
                  f"{row['bottom_up_levels']:.1f})  phases {({k: round(v, 4) for k, v in row['phases_ms'].items()})}  "
                  f"steps {({k: round(v, 4) for k, v in steps.items()})}"
                  f"{'' if res.verified else '  VERIFY FAILED: ' + str(res.verify_error)}  [{res.device}]", flush=True)
        del data
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", help="the results folder of sweeps/bfs-best.yaml")
    ap.add_argument("--levels", action="store_true", help="also bfs.best's levels, launches and time per level "
                                                         "beside its floors, per graph")
    ap.add_argument("--measure", metavar="OUT.json", help="measure bfs.best on the issue's graphs in memory instead")
    ap.add_argument("--graphs", nargs="+", default=list(MEASURED), choices=list(MEASURED))
    ap.add_argument("--runs", type=json.loads, default=[{}], help="bfs.best's parameter sets, a JSON list (--measure)")
    ap.add_argument("--roots", type=int, default=16, help="roots of the R-MAT and uniform graphs (--measure)")
    ap.add_argument("--grid-roots", type=int, default=4, help="roots of the grid (--measure)")
    ap.add_argument("--reps", type=int, default=3, help="timed runs of each root (--measure)")
    args = ap.parse_args()
    if args.measure:
        measure(args.measure, args.graphs, args.runs, args.roots, args.grid_roots, args.reps)
        return
    if not args.results:
        ap.error("give the results folder, or --measure OUT.json")
    table(args.results)
    if args.levels:
        print()
        levels(args.results)


if __name__ == "__main__":
    main()
