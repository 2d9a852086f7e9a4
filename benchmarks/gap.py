"""Benchmark of PageRank, betweenness and triangle counting on GAP's graphs (issue #18), on the GPU,
beside GAPBS built from source on the same host in the same run.

Graphs are made on the GPU (benchmarks/gpu_graphs.py): kron (Graph500 R-MAT, a, b, c = 0.57,
0.19, 0.19, 16 edges per vertex) and urand (uniform, 16 edges per vertex), as GAPBS's ``-g`` and
``-u`` make them, at each of ``--scales``.  Per graph: every PageRank kernel (cuSPARSE SpMV, pull,
pull-warp and its lane counts), tc.search at each lane count, bc.best from ``--roots`` seeded roots.
Printed per kernel: the median time of a run (BC: per root, and the sum over the roots = one
GAPBS trial of ``-i roots``), its memory floor (the byte model of its phases: streamed bytes at the
device copy ceiling plus random accesses at the gather ceiling, both measured in the same run;
for PageRank exactly one pass over the CSR plus one gather per edge per iteration), the ratio to
that floor, the build of the simple / oriented graph (timed apart), and the ratio to GAPBS:
measured here when ``--gapbs DIR`` holds a GAPBS checkout (built with make), else the issue's
figures for kron 24 / urand 24 on this host kind (H200's 16-core host).

    python3 benchmarks/gap.py --out $OUT/gap --scales 20,22 --gapbs peers/gapbs --gapbs-scales 20,22
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cupy

sys.path.insert(0, str(Path(__file__).parent))
import gpu_graphs  # noqa: E402  (GPU graph makers, beside this script)

from graphsweep.kernels import harness, registry  # noqa: E402
from graphsweep.kernels.ceilings import measure  # noqa: E402

SEED = 0x5EED
# GAPBS on the H200's 16-core host, measured by the issue's author (seconds per trial).
ISSUE_GAPBS = {("pr", "kron", 24): 1.36, ("pr", "urand", 24): 1.21, ("bc", "kron", 24): 3.53,
               ("bc", "urand", 24): 7.62, ("tc", "kron", 24): 47.8, ("tc", "kron", 22): 8.43,
               ("tc", "urand", 24): 6.56}
# The issue's cuSPARSE PageRank on R-MAT 24 (7 SpMVs of 5.0 ms to L1 < 1e-4): 38 ms.
ISSUE_CUSPARSE_PR_MS = 38.0
PROBLEM_OF = {"pagerank": "pr", "bc": "bc", "tc": "tc"}


def make(family: str, scale: int):
    if family == "kron":
        return gpu_graphs.rmat(scale, 16, seed=SEED)
    return gpu_graphs.uniform(1 << scale, 16 << scale, seed=SEED)


def runs(first: bool, roots: int):
    """(kernel, params, instances, variant) per graph; lane sweeps on the first scale only."""
    out = [("pagerank.spmv", {}, None, ""), ("pagerank.pull", {}, None, ""), ("pagerank.pull-warp", {}, None, "")]
    if first:
        out += [("pagerank.pull-warp", {"lanes": lanes}, None, f"lanes={lanes}") for lanes in (4, 8, 16, 32)]
        out += [("pagerank.pull-warp", {"split": split}, None, f"split={split}") for split in (0, 1024, 16384)]
    out.append(("tc.best", {}, None, ""))
    if first:
        out += [("tc.search", {"lanes": lanes}, None, f"lanes={lanes}") for lanes in (1, 4, 16, 32)]
    out.append(("bc.best", {}, roots, ""))
    if first:
        out += [("bc.brandes", {"split": split}, roots, f"split={split}") for split in (0, 1024, 16384)]
    return out


def floor_ms(rows, ceiling: dict) -> float:
    """The byte model's floor of one run: streamed bytes at the copy ceiling plus random accesses
    at the gather ceiling, summed over the run's phases (the ``total`` row excluded)."""
    total = 0.0
    for r in rows:
        if r["phase"] != "total":
            total += (r["bytes_read"] + r["bytes_written"]) / (ceiling["copy_gbps"] * 1e9)
            total += r["random_accesses"] / (ceiling["gather_gelems"] * 1e9)
    return total * 1e3


