"""Benchmark of the list-ranking family on the GPU, in one run.

Measures the device's ceilings, then every GPU algorithm on random lists of 2^20 ... 2^30 nodes
(2^31 - 1 where memory allows), ordered lists, the 48/64-bit and random/even variants, and a
few thread/block sweeps (002 Figs 5.3-5.4).  Random lists come from graphsweep's own ``list``
generator run on the GPU (its Feistel permutation, element by element), so no sort and no host
copy is needed.  Prints one line per run (median time,
time per node, ratio to the chase floor = n steps at the measured chase rate, per-phase GB/s)
and writes every phase row as CSV (``--out``) with a JSON twin beside it (rows + ceilings).

    python3 benchmarks/listrank.py --out $OUT/listrank.csv [--max-log 30] [--with-2-31]
"""

import argparse
import csv
import json
import time
from pathlib import Path

import cupy
import numpy as np

from graphsweep.datasets.params import resolve
from graphsweep.datasets.reader import Dataset
from graphsweep.generators import GENERATORS
from graphsweep.kernels import harness, registry
from graphsweep.kernels.ceilings import measure

SEED = 0x5EED
CHUNK = 1 << 26  # rows generated at a time: the Feistel arithmetic's uint64 temporaries stay small


def random_list(n: int):
    """The ``list`` generator's list (genList), made on the GPU chunk by chunk."""
    gen = GENERATORS["list"]
    plan = gen.plan(resolve("list", gen.params, {"n": n}), SEED)
    succ = cupy.empty(n, dtype=np.int32)
    for start in range(0, n, CHUNK):
        succ[start:start + CHUNK] = gen.part(plan, start, min(n, start + CHUNK), cupy)["succ"]
    return succ


def ordered_list(n: int):
    succ = cupy.arange(1, n + 1, dtype=np.int32)
    succ[-1] = n - 1
    return succ


def dataset(order: str, n: int) -> Dataset:
    succ = (random_list if order == "random" else ordered_list)(n)
    return Dataset(Path(f"gpu:{order}-{n}"), {"kind": "list", "n": n, "index_dtype": "int32",
                                              "generator": {"name": f"gpu_{order}_list", "params": {"n": n},
                                                            "seed": SEED}}, {"succ": succ})


