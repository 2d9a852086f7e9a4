"""Benchmark: sssp.best on the road-like grid of issue #21 against a Δ-stepping whose Δ is tuned
by hand (the issue's target: at most 30 ms per root).

The graph is graphsweep's ``grid`` generator: 4096 x 4096 vertices (16M), a fifth of the edges
removed (keep = 0.8), integer weights 1-300, generated in memory on the GPU.  sssp.best runs
with its default Δ (chosen from the weights and degree), then sssp.near-far (the same near-far
Δ-stepping) with each Δ of ``--deltas``: the hand tuning.  Per run: the median time per root over
``--roots`` seeded roots, iterations (near-far rounds: each a grid barrier), relaxations; every
root's last rep verified.

    python3 benchmarks/sssp_road.py --out $OUT/sssp-road [--side 4096] [--roots 4]
"""

import argparse
import json
import statistics
import time
from pathlib import Path

from graphsweep.generators import memory
from graphsweep.kernels import harness

SEED = 0x5EED
TARGET_MS = 30.0
DELTAS = (64, 256, 1024, 2048, 4096, 8192, 16384, 65536)


def per_root(result) -> list[float]:
    out = []
    for index in range(len(result.instances)):
        out.append(statistics.median(r["ms"] for r in result.rows if r["instance"] == index and r["phase"] == "total"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--side", type=int, default=4096, help="grid rows = columns")
    ap.add_argument("--roots", type=int, default=4)
    ap.add_argument("--deltas", default=",".join(map(str, DELTAS)), help="hand-tuned Δ values, comma-separated")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    data = memory.generate("grid", seed=SEED, device="gpu",
                           params={"rows": args.side, "cols": args.side, "keep": 0.8, "weights": "1:300"})
    print(f"grid {args.side}^2 keep 0.8 weights 1:300: n {data.n}, m {data.m}, made in "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    runs = [("sssp.best", {})] + [("sssp.near-far", {"delta": int(d)}) for d in args.deltas.split(",")]
    out = []
    for name, params in runs:
        try:
            res = harness.run(name, data, backend="gpu", reps=2, warmup=1, instances=args.roots,
                              instance_seed=SEED, keep_output=False, **params)
        except Exception as exc:  # a benchmark keeps going: the failure is a line of its output
            print(f"{name} {params}: FAILED {type(exc).__name__}: {exc}", flush=True)
            continue
        times = per_root(res)
        row = {"kernel": res.kernel, "params": params, "ms_per_root": statistics.median(times),
               "min_ms": min(times), "max_ms": max(times), "stats": res.stats, "verified": res.verified,
               "verify_error": res.verify_error}
        out.append(row)
        stats = {k: res.stats.get(k) for k in ("delta", "iterations", "epochs", "relaxations")}
        print(f"{name:<14} {str(params):<18} {row['ms_per_root']:9.2f} ms per root (min {row['min_ms']:.2f}, max "
              f"{row['max_ms']:.2f}; target {TARGET_MS} ms: {row['ms_per_root'] / TARGET_MS:.2f}x)  {stats}"
              f"{'' if res.verified else '  VERIFY FAILED: ' + str(res.verify_error)}", flush=True)
    if out:
        tuned = min(out[1:] or out, key=lambda r: r["ms_per_root"])
        print(f"sssp.best {out[0]['ms_per_root']:.2f} ms per root; best hand-tuned Δ = {tuned['params']} "
              f"{tuned['ms_per_root']:.2f} ms; target {TARGET_MS} ms")
    (args.out / "sssp-road.json").write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
