"""What a sweep's estimate says before it runs: the memory a task really holds, and how long the run
takes, learned from earlier runs, the device's ceilings or rough figures, saying which."""

import tracemalloc

import pytest
from distributed import Client

from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import harness, registry
from graphsweep.pipeline import estimate, eta, history, sweep

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
            gather=0.1, params="{}", run_id="r1", backend="cpu"):
    return history.TaskRecord(task, run_id, kernel, params, backend, device, "w", elements, runs, task_s, timed_s,
                              gather)


@pytest.fixture
def plan_of(tmp_path, make_list):
    """A plan of listrank.wyllie (reps 4) on a list of 2000 nodes, and the history it is to learn from."""
    path = write_arrays(tmp_path / "list", kind="list", n=2000, columns={"succ": make_list(2000, seed=1)},
                        generator={"name": "random_list", "params": {"n": 2000}, "seed": 1})
    plan = sweep.expand({"name": "t", "results": str(tmp_path / "results"), "backend": "cpu", "reps": 4,
                         "warmup": 1, "datasets": [{"path": str(path)}], "kernels": ["listrank.wyllie"]})

    def made(records=(), runs=()):
        history._read.clear()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(history, "earlier", lambda root: (list(records), list(runs)))
            return estimate.times(plan, has_gpu=False, devices={"cpu": "cpu-x"})
    return plan, made


def test_each_estimate_names_its_source(plan_of):
    plan, made = plan_of
    [task] = plan.tasks
    rough = made()
    assert rough.says() == "no history: rough" and rough.start == estimate.ROUGH_START_SECONDS["cpu"]
    per_element = estimate.ROUGH_TASK_NS_PER_ELEMENT["cpu"] + (1 + 4) * estimate.ROUGH_NS_PER_ELEMENT_RUN["cpu"]
    alone = estimate.ROUGH_TASK_SECONDS["cpu"] + 8000 / estimate.LOAD_BYTES_PER_SECOND + 2000 * per_element * 1e-9
    gaps = estimate.ROUGH_PER_TASK_SECONDS["cpu"]           # scheduling and storing, per task
    assert rough.seconds[task.hash] == pytest.approx(alone + gaps)
    run = history.RunRecord("r1", "cpu-x", "cpu", wall=3.0, start=1.5, per_task=0.01)
    # the same task on this device: the median of its times, and the gaps and start of the runs there
    exact = made([_record(task=task.hash, task_s=s, run_id=f"r{s}") for s in (1.0, 2.0, 9.0)], [run])
    assert exact.seconds[task.hash] == pytest.approx(2.0 + 0.01) and exact.says() == "from 3 earlier runs on cpu-x"
    assert exact.start == 1.5 and exact.wall(1) == pytest.approx(1.5 + 2.01)
    # its kernel on this device, half the size and half the reps: scaled by both
    scaled = made([_record()], [run])
    assert scaled.seconds[task.hash] == pytest.approx((0.2 + 0.4 * 4) * 2 + 0.01)
    assert scaled.says() == "from 1 earlier run on cpu-x"
    # its kernel on another device of twice the gather rate of this one (known from another kernel's rows)
    elsewhere = made([_record(device="cpu-y", gather=0.2), _record(kernel="listrank.sequential", gather=0.1)])
    assert elsewhere.seconds[task.hash] == pytest.approx((0.2 + 0.4 * 4) * 2 * 2 + gaps)
    assert elsewhere.says() == "from the device's ceilings"
    # no record of the kernel anywhere, the device's ceiling known: the rough time at this device's rate
    ceilings = made([_record(kernel="listrank.sequential", gather=0.016)])
    assert ceilings.says() == "from the device's ceilings"
    assert ceilings.seconds[task.hash] == pytest.approx(alone * 0.16 / 0.016 + gaps)
    mixed = estimate.TimeEstimate({"a": 1.0, "b": 2.0, "c": 3.0}, {"a": "history", "b": "rough", "c": "rough"},
                                  {"a": frozenset({"r1"}), "b": frozenset(), "c": frozenset()}, 0.0, 0.0,
                                  {"gpu": "NVIDIA H100"}, {})
    assert mixed.says() == "1 task from 1 earlier run on NVIDIA H100, 2 tasks rough (no history)"
    assert mixed.part({"b", "c"}).says() == "no history: rough" and mixed.wall(2) == 3.0
