"""Pipeline overhead: how much of a sweep's wall time is not kernels, how fast datasets load, and
how sweep throughput scales from one GPU to two — from a run of the shipped sweep
``sweeps/pipeline-shares.yaml`` (its header says how to run it: once to warm, once to measure).

    python3 benchmarks/pipeline.py results/pipeline-shares [results/pipeline-shares-2gpu]

The run is the measurement: its wall time (the run's log: from the first task sent to the last
stored) and its rows (each task's load, harness and task seconds, each timed rep's CUDA-event
time).  Prints, against their targets:
- timed-rep share: the timed kernel reps over the sweep's wall time times its workers (target >= 80% at 5 reps:
  warm-up, checks, verification, loading and scheduling all count against it);
- outside-kernel share: 1 - (time inside the harness, summed over tasks) / (wall time x workers):
  scheduling, loading and result writing (target <= 10%);
- load GB/s: the largest list's load by its task (target >= 2 GB/s);
- two-GPU speed-up: the first run's wall time over the second's, the same sweep on a cluster of
  two GPU workers (target >= 1.8x).
Then where the run's wall time went on its workers (``history.wall_shares``, any sweep's results:
gap-suite's too): in timed reps, in the harness outside them, and outside the harness — the start
(to a worker's first task), loading, the rest of its tasks, the gaps between them, the end (from
its last task) — each in seconds summed over the workers and as a share of the wall times them.
For the run on several workers, its plan against what ran (``history.plan_against_run``): each
worker's planned finish beside its tasks' seconds, and the tasks whose estimate missed most.
``--tasks`` adds one line per task: its seconds per stage and its reps' CUDA-event seconds.
"""

import argparse

from graphsweep.pipeline import history, reduce, store

TARGETS = {"timed-rep share": (">=", 0.80), "outside-kernel share": ("<=", 0.10), "load GB/s": (">=", 2.0),
           "2-GPU speed-up": (">=", 1.8)}


def wall_seconds(results) -> float:
    """The wall time of the last run into ``results``, as its log recorded it."""
    walls = history.run_walls(results)
    if not walls:
        raise SystemExit(f"{results}: no finished run in {results}/{store.LOGS}/ (the wall time comes from the "
                         "run's log)")
    return walls[max(walls)]


def shares(results) -> dict:
    rows = reduce.rows_of(results)
    tasks = rows.drop_duplicates("task")
    wall = wall_seconds(results)
    workers = tasks["worker"].nunique()
    timed = rows[(rows["stage"] == "kernel") & (rows["phase"] == "total") & rows["step"].isna()]
    out = {"tasks": len(tasks), f"sweep wall s ({workers} worker{'s' if workers > 1 else ''})": wall,
           "inside harness s": tasks["kernel_s"].sum(),
           # task_s: from the task's start to its rows (loading, harness, ceilings); the rest of the
           # wall time is scheduling, storing results and the client's bookkeeping
           "in tasks s": tasks["task_s"].sum(), "loading s": tasks["load_s"].sum()}
    for stage in ("prepare", "warmup", "timed", "stats", "verify"):  # where the harness's time goes
        if f"{stage}_s" in tasks:   # stats: results from before it was a stage of its own count it in timed
            out[f"  harness {stage} s"] = tasks[f"{stage}_s"].sum()
    out["timed reps s (CUDA events)"] = timed["ms"].sum() / 1e3
    # host time in the timed stage around the reps' events: queuing them and the one sync after them
    out["  timed stage less events s"] = out["  harness timed s"] - out["timed reps s (CUDA events)"]
    out["timed-rep share"] = out["timed reps s (CUDA events)"] / (wall * workers)
    out["outside-kernel share"] = 1 - out["inside harness s"] / (wall * workers)
    loads = tasks[(tasks["load_s"] > 0) & (tasks["m"].fillna(0) == 0)]   # lists: 4 bytes a node
    if not loads.empty:
        largest = loads.loc[loads["n"].idxmax()]
        out["load GB/s"] = 4 * largest["n"] / largest["load_s"] / 1e9      # succ, int32
    return out


