"""The defaults sssp.best and tc.best choose from a graph's statistics, against every value of an
axis swept beside them on the same graph, from the results of the shipped sweep
``sweeps/best-rules.yaml`` (issue #21: a user who picks ``*.best`` gets the fastest parameters the
project has on their graph).

    graphsweep run sweeps/best-rules.yaml                 # on a GPU machine
    python3 benchmarks/best_rules.py results/best-rules

- SSSP: sssp.near-far's bucket width delta (``kernels/sssp/near_far.py``'s ``delta_rule``);
- TC: tc.search's lanes per oriented edge (``kernels/tc/search.py``'s ``lanes_rule``).

Per graph: the value the rule chose (the run's statistic), the default's median ms (SSSP: a
root), the fastest value of the axis and its ms, the default over it (``x best``: 1.00 is the
best; the acceptance bound is 1.10), then every value's ms.
"""

import argparse

import pandas as pd

from graphsweep.pipeline.ratios import totals, run_printer

AXES = {"sssp.near-far": "delta", "tc.search": "lanes"}
BOUND = 1.10


def table(total: pd.DataFrame, kernel: str, axis: str) -> None:
    rows = total[total["kernel"] == kernel]
    column = f"param_{axis}"
    if rows.empty or column not in rows:
        return
    print(f"--- {kernel}: the rule's {axis} against the axis")
    print(f"{'graph':<62} {'rule':>6} {'ms':>9} {'best':>6} {'ms':>9} {'x best':>7}   axis (ms)")
    for dataset, mine in rows.groupby("dataset", sort=False):
        default = mine[mine[column].isna()]
        swept = mine[mine[column].notna()].sort_values(column)
        if default.empty or swept.empty:
            continue
        rule = default.iloc[0]
        best = swept.loc[swept["median_ms"].idxmin()]
        ratio = rule["median_ms"] / best["median_ms"]
        flag = "" if ratio <= BOUND else f"  over {BOUND:.2f}"
        print(f"{dataset:<62} {rule.get(f'stat_{axis}', '?'):>6} {rule['median_ms']:9.2f} {int(best[column]):>6} "
              f"{best['median_ms']:9.2f} {ratio:7.2f}   "
              + "  ".join(f"{int(r[column])}: {r['median_ms']:.2f}" for _, r in swept.iterrows()) + flag)
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/best-rules.yaml")
    args = ap.parse_args()
    total = totals(args.results)
    for kernel, axis in AXES.items():
        table(total, kernel, axis)


if __name__ == "__main__":
    run_printer(main)
