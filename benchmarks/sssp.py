"""Benchmark of the SSSP family on the GPU: sssp.best beside sssp.harish, against GAPBS and SciPy.

Graphs are made on the GPU (benchmarks/gpu_graphs.py): Harish's uniform graphs of degree 6 and
weights 1-10 at 1M, 4M, 16M and 64M vertices (Fig. 4) and scale-free graphs of the same sizes (Fig. 5),
100K-vertex graphs of degree 6 ... 200 (Fig. 7), a 4096 x 4096 grid standing in for a road network,
and R-MAT scale 22 and 24 (edge factor 16, weights 1-255: GAPBS's and Graph500's setting).
Each graph runs from 16 seeded roots of non-zero degree (32 on R-MAT 22; fewer with --quick); the
last rep of every root is verified by the shared verifier.  Printed per graph and kernel: the median time per root, GTEPS (input edges /
time; harmonic mean over roots, min and max), iterations, each phase's GB/s against the copy
ceiling measured in this run, the CSR build apart; then the ratios to the targets on R-MAT 22
(>= 10x GAPBS delta-stepping on 16 cores, 91.6 ms; >= 50x SciPy's Dijkstra on this host, measured
here) and sssp.harish against sssp.best with the work each does.  Every phase row goes to
``--out DIR`` (sssp.csv, sssp.json).

    python3 benchmarks/sssp.py [--quick] --out $OUT/sssp
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
import gpu_graphs  # noqa: E402  (the lead's in-memory GPU graphs, beside this script)

from graphsweep.kernels import harness, registry  # noqa: E402
from graphsweep.kernels.ceilings import measure  # noqa: E402
from graphsweep.kernels.graph import graph_input  # noqa: E402
from graphsweep.kernels.throughput import harmonic_mean  # noqa: E402

SEED = 0x5EED
GAPBS_RMAT22_MS = 91.6        # GAPBS sssp (delta-stepping) on R-MAT 22, 16 cores of the lent host (issue 8)
TARGET_VS_GAPBS, TARGET_VS_SCIPY = 10.0, 50.0


def plan(quick: bool) -> list[tuple]:
    """(label, make dataset, roots for sssp.best, roots for sssp.harish, SciPy roots)."""
    w10, w255 = (1, 10), (1, 255)
    if quick:
        return [
            ("uniform 2^20 d6", lambda: gpu_graphs.uniform(1 << 20, 3 << 20, weights=w10), 8, 2, 0),
            ("uniform 2^24 d6", lambda: gpu_graphs.uniform(1 << 24, 3 << 24, weights=w10), 8, 1, 0),
            ("scale-free 2^20", lambda: gpu_graphs.scale_free(1 << 20, weights=w10), 8, 1, 0),
            ("100K d50", lambda: gpu_graphs.uniform(100_000, 2_500_000, weights=w10), 8, 1, 0),
            ("grid 1024^2", lambda: gpu_graphs.grid2d(1024, 1024, weights=w10), 4, 1, 0),
            ("rmat 22", lambda: gpu_graphs.rmat(22, 16, weights=w255), 8, 1, 1),
        ]
    runs = []
    for k in range(20, 27, 2):
        runs.append((f"uniform 2^{k} d6", lambda k=k: gpu_graphs.uniform(1 << k, 3 << k, weights=w10), 16,
                     2 if k <= 24 else 1, 0))
    for k in range(20, 27, 2):
        runs.append((f"scale-free 2^{k}", lambda k=k: gpu_graphs.scale_free(1 << k, weights=w10), 16, 1, 0))
    for d in (6, 12, 25, 50, 100, 200):
        runs.append((f"100K d{d}", lambda d=d: gpu_graphs.uniform(100_000, 50_000 * d, weights=w10), 16, 2, 0))
    runs.append(("grid 4096^2", lambda: gpu_graphs.grid2d(4096, 4096, weights=w10), 16, 1, 0))
    runs.append(("rmat 22", lambda: gpu_graphs.rmat(22, 16, weights=w255), 32, 2, 3))
    runs.append(("rmat 24", lambda: gpu_graphs.rmat(24, 16, weights=w255), 16, 1, 0))
    return runs


def tune(ceiling: dict) -> None:
    """sssp.best's parameters on R-MAT 22 (hubs, few iterations), a uniform graph and a grid (thousands
    of iterations: the per-iteration cost): 4 roots each, median ms per root."""
    best = registry.ALIASES["sssp.best"][0]
    graphs = [("rmat 22", lambda: gpu_graphs.rmat(22, 16, weights=(1, 255)),
               [{"delta": d} for d in (12, 16, 20, 24)] + [{"delta": 16, "chunk": 32}]),
              ("uniform 2^24 d6", lambda: gpu_graphs.uniform(1 << 24, 3 << 24, weights=(1, 10)),
               [{"delta": d} for d in (8, 16, 24, 32)]),
              ("grid 2048^2", lambda: gpu_graphs.grid2d(2048, 2048, weights=(1, 10)),
               [{"delta": d} for d in (32, 64, 128)])]
    print(f"{'graph':<16} {'params':<44} {'ms/root':>9} {'iters':>6} {'relax/m':>8}", flush=True)
    for label, make, grid in graphs:
        data = make()
        for params in grid:
            res = harness.run(best, data, backend="gpu", reps=2, warmup=1, instances=4, instance_seed=SEED,
                              keep_output=False, **params)
            per_root = [statistics.median(r["ms"] for r in res.rows if r["instance"] == i and r["phase"] == "total")
                        for i in range(len(res.instances))]
            st = res.instance_stats[-1]
            flag = "" if res.verified else f"  VERIFY FAILED: {res.verify_error}"
            print(f"{label:<16} {json.dumps(params):<44} {statistics.median(per_root):>9.3f} "
                  f"{st['iterations']:>6} {st['relaxations'] / data.m:>8.2f}{flag}", flush=True)
        del data
        cupy.get_default_memory_pool().free_all_blocks()


def scipy_ms(data, roots) -> list[float]:
    """SciPy's Dijkstra on this host from each root (lightest copy of each edge: SciPy would sum
    duplicates; weights 1..255 have no zeros for SciPy to drop)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra
    csr = graph_input(data).csr()
    n = csr.n
    rows = cupy.repeat(cupy.arange(n, dtype=np.int64), cupy.diff(csr.offsets))
    key = (rows << 32) | csr.indices.astype(np.int64)
    order = cupy.lexsort(cupy.stack([csr.weights.astype(np.int64), key]))
    key, w = key[order], csr.weights[order]
    first = cupy.concatenate([cupy.ones(1, dtype=bool), key[1:] != key[:-1]])
    key, w = key[first], w[first]
    mat = csr_matrix(((w.get()).astype(np.float64), ((key >> 32).get(), (key & 0xFFFFFFFF).get())), shape=(n, n))
    del rows, key, order, w, first
    out = []
    for r in roots:
        t = time.perf_counter()
        dijkstra(mat, directed=True, indices=int(r))
        out.append((time.perf_counter() - t) * 1e3)
    return out


