"""listrank.best against the chase floors, from the results of the shipped list-ranking sweeps.

    graphsweep run sweeps/listrank-time-vs-n.yaml   # on a GPU machine (and, for the variants,
    graphsweep run sweeps/listrank-splitters.yaml   # listrank-random-splitter and -threads-blocks)
    python3 benchmarks/listrank.py results/listrank-time-vs-n [results/listrank-splitters ...]

Per list, each kernel variant's median time, G nodes/s and time over listrank.best's, and its
time over the two floors measured in the same run (the ceilings on every row): n dependent steps
at the chase rate (the least a walk of the list can take), and at the rate of a chase that stores
4 bytes a step (issue #21's target for listrank.best: at most 1.1x, as a walk writes each node's
record).
"""

import argparse

from graphsweep.pipeline.ratios import print_groups, totals, run_printer


def over_floors(row) -> str:
    chase_ms = row["n"] / (row["ceiling_chase_gsteps"] * 1e9) * 1e3
    store_ms = row["n"] / (row["ceiling_chase_store4_gsteps"] * 1e9) * 1e3
    return f" {row['median_ms'] / chase_ms:6.2f}x chase floor {row['median_ms'] / store_ms:6.2f}x chase+store floor"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results folders of the list-ranking sweeps")
    args = ap.parse_args()
    total = totals(*args.results)
    total = total[total["generator"] == "list"].sort_values("n")        # random lists (ordered ones: scan)
    print_groups(total, "listrank.best", "dataset", extra=over_floors)


if __name__ == "__main__":
    run_printer(main)
