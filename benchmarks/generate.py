"""Generation throughput of every dataset kind: rows/s and MB/s of Parquet written.

    python benchmarks/generate.py                       # every kind at its default size
    python benchmarks/generate.py --kinds list rmat --list-n 16M --rmat-scale 22 --workers 0 2
    python benchmarks/generate.py --kinds list ordered-list list-graph --backend gpu --list-n 1G

Each row of the table is one (kind, size, workers, backend) run into a temporary directory
(removed afterwards, or kept under --dir); the table is printed from the same rows it saves
with --csv, so they cannot drift.

It is no sweep: a sweep times kernels, and its generation stage records no rows (a generation
task returns the dataset's path or its error; a ``store: memory`` dataset's generation is folded
into the load time of the first task that needs it), and it generates each dataset once, on the
sweep's own cluster, where this compares worker counts and backends on the same kind and size.
"""

import argparse
import csv
import shutil
import sys
import tempfile
import time
from pathlib import Path

from distributed import Client, LocalCluster

from graphsweep.datasets import read_manifest
from graphsweep.generators import GENERATORS, generate
from graphsweep.pipeline.cli_data import parse_rows


def sizes(args) -> dict:
    """Parameters of each kind at the requested sizes."""
    return {
        "list": {"n": args.list_n}, "ordered-list": {"n": args.list_n},
        "list-graph": {"n": args.list_n, "count": 16}, "tree": {"n": args.graph_n, "k": 3},
        "density": {"m": args.graph_n * 3, "density": 0.001}, "uniform": {"n": args.graph_n},
        "scale-free": {"n": args.graph_n}, "rmat": {"scale": args.rmat_scale},
    }


def run_one(kind, params, workers, args, root) -> dict:
    out = root / f"{kind}-{workers}"
    cluster = client = None
    if workers:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        start = time.perf_counter()
        generate(kind, out, seed=1, params=params, part_rows=args.part_rows, client=client,
                 backend=args.backend, overwrite=True, progress=False)
        seconds = time.perf_counter() - start
    finally:
        if client is not None:
            client.close()
            cluster.close()
    manifest = read_manifest(out)
    rows = manifest["n"] if manifest["kind"] == "list" else manifest["m"]
    size = sum((out / p["path"]).stat().st_size for p in manifest["parts"])
    if not args.dir:
        shutil.rmtree(out)
    return {"kind": kind, "params": " ".join(f"{k}={v}" for k, v in params.items()), "workers": workers,
            "backend": args.backend, "rows": rows, "seconds": round(seconds, 3),
            "Mrows_per_s": round(rows / seconds / 1e6, 2), "MB_per_s": round(size / seconds / 1e6, 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", nargs="+", default=list(GENERATORS), choices=list(GENERATORS))
    parser.add_argument("--list-n", type=lambda t: parse_rows("list_n", t), default=1 << 24)
    parser.add_argument("--graph-n", type=lambda t: parse_rows("graph_n", t), default=1 << 22)
    parser.add_argument("--rmat-scale", type=int, default=20)
    parser.add_argument("--workers", type=int, nargs="+", default=[0], help="0 = in-process threads")
    parser.add_argument("--part-rows", type=lambda t: parse_rows("part_rows", t), default=1 << 20)
    parser.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--dir", type=Path, help="write the datasets here and keep them")
    parser.add_argument("--csv", type=Path, help="also save the rows as CSV (never overwritten)")
    args = parser.parse_args(argv)
    root = args.dir or Path(tempfile.mkdtemp(prefix="graphsweep-bench-"))
    rows = []
    try:
        for kind in args.kinds:
            if args.backend == "gpu" and not GENERATORS[kind].gpu:
                continue
            for workers in args.workers:
                rows.append(run_one(kind, sizes(args)[kind], workers, args, root))
                print(" ".join(f"{k}={v}" for k, v in rows[-1].items()), file=sys.stderr, flush=True)
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    header = list(rows[0]) if rows else []
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in header]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(str(r[h]).ljust(w) for h, w in zip(header, widths)))
    if args.csv:
        with open(args.csv, "x", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=header)
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