def run_kernel(name, data, roots: int, reps: int, ceiling: dict, label: str, rows: list) -> dict:
    res = harness.run(name, data, backend="gpu", reps=reps, warmup=1, instances=roots, instance_seed=SEED,
                      keep_output=False)
    per_root = []
    for index, instance in enumerate(res.instances):
        totals = [r["ms"] for r in res.rows if r["instance"] == index and r["phase"] == "total"]
        per_root.append(statistics.median(totals))
    gteps = [res.elements / (ms / 1e3) / 1e9 for ms in per_root]
    phases = {}
    for r in res.rows:
        phases.setdefault(r["phase"], []).append(r)
    phase_text = []
    for phase, prs in phases.items():
        ms = statistics.median(r["ms"] for r in prs)
        moved = statistics.median(r["bytes_read"] + r["bytes_written"] for r in prs)
        gbps = moved / (ms / 1e3) / 1e9 if ms else 0.0
        if phase != "total":
            phase_text.append(f"{phase} {ms:.2f}ms {gbps:.0f}GB/s ({100 * gbps / ceiling['copy_gbps']:.0f}%)")
    for r in res.rows:
        rows.append({"graph": label, "kernel": res.kernel, "n": res.dataset["n"], "m": res.elements, **r,
                     "verified": res.verified, "device": res.device})
    iterations = [s.get("iterations") for s in res.instance_stats]
    csr = res.input_rows[0] if res.input_rows else None
    return {"kernel": res.kernel, "ms": statistics.median(per_root), "gteps": harmonic_mean(gteps),
            "gteps_min": min(gteps), "gteps_max": max(gteps), "iterations": statistics.median(iterations),
            "phases": " | ".join(phase_text), "verified": res.verified, "error": res.verify_error,
            "csr_ms": csr["ms"] if csr and not csr.get("cached") else None, "roots": len(per_root),
            "stats": res.instance_stats[-1]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="directory for sssp.csv and sssp.json")
    ap.add_argument("--quick", action="store_true", help="a few graphs and roots (round 1)")
    ap.add_argument("--reps", type=int, default=None, help="timed reps per root (default 3, 2 with --quick)")
    ap.add_argument("--tune", action="store_true", help="only sweep sssp.best's delta / chunk / threads")
    args = ap.parse_args()
    args.reps = args.reps or (2 if args.quick else 3)
    best = registry.ALIASES["sssp.best"][0]
    ceiling = measure("gpu")
    print(f"device {ceiling['device']}: copy {ceiling['copy_gbps']:.0f} GB/s, gather {ceiling['gather_gelems']:.1f} "
          f"G/s, chase {ceiling['chase_gsteps']:.2f} G steps/s; sssp.best = {best}", flush=True)
    if args.tune:
        tune(ceiling)
        return
    print(f"{'graph':<18} {'kernel':<15} {'n':>10} {'m':>11} {'roots':>5} {'ms/root':>9} {'GTEPS':>7} "
          f"{'(min-max)':>13} {'iters':>6} {'csr ms':>7}  phases", flush=True)
    rows, summary = [], []
    for label, make, best_roots, harish_roots, scipy_roots in plan(args.quick):
        t0 = time.perf_counter()
        try:
            data = make()
        except cupy.cuda.memory.OutOfMemoryError as exc:
            print(f"{label:<18} skipped: out of memory making the graph ({exc})", flush=True)
            continue
        results = []
        for name, roots, reps in ((best, best_roots, args.reps), ("sssp.harish", harish_roots, 1)):
            if not roots:
                continue
            try:
                r = run_kernel(name, data, roots, reps, ceiling, label, rows)
            except cupy.cuda.memory.OutOfMemoryError as exc:
                print(f"{label:<18} {name:<15} skipped: out of memory ({exc})", flush=True)
                continue
            results.append(r)
            flag = "" if r["verified"] else f"  VERIFY FAILED: {r['error']}"
            csr = f"{r['csr_ms']:.1f}" if r["csr_ms"] is not None else "-"
            print(f"{label:<18} {name:<15} {data.n:>10} {data.m:>11} {r['roots']:>5} {r['ms']:>9.3f} "
                  f"{r['gteps']:>7.2f} {r['gteps_min']:>6.2f}-{r['gteps_max']:<6.2f} {r['iterations']:>6} "
                  f"{csr:>7}  {r['phases']}{flag}", flush=True)
        line = {"graph": label, "n": data.n, "m": data.m, **{r["kernel"]: {k: v for k, v in r.items() if k != "phases"}
                                                            for r in results}}
        if len(results) == 2:
            b, h = results
            st = b["stats"]
            line["harish_over_best"] = h["ms"] / b["ms"]
            print(f"{'':<18} sssp.harish takes {h['ms'] / b['ms']:.1f}x sssp.best's time: {h['iterations']} iterations x "
                  f"{data.n} vertices = {h['iterations'] * data.n / 1e6:.0f}M vertex visits, against "
                  f"{b['iterations']} iterations, {st.get('entries', 0) / 1e6:.1f}M queue entries and "
                  f"{st.get('relaxations', 0) / 1e6:.1f}M edge relaxations (delta {st.get('delta')})", flush=True)
        if scipy_roots:
            picks = registry.get(best).problem.instances(graph_input(data), {}, scipy_roots, SEED)
            ms = scipy_ms(data, [p["root"] for p in picks])
            line["scipy_ms"] = statistics.median(ms)
            b = results[0]
            print(f"{'':<18} SciPy dijkstra (this host, {len(ms)} roots): {line['scipy_ms']:.0f} ms/root = "
                  f"{line['scipy_ms'] / b['ms']:.0f}x sssp.best (target >= {TARGET_VS_SCIPY:.0f}x)", flush=True)
            if label == "rmat 22":
                line["gapbs_ms"] = GAPBS_RMAT22_MS
                print(f"{'':<18} GAPBS delta-stepping, 16 cores: {GAPBS_RMAT22_MS} ms = "
                      f"{GAPBS_RMAT22_MS / b['ms']:.1f}x sssp.best (target >= {TARGET_VS_GAPBS:.0f}x, "
                      f"<= {GAPBS_RMAT22_MS / TARGET_VS_GAPBS:.2f} ms)", flush=True)
        summary.append(line)
        print(f"{'':<18} [{time.perf_counter() - t0:.1f}s]", flush=True)
        del data
        cupy.get_default_memory_pool().free_all_blocks()
    args.out.mkdir(parents=True, exist_ok=True)
    if rows:
        with open(args.out / "sssp.csv", "w", newline="") as f:
            fields = list(dict.fromkeys(k for r in rows for k in r))
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    (args.out / "sssp.json").write_text(json.dumps({"ceilings": ceiling, "summary": summary}, indent=1, default=str))


if __name__ == "__main__":
    main()