def summarise(result, graph: str, variant: str, ceiling: dict) -> dict:
    per_instance = {}
    for row in result.rows:
        per_instance.setdefault(row.get("instance", 0), {}).setdefault(row["rep"], []).append(row)
    times, floors = [], []
    for reps in per_instance.values():
        totals = [next(r["ms"] for r in rows if r["phase"] == "total") for rows in reps.values()]
        times.append(statistics.median(totals))
        floors.append(floor_ms(next(iter(reps.values())), ceiling))
    phases = {}
    for row in result.rows:
        if row["phase"] != "total":
            phases[row["phase"]] = phases.get(row["phase"], 0.0) + row["ms"]
    runs_count = sum(len(reps) for reps in per_instance.values())
    builds = {r["phase"]: r["ms"] for r in result.input_rows if not r.get("cached")}
    return {"graph": graph, "kernel": result.kernel, "variant": variant, "n": result.dataset["n"],
            "m": result.dataset["m"], "instances": len(times), "ms": statistics.median(times), "sum_ms": sum(times),
            "floor_ms": statistics.median(floors), "phases_ms_per_run": {k: v / runs_count for k, v in phases.items()},
            "builds_ms": builds, "stats": result.stats, "verified": result.verified,
            "verify_error": result.verify_error, "seconds": result.seconds}


def gapbs_seconds(gapbs: Path, problem: str, family: str, scale: int, roots: int, timeout: float) -> float | None:
    """GAPBS's average time per trial of ``problem`` on its own kron (-g) or urand (-u) graph."""
    args = {"pr": ["-i", "1000", "-t", "1e-4", "-n", "3"], "bc": ["-i", str(roots), "-n", "2"], "tc": ["-n", "1"]}
    cmd = [str(gapbs / problem), "-g" if family == "kron" else "-u", str(scale), *args[problem]]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True).stdout
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"  GAPBS {' '.join(cmd[1:])}: {exc}", flush=True)
        return None
    found = re.search(r"Average Time:\s+([0-9.]+)", out)
    return float(found.group(1)) if found else None


