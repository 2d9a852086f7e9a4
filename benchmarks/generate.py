"""Generation throughput of every dataset kind — rows/s and MB/s of Parquet written — from the
generation rows of the shipped sweep ``sweeps/generate.yaml`` (or any sweep that generated its
datasets: each run records what it made in RESULTS/generation/RUN_ID.parquet).

    graphsweep run sweeps/generate.yaml                 # every kind at its default size
    python3 benchmarks/generate.py results/generate

A row per dataset a run generated: its rows (list nodes or graph edges), parts, seconds of the
parallel generation (a task per part on the sweep's workers, written to disk), Mrows/s and MB/s.
To compare worker counts or backends, run the sweep again on another cluster (``--cluster``) or
with ``backend: gpu``, each with a results folder and a ``data:`` folder of its own (a dataset made
already is not made again, and records no row), and give every results folder here.
"""

import argparse
from pathlib import Path

from graphsweep.core.errors import GraphsweepError
from graphsweep.pipeline import store
from graphsweep.pipeline.ratios import run_printer

COLUMNS = ("kind", "dataset", "workers", "backend", "rows", "parts", "seconds", "Mrows/s", "MB/s")


def rows_of(results) -> list[dict]:
    """The table's rows: each generation row of each folder in ``results``."""
    out = []
    for folder in results:
        if not Path(folder).is_dir():
            raise GraphsweepError(f"{folder}: no such results folder")
        for r in store.generation(folder):
            params = r["dataset"].removeprefix(f"{r['generator']}_")     # the parameters the spec gave, and the seed
            out.append({"kind": r["generator"], "dataset": params, "workers": r["workers"], "backend": r["backend"],
                        "rows": f"{r['rows']:,}", "parts": r["parts"], "seconds": f"{r['seconds']:.2f}",
                        "Mrows/s": f"{r['rows'] / r['seconds'] / 1e6:.3g}",
                        "MB/s": f"{r['bytes'] / r['seconds'] / 1e6:.3g}"})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", type=Path, help="results folders of sweeps that generated datasets")
    args = ap.parse_args(argv)
    rows = rows_of(args.results)
    if not rows:
        print(f"no generation recorded in {', '.join(map(str, args.results))}: every dataset existed already "
              "(give the sweep a fresh data: folder)")
        return
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in COLUMNS]
    print("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)))
    for r in rows:
        print("  ".join(str(r[c]).ljust(w) for c, w in zip(COLUMNS, widths)))


if __name__ == "__main__":
    run_printer(main)
