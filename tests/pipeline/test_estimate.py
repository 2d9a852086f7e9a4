"""What a sweep's estimate says before it runs: the memory a task really holds, and how long the run
takes, learned from earlier runs, the device's ceilings or rough figures, saying which."""

import dataclasses
import json
import tracemalloc

import pytest
from distributed import Client

from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import harness, registry
from graphsweep.pipeline import estimate, eta, history, store, sweep

LIST_KERNELS = [name for name in registry.names() if name not in registry.ALIASES
                and registry.get(name).problem.name == "listrank" and registry.get(name).cpu is not None
                and not registry.get(name).requires]   # scan: ordered lists only


@pytest.mark.parametrize("name", LIST_KERNELS)
def test_a_cpu_list_task_holds_no_more_than_the_memory_check_counts(tmp_path, make_list, name):
    n = 1 << 16
    path = write_arrays(tmp_path / "list", kind="list", n=n, columns={"succ": make_list(n, seed=5)},
                        generator={"name": "random_list", "params": {"n": n}, "seed": 5})
    small = write_arrays(tmp_path / "small", kind="list", n=1000, columns={"succ": make_list(1000, seed=5)},
                         generator={"name": "random_list", "params": {"n": 1000}, "seed": 5})
    harness.run(name, small, backend="cpu", reps=1, warmup=0)    # compiled before measuring
    tracemalloc.start()
    try:
        harness.run(name, path, backend="cpu", reps=4, warmup=1)   # read, checked, run, verified
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= estimate.task_memory("list", n, 0, "cpu"), f"{peak / n:.1f} B per node"


# --- time ---------------------------------------------------------------------------------------------

def _runs(results) -> dict:
    """run id -> wall seconds of the runs into ``results`` (their logs' closing lines)."""
    return history.run_walls(results)


def test_a_second_runs_estimate_lands_within_2x_of_the_first_runs_wall(tmp_path, cluster, cluster_file, gs,
                                                                        write_spec):
    # The runs: ~4.7 min estimated for a 3.7 s run, ~12.1 h for 3.5 min (30-200x).
    warm = write_spec(tmp_path, "warm", kernels=["listrank.sequential"], reps=1)   # makes the data, warms workers
    assert gs("run", warm, "--cluster", "test", "--cluster-file", cluster_file, "--no-report")[0] == 0
    kernels = [{"name": "test.flaky", "params": {"sleep_ms": 150}}, "listrank.wyllie"]
    first, second = (write_spec(tmp_path, name, kernels=kernels, reps=3) for name in ("first", "second"))
    assert gs("run", first, "--cluster", "test", "--cluster-file", cluster_file, "--no-report")[0] == 0
    [first_wall] = _runs(sweep.load(first).results).values()
    plan = sweep.load(second)
    with Client(cluster) as client:
        estimated = eta.forecast(plan, plan.tasks, has_gpu=False, client=client)
    device = harness.device_name("cpu")
    assert estimated.says() == f"from 1 earlier run on {device}"
    assert first_wall / 2 <= estimated.wall(2) <= 2 * first_wall, (estimated.wall(2), first_wall)
    rc, out, err = gs("run", second, "--dry-run")
    assert rc == 0 and any(line.startswith("estimate: ") and line.endswith(f"(from 1 earlier run on {device})")
                           for line in out.splitlines())
    assert gs("run", second, "--cluster", "test", "--cluster-file", cluster_file, "--no-report")[0] == 0
    [second_wall] = _runs(plan.results).values()
    assert second_wall / 2 <= estimated.wall(2) <= 2 * second_wall, (estimated.wall(2), second_wall)


def _record(task="t", kernel="listrank.wyllie", device="cpu-x", elements=1000, runs=2, task_s=1.0, timed_s=0.8,
            gather=0.1, params="{}", run_id="r1", backend="cpu", **more):
    return history.TaskRecord(task, run_id, kernel, params, backend, device, "w", elements, runs, task_s, timed_s,
                              gather, **more)


