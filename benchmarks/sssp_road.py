"""sssp.best on the road-like grid against hand-tuned near-far and sssp.strips' own axes, from the
results of the shipped sweep ``sweeps/sssp-road.yaml`` (issue #21's target: at most 30 ms a root
on the 4096^2 grid; issue #32's: the same with its ids shuffled).

    graphsweep run sweeps/sssp-road.yaml                  # on a GPU machine
    python3 benchmarks/sssp_road.py results/sssp-road

Per graph, fastest first: each variant's median ms a root, the kernel sssp.best chose and whether
it renamed the graph (its statistics), the time against the 30 ms target (grids only), and the
fastest hand-tuned ``sssp.near-far`` of the same graph over it (above 1: faster than tuned).
"""

import argparse

from graphsweep.pipeline.ratios import totals, run_printer

TARGET_MS = 30.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/sssp-road.yaml")
    args = ap.parse_args()
    total = totals(args.results)
    total = total[total["kernel"].str.startswith("sssp.")]
    print(f"{'graph':<58} {'variant':<34} {'ms/root':>9} {'vs 30 ms':>9} {'tuned/it':>9}  chose")
    for dataset, rows in total.groupby("dataset", sort=False):
        grid = rows["generator"].iloc[0] == "grid"
        tuned = rows[rows["kernel"] == "sssp.near-far"]["median_ms"].min()
        for _, r in rows.sort_values("median_ms").iterrows():
            target = f"{r['median_ms'] / TARGET_MS:8.2f}x" if grid else f"{'-':>9}"
            chose = r.get("stat_chose") if isinstance(r.get("stat_chose"), str) else ""
            renamed = " renamed by BFS" if r.get("stat_renamed") is True else ""
            flag = "" if r["verified"] else "  NOT VERIFIED"
            print(f"{dataset:<58} {r['variant']:<34} {r['median_ms']:9.2f} {target} {tuned / r['median_ms']:8.2f}x"
                  f"  {chose}{renamed}{flag}")
        print()


if __name__ == "__main__":
    run_printer(main)
