"""cc.best's ratio table, from the results of the shipped sweep ``sweeps/cc-best.yaml``.

    graphsweep run sweeps/cc-best.yaml              # on a GPU machine
    python3 benchmarks/components.py results/cc-best

Per graph, each kernel variant's median time (the total phase; the CSR build is timed apart) and
G edges/s as reduce computed them from the rows, its time over cc.best's, and cc.best against the
CC issue's targets and ECL-CC's time on an H200 (quoted from the issue, not re-measured).
"""

import argparse
import json

from graphsweep.kernels import registry
from graphsweep.pipeline import reduce
from graphsweep.pipeline.figures import variants

BEST = "cc.sampled-union-find"
# dataset id -> (ECL-CC on an H200, kernel only, ms; the target for cc.best, ms)
TARGETS = {"list-graph_n=33554432_count=1_seed=1": (4.17, 3.5),
           "recursive-tree_n=33554432_seed=1": (4.79, 4.0),
           "uniform_n=10000000_degree=6_seed=1": (1.74, 1.45),
           "uniform_n=2000000_degree=40_seed=1": (1.80, 1.5),
           "rmat_scale=24_edge_factor=16_seed=1": (None, 2.0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/cc-best.yaml")
    args = ap.parse_args()
    summary = reduce.summarize(reduce.rows_of(args.results))
    total = summary[(summary["stage"] == "kernel") & (summary["phase"] == "total")]
    total = total.assign(variant=variants(total))          # kernel + the parameters that vary
    defaults = registry.get(BEST).resolve_params({})
    is_best = (total["kernel"] == BEST) & (total["params"].map(json.loads) == defaults)
    for dataset, rows in total.groupby("dataset", sort=False):
        best = rows[is_best.loc[rows.index]]["median_ms"]
        best_ms = float(best.iloc[0]) if len(best) else float("nan")
        print(f"{dataset}  (m = {int(rows['m'].iloc[0]):,})")
        for _, r in rows.sort_values("median_ms").iterrows():
            flag = "" if r["verified"] else "  NOT VERIFIED"
            print(f"  {r['variant']:<48} {r['median_ms']:9.3f} ms {r['gelems_per_s']:7.2f} G edges/s "
                  f"{r['median_ms'] / best_ms:6.2f}x cc.best{flag}")
        ecl, target = TARGETS.get(dataset, (None, None))
        if target is not None:
            verdict = "met" if best_ms <= target else "MISSED"
            versus = f"; ECL-CC {ecl} ms = {ecl / best_ms:.2f}x cc.best" if ecl else ""
            print(f"  cc.best {best_ms:.3f} ms: target {target} ms {verdict}{versus}")


if __name__ == "__main__":
    main()
