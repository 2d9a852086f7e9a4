"""The APSP family's ratio table, from the results of the shipped sweep ``sweeps/apsp.yaml``:
Floyd-Warshall (Harish's Alg. 6), blocked Floyd-Warshall and repeated SSSP (Alg. 7), and where
they cross.

    graphsweep run sweeps/apsp.yaml                 # on a GPU machine
    python3 benchmarks/apsp.py results/apsp         # or docs/results/apsp, the published run

Per graph, each kernel's median time, G pairs/s and time over blocked Floyd-Warshall's (APSP has
no ``*.best``: which design wins depends on the density), the Floyd-Warshall kernels' min-plus
rate against the int32 add-min peak (64 per SM per clock on Hopper, from the SM count and clock
the worker stamped on its rows; rows from before the clock was stamped go without), then the
crossover: repeated SSSP's time over blocked Floyd-Warshall's per size and degree (below 1,
repeated SSSP wins).
"""

import argparse
import math

from graphsweep.pipeline.ratios import print_groups, totals, run_printer

REFERENCE = "apsp.blocked-floyd-warshall"
LANES_PER_SM = 64              # int32 add-min (DPX) per SM per clock


def minplus_peak(row) -> float:
    """Add-min steps per second of the device that ran ``row`` (NaN without its stamped clock)."""
    return LANES_PER_SM * row["ceiling_sm_count"] * row.get("ceiling_clock_khz", math.nan) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/apsp.yaml")
    total = totals(ap.parse_args().results).sort_values(["n", "data_degree"])

    def rate(row) -> str:
        ops = row.get("stat_minplus_ops", math.nan)
        if not ops > 0:
            return ""
        tops = ops / (row["median_ms"] / 1e3)
        share = f" = {100 * tops / minplus_peak(row):.0f}% of the add-min peak" if minplus_peak(row) > 0 else ""
        return f"  {tops / 1e12:6.2f} T min-plus/s{share}"

    print_groups(total, REFERENCE, "dataset", extra=rate)
    print("\ncrossover (ms; repeated/blocked < 1: repeated SSSP wins)")
    print(f"{'n':>6} {'degree':>6} {'naive':>10} {'blocked':>10} {'repeated':>10} {'rep/blk':>8} {'naive/blk':>9}")
    short = {"apsp.floyd-warshall": "naive", REFERENCE: "blocked", "apsp.repeated-sssp": "repeated"}
    for (n, degree), rows in total.groupby(["n", "data_degree"], sort=False):
        ms = {short[k]: float(r["median_ms"]) for k, r in rows.set_index("kernel").iterrows() if k in short}
        cell = lambda key: f"{ms[key]:10.1f}" if key in ms else f"{'-':>10}"  # noqa: E731
        over = lambda key, width: (f"{ms[key] / ms['blocked']:{width}.2f}" if key in ms and "blocked" in ms  # noqa: E731
                                   else f"{'-':>{width}}")
        print(f"{n:>6} {degree:>6g} {cell('naive')} {cell('blocked')} {cell('repeated')} {over('repeated', 8)} "
              f"{over('naive', 9)}")


if __name__ == "__main__":
    run_printer(main)