@pytest.fixture
def plan_of(tmp_path, make_list):
    """A plan of listrank.wyllie (reps 4) on a list of 2000 nodes, and the history it is to learn from."""
    path = write_arrays(tmp_path / "list", kind="list", n=2000, columns={"succ": make_list(2000, seed=1)},
                        generator={"name": "random_list", "params": {"n": 2000}, "seed": 1})
    plan = sweep.expand({"name": "t", "results": str(tmp_path / "results"), "backend": "cpu", "reps": 4,
                         "warmup": 1, "datasets": [{"path": str(path)}], "kernels": ["listrank.wyllie"]})

    def made(records=(), runs=(), ceilings=None):
        history._read.clear()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(history, "earlier", lambda root: (list(records), list(runs)))
            return estimate.times(plan, has_gpu=False, devices={"cpu": "cpu-x"}, ceilings=ceilings)
    return plan, made


def test_each_estimate_names_its_source(plan_of):
    plan, made = plan_of
    [task] = plan.tasks
    load = 8000 / estimate.LOAD_BYTES_PER_SECOND["cpu"]      # 2000 int32 successors, once per worker
    gaps = estimate.ROUGH_PER_TASK_SECONDS["cpu"]            # scheduling and storing, per task
    rough = made()
    table = estimate.ROUGH["cpu"]["listrank"]
    alone = estimate.ROUGH_TASK_SECONDS["cpu"] + 2000 * (table.rest_ns + 4 * table.run_ns) * 1e-9
    # a kernel never run on this device: compiled and warmed up (one run) by its first task on a worker
    warm = estimate.ROUGH_COMPILE_SECONDS["cpu"] + 2000 * table.run_ns * 1e-9
    assert rough.says() == "no history: rough" and rough.start == estimate.ROUGH_START_SECONDS["cpu"]
    assert rough.seconds[task.hash] == pytest.approx(alone + gaps)
    assert rough.loads == {task.dataset.id: load} and rough.warms == {task.kernel: pytest.approx(warm)}
    assert rough.shared()[task.hash] == pytest.approx(alone + gaps + load + warm)
    assert rough.wall(1) == pytest.approx(estimate.ROUGH_RUN_SECONDS["cpu"] + rough.start + rough.shared()[task.hash])
    run = history.RunRecord("r1", "cpu-x", "cpu", wall=3.0, start=1.5, per_task=0.01, outside=0.3)
    # the same task on this device: the median of its own seconds (less loading, checks and
    # compilation: compiled before, nothing to compile again), and the gaps, start and rest of the runs there
    first = _record(task=task.hash, task_s=7.0, prepared_s=4.5, compile_s=4.0, run_id="r7")   # own 7 - 0.5 - 4
    exact = made([first] + [_record(task=task.hash, task_s=s, run_id=f"r{s}") for s in (2.0, 9.0)], [run])
    assert exact.seconds[task.hash] == pytest.approx(2.5 + 0.01) and exact.says() == "from 3 earlier runs on cpu-x"
    assert exact.warms == {task.kernel: 0.0}
    assert exact.start == 1.5 and exact.wall(1) == pytest.approx(0.3 + 1.5 + 2.5 + load + 0.01)
    # its kernel on this device, half the size and half the reps: its runs scaled by both, the rest of
    # its task by size beyond what every task pays
    scaled = made([_record()], [run])
    rest = estimate.ROUGH_TASK_SECONDS["cpu"] + (0.2 - estimate.ROUGH_TASK_SECONDS["cpu"]) * 2
    assert scaled.seconds[task.hash] == pytest.approx(rest + 0.4 * 4 * 2 + 0.01)
    assert scaled.says() == "from 1 earlier run on cpu-x"
    # its kernel on another device whose floor by the byte model (1 GB a run over 10 GB/s) is half this
    # one's (5 GB/s, known from another kernel's rows): its runs take twice as long here
    moved = {"moved": 1e9, "copy": 10.0}
    elsewhere = made([_record(device="cpu-y", **moved), _record(kernel="listrank.sequential", copy=5.0)])
    assert elsewhere.seconds[task.hash] == pytest.approx(rest + 0.4 * 4 * 2 * 2 + gaps)
    assert elsewhere.says() == "from the device's ceilings"
    # without a byte model, the ratio of the gather rates (the workers' own, where no row has them)
    by_gather = made([_record(device="cpu-y", gather=0.2)], ceilings={"cpu": {"gather_gelems": 0.1}})
    assert by_gather.seconds[task.hash] == pytest.approx(rest + 0.4 * 4 * 2 * 2 + gaps)
    assert by_gather.start == 0.0        # workers that measured their ceilings pay none again
    # no record of the kernel anywhere, the device's ceilings known: the rough runs at the ratio of
    # this device's floor to the reference device's, by the problem's byte model
    reference = estimate.REFERENCE_CEILINGS["cpu"]
    slow = made([_record(kernel="listrank.sequential", gather=reference["gather_gelems"] / 10,
                         copy=reference["copy_gbps"] / 10)])
    assert slow.says() == "from the device's ceilings"
    tenfold = estimate.ROUGH_TASK_SECONDS["cpu"] + 2000 * (table.rest_ns + 4 * table.run_ns * 10) * 1e-9
    assert slow.seconds[task.hash] == pytest.approx(tenfold + gaps)
    assert slow.warms[task.kernel] == pytest.approx(estimate.ROUGH_COMPILE_SECONDS["cpu"]
                                                   + 2000 * table.run_ns * 10 * 1e-9)
    mixed = estimate.TimeEstimate({"a": 1.0, "b": 2.0, "c": 3.0}, {"a": "history", "b": "rough", "c": "rough"},
                                  {"a": frozenset({"r1"}), "b": frozenset(), "c": frozenset()}, 0.0, 0.0,
                                  {"gpu": "NVIDIA H100"}, {}, overhead=0.5)
    assert mixed.says() == "1 task from 1 earlier run on NVIDIA H100, 2 tasks rough (no history)"
    assert mixed.part({"b", "c"}).says() == "no history: rough" and mixed.wall(2) == 3.5