def plan(max_log: int, with_2_31: bool):
    """(order, n, kernel, params, label) in run order, grouped by list so each list is made once."""
    best = registry.ALIASES["listrank.best"][0]
    runs = []
    sizes = [1 << k for k in range(20, max_log + 1, 2)]
    for n in sizes:
        runs.append(("random", n, "listrank.recursive-splitter", {}, "default C"))
        if best != "listrank.recursive-splitter":
            runs.append(("random", n, best, {}, "best"))
        runs.append(("random", n, "listrank.random-splitter", {"packing": 64}, "64-bit random"))
        if n <= 1 << 26:
            runs.append(("random", n, "listrank.random-splitter", {"packing": 48}, "48-bit random"))
            runs.append(("random", n, "listrank.wyllie", {}, ""))
        if n in (1 << 22, 1 << 24):
            runs.append(("random", n, "listrank.random-splitter", {"packing": 64, "splitters": "even"}, "64-bit even"))
            runs.append(("random", n, "listrank.random-splitter", {"packing": 48, "splitters": "even"}, "48-bit even"))
        if n <= 1 << 28:
            runs.append(("random", n, "listrank.helman-jaja", {"rule": "log"}, "log"))
        if n in (1 << 24, 1 << 26):
            runs.append(("random", n, "listrank.helman-jaja", {"rule": "2log2"}, "2log2"))
            runs.append(("random", n, "listrank.helman-jaja", {"rule": "mixed"}, "mixed"))
        if n == 1 << 26:
            for c in (8, 16, 64, 128):
                runs.append(("random", n, "listrank.recursive-splitter", {"sublist": c}, f"C={c}"))
            for t in (64, 128, 512, 1024):
                runs.append(("random", n, "listrank.recursive-splitter", {"threads": t}, f"threads={t}"))
            for p in (1 << 14, 1 << 18, 1 << 22):
                runs.append(("random", n, "listrank.random-splitter", {"p": p}, f"64-bit p={p}"))
        if n == 1 << 24:
            for blocks in (1, 4, 16, 66, 132, 528):
                runs.append(("random", n, "listrank.random-splitter", {"blocks": blocks}, f"64-bit blocks={blocks}"))
    for n in sizes:
        runs.append(("ordered", n, "listrank.scan", {}, ""))
        if n == 1 << 26:
            for name in ("listrank.recursive-splitter", "listrank.random-splitter", "listrank.helman-jaja",
                         "listrank.wyllie"):
                runs.append(("ordered", n, name, {}, ""))
    if with_2_31:
        n = 2**31 - 1
        runs.append(("random", n, "listrank.recursive-splitter", {}, "default C"))
        runs.append(("random", n, "listrank.random-splitter", {"packing": 64}, "64-bit random"))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="CSV of every phase row (JSON written beside it)")
    ap.add_argument("--max-log", type=int, default=30)
    ap.add_argument("--with-2-31", action="store_true", help="also rank a 2^31 - 1 node list")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()

    ceiling = measure("gpu")
    print(f"device {ceiling['device']}: copy {ceiling['copy_gbps']:.0f} GB/s, gather {ceiling['gather_gelems']:.1f} "
          f"G/s, chase {ceiling['chase_gsteps']:.2f} G steps/s", flush=True)
    rows, data, key = [], None, None
    print(f"{'kernel':<28} {'variant':<18} {'order':<8} {'n':>11} {'median ms':>10} {'ns/node':>8} "
          f"{'x floor':>8}  phases (GB/s)", flush=True)
    for order, n, name, params, label in plan(args.max_log, args.with_2_31):
        if key != (order, n):
            data = None
            cupy.get_default_memory_pool().free_all_blocks()
            data, key = dataset(order, n), (order, n)
        reps = args.reps if n <= 1 << 26 else 3
        t0 = time.perf_counter()
        try:
            result = harness.run(name, data, backend="gpu", reps=reps, warmup=1, **params)
        except (cupy.cuda.memory.OutOfMemoryError, MemoryError) as exc:
            print(f"{name:<28} {label:<18} {order:<8} {n:>11} skipped: out of memory ({exc})", flush=True)
            cupy.get_default_memory_pool().free_all_blocks()
            continue
        floor_ms = n / (ceiling["chase_gsteps"] * 1e9) * 1e3
        summary = result.summary()
        total = next(s for s in summary if s["phase"] == "total")
        phases = []
        for s in summary:
            gbps = (s["bytes_read"] + s["bytes_written"]) / (s["median_ms"] / 1e3) / 1e9 if s["median_ms"] else 0.0
            rows.append({"kernel": result.kernel, "variant": label, "order": order, "n": n,
                         "params": json.dumps(result.params), "phase": s["phase"], "reps": s["reps"],
                         "mean_ms": s["mean_ms"], "std_ms": s["std_ms"], "median_ms": s["median_ms"],
                         "min_ms": s["min_ms"], "calls": s["calls"], "bytes_read": s["bytes_read"],
                         "bytes_written": s["bytes_written"], "random_accesses": s["random_accesses"], "gbps": gbps,
                         "ns_per_node": s["median_ms"] * 1e6 / n, "floor_ms": floor_ms,
                         "x_floor": s["median_ms"] / floor_ms, "verified": result.verified,
                         "device": result.device, "stats": json.dumps(result.stats, default=str)})
            if s["phase"] != "total":
                phases.append(f"{s['phase']} {s['median_ms']:.2f}ms/{gbps:.0f}")
        flag = "" if result.verified else f"  VERIFY FAILED: {result.verify_error}"
        print(f"{result.kernel:<28} {label:<18} {order:<8} {n:>11} {total['median_ms']:>10.3f} "
              f"{total['median_ms'] * 1e6 / n:>8.3f} {total['median_ms'] / floor_ms:>8.2f}  {' | '.join(phases)}"
              f"{flag}  [{time.perf_counter() - t0:.1f}s]", flush=True)
        sub = result.stats.get("sublists")
        if sub and n in (1 << 24, 1 << 26):
            print(f"{'':<28} sub-lists: {sub}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    args.out.with_suffix(".json").write_text(json.dumps({"ceilings": ceiling, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
