"""cc.best's ratio table, from the results of the shipped sweep ``sweeps/cc-best.yaml``.

    graphsweep run sweeps/cc-best.yaml              # on a GPU machine
    python3 benchmarks/components.py results/cc-best

Per graph, each kernel variant's median time (the total phase; the CSR build is timed apart), G
edges/s and time over cc.best's, then cc.best against the CC issue's targets and ECL-CC's time on
an H200 (quoted from the issue, not re-measured).
"""

import argparse

from graphsweep.pipeline.ratios import print_groups, totals, run_printer

# dataset id -> (ECL-CC on an H200, kernel only, ms; the target for cc.best, ms)
TARGETS = {"list-graph_n=33554432_count=1_seed=1": (4.17, 3.5),
           "recursive-tree_n=33554432_seed=1": (4.79, 4.0),
           "uniform_n=10000000_degree=6_seed=1": (1.74, 1.45),
           "uniform_n=2000000_degree=40_seed=1": (1.80, 1.5),
           "rmat_scale=24_edge_factor=16_seed=1": (None, 2.0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/cc-best.yaml")
    total = totals(ap.parse_args().results)
    best = print_groups(total[total["kernel"].str.startswith("cc.")], "cc.best", "dataset")
    print()
    for dataset, (ecl, target) in TARGETS.items():
        if dataset in best:
            ms = best[dataset]
            versus = f"; ECL-CC {ecl} ms = {ecl / ms:.2f}x cc.best" if ecl else ""
            verdict = "met" if ms <= target else "MISSED"
            print(f"{dataset:<40} cc.best {ms:.3f} ms: target {target} ms {verdict}{versus}")


if __name__ == "__main__":
    run_printer(main)