def test_of_two_earlier_runs_of_a_task_the_faster_counts(plan_of):
    # a sweep's first run on a device pays what later runs find done (a task alone with its kernel on
    # its graph computed the references its verifier keeps beside the dataset): its seconds beside a
    # later run's made gap-scales' four-GPU plan ~30% long and uneven (BFS on R-MAT 22: 0.41 s
    # estimated, 0.13 s taken)
    plan, made = plan_of
    [task] = plan.tasks
    run = history.RunRecord("r1", "cpu-x", "cpu", wall=3.0, start=1.5, per_task=0.01, outside=0.3)
    first, later = (_record(task=task.hash, task_s=s, timed_s=0.1, run_id=r) for s, r in ((1.0, "r1"), (0.3, "r2")))
    assert made([first, later], [run]).seconds[task.hash] == pytest.approx(0.3 + 0.01)
    assert made([later, first], [run]).seconds[task.hash] == pytest.approx(0.3 + 0.01)
    # and what a worker pays once: a first verification that computed references in the first run
    # and read them in the second
    dataset = plan.datasets[0].id
    refs = [_record(task=task.hash, run_id=r, dataset=dataset, first_refs_s=s) for s, r in ((0.5, "r1"), (0.01, "r2"))]
    assert made(refs, [run]).firsts == {(dataset, task.kernel): pytest.approx(0.01)}


def test_a_datasets_loading_and_a_kernels_compilation_are_paid_once_not_by_every_task(plan_of):
    plan, made = plan_of
    [task] = plan.tasks
    dataset = plan.datasets[0].id
    # two earlier runs: a worker's first task on the dataset loaded and checked it (0.3 s, 0.5 s)
    # and compiled the checks (0.2 s more, counted against the checks first); another task on it
    # paid 0.1 s for a representation of its own
    first = [_record(task=task.hash, run_id=r, dataset=dataset, task_s=2.0 + once + 0.2, prepared_s=once + 0.2,
                     compile_s=0.2) for r, once in (("r1", 0.3), ("r2", 0.5))]
    other = _record(task="u", run_id="r1", dataset=dataset, task_s=0.4, prepared_s=0.1)
    learned = made(first + [other])
    assert [r.once_s for r in first] == pytest.approx([0.3, 0.5]) and other.once_s == pytest.approx(0.1)
    # per run, per worker: summed; of the runs, the lower median (of two, the faster: 0.3 + 0.1 against 0.5)
    assert learned.loads == {dataset: pytest.approx(0.3 + 0.1)}
    # the task's own seconds: less its loading and compilation (2.0 in either run); nothing compiled
    # again (its kernel ran on this device before); its share of the dataset's loading (its only task)
    gaps = estimate.ROUGH_PER_TASK_SECONDS["cpu"]
    assert learned.seconds[task.hash] == pytest.approx(2.0 + gaps)
    assert learned.shared()[task.hash] == pytest.approx(2.0 + gaps + 0.4)
    # a worker's first warm-up of a kernel is the kernel's, once per worker, not the task's that paid it
    warmed = made([_record(task=task.hash, task_s=3.0, prepared_s=0.2, first_warmup_s=0.7, compile_s=0.5),
                   _record(task="u", task_s=1.0, first_warmup_s=0.0)])
    assert warmed.warms == {task.kernel: pytest.approx(0.7 - (0.5 - 0.2))}   # less its compilation beyond the checks
    assert warmed.seconds[task.hash] == pytest.approx(3.0 - 0.4 - 0.5 + gaps)


