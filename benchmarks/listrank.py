"""listrank.best's ratio table, from the results of the shipped list-ranking sweeps.

    graphsweep run sweeps/listrank-time-vs-n.yaml   # on a GPU machine (and, for the variants,
    graphsweep run sweeps/listrank-splitters.yaml   # listrank-random-splitter and -threads-blocks)
    python3 benchmarks/listrank.py results/listrank-time-vs-n [results/listrank-splitters ...]

Per list, each kernel variant's median time, G nodes/s and time over listrank.best's, and its
time over the chase floor: n dependent steps at the chase rate measured in the same run (the
ceiling on every row), the least a walk of the list can take.
"""

import argparse

from ratios import print_groups, totals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results folders of the listrank-*.yaml sweeps")
    total = totals(*ap.parse_args().results)
    total = total[total["generator"] == "list"].sort_values("n")        # random lists (ordered ones: scan)

    def over_floor(row) -> str:
        floor_ms = row["n"] / (row["ceiling_chase_gsteps"] * 1e9) * 1e3
        return f" {row['median_ms'] / floor_ms:6.2f}x chase floor"

    print_groups(total, "listrank.best", "dataset", extra=over_floor)


if __name__ == "__main__":
    main()
