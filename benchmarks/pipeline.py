"""Pipeline overhead: how much of a sweep's wall time is not kernels, how fast datasets load, and
how sweep throughput scales from one GPU to several — from runs of a shipped sweep:
``sweeps/pipeline-shares.yaml`` for the shares, ``sweeps/gap-scales.yaml`` for the scaling (their
headers say how to run them: once to warm, then once per cluster to measure).

    python3 benchmarks/pipeline.py results/pipeline-shares [results/pipeline-shares-2gpu]
    python3 benchmarks/pipeline.py results/gap-scales-1 results/gap-scales-2 results/gap-scales-4

The run is the measurement: its wall time (the run's log: from the first task sent to the last
stored) and its rows (each task's load, harness and task seconds, each timed rep's CUDA-event
time).  Prints, against their targets:
- timed-rep share: the timed kernel reps over the sweep's wall time times its workers (target >= 80% at 5 reps:
  warm-up, checks, verification, loading and scheduling all count against it);
- outside-kernel share: 1 - (time inside the harness, summed over tasks) / (wall time x workers):
  scheduling, loading and result writing (target <= 10%);
- load GB/s: the largest list's load by its task (target >= 2 GB/s);
- the speed-up on K GPUs: the first run's wall time over each later one's, the same sweep on a
  cluster of K GPU workers.  Issue #34's targets hold for a sweep of 15 s or more on one GPU:
  >= 1.9x on two, >= 3.6x on four; a shorter one is held to issue #21's >= 1.8x on two
  (pipeline-shares).
Then where the run's wall time went on its workers (``history.wall_shares``, any sweep's results:
gap-suite's too): in timed reps, in the harness outside them, and outside the harness — the start
(to a worker's first task), loading, the rest of its tasks, the gaps between them, the end (from
its last task) — each in seconds summed over the workers and as a share of the wall times them.
Each task's first timed rep against its others' median (a first rep that still paid a compilation,
a module's loading or the pool's growth stands out).  For each run on several workers, its plan
against what ran (``history.plan_against_run``): each worker's planned finish beside its tasks'
seconds, how many of them the plan gave another worker (taken at the end), the datasets it loaded
and its first warm-ups of a kernel, and the tasks whose estimate missed most.
``--tasks`` adds one line per task: its seconds per stage and its reps' CUDA-event seconds;
``--csv DIR`` writes each run's tasks (where and when each ran, its seconds per stage) as DIR/NAME.csv.
"""

import argparse
from pathlib import Path

import numpy as np

from graphsweep.pipeline import history, reduce, store
from graphsweep.pipeline.ratios import run_printer

TARGETS = {"timed-rep share": (">=", 0.80), "outside-kernel share": ("<=", 0.10), "load GB/s": (">=", 2.0)}
# Speed-up on K GPUs over one: issue #34's for a sweep of SCALING_SECONDS or more on one GPU, else
# issue #21's (pipeline-shares on two GPUs).
SCALING_SECONDS = 15.0
SPEED_UP = {2: 1.9, 4: 3.6}
SHORT_SPEED_UP = {2: 1.8}


def speed_up_target(workers: int, one_gpu_wall: float) -> tuple | None:
    """The target of a run on ``workers`` GPUs against one of ``one_gpu_wall`` seconds on one."""
    bound = (SPEED_UP if one_gpu_wall >= SCALING_SECONDS else SHORT_SPEED_UP).get(workers)
    return (">=", bound) if bound else None


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
    timed = history.timed_reps(rows)
    out = {"tasks": len(tasks), f"sweep wall s ({workers} worker{'s' if workers > 1 else ''})": wall,
           "inside harness s": tasks["kernel_s"].sum(),
           # task_s: from the task's start to its rows (loading, harness, ceilings); the rest of the
           # wall time is scheduling, storing results and the client's bookkeeping
           "in tasks s": tasks["task_s"].sum(), "loading s": tasks["load_s"].sum()}
    for stage in ("prepare", "warmup", "quiet", "timed", "stats", "verify"):  # where the harness's time goes
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


STAGES = ("load_s", "prepare_s", "warmup_s", "quiet_s", "timed_s", "stats_s", "verify_s")
# What --csv writes per task besides its stages: where and when it ran, and what only a worker's
# first task of a dataset, kernel or module pays.
TASK_COLUMNS = ("worker", "dataset", "kernel", "params", "n", "m", "started_at", "task_s", "kernel_s", "ceilings_s",
                "compile_s", "first_warmup", "first_run_s")


def _tasks(results):
    """One row per task of ``results``, with its reps' events summed (``events_s``: CUDA events on a GPU)."""
    rows = reduce.rows_of(results)
    tasks = rows.drop_duplicates("task").set_index("task")
    tasks["events_s"] = history.timed_reps(rows).groupby("task")["ms"].sum() / 1e3
    return tasks