def test_what_the_workers_hold_already_is_not_paid_again(plan_of):
    plan, made = plan_of
    [task] = plan.tasks
    fresh = made()
    assert fresh.loads[task.dataset.id] > 0 and fresh.warms[task.kernel] > 0
    with pytest.MonkeyPatch.context() as mp:   # as eta.forecast learns it from the connected workers
        mp.setattr(history, "earlier", lambda root: ([], []))
        held = estimate.times(plan, has_gpu=False, devices={"cpu": "cpu-x"}, held={task.dataset.path},
                              warmed={task.kernel})
    assert held.loads == {task.dataset.id: 0.0} and held.warms == {task.kernel: 0.0}
    assert held.shared() == held.seconds == fresh.seconds


def test_the_estimate_line_counts_the_workers_a_local_profile_starts(tmp_path, gs, write_spec, cluster_file):
    spec = write_spec(tmp_path, "two", kernels=["listrank.sequential"])
    rc, out, err = gs("run", spec, "--dry-run", "--cluster", "local-cpu", "--cluster-file", cluster_file)
    assert rc == 0, err
    [line] = [line for line in out.splitlines() if line.startswith("estimate: ")]
    assert " on 2 workers (no history: rough)" in line       # was "one task at a time" whatever the cluster


def test_a_runs_time_outside_its_tasks_less_its_generation(tmp_path):
    def task(worker, start, seconds, ceilings=0.0):
        return history.TaskRecord("t", "r", "k", "{}", "cpu", "cpu-x", worker, 10, 1, seconds, seconds / 2, None,
                                  ceilings, started_at=start)
    # two workers: w1 busy 1.0 + 2.0 s (with 0.5 s of ceilings), w2 1.5 s; the span 100.0 .. 103.5
    tasks = [task("w1", 100.0, 1.0, 0.5), task("w1", 101.5, 2.0), task("w2", 100.2, 1.5)]
    run = history._run_record("r", 5.0, 0.8, tasks)
    assert run.start == 0.5 and run.per_task == pytest.approx((3.5 - 3.5) / 2)
    assert run.outside == pytest.approx(5.0 - 3.5 - 0.8)       # before the first task and after the last
    logs = tmp_path / store.LOGS
    logs.mkdir()
    (logs / "r.log").write_text("... INFO graphsweep.run: run r finished in 5.0 s: {'ok': 3, 'failed': 0, "
                                "'stopped': 0, 'generate_s': 8e-05, 'seconds': 5.01}\n"
                                "... INFO graphsweep.run: run q finished in 2.5 s: {'ok': 3, 'seconds': 2.5}\n")
    assert history.run_walls(tmp_path, generation=True) == {"r": (5.01, 8e-05), "q": (2.5, 0.0)}
    assert history.run_walls(tmp_path) == {"r": 5.01, "q": 2.5}


# The sweeps and the published *.best ones: (results folder, device) of their runs.
PUBLISHED = ["pipeline-shares", "gap-suite", "bfs-best", "sssp-best", "listrank-time-vs-n", "apsp"]


