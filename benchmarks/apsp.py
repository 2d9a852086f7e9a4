"""Benchmark of the APSP family on the GPU: Floyd-Warshall (Harish's Alg. 6), blocked Floyd-Warshall
and repeated SSSP (Alg. 7), and where they cross.

Graphs are made on the GPU (benchmarks/gpu_graphs.py): Harish's uniform graphs of average degree 6
and weights 1-10 with 1K ... 32K vertices (Fig. 6), then a density sweep at one size (degree 6 ...
2048) for the crossover between repeated SSSP (work ~ n m) and Floyd-Warshall (n^3 whatever the
edges).  Naive Floyd-Warshall runs only up to --naive-max vertices (16K: ~10 s, one launch per k
streaming the whole matrix).  Printed per run: the time, G pairs/s, the min-plus rate of the
Floyd-Warshall variants against the int32 DPX peak (64 add-min per SM per clock), each phase's
GB/s against the copy ceiling measured in this run; then the crossover table (repeated SSSP time /
blocked time per size and degree).  Runs are verified by the shared verifier where the triangle
check is cheap (n m <= 4e9); elsewhere the blocked and repeated matrices are compared with each
other.  Every phase row goes to ``--out DIR`` (apsp.csv, apsp.json).

    python3 benchmarks/apsp.py [--quick] --out $OUT/apsp
"""

import argparse
import csv
import json
import statistics
import sys
import time
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import gpu_graphs  # noqa: E402

from graphsweep.kernels import harness  # noqa: E402
from graphsweep.kernels.ceilings import measure  # noqa: E402
from graphsweep.kernels.cuda import sm_count  # noqa: E402

SEED = 0x5EED
NAMES = {"naive": "apsp.floyd-warshall", "blocked": "apsp.blocked-floyd-warshall", "repeated": "apsp.repeated-sssp"}
VERIFY_WORK = 4e9           # n x 2m: the triangle check's entries; beyond it, cross-check instead


def peak_minplus() -> float:
    """int32 add-min steps per second: 64 lanes per SM per clock (Hopper's INT32 / DPX rate)."""
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    return 64 * sm_count() * props["clockRate"] * 1e3


def graph(n: int, degree: float):
    return gpu_graphs.uniform(n, max(1, int(n * degree / 2)), seed=SEED, weights=(1, 10))


