"""sssp.best on the road-like grid against hand-tuned near-far and sssp.strips' own axes, from the
results of the shipped sweep ``sweeps/sssp-road.yaml`` (issue #21's target: at most 30 ms a root
on the 4096^2 grid; issue #32's: the same with its ids shuffled).

    graphsweep run sweeps/sssp-road.yaml                  # on a GPU machine
    python3 benchmarks/sssp_road.py results/sssp-road

Per graph, fastest first: each variant's median ms a root, the kernel sssp.best chose and whether
it renamed the graph (its statistics), the time against the 30 ms target (grids only), and the
fastest hand-tuned ``sssp.near-far`` of the same graph over it (above 1: faster than tuned).
Then, for the runs of sssp.strips on the GPU (its step rows: one a bucket), where the buckets'
time goes: the busiest block's steps summed over a root's buckets, at the run's mean step, against
the buckets' time (docs/results.md §24: a bucket is its busiest block stepping, ~1.3 of it).
"""

import argparse

import pandas as pd

from graphsweep.pipeline import reduce
from graphsweep.pipeline.ratios import totals, run_printer

TARGET_MS = 30.0


def bucket_chains(rows: pd.DataFrame, total: pd.DataFrame) -> pd.DataFrame:
    """``total``'s rows of the runs whose step rows carry ``step_steps`` (sssp.strips on the GPU),
    with ``buckets``, ``bucket_ms`` (the buckets' time) and ``busiest`` (the most steps a block took
    in a bucket, summed over the buckets), each the median over the task's roots and runs, and
    ``chain_ms``: that many steps at the run's mean step (``stat_us_per_step``), ``share`` of
    ``bucket_ms``."""
    if "step_steps" not in rows or "stat_us_per_step" not in total:
        return total.iloc[:0]
    steps = rows[rows["step"].notna() & rows["step_steps"].notna()]
    per = steps.groupby(["task", "instance", "rep"]).agg(buckets=("step", "size"), bucket_ms=("ms", "sum"),
                                                         busiest=("step_steps", "sum"))
    chains = total.join(per.groupby("task").median(), on="task", how="inner")
    chains["chain_ms"] = chains["busiest"] * chains["stat_us_per_step"] / 1e3
    return chains.assign(share=chains["chain_ms"] / chains["bucket_ms"])


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
    chains = bucket_chains(reduce.rows_of(args.results), total)
    if len(chains):
        print("Where the buckets' time goes (sssp.strips on the GPU): the busiest block's steps, summed over a "
              "root's buckets, at the run's mean step")
        for _, r in chains.iterrows():
            print(f"{r['dataset']:<58} {r['variant']:<34} {r['buckets']:5.0f} buckets {r['busiest']:8.0f} steps x "
                  f"{r['stat_us_per_step']:.2f} us = {r['chain_ms']:6.2f} ms of {r['bucket_ms']:6.2f} ({r['share']:.0%})")


if __name__ == "__main__":
    run_printer(main)