@pytest.mark.parametrize("name", PUBLISHED)
def test_the_rough_source_lands_within_2x_of_the_published_runs(name):
    # The rough figures were 10 ns per element and run and 0.5 s a task on a GPU: pipeline-shares
    # ~4.7 min for 3.7 s, gap-suite ~9.7 min for 19.7 s.  Each task's work (not its dataset's load)
    # by the rough source, summed, against what the published run's workers spent on them.
    import pandas as pd
    from types import SimpleNamespace
    rows = pd.read_parquet(f"{__file__.rsplit('/tests/', 1)[0]}/docs/results/{name}/results.parquet",
                           columns=["task", "kernel", "backend", "n", "m", "phase", "step", "stage", "task_s"])
    timed = rows[(rows.phase == "total") & rows.step.isna() & (rows.stage.fillna("kernel") == "kernel")]
    tasks = timed.groupby("task").agg(kernel=("kernel", "first"), backend=("backend", "first"), n=("n", "first"),
                                      m=("m", "first"), runs=("kernel", "size"), task_s=("task_s", "first"))
    rough = 0.0
    for t in tasks.itertuples():
        problem = registry.get(t.kernel).problem
        elements = problem.elements(SimpleNamespace(n=int(t.n), m=0 if pd.isna(t.m) else int(t.m)))
        rough += estimate._rough(problem.name, t.backend, elements, t.runs, None)
    assert tasks.task_s.sum() / 2 <= rough <= 2 * tasks.task_s.sum(), (rough, tasks.task_s.sum())


