"""Pipeline overhead: how much of a sweep's wall time is not kernels, how fast datasets load, and
how sweep throughput scales from one GPU to two.

    python benchmarks/pipeline.py                      # GPU: 2^24 … 2^28, all list-ranking kernels
    python benchmarks/pipeline.py --cpu --lo 16 --hi 20  # the same on CPU twins, smaller

Prints one table of ratios against their targets:
- timed-rep share: the timed kernel reps (CUDA events) over the sweep's wall time on one worker
  (target ≥ 80 % at 5 reps: warm-up, checks, verification, loading and scheduling all count
  against it);
- outside-kernel share: 1 − (time inside the harness, summed over tasks) / (wall time × workers),
  i.e. scheduling, loading and result writing (target ≤ 10 %);
- Parquet → device load GB/s of the largest list (target ≥ 2 GB/s);
- two-GPU throughput over one GPU for the same sweep (target ≥ 1.8×; needs two GPUs).
Lists are generated on the cluster with graphsweep.generators into --data (kept between runs).
"""

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

from graphsweep.datasets import gpu, reader
from graphsweep.kernels import registry
from graphsweep.pipeline import cluster, reduce, runner, store, sweep

TARGETS = {"timed-rep share": (">=", 0.80), "outside-kernel share": ("<=", 0.10), "load GB/s": (">=", 2.0),
           "2-GPU speed-up": (">=", 1.8)}


def listrank_kernels(backend: str) -> list[str]:
    # listrank.scan ranks ordered lists only; these are random
    names = {registry.get(n).name for n in registry.names() if n.startswith("listrank.")} - {"listrank.scan"}
    return sorted(n for n in names if getattr(registry.get(n), backend) is not None)


def sweep_once(spec: dict, profile: str, options: dict, folder: Path) -> tuple[float, pd.DataFrame]:
    """Run ``spec`` on a fresh local cluster; (wall seconds of the run, its rows)."""
    path = folder / f"{spec['name']}.yaml"
    path.write_text(yaml.safe_dump(spec))
    profiles = folder / f"{spec['name']}-cluster.yaml"
    profiles.write_text(yaml.safe_dump({"profiles": {"bench": {"kind": profile, "options": options}}}))
    plan = sweep.load(path)
    store.init(plan, resume=False)
    with cluster.connect("bench", profiles) as client:
        start = time.perf_counter()
        runner.execute(plan, client, run_id="bench", progress=False, echo=lambda *_: None)
        wall = time.perf_counter() - start
    return wall, reduce.load(plan.results)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true", help="CPU twins on a LocalCluster (no GPU needed)")
    ap.add_argument("--lo", type=int, default=24, help="smallest list: 2^LO nodes")
    ap.add_argument("--hi", type=int, default=28, help="largest list: 2^HI nodes")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--data", default="data/bench", help="where the lists are generated and kept")
    ap.add_argument("--gpus", type=int, default=2, help="GPUs for the scaling run (1 skips it)")
    args = ap.parse_args()

    backend = "cpu" if args.cpu or not gpu.available() else "gpu"
    profile, options = (("local-cpu", {"n_workers": 1, "threads_per_worker": 1, "dashboard_address": ":0"})
                        if backend == "cpu" else ("local-gpu", {"n_workers": 1, "dashboard_address": ":0"}))
    spec = {"name": "bench", "data": str(Path(args.data).absolute()), "backend": backend,
            "reps": args.reps, "warmup": 1, "verify": True,
            "datasets": [{"generator": "list", "params": {"n": {"pow2": [args.lo, args.hi]}}, "seed": 1}],
            "kernels": listrank_kernels(backend)}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # Generate (and warm every kernel's compilation caches) with a throw-away 1-rep sweep.
        sweep_once({**spec, "name": "warm", "reps": 1, "results": str(folder / "warm")}, profile, options, folder)
        wall, rows = sweep_once({**spec, "results": str(folder / "one")}, profile, options, folder)
        tasks = rows.drop_duplicates("task")
        inside = tasks["kernel_s"].sum()
        out["tasks"] = len(tasks)
        out["sweep wall s (1 worker)"] = wall
        out["inside harness s"] = inside
        # task_s: from the task's start to its rows (loading, harness, ceilings); the rest of the
        # wall time is scheduling, storing results and the client's bookkeeping.
        out["in tasks s"] = tasks["task_s"].sum()
        out["loading s"] = tasks["load_s"].sum()
        for stage in ("prepare", "warmup", "timed", "verify"):  # where the harness's time goes
            out[f"  harness {stage} s"] = tasks[f"{stage}_s"].sum()
        out["timed reps s (CUDA events)"] = rows.loc[rows["phase"] == "total", "ms"].sum() / 1e3
        out["timed-rep share"] = out["timed reps s (CUDA events)"] / wall
        out["outside-kernel share"] = 1 - inside / wall

        biggest = Path(spec["data"]) / f"list_n={2 ** args.hi}_seed=1"
        device = "gpu" if backend == "gpu" else "cpu"
        reader.read(biggest, device=device)  # page cache warm: measure the read and the copy, not the disk
        start = time.perf_counter()
        data = reader.read(biggest, device=device, threads=8)
        if device == "gpu":
            import cupy
            cupy.cuda.get_current_stream().synchronize()
        out["load GB/s"] = data.nbytes / (time.perf_counter() - start) / 1e9
        del data

        if backend == "gpu" and args.gpus > 1:
            import cupy
            if cupy.cuda.runtime.getDeviceCount() >= args.gpus:
                wall2, rows2 = sweep_once({**spec, "name": "two", "results": str(folder / "two")}, profile,
                                          {**options, "n_workers": args.gpus}, folder)
                out[f"sweep wall s ({args.gpus} workers)"] = wall2
                out[f"inside harness s ({args.gpus} workers)"] = rows2.drop_duplicates("task")["kernel_s"].sum()
                out["2-GPU speed-up"] = wall / wall2

    print(f"pipeline benchmark: backend {backend}, lists 2^{args.lo}..2^{args.hi}, {args.reps} reps, "
          f"kernels {', '.join(spec['kernels'])}")
    for name, value in out.items():
        target = TARGETS.get(name)
        verdict = ""
        if target:
            op, bound = target
            ok = value <= bound if op == "<=" else value >= bound
            verdict = f"target {op} {bound:g}: {'ok' if ok else 'MISSED'}"
        print(f"  {name:<28} {value:>12.4g}   {verdict}")


if __name__ == "__main__":
    main()