def run(variant, data, degree, ceiling, rows, reps, keep=False) -> dict:
    n = data.n
    verify = n * 2 * data.m <= VERIFY_WORK
    res = harness.run(NAMES[variant], data, backend="gpu", reps=reps, warmup=0, verify=verify, keep_output=keep)
    totals = [r["ms"] for r in res.rows if r["phase"] == "total"]
    ms = statistics.median(totals)
    phases = {}
    for r in res.rows:
        phases.setdefault(r["phase"], []).append(r)
    text = []
    for phase, prs in phases.items():
        if phase == "total":
            continue
        pms = statistics.median(r["ms"] for r in prs)
        gbps = (prs[0]["bytes_read"] + prs[0]["bytes_written"]) / (pms / 1e3) / 1e9 if pms else 0.0
        text.append(f"{phase} {pms:.1f}ms {gbps:.0f}GB/s ({100 * gbps / ceiling['copy_gbps']:.0f}%)")
    for r in res.rows:
        rows.append({"variant": variant, "kernel": res.kernel, "n": n, "m": data.m, "degree": degree, **r,
                     "verified": res.verified, "device": res.device})
    ops = res.stats.get("minplus_ops")
    return {"variant": variant, "ms": ms, "gpairs": n * n / (ms / 1e3) / 1e9,
            "tminplus": ops / (ms / 1e3) / 1e12 if ops else None, "phases": " | ".join(text),
            "verified": res.verified, "error": res.verify_error, "stats": res.stats,
            "dist": res.output["dist"] if keep else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="directory for apsp.csv and apsp.json")
    ap.add_argument("--quick", action="store_true", help="1K-8K and a short density sweep (round 1)")
    ap.add_argument("--naive-max", type=int, default=None, help="largest n for naive Floyd-Warshall")
    ap.add_argument("--max-log", type=int, default=None, help="largest n = 2^K of the size series (13 quick, 15)")
    args = ap.parse_args()
    sizes = [1 << k for k in range(10, (args.max_log or (13 if args.quick else 15)) + 1)]
    naive_max = args.naive_max or (4096 if args.quick else 16384)
    sweep_n = 4096 if args.quick else 8192
    degrees = [6, 64, 512] if args.quick else [6, 32, 128, 512, 2048]
    ceiling = measure("gpu")
    peak = peak_minplus()
    print(f"device {ceiling['device']}: copy {ceiling['copy_gbps']:.0f} GB/s; int32 add-min peak "
          f"{peak / 1e12:.1f} T/s", flush=True)
    for variant in NAMES:                       # compile every kernel once, outside the timings
        harness.run(NAMES[variant], graph(256, 6), backend="gpu", reps=1, warmup=0, verify=False, keep_output=False)
    print(f"{'n':>6} {'degree':>6} {'variant':<9} {'ms':>10} {'Gpairs/s':>9} {'Tminplus/s':>10} {'%peak':>6}  phases",
          flush=True)
    rows, table = [], {}
    plan = [(n, 6) for n in sizes] + [(sweep_n, d) for d in degrees if d != 6 or sweep_n not in sizes]
    for n, degree in plan:
        t0 = time.perf_counter()
        data = graph(n, degree)
        results = {}
        for variant in ("blocked", "repeated", "naive"):
            if variant == "naive" and n > naive_max:
                continue
            reps = 1 if n >= 8192 else 3
            cross = n * 2 * data.m > VERIFY_WORK and variant != "naive"
            try:
                r = run(variant, data, degree, ceiling, rows, reps, keep=cross)
            except cupy.cuda.memory.OutOfMemoryError as exc:
                print(f"{n:>6} {degree:>6} {variant:<9} skipped: out of memory ({exc})", flush=True)
                continue
            results[variant] = r
            rate = f"{r['tminplus']:>10.2f} {100 * r['tminplus'] * 1e12 / peak:>5.0f}%" if r["tminplus"] else " " * 17
            flag = "" if r["verified"] in (True, None) else f"  VERIFY FAILED: {r['error']}"
            if r["verified"] is None:
                flag = "  (not verified: cross-checked below)"
            print(f"{n:>6} {degree:>6} {variant:<9} {r['ms']:>10.2f} {r['gpairs']:>9.2f} {rate}  {r['phases']}{flag}",
                  flush=True)
        if results.get("blocked", {}).get("dist") is not None and results.get("repeated", {}).get("dist") is not None:
            same = np.array_equal(results["blocked"]["dist"], results["repeated"]["dist"])
            print(f"{'':>6} blocked and repeated matrices {'agree' if same else 'DIFFER'}", flush=True)
            for r in results.values():
                r["dist"] = None
        table[(n, degree)] = {v: r["ms"] for v, r in results.items()}
        del data
        cupy.get_default_memory_pool().free_all_blocks()
        print(f"{'':>6} [{time.perf_counter() - t0:.1f}s]", flush=True)

    print("\nCrossover (ms; repeated / blocked < 1: repeated SSSP wins)", flush=True)
    print(f"{'n':>6} {'degree':>6} {'naive':>10} {'blocked':>10} {'repeated':>10} {'rep/blk':>8} {'naive/blk':>9}")
    for (n, degree), t in table.items():
        naive = f"{t['naive']:>10.1f}" if "naive" in t else f"{'-':>10}"
        nb = f"{t['naive'] / t['blocked']:>9.1f}" if "naive" in t and "blocked" in t else f"{'-':>9}"
        rb = f"{t['repeated'] / t['blocked']:>8.2f}" if "repeated" in t and "blocked" in t else f"{'-':>8}"
        print(f"{n:>6} {degree:>6} {naive} {t.get('blocked', float('nan')):>10.1f} "
              f"{t.get('repeated', float('nan')):>10.1f} {rb} {nb}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    if rows:
        with open(args.out / "apsp.csv", "w", newline="") as f:
            fields = list(dict.fromkeys(k for r in rows for k in r))
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    (args.out / "apsp.json").write_text(json.dumps(
        {"ceilings": ceiling, "peak_minplus": peak,
         "table": [{"n": n, "degree": d, **t} for (n, d), t in table.items()]}, indent=1, default=str))


if __name__ == "__main__":
    main()