def test_a_second_estimate_from_a_run_whose_compilation_dominated_lands_within_2x(plan_of, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    plan, made = plan_of
    [task] = plan.tasks

    def task_file(name, run_id, task_s, warmup_s, first_run_s):
        """The rows of one task as a worker writes them: 4 timed reps of 0.1 s, its timing columns."""
        path = tmp_path / f"{name}.parquet"
        timing = {"task": task.hash, "run_id": run_id, "dataset": task.dataset.id, "kernel": task.kernel,
                  "params": "{}", "backend": "cpu", "device": "cpu-x", "worker": "w", "elements": 2000,
                  "stage": "kernel", "phase": "total", "step": None, "ms": 100.0, "task_s": task_s, "timed_s": 0.4,
                  "load_s": 0.0, "prepare_s": 0.05, "warmup_s": warmup_s, "first_warmup": False,
                  "compile_s": 0.0, "first_run_s": first_run_s}
        pq.write_table(pa.Table.from_pylist([timing] * 4), path)
        return history._task_records(path)

    # a fresh machine's run: the task's first timed rep compiled its module (1.5 s) and ran again
    first = task_file("first", "r1", task_s=2.1, warmup_s=1.6, first_run_s=1.5)
    # the second run loads the module from the disk cache: its task takes 0.6 s
    second = task_file("second", "r2", task_s=0.6, warmup_s=0.0, first_run_s=0.0)
    estimated = made(first)
    assert estimated.says() == "from 1 earlier run on cpu-x"
    took = sum(r.task_s for r in second)
    assert took / 2 <= estimated.seconds[task.hash] <= 2 * took     # was 2.06 s: 3.4x
    assert first[0].own_s == pytest.approx(2.1 - 0.05 - 1.5)         # less its checks and the rep run again


def test_the_references_a_kernels_first_verification_on_a_graph_keeps_are_paid_once_per_worker(plan_of):
    # BC's Brandes from each root, a triangle count: the first task of a kernel on a graph verifies
    # against references it computes and keeps; the others on that worker reuse them.  Each worker
    # its tasks there are split over pays them again, so they are the pair's, not that task's.
    plan, made = plan_of
    [task] = plan.tasks
    dataset = plan.datasets[0].id

    def record(name, started, verify_s, worker="w", run_id="r1"):
        return dataclasses.replace(_record(task=name, run_id=run_id, dataset=dataset, task_s=1.0 + verify_s,
                                           verify_s=verify_s, started_at=started), worker=worker)
    # two workers ran three tasks of the kernel each; the first on each computed the references (0.5 s)
    ran = history.with_first_refs([record(task.hash, 1.0, 0.6), record("u", 2.0, 0.1), record("v", 3.0, 0.1),
                                   record("x", 1.0, 0.7, "w2"), record("y", 2.5, 0.2, "w2"),
                                   record("z", 4.0, 0.2, "w2")])
    assert [r.first_refs_s for r in ran] == pytest.approx([0.5, 0, 0, 0.5, 0, 0])
    assert ran[0].own_s == pytest.approx(ran[1].own_s)                  # its own seconds: as the others'
    assert history.with_first_refs([record("lone", 1.0, 0.6)])[0].first_refs_s == 0   # nothing to tell it from
    learned = made(ran)
    assert learned.firsts == {(dataset, task.kernel): pytest.approx(0.5)}
    assert learned.shared()[task.hash] == pytest.approx(learned.seconds[task.hash] + learned.loads[dataset]
                                                        + learned.warms[task.kernel] + 0.5)


def test_each_tasks_checks_are_its_own_and_a_kernels_builds_its_first_tasks_not_the_graphs_load(plan_of):
    # A worker read the graph (0.4 s) with its first task, whose checks took 0.1 s as every task's do;
    # on another worker a second kernel's first task built a representation of its own (0.25 s more).
    # Before, all of it was the graph's load: 0.4 + 4 x 0.1 on the first worker, charged to each
    # worker a plan split the graph over (the 4-GPU gap-scales sweep: 0.1-0.25 s a graph and worker).
    plan, made = plan_of
    [task] = plan.tasks
    dataset = plan.datasets[0].id

    def record(name, started, prepare, load=0.0, kernel=task.kernel, worker="w"):
        return dataclasses.replace(_record(task=name, kernel=kernel, dataset=dataset, task_s=1.0 + load + prepare,
                                           prepared_s=load + prepare, load_s=load, started_at=started), worker=worker)
    ran = history.with_first_refs(
        [record(task.hash, 1.0, 0.1, load=0.4)] + [record(f"u{i}", 2.0 + i, 0.1) for i in range(3)]
        + [record("v0", 1.0, 0.1, load=0.3, kernel="listrank.sequential", worker="w2")]   # opened the graph there
        + [record("x0", 2.0, 0.3, worker="w2")] + [record(f"x{i}", 2.0 + i, 0.05, worker="w2") for i in (1, 2)])
    assert [r.once_s for r in ran[:4]] == pytest.approx([0.4, 0, 0, 0])     # its read; its checks: its own
    assert ran[0].own_s == pytest.approx(ran[1].own_s) == pytest.approx(1.1)
    assert ran[5].first_build_s == pytest.approx(0.25) and ran[5].first_s == pytest.approx(0.25)   # x0: the pair's
    assert ran[5].own_s == pytest.approx(ran[6].own_s) == pytest.approx(1.05)
    assert ran[4].once_s == pytest.approx(0.4)       # v0, alone of its kernel there: what it prepared, the graph's
    learned = made(ran)
    assert learned.loads == {dataset: pytest.approx(0.4)}            # was 0.8: every task's checks
    assert learned.seconds[task.hash] == pytest.approx(1.1 + estimate.ROUGH_PER_TASK_SECONDS["cpu"])
    # a plan over two workers charges each the graph's read, not its tasks' checks twice
    from types import SimpleNamespace
    from graphsweep.pipeline import runner
    todo = [SimpleNamespace(hash=h, dataset=SimpleNamespace(id=dataset), kernel=task.kernel)
            for h in (task.hash, "u0", "u1", "u2")]
    seconds = {t.hash: 1.1 for t in todo}
    owner = {t.hash: "ab"[i % 2] for i, t in enumerate(todo)}
    assert runner.finishes(owner, todo, runner.Costs(seconds, learned.loads)) == pytest.approx({"a": 2.6, "b": 2.6})


def test_a_kernels_warm_up_on_a_generators_sample_is_paid_once_per_worker_and_key(tmp_path):
    # On a large generated graph each (kernel, parameters) warms up once per worker on a small sample
    # of the generator's shape (samples.warm_up_key), for every graph of that generator: R-MAT at
    # scales 19 and 20 share it.  One worker ran the four tasks: alpha 14 at scale 20 first (the
    # kernel's first warm-up, 0.3 s), then alpha 15 at scale 20 (its sample warm-up, 0.2 s), then
    # both at scale 19 (nothing to warm up).  Before, the 0.2 s was that one task's own: a plan
    # splitting the graphs over two workers charged it to one of them, though each paid it (the
    # 4-GPU gap-scales sweep: 0.70 s of warm-ups against 0.27 s on one GPU).
    import pyarrow as pa
    import pyarrow.parquet as pq
    from graphsweep.pipeline import runner, samples
    plan = sweep.expand({"name": "t", "results": str(tmp_path / "results"), "data": str(tmp_path / "data"),
                         "backend": "cpu", "reps": 1, "warmup": 1,
                         "datasets": [{"generator": "rmat", "params": {"scale": [19, 20], "edge_factor": 16},
                                       "seed": 1}],
                         "kernels": [{"name": "bfs.direction-optimizing", "params": {"alpha": [14.0, 15.0]}}]})
    by = {(t.dataset.params["scale"], t.params["alpha"]): t for t in plan.tasks}
    ran = [((20, 14.0), 0.3, True), ((20, 15.0), 0.2, False), ((19, 14.0), 0.0, False), ((19, 15.0), 0.0, False)]
    rows = [{"task": by[k].hash, "run_id": "r1", "dataset": by[k].dataset.id, "kernel": by[k].kernel,
             "params": json.dumps(by[k].params, sort_keys=True, default=str), "backend": "cpu", "device": "cpu-x",
             "worker": "w", "n": 1 << k[0], "m": 16 << k[0], "elements": 16 << k[0], "stage": "kernel",
             "phase": "total", "step": None, "ms": 800.0, "task_s": 1.0 + warm, "timed_s": 0.8, "load_s": 0.0,
             "prepare_s": 0.0, "warmup_s": warm, "first_warmup": first, "compile_s": 0.0, "first_run_s": 0.0,
             "started_at": 100.0 + i, "generator": "rmat", "dataset_params": json.dumps(by[k].dataset.params,
                                                                                       sort_keys=True),
             "seed": 1} for i, (k, warm, first) in enumerate(ran)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "tasks.parquet")
    records = {r.task: r for r in history.with_first_refs(history._task_records(tmp_path / "tasks.parquet"))}
    key = records[by[20, 15.0].hash].warm_key
    assert key is not None and records[by[19, 15.0].hash].warm_key == key     # one sample for both scales
    assert key == samples.warm_up_key(by[19, 15.0].kernel, by[19, 15.0].params, {
        "name": "rmat", "params": by[19, 15.0].dataset.params, "seed": 1}, 16 << 19, "cpu")   # the worker's
    assert [records[by[k].hash].sample_s for k, _, _ in ran] == pytest.approx([0, 0.2, 0, 0])
    assert records[by[20, 14.0].hash].kernel_once_s == pytest.approx(0.3)     # the kernel's first: as before
    assert all(r.own_s == pytest.approx(1.0) for r in records.values())     # the warm-ups: none a task's own
    history._read.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(history, "earlier", lambda root: (list(records.values()), []))
        learned = estimate.times(plan, has_gpu=False, devices={"cpu": "cpu-x"})
    assert learned.samples == {by[s, 15.0].hash: (key, pytest.approx(0.2)) for s in (19, 20)}
    assert learned.warms == {by[20, 14.0].kernel: pytest.approx(0.3)}
    assert sum(learned.shared().values()) == pytest.approx(sum(learned.seconds.values()) + 0.3 + 0.2)
    # split by graph over two workers, each pays the kernel's warm-up and alpha 15's on the sample
    owner = {t.hash: {20: "a", 19: "b"}[t.dataset.params["scale"]] for t in plan.tasks}
    each = 2 * learned.seconds[by[19, 14.0].hash] + 0.3 + 0.2
    costs = runner.Costs(learned.seconds, learned.loads, warm=learned.warms, first=learned.firsts,
                         sample=learned.samples)
    assert runner.finishes(owner, plan.tasks, costs) == pytest.approx({"a": each, "b": each})


def test_a_dataset_not_made_yet_is_costed_from_every_resolved_parameter(tmp_path, monkeypatch):
    """The generator's cost model gets the parameters as the spec's reading resolved them: the
    dataset's identity leaves out those at a default it omits (``permute_ids``)."""
    from graphsweep.generators import estimate as generator_estimate
    plan = sweep.expand({"name": "t", "results": str(tmp_path / "results"), "data": str(tmp_path / "data"),
                         "backend": "cpu", "datasets": [{"generator": "rmat", "params": {"scale": 6}}],
                         "kernels": ["cc.best"]})
    (ref,) = plan.datasets
    assert "permute_ids" not in ref.params and "permute_ids" in ref.resolved
    given = []
    cost = generator_estimate.generation_cost
    monkeypatch.setattr(generator_estimate, "generation_cost",
                        lambda generator, params, **kw: given.append(params) or cost(generator, params, **kw))
    assert estimate.shape(plan, ref).n == 64
    assert given == [ref.resolved]