def line(s: dict, gap_s: float | None, source: str) -> str:
    name = s["kernel"] + (f" ({s['variant']})" if s["variant"] else "")
    per = "per root" if s["kernel"].startswith("bc.") else "per run"
    ms = s["sum_ms"] if s["kernel"].startswith("bc.") else s["ms"]
    text = (f"{s['graph']:<10} {name:<34} {s['ms']:>10.3f} ms {per}  floor {s['floor_ms']:>9.3f} ms "
            f"({s['ms'] / s['floor_ms']:.2f}x floor)" if s["floor_ms"] else f"{s['graph']:<10} {name:<34} {s['ms']:.3f} ms")
    extra = {k: s["stats"].get(k) for k in ("iterations", "triangles", "levels", "lanes") if k in s["stats"]}
    text += f"  {extra}"
    if s["kernel"].startswith("bc."):
        text += f"  sum over {s['instances']} roots {ms:.3f} ms"
    if gap_s:
        text += f"  GAPBS {gap_s * 1e3:.1f} ms ({source}): {gap_s * 1e3 / ms:.1f}x"
    if s["builds_ms"]:
        text += "  build " + ", ".join(f"{k} {v:.1f} ms" for k, v in s["builds_ms"].items())
    if not s["verified"]:
        text += f"  VERIFY FAILED: {s['verify_error']}"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="directory for gap.json")
    ap.add_argument("--scales", default="20,22", help="comma-separated scales of kron and urand")
    ap.add_argument("--families", default="kron,urand")
    ap.add_argument("--kernels", default="pagerank,tc,bc", help="comma-separated families to run")
    ap.add_argument("--roots", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--gapbs", type=Path, help="a built GAPBS checkout (pr, bc, tc binaries)")
    ap.add_argument("--gapbs-scales", default="", help="scales at which to run GAPBS here (others: the issue's)")
    ap.add_argument("--gapbs-timeout", type=float, default=120.0)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    ceiling = measure("gpu")
    print(f"device {ceiling['device']}: copy {ceiling['copy_gbps']:.0f} GB/s, gather {ceiling['gather_gelems']:.1f} G/s; "
          f"host {os.cpu_count()} cores; best: " + ", ".join(f"{a} = {registry.ALIASES[a][0]}"
                                                             for a in ("pagerank.best", "tc.best", "bc.best")),
          flush=True)
    scales = [int(s) for s in args.scales.split(",") if s]
    gapbs_scales = {int(s) for s in args.gapbs_scales.split(",") if s}
    summaries = []
    for family in args.families.split(","):
        for index, scale in enumerate(scales):
            graph = f"{family}-{scale}"
            t0 = time.perf_counter()
            data = make(family, scale)
            print(f"{graph}: n {data.n}, m {data.m} (made in {time.perf_counter() - t0:.1f} s)", flush=True)
            gap = {}
            if args.gapbs and scale in gapbs_scales:
                for problem in ("pr", "bc", "tc"):
                    gap[problem] = (gapbs_seconds(args.gapbs, problem, family, scale, args.roots, args.gapbs_timeout),
                                    "measured here")
                print(f"  GAPBS: {gap}", flush=True)
            for problem in ("pr", "bc", "tc"):
                if problem not in gap and (problem, family, scale) in ISSUE_GAPBS:
                    gap[problem] = (ISSUE_GAPBS[(problem, family, scale)], "issue's H200 host")
            families = tuple(f"{k}." for k in args.kernels.split(","))
            for name, params, instances, variant in runs(index == 0, args.roots):
                if not name.startswith(families):
                    continue
                t1 = time.perf_counter()
                try:
                    result = harness.run(name, data, backend="gpu", reps=args.reps if not name.startswith("tc")
                                         else 1, warmup=1, instances=instances, instance_seed=SEED, **params)
                except (cupy.cuda.memory.OutOfMemoryError, MemoryError) as exc:
                    print(f"{graph:<10} {name:<34} skipped: out of memory ({exc})", flush=True)
                    cupy.get_default_memory_pool().free_all_blocks()
                    continue
                s = summarise(result, graph, variant, ceiling)
                summaries.append(s)
                seconds, source = gap.get(PROBLEM_OF[name.split(".")[0]], (None, ""))
                print(line(s, seconds, source) + f"  [{time.perf_counter() - t1:.1f}s]", flush=True)
                if name == "pagerank.spmv":
                    spmv = s["phases_ms_per_run"].get("spmv", 0.0) / max(1, s["stats"]["iterations"])
                    print(f"{'':<10} cuSPARSE SpMV alone {spmv:.3f} ms per iteration", flush=True)
            by = {(s["graph"], s["kernel"], s["variant"]): s for s in summaries}
            best, spmv = by.get((graph, "pagerank.pull-warp", "")), by.get((graph, "pagerank.spmv", ""))
            if best and spmv:
                print(f"{graph}: {best['kernel']} {best['ms']:.3f} ms = {spmv['ms'] / best['ms']:.2f}x faster than the "
                      f"cuSPARSE PageRank beside it ({spmv['ms']:.3f} ms)", flush=True)
            data = result = None
            cupy.get_default_memory_pool().free_all_blocks()
    (args.out / "gap.json").write_text(json.dumps({"ceiling": ceiling, "summaries": summaries}, indent=1, default=str))


if __name__ == "__main__":
    main()