def per_task(results):
    """One row per task, in the order they finished: where its seconds went, and its reps' events."""
    rows = reduce.rows_of(results)
    timed = rows[(rows["stage"] == "kernel") & (rows["phase"] == "total") & rows["step"].isna()]
    tasks = rows.drop_duplicates("task").set_index("task")
    tasks["events_s"] = timed.groupby("task")["ms"].sum() / 1e3
    stages = [c for c in ("load_s", "prepare_s", "warmup_s", "timed_s", "stats_s", "verify_s") if c in tasks]
    return tasks.sort_values(["finished", "n"], ascending=[True, False])[["kernel", "n", *stages, "events_s",
                                                                           "task_s"]]


def print_wall_shares(results) -> None:
    """Where the last run into ``results`` spent its wall time, summed over its workers."""
    out = history.wall_shares(results)
    whole = out["wall"] * out["workers"]
    print(f"wall time of {results} on {out['workers']} worker{'s' * (out['workers'] > 1)}: {out['wall']:.2f} s "
          f"({whole:.2f} worker-seconds)")
    outside = sum(out[k] for k in history.SHARES[2:])
    for name in history.SHARES:
        print(f"  {name:<24} {out[name]:>9.3f} s {out[name] / whole:>7.1%}"
              + ("   target >= 80%" if name == "timed reps" else ""))
    print(f"  {'outside the harness':<24} {outside:>9.3f} s {outside / whole:>7.1%}   target <= 10%")


def print_plan_against_run(results, largest: int = 5) -> None:
    """The run's plan against what ran: each worker's planned finish and its tasks' seconds, and the
    tasks whose estimate missed most (``history.plan_against_run``)."""
    workers, tasks = history.plan_against_run(results)
    if workers is None:
        return
    print(f"plan against run, {results}:")
    for worker, w in workers.iterrows():
        print(f"  {worker:<28} planned {w['planned_s']:>7.2f} s   ran {w['ran_s']:>7.2f} s in {int(w['tasks'])} tasks")
    print(f"  the {min(largest, len(tasks))} estimates that missed most (task seconds less its load):")
    for _, t in tasks.head(largest).iterrows():
        print(f"    {t['kernel']:<28} {t['dataset']:<24} estimate {t['estimate_s']:>7.3f} s  took {t['took_s']:>7.3f} s"
              f"  ({t['off_s']:+.3f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a results folder of sweeps/pipeline-shares.yaml (one GPU worker)")
    ap.add_argument("two", nargs="?", help="the same sweep's results on a cluster of two (or more) GPU workers")
    ap.add_argument("--tasks", action="store_true", help="also print where each task's seconds went")
    args = ap.parse_args()
    out = shares(args.results)
    if args.two:
        two = shares(args.two)
        out.update({f"{k} (second run)": v for k, v in two.items() if k.startswith(("sweep wall", "inside"))})
        workers = reduce.rows_of(args.two).drop_duplicates("task")["worker"].nunique()
        out[f"{workers}-GPU speed-up"] = wall_seconds(args.results) / wall_seconds(args.two)
    rows = reduce.rows_of(args.results)
    print(f"pipeline shares of {args.results}: {', '.join(sorted(rows['kernel'].dropna().unique()))} on "
          f"{', '.join(rows['device'].dropna().unique())}")
    for name, value in out.items():
        target = TARGETS.get(name)
        verdict = ""
        if target:
            op, bound = target
            ok = value <= bound if op == "<=" else value >= bound
            verdict = f"target {op} {bound:g}: {'ok' if ok else 'MISSED'}"
        print(f"  {name:<32} {value:>12.4g}   {verdict}")
    print_wall_shares(args.results)
    if args.two:
        print_wall_shares(args.two)
        print_plan_against_run(args.two)
    if args.tasks:
        print(per_task(args.results).to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
