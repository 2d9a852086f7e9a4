"""Experiment 8 (issue #9): the fastest kernels against the floors, measured in the same run.

Measures the device's floors — copy GB/s, random int32 gather, the dependent pointer chase
(graphsweep.kernels.ceilings) and the chase with a 4- or 8-byte store per step (kernels/ceilings.cu:
what a list walk does) — plus the chase against its table's size (4 MB ... 4 GB: the L2 and the
TLB's reach) and against the number of chains (latency- or throughput-bound), then runs
listrank.best, cc.best, bfs.best, sssp.best and apsp.blocked-floyd-warshall on the issues'
reference inputs (built on the GPU by benchmarks/gpu_graphs.py and the list generator) and prints
one table: each kernel's time, its floors, the reference one and the ratio, and the peers' figures
quoted in the issues (ECL-CC, GAPBS, Gunrock, SciPy) with the ratio to them.

A kernel's floors, each a time at the rates measured here:
- copy: the bytes of its input read once and its output written once, at the copy rate;
- gather: its unavoidable random accesses at the gather rate (CC: one per edge; BFS: one per
  vertex; SSSP: one per stored edge, each relaxed at least once);
- chase (list ranking): n dependent steps at the chase rate, and with a store per step;
- compute (APSP): n^3 int32 add-min steps at the device's peak (64 per SM per clock).
Each problem is judged against one of them, its reference (``REFERENCE``): the chase for list
ranking (n dependent steps: a real bound for a walk); one pass over the CSR for CC and BFS (not a
bound: Afforest-style sampling and bottom-up BFS skip most edges, so a ratio below 1 says how
much of the graph a kernel avoids reading); the larger of the copy and gather floors for SSSP
(every reachable edge is relaxed at least once); the add-min peak for APSP.

    python3 benchmarks/floors.py --out $OUT/floors [--shrink K] [--reps 5] [--roots 8]

Writes floors.csv (one row per kernel and input), floors.json (the rows, the floors, the chase
curves, device and date) and chase.csv (the chase curves); --shrink K divides every size by 2^K
(a smoke test).
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
import gpu_graphs  # noqa: E402  (benchmarks/ is not a package)

from graphsweep.datasets.params import resolve  # noqa: E402
from graphsweep.datasets.reader import Dataset  # noqa: E402
from graphsweep.generators import GENERATORS  # noqa: E402
from graphsweep.kernels import harness, registry  # noqa: E402
from graphsweep.kernels.ceilings import best_gpu_seconds, measure  # noqa: E402
from graphsweep.kernels.cuda import module, sm_count  # noqa: E402

SEED = 0x5EED
TABLE = 1 << 26            # the ceilings' table: 256 MB of int32
REPS = 5

# The floor each problem is judged against (the larger of those named; see the module doc).
REFERENCE = {"listrank": ("chase",), "cc": ("copy",), "bfs": ("copy",), "sssp": ("copy", "gather"),
             "apsp": ("compute",)}
# Peers' figures quoted in the issues (ms; H200 or the 16 cores of the lent host unless said).
PEERS = {
    ("cc", "list-32M"): ("ECL-CC, H200", 4.17), ("cc", "tree-32M"): ("ECL-CC, H200", 4.79),
    ("cc", "uniform-10M-30M"): ("ECL-CC, H200", 1.74), ("cc", "uniform-2M-40M"): ("ECL-CC, H200", 1.80),
    ("cc", "rmat-24"): ("GAPBS Afforest, 16 cores", 66.0),
    ("bfs", "rmat-24"): ("Gunrock, V100", 3.83), ("bfs", "uniform-24-d16"): ("GAPBS, 16 cores", 60.8),
    ("sssp", "rmat-22-w255"): ("GAPBS delta-stepping, 16 cores", 91.6),
}
EXTRA_PEERS = {("bfs", "rmat-24"): ("GAPBS, 16 cores", 38.9), ("bfs", "grid-4096"): ("Gunrock road_usa, per level", None)}


def _cycle(mod, entries: int, seed: int = 0x5EED):
    """A table of ``entries`` int32 made one random cycle (the ceilings' graphsweep_ceiling_cycle)."""
    table = cupy.empty(entries, dtype=np.int32)
    bits = max(1, (entries - 1).bit_length())
    mod.get_function("graphsweep_ceiling_cycle")((4096,), (256,), (table, np.int64(entries), np.int32(bits),
                                                                 np.uint64(seed)))
    return table, bits


def _chase_rate(mod, table, bits, chains: int, kind: str = "chase", seed: int = 0x5EED) -> float:
    """G steps/s of ``chains`` chains walking the whole cycle between them (each its own segment)."""
    entries = table.shape[0]
    chains = min(chains, entries)
    # Each chain walks its own segment of the cycle; on a small table (less than 64 steps a chain)
    # the segments overlap so that launch costs do not hide the rate.
    steps = max(64, entries // chains)
    if kind == "chase":
        out = cupy.empty(chains, dtype=np.int32)
    elif kind == "store4":
        out = cupy.empty(entries, dtype=np.int32)
    else:
        out = cupy.empty(entries, dtype=np.uint64)
    fn = mod.get_function({"chase": "graphsweep_ceiling_chase", "store4": "graphsweep_ceiling_chase_store4",
                           "store8": "graphsweep_ceiling_chase_store8"}[kind])
    grid = (chains + 255) // 256
    seconds = best_gpu_seconds(lambda: fn((grid,), (256,), (table, out, np.int64(chains), np.int32(steps),
                                                  np.int64(entries), np.int32(bits), np.uint64(seed))))
    return chains * steps / seconds / 1e9


def measure_floors(shrink: int) -> tuple[dict, list]:
    """The ceilings, the chase with a store per step, and the chase curves (vs table size, vs chains)."""
    ceiling = measure("gpu")
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    mod = module("ceilings.cu")
    full = sm_count() * 2048
    table, bits = _cycle(mod, TABLE >> shrink)
    floors = {**{k: v for k, v in ceiling.items() if not isinstance(v, bool)},
              "chase_store4_gsteps": _chase_rate(mod, table, bits, full, "store4"),
              "chase_store8_gsteps": _chase_rate(mod, table, bits, full, "store8"),
              "sm_count": sm_count(), "l2_bytes": props["l2CacheSize"], "memory_bytes": props["totalGlobalMem"],
              "clock_khz": props["clockRate"], "minplus_peak": 64 * sm_count() * props["clockRate"] * 1e3,
              "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    curves = []
    for chains in (1024, 8192, 32767, full // 4, full):
        curves.append({"curve": "chains", "table_bytes": table.nbytes, "chains": chains,
                       "gsteps": _chase_rate(mod, table, bits, chains)})
    del table
    for log in range(20 - shrink, 31 - shrink):          # 4 MB ... 4 GB of int32
        t, b = _cycle(mod, 1 << log)
        for kind in ("chase", "store8"):
            curves.append({"curve": f"size-{kind}", "table_bytes": t.nbytes, "chains": min(full, t.shape[0]),
                           "gsteps": _chase_rate(mod, t, b, full, kind)})
        del t
        cupy.get_default_memory_pool().free_all_blocks()
    return floors, curves


def random_list(n: int) -> Dataset:
    """graphsweep's ``list`` generator's list (genList), made on the GPU."""
    gen = GENERATORS["list"]
    plan = gen.plan(resolve("list", gen.params, {"n": n}), SEED)
    succ = cupy.empty(n, dtype=np.int32)
    for start in range(0, n, 1 << 26):
        succ[start:start + (1 << 26)] = gen.part(plan, start, min(n, start + (1 << 26)), cupy)["succ"]
    return Dataset(Path(f"gpu:list-{n}"), {"kind": "list", "n": n, "index_dtype": "int32",
                                            "generator": {"name": "list", "params": {"n": n}, "seed": SEED}},
                   {"succ": succ})


def plan(shrink: int):
    """(problem, input label, make dataset, kernel, roots) in run order."""
    k, M = 1 << shrink, 1 << 20
    w255 = (1, 255)
    return [
        ("listrank", "random list 2^26", lambda: random_list((1 << 26) // k), "listrank.best", None),
        ("listrank", "random list 2^30", lambda: random_list((1 << 30) // k), "listrank.best", None),
        ("cc", "list-32M", lambda: gpu_graphs.random_list(32 * M // k, seed=SEED), "cc.best", None),
        ("cc", "tree-32M", lambda: gpu_graphs.random_tree(32 * M // k, seed=SEED), "cc.best", None),
        ("cc", "uniform-10M-30M", lambda: gpu_graphs.uniform(10_000_000 // k, 30_000_000 // k, seed=SEED),
         "cc.best", None),
        ("cc", "uniform-2M-40M", lambda: gpu_graphs.uniform(2_000_000 // k, 40_000_000 // k, seed=SEED),
         "cc.best", None),
        ("cc", "rmat-24", lambda: gpu_graphs.rmat(24 - shrink, 16, seed=SEED), "cc.best", None),
        ("bfs", "rmat-24", lambda: gpu_graphs.rmat(24 - shrink, 16, seed=SEED), "bfs.best", 8),
        ("bfs", "uniform-24-d16", lambda: gpu_graphs.uniform((1 << 24) // k, (8 << 24) // k, seed=SEED),
         "bfs.best", 8),
        ("bfs", "grid-4096", lambda: gpu_graphs.grid2d(4096 >> (shrink // 2), 4096 >> (shrink // 2)), "bfs.best", 4),
        ("sssp", "rmat-22-w255", lambda: gpu_graphs.rmat(22 - shrink, 16, seed=SEED, weights=w255), "sssp.best", 8),
        ("apsp", "uniform-16K-d6", lambda: gpu_graphs.uniform(16384 >> (shrink // 2), 3 * (16384 >> (shrink // 2)),
                                                               seed=SEED, weights=(1, 10)),
         "apsp.blocked-floyd-warshall", None),
    ]


def floors_for(problem: str, data, stats: dict, f: dict) -> dict:
    """Each floor of ``problem`` on ``data`` in ms (see the module doc); absent where it does not apply."""
    n, m = data.n, data.m or 0
    copy = f["copy_gbps"] * 1e9
    gather = f["gather_gelems"] * 1e9
    out = {}
    if problem == "listrank":
        out["copy"] = 8 * n / copy                       # read succ, write rank
        out["chase"] = n / (f["chase_gsteps"] * 1e9)
        out["chase+store"] = n / (f["chase_store4_gsteps"] * 1e9)
    elif problem in ("cc", "bfs", "sssp"):
        nnz = 2 * m                                      # the CSR holds both directions
        weights = 4 * nnz if problem == "sssp" else 0
        out_bytes = {"cc": 4 * n, "bfs": 4 * n, "sssp": 8 * n}[problem]
        out["copy"] = (8 * (n + 1) + 4 * nnz + weights + out_bytes) / copy
        out["gather"] = {"cc": m, "bfs": n, "sssp": nnz}[problem] / gather
    elif problem == "apsp":
        out["copy"] = 4 * n * n / copy                   # the distance matrix written once
        out["compute"] = float(n) ** 3 / f["minplus_peak"]
    return {k: v * 1e3 for k, v in out.items()}


def run_one(problem, label, data, kernel, roots, reps, f) -> dict:
    verify = not (problem == "apsp" and data.n > 16384)
    result = harness.run(kernel, data, backend="gpu", reps=reps, warmup=1, verify=verify, keep_output=False,
                         instances=roots, instance_seed=SEED)
    per = {}
    for r in result.rows:
        if r["phase"] == "total":
            per.setdefault(r.get("instance", 0), []).append(r["ms"])
    per_root = [statistics.median(v) for v in per.values()]
    ms = statistics.median(per_root)
    stats = result.stats
    floors = floors_for(problem, data, stats, f)
    reference = max(REFERENCE[problem], key=floors.get)
    row = {"problem": problem, "input": label, "kernel": result.kernel, "alias": kernel, "n": data.n,
           "m": data.m or 0, "roots": len(per_root), "ms": ms, "ms_min_root": min(per_root),
           "ms_max_root": max(per_root), "reference": reference, "floor_ms": floors[reference],
           "x_floor": ms / floors[reference], "verified": result.verified, "error": result.verify_error,
           "csr_ms": sum(r["ms"] for r in result.input_rows), "label": f"{kernel} · {label}"}
    row.update({f"floor_{k}_ms": v for k, v in floors.items()})
    if problem == "bfs" and stats.get("levels"):
        row["us_per_level"] = ms * 1e3 / stats["levels"]
        row["levels"] = stats["levels"]
    peer = PEERS.get((problem, label))
    if peer:
        row["peer"], row["peer_ms"] = peer
        row["x_peer"] = ms / peer[1]
    extra = EXTRA_PEERS.get((problem, label))
    if extra and extra[1]:
        row["peer2"], row["peer2_ms"] = extra
    return row


def line(r: dict) -> str:
    peer = f"{r['peer']} {r['peer_ms']:g} ms: {r['peer_ms'] / r['ms']:.2f}x" if r.get("peer") else ""
    if r.get("peer2"):
        peer += f"; {r['peer2']} {r['peer2_ms']:g} ms: {r['peer2_ms'] / r['ms']:.2f}x"
    level = f" ({r['us_per_level']:.1f} us/level)" if r.get("us_per_level") else ""
    floors = " ".join(f"{k.removeprefix('floor_').removesuffix('_ms')} {v:.3g}" for k, v in r.items()
                      if k.startswith("floor_") and k.endswith("_ms") and k != "floor_ms")
    ok = "" if r["verified"] in (True, None) else f"  VERIFY FAILED: {r['error']}"
    return (f"{r['problem']:<9} {r['input']:<17} {r['kernel']:<28} {r['ms']:>9.3f}{level:<18} "
            f"{r['reference']:<12} {r['floor_ms']:>8.3f} {r['x_floor']:>7.2f}x  [{floors}]  {peer}{ok}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for floors.csv, floors.json, chase.csv")
    ap.add_argument("--shrink", type=int, default=0, help="divide every size by 2^K (smoke test)")
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--roots", type=int, default=None, help="roots per BFS/SSSP input (default: the plan's)")
    ap.add_argument("--only", nargs="*", help="problems to run (default: all)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    f, curves = measure_floors(args.shrink)
    print(f"device {f['device']} ({f['sm_count']} SMs, L2 {f['l2_bytes'] / 2**20:.0f} MiB), {f['date_utc']} UTC: "
          f"copy {f['copy_gbps']:.0f} GB/s, gather {f['gather_gelems']:.1f} G/s, chase {f['chase_gsteps']:.1f} "
          f"G steps/s, chase+store4 {f['chase_store4_gsteps']:.1f}, chase+store8 {f['chase_store8_gsteps']:.1f}; "
          f"int32 add-min peak {f['minplus_peak'] / 1e12:.1f} T/s  [{time.perf_counter() - t0:.1f}s]", flush=True)
    for c in curves:
        print(f"  chase {c['curve']:<13} table {c['table_bytes'] / 2**20:>7.0f} MiB  chains {c['chains']:>7}  "
              f"{c['gsteps']:6.2f} G steps/s", flush=True)
    rows, made = [], {}
    for problem, label, make, kernel, roots in plan(args.shrink):
        if args.only and problem not in args.only:
            continue
        t = time.perf_counter()
        try:
            if made.get("key") != label:        # consecutive runs on one input share it (cc and bfs on rmat-24)
                made = {"key": label, "data": None}
                cupy.get_default_memory_pool().free_all_blocks()
                made["data"] = make()
            row = run_one(problem, label, made["data"], kernel, args.roots or roots, args.reps, f)
        except Exception as exc:  # one input failing must not lose the others
            print(f"{problem:<9} {label:<17} {kernel:<28} FAILED: {type(exc).__name__}: {exc}", flush=True)
            rows.append({"problem": problem, "input": label, "kernel": kernel, "error": f"{type(exc).__name__}: {exc}",
                         "label": f"{kernel} · {label}"})
            continue
        rows.append(row)
        print(line(row) + f"  [{time.perf_counter() - t:.1f}s]", flush=True)
    names = list(dict.fromkeys(k for r in rows for k in r))
    with open(args.out / "floors.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=names)
        w.writeheader()
        w.writerows(rows)
    with open(args.out / "chase.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(curves[0]))
        w.writeheader()
        w.writerows(curves)
    (args.out / "floors.json").write_text(json.dumps({"floors": f, "chase": curves, "rows": rows,
                                                      "aliases": {k: v[0] for k, v in registry.ALIASES.items()}},
                                                     indent=1, default=str))
    print(f"wrote {args.out}/floors.csv, floors.json, chase.csv in {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