def task_table(results):
    """One row per task of ``results``, in the order they started: where and when it ran, where its
    seconds went, and its reps' events (CUDA events on a GPU)."""
    tasks = _tasks(results)
    columns = [c for c in (*TASK_COLUMNS, *STAGES) if c in tasks]
    return tasks.sort_values("started_at")[[*columns, "events_s"]]


def per_task(results):
    """One row per task, in the order they finished: where its seconds went, and its reps' events."""
    tasks = _tasks(results)
    stages = [c for c in STAGES if c in tasks]
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
        print(f"  {worker:<28} planned {w['planned_s']:>7.2f} s   ran {w['ran_s']:>7.2f} s in {int(w['tasks'])} tasks "
              f"({int(w['taken'])} planned elsewhere), {int(w['loads'])} loads, {int(w['warm_ups'])} first warm-ups, "
              f"{int(w['samples'])} more on samples")
    print(f"  the {min(largest, len(tasks))} estimates that missed most (its own seconds: less its load, builds, "
          "first warm-ups and first references, which the plan charges its worker once):")
    for _, t in tasks.head(largest).iterrows():
        print(f"    {t['kernel']:<28} {t['dataset']:<24} estimate {t['estimate_s']:>7.3f} s  took {t['took_s']:>7.3f} s"
              f"  ({t['off_s']:+.3f})")


def print_first_reps(results, largest: int = 5, over: float = 1.2) -> None:
    """Each task's first timed rep against the median of its others (per instance): a first rep
    that still paid a compilation, a module's loading or the memory pool's growth stands out (the
    warm-ups on a small graph are to leave none)."""
    rows = reduce.rows_of(results)
    timed = history.timed_reps(rows)
    ratios = []
    for (task, instance), reps in timed.groupby(["task", "instance"]):
        reps = reps.sort_values("rep")["ms"].to_numpy()
        if len(reps) >= 3:
            ratios.append((reps[0] / float(np.median(reps[1:])), task, instance, reps[0]))
    if not ratios:
        return
    ratios.sort(reverse=True)
    kernels = rows.drop_duplicates("task").set_index("task")[["kernel", "dataset"]]
    print(f"first timed rep against the others' median, {results}: {sum(r > over for r, *_ in ratios)} of "
          f"{len(ratios)} instances over {over:g}x")
    for ratio, task, instance, ms in ratios[:largest]:
        print(f"  {ratio:6.2f}x  {kernels.loc[task, 'kernel']:<28} {kernels.loc[task, 'dataset']:<50} instance "
              f"{int(instance)}  first {ms:.3f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a results folder of the sweep run on one GPU worker")
    ap.add_argument("others", nargs="*", help="the same sweep's results on clusters of two (or more) GPU workers")
    ap.add_argument("--tasks", action="store_true", help="also print where each task's seconds went")
    ap.add_argument("--csv", metavar="DIR", help="write each results folder's tasks (task_table) to DIR/NAME.csv")
    args = ap.parse_args()
    out = shares(args.results)
    one = wall_seconds(args.results)
    targets = dict(TARGETS)
    for other in args.others:
        more = shares(other)
        workers = reduce.rows_of(other).drop_duplicates("task")["worker"].nunique()
        out.update({f"{k} ({workers} GPUs)": v for k, v in more.items() if k.startswith("inside")})
        out[f"sweep wall s ({workers} workers)"] = wall_seconds(other)
        out[f"{workers}-GPU speed-up"] = one / wall_seconds(other)
        targets[f"{workers}-GPU speed-up"] = speed_up_target(workers, one)
    rows = reduce.rows_of(args.results)
    print(f"pipeline shares of {args.results}: {', '.join(sorted(rows['kernel'].dropna().unique()))} on "
          f"{', '.join(rows['device'].dropna().unique())}")
    for name, value in out.items():
        target = targets.get(name)
        verdict = ""
        if target:
            op, bound = target
            ok = value <= bound if op == "<=" else value >= bound
            verdict = f"target {op} {bound:g}: {'ok' if ok else 'MISSED'}"
        print(f"  {name:<32} {value:>12.4g}   {verdict}")
    print_wall_shares(args.results)
    print_first_reps(args.results)
    for other in args.others:
        print_wall_shares(other)
        print_plan_against_run(other)
    if args.tasks:
        print(per_task(args.results).to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if args.csv:
        for results in (args.results, *args.others):
            path = Path(args.csv) / f"{Path(results).name}.csv"
            task_table(results).to_csv(path)
            print(f"tasks of {results} -> {path}")


if __name__ == "__main__":
    run_printer(main)
