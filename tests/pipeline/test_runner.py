"""Task order: longest first by the estimate, grouped by dataset; each task's worker (a dataset kept
whole unless splitting it ends sooner); a worker's memory pool grown for a dataset as it loads."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from graphsweep.core.workers import live_workers
from graphsweep.datasets.writer import write_arrays
from graphsweep.pipeline import estimate, reduce, runner, sweep


def _list(tmp_path, name, n):
    succ = np.minimum(np.arange(1, n + 1), n - 1)
    return str(write_arrays(tmp_path / name, kind="list", n=n, columns={"succ": succ},
                            generator={"name": "ordered-list", "params": {"n": n}, "seed": 1}))


def test_longest_first_grouped_by_dataset(tmp_path):
    small, big = _list(tmp_path, "small", 100), _list(tmp_path, "big", 5000)
    plan = sweep.expand({"name": "order", "results": str(tmp_path / "results"), "backend": "cpu",
                         "datasets": [{"path": small}, {"path": big}],
                         "kernels": [{"name": "listrank.sequential"}, {"name": "listrank.wyllie"}]})

    def ranked(seconds):
        priority = runner._priorities(plan.tasks, seconds)
        return sorted(plan.tasks, key=lambda t: -priority[t.key])

    # Without history the estimate grows with size: the larger dataset first, then plan order.
    rough = estimate.times(plan, has_gpu=False).seconds
    assert [t.dataset.path for t in ranked(rough)] == [big, big, small, small]
    # A dataset whose tasks take longer goes first whatever its size; within it, the longest task first.
    slow = {t.hash: (9.0 if t.kernel == "listrank.wyllie" else 1.0) * (3 if t.dataset.path == small else 1)
            for t in plan.tasks}
    order = ranked(slow)
    assert [(t.dataset.path, t.kernel) for t in order] == [(small, "listrank.wyllie"), (small, "listrank.sequential"),
                                                           (big, "listrank.wyllie"), (big, "listrank.sequential")]
    assert [t.index for t in ranked(dict.fromkeys(slow, 1.0))] == [0, 1, 2, 3]   # ties: plan order


def _task(dataset, i, kernel="k"):
    return SimpleNamespace(dataset=SimpleNamespace(id=dataset), hash=f"{dataset}-{i}", kernel=kernel)


def _finish(owner, todo, seconds, load):
    """Each worker's finish: its tasks' seconds plus one loading of each dataset it runs."""
    out = {}
    for w in set(owner.values()):
        mine = [t for t in todo if owner[t.hash] == w]
        out[w] = sum(seconds[t.hash] for t in mine) + sum(load[d] for d in {t.dataset.id for t in mine})
    return out


def test_owners_keep_datasets_whole_while_that_keeps_workers_balanced():
    todo = [_task(d, i) for d, count in (("big", 2), ("mid", 3), ("small", 4), ("tiny", 1)) for i in range(count)]
    seconds = {t.hash: {"big": 10.0, "mid": 4.0, "small": 1.0, "tiny": 0.5}[t.dataset.id] for t in todo}
    load = dict.fromkeys(("big", "mid", "small", "tiny"), 1.0)
    owner = runner.owners(todo, ["B", "A"], runner.Costs(seconds, load))
    # big (20 s) to A; mid (12 s) to B; small (4 s) and tiny (0.5 s) to B: no move ends sooner than A's 21 s
    by_dataset = {t.dataset.id: owner[t.hash] for t in todo}
    assert by_dataset == {"big": "A", "mid": "B", "small": "B", "tiny": "B"}
    assert {t.dataset.id: w for t in todo for w in [owner[t.hash]]} == by_dataset       # no dataset split
    assert set(runner.owners(todo, ["only"], runner.Costs(seconds, load)).values()) == {"only"}
    assert runner.owners(todo, [], runner.Costs(seconds, load)) == {}
    # a worker that holds a dataset from an earlier run keeps it
    kept = runner.owners(todo, ["A", "B"], runner.Costs(seconds, load, held={"B": "big"}))
    assert {t.dataset.id: kept[t.hash] for t in todo}["big"] == "B"


def test_owners_split_a_dataset_rather_than_idle_workers():
    # gap-suite: two datasets and four GPUs; each dataset on one worker left two idle.
    todo = [_task(d, i) for d in ("kron", "urand") for i in range(12)]
    seconds = {t.hash: 1.0 for t in todo}
    load = {"kron": 0.5, "urand": 0.5}
    owner = runner.owners(todo, ["w0", "w1", "w2", "w3"], runner.Costs(seconds, load))
    finish = _finish(owner, todo, seconds, load)
    assert set(finish) == {"w0", "w1", "w2", "w3"} and max(finish.values()) == 6.5    # 24 s of tasks over 4
    # a dataset whose loading costs more than splitting saves stays whole
    assert len(set(runner.owners(todo[:2], ["w0", "w1"], runner.Costs(seconds, {"kron": 5.0})).values())) == 2
    assert len(set(runner.owners(todo[:2] + [_task("other", 0)], ["w0", "w1"], runner.Costs(
        {**seconds, "other-0": 8.0}, {"kron": 5.0, "other": 1.0})).values())) == 2
    rng = np.random.default_rng(4)
    for trial in range(30):  # never worse than whole datasets placed longest first (LPT), every task placed
        count = int(rng.integers(1, 8))
        todo = [_task(f"d{d}", i) for d in range(count) for i in range(int(rng.integers(1, 6)))]
        seconds = {t.hash: float(rng.exponential()) for t in todo}
        load = {f"d{d}": float(rng.exponential()) / 2 for d in range(count)}
        workers = [f"w{i}" for i in range(int(rng.integers(1, 5)))]
        owner = runner.owners(todo, workers, runner.Costs(seconds, load))
        assert set(owner) == {t.hash for t in todo} and set(owner.values()) <= set(workers)
        whole = dict.fromkeys(workers, 0.0)
        for d in sorted(load, key=lambda d: -sum(seconds[t.hash] for t in todo if t.dataset.id == d)):
            w = min(whole, key=whole.get)
            whole[w] += sum(seconds[t.hash] for t in todo if t.dataset.id == d) + load[d]
        assert max(_finish(owner, todo, seconds, load).values()) <= max(whole.values()) + 1e-9


def test_owners_keep_a_kernels_tasks_together_where_its_warm_up_costs():
    # one dataset, two kernels of four 1-second tasks, two workers: each worker's first task of a
    # kernel pays its warm-up (0.6 s), so the split keeps each kernel on one worker
    todo = [_task("d", f"{k}{i}", kernel=k) for i in range(4) for k in ("a", "b")]      # a0 b0 a1 b1 ...
    seconds = dict.fromkeys((t.hash for t in todo), 1.0)
    owner = runner.owners(todo, ["w0", "w1"], runner.Costs(seconds, {"d": 0.0}, warm={"a": 0.6, "b": 0.6}))
    assert {k: {owner[t.hash] for t in todo if t.kernel == k} for k in "ab"} in (
        {"a": {"w0"}, "b": {"w1"}}, {"a": {"w1"}, "b": {"w0"}})
    # without warm-ups to pay, the same balance
    free = runner.owners(todo, ["w0", "w1"], runner.Costs(seconds, {"d": 0.0}))
    assert list(free.values()).count("w1") == 4


# gap-suite's tasks on one H200 (seconds between task ends in docs/results/several-gpus/round6's
# one-GPU log, its first task less its dataset's loading): dataset -> kernel -> its tasks' seconds
GAP_SUITE = {"kron": {"tc": [1.4, 0.6, 0.9, 0.6, 0.6, 0.6, 0.4], "bc": [0.6, 0.8, 0.7, 0.6], "sssp": [0.3],
                      "pr-pull": [0.6], "pr-warp": [0.5, 0.2, 0.2, 0.1, 0.1, 0.2, 0.1], "cc": [0.05], "bfs": [0.2],
                      "pr-spmv": [0.1]},
             "urand": {"bc": [0.9, 0.7, 0.7, 0.7], "sssp": [0.3], "tc": [0.1, 0.1, 0.2, 0.1, 0.1, 0.2, 0.1],
                       "pr-warp": [0.1, 0.1, 0.05, 0.1, 0.05, 0.1, 0.05], "cc": [0.05], "bfs": [0.1],
                       "pr-pull": [0.05], "pr-spmv": [0.1]}}


@pytest.mark.parametrize("workers", [2, 4])
def test_owners_load_each_dataset_on_few_workers_and_end_near_the_ideal(workers):
    todo, seconds = [], {}
    for dataset, kernels in GAP_SUITE.items():
        for kernel, times in kernels.items():
            for i, s in enumerate(times):
                todo.append(_task(dataset, f"{kernel}{i}", kernel=kernel))
                seconds[todo[-1].hash] = s
    load = {"kron": 0.8, "urand": 0.8}                      # a dataset's load and builds on a worker
    warm = dict.fromkeys({t.kernel for t in todo}, 0.15)    # a kernel's first warm-up on a worker
    names = [f"w{i}" for i in range(workers)]
    costs = runner.Costs(seconds, load, warm=warm)
    owner = runner.owners(todo, names, costs)
    finish = runner.finishes(owner, todo, costs)
    # a load on every worker and one warm-up of each kernel, shared evenly: no plan ends sooner
    ideal = (sum(seconds.values()) + workers * 0.8 + sum(warm.values())) / workers
    assert max(finish.values()) <= 1.15 * ideal       # whole datasets then single moves: 1.175x on 4
    # each worker's tasks a run of datasets, so at most workers - 1 datasets are split
    loaded = {(owner[t.hash], t.dataset.id) for t in todo}
    assert len(loaded) <= len(GAP_SUITE) + workers - 1


def test_one_warm_up_per_worker_for_a_kernel_whatever_its_parameters(monkeypatch):
    from graphsweep.pipeline import worker
    monkeypatch.setattr(worker.cuda, "l2_bytes", lambda: 50 << 20)
    monkeypatch.setattr(worker.os, "sysconf", lambda name: 32 << 20)
    state = worker.WorkerState()
    pull_warp, spmv = SimpleNamespace(name="pagerank.pull-warp"), SimpleNamespace(name="pagerank.spmv")
    data = SimpleNamespace(columns={"src": None}, nbytes=1 << 30, kind="graph", index_dtype=np.dtype(np.int32))

    def task(**params):
        return SimpleNamespace(params=params, warmup=2, roots=None)
    assert state.warmup(task(lanes=4), pull_warp, data, "gpu") == (2, True, True)      # on the problem's sample
    # a sweep over lanes warmed up once per lanes and worker; another module it compiles is the
    # harness's first-run check's to catch
    assert state.warmup(task(lanes=8), pull_warp, data, "gpu") == (0, False, False)
    assert state.warmup(task(lanes=8), spmv, data, "gpu") == (2, True, True)           # another kernel
    assert state.warmup(task(lanes=8), pull_warp, data, "gpu", "host") == (2, True, True)   # another placement
    # the CPU twins too (they warmed up on every task): once, on the input; a Numba function that
    # other parameters compile is the first-run check's
    assert state.warmup(task(lanes=8), pull_warp, data, "cpu") == (2, False, True)
    assert state.warmup(task(lanes=4), pull_warp, data, "cpu") == (0, False, False)
    cached = SimpleNamespace(**{**vars(data), "nbytes": 1 << 20})
    assert state.warmup(task(lanes=8), pull_warp, cached, "gpu") == (2, False, False)   # cache-sized: per task
    assert state.warmup(task(lanes=8), pull_warp, cached, "cpu") == (2, False, False)
    assert worker.cache_bytes("cpu") == 32 << 20 and worker.cache_bytes("gpu") == 50 << 20


def test_a_workers_second_task_of_a_kernel_does_not_warm_up_again(tmp_path, write_spec, test_kernels,
                                                                  monkeypatch):
    import gs_testkernel   # the module the in-process worker runs (the registry imports it by name)
    from distributed import Client, LocalCluster

    from graphsweep.pipeline import store, worker
    monkeypatch.setattr(worker, "cache_bytes", lambda backend: 0)   # no input fits in a cache
    spec = write_spec(tmp_path, "warm", reps=2, warmup=1,
                      kernels=[{"name": "test.flaky", "params": {"blocks": [1, 2], "sleep_ms": 50}}])
    plan = sweep.load(spec)
    store.init(plan, resume=False)
    gs_testkernel.RUNS = 0
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      resources={"HOST": 1}) as one, Client(one) as client:
        counts = runner.execute(plan, client, run_id="warm", progress=False, echo=lambda *_: None)
    # four tasks (two lists, two parameter sets) of two timed runs each, and one warm-up in all
    # (one per task before: 12 runs)
    assert counts["ok"] == 4 and gs_testkernel.RUNS == 4 * 2 + 1
    rows = pd.concat(pd.read_parquet(path) for path in store.finished(plan.results).values())
    kernel = rows[(rows["phase"] == "total") & (rows["stage"] == "kernel")]
    assert len(kernel) == 4 * 2 and kernel["verified"].all()             # every task timed and verified as before
    assert (rows.groupby("task")["warmup_s"].first() > 0.04).sum() == 1    # one 50 ms warm-up run


def test_worker_state_is_a_plugin_of_each_worker():
    import pickle

    from distributed import Client, LocalCluster

    from graphsweep.pipeline import worker

    state = worker.WorkerState()
    state.warmed.add("k")
    assert pickle.loads(pickle.dumps(state)).warmed == set()      # sent empty: each worker builds its own

    def has_state():
        from distributed import get_worker
        return worker._state() is get_worker().plugins[worker.WorkerState.name]

    def without_plugin():
        try:
            worker._state()
        except RuntimeError as exc:
            return str(exc)

    with LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster, Client(cluster) as client:
        addresses = list(live_workers(client))
        assert all("has no graphsweep-worker-state plugin" in client.submit(without_plugin, workers=[a],
                                                                             pure=False).result()
                   for a in addresses)
        client.register_plugin(worker.WorkerState())
        assert all(client.submit(has_state, workers=[a], pure=False).result() for a in addresses)
        assert len({id(p) for p in client.run(lambda dask_worker: dask_worker.plugins[
            worker.WorkerState.name]).values()}) == 2   # two workers in one process: two states


def test_ensure_state_registers_once_and_warm_starts_each_worker():
    import dask.config
    from distributed import Client, LocalCluster

    from graphsweep.core import gpu
    from graphsweep.pipeline import worker

    def state_ids(client):
        return client.run(lambda dask_worker: id(dask_worker.plugins[worker.WorkerState.name]))

    with LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster, Client(cluster) as client:
        worker.ensure_state(client)
        first = state_ids(client)
        worker.ensure_state(client)   # a second run on the same cluster keeps each worker's state
        assert state_ids(client) == first and len(set(first.values())) == 2
        ceilings = client.run(lambda dask_worker: sorted(dask_worker.plugins[worker.WorkerState.name].ceilings))
        # the warm start measures the GPU's ceilings where there is one, and leaves the CPU's to a CPU task
        assert set(map(tuple, ceilings.values())) == {("gpu",) if gpu.available() else ()}

    with dask.config.set({"graphsweep.worker.warm-start": False}), \
            LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster, Client(cluster) as client:
        worker.ensure_state(client)
        assert list(client.run(lambda dask_worker: dask_worker.plugins[worker.WorkerState.name].ceilings).values()) == [{}]


def test_warm_start_imports_every_kernel(monkeypatch):
    from graphsweep.kernels import registry
    from graphsweep.pipeline import worker

    imported = []
    monkeypatch.setattr(registry, "names", lambda: imported.append(True) or [])
    monkeypatch.setattr(worker.gpu, "available", lambda: False)
    state = worker.WorkerState()
    state.warm_start()
    assert imported == [True] and state.ceilings == {}


@pytest.mark.gpu
def test_grown_pool_serves_a_tasks_allocations_without_growing():
    import cupy

    from graphsweep.pipeline import worker
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    worker.grow_pool(pool.total_bytes() + (256 << 20))
    held = pool.total_bytes()
    arrays = [cupy.empty(100 << 20, np.uint8), cupy.empty(25 << 20, np.int32)]   # 200 of the 256 MB grown
    assert pool.total_bytes() == held and arrays[1].size == 25 << 20
    worker.grow_pool(held // 2)                     # it holds that already: nothing more
    assert pool.total_bytes() == held


def test_tasks_reach_the_scheduler_longest_estimate_first_each_loosely_on_one_worker(tmp_path, cluster,
                                                                                     cluster_file, gs, write_spec):
    from distributed.diagnostics.plugin import SchedulerPlugin

    class Seen(SchedulerPlugin):
        """Each task's priority and worker restrictions as the scheduler first holds it."""

        def __init__(self, scheduler):
            self.scheduler, self.tasks = scheduler, {}

        def transition(self, key, start, finish, *args, **kwargs):
            ts = self.scheduler.tasks.get(key)
            if start == "released" and ts is not None and key not in self.tasks:
                self.tasks[key] = (ts.priority, set(ts.worker_restrictions or ()), ts.loose_restrictions)

    # the slow kernel only on the smaller list: by size (and without history) it would come last
    kernels = ["listrank.sequential", {"name": "test.flaky", "params": {"sleep_ms": 300}, "datasets": ["*n=1024*"]}]
    first = write_spec(tmp_path, "first", reps=1, kernels=kernels)
    assert gs("run", first, "--cluster", "test", "--cluster-file", cluster_file, "--no-report")[0] == 0
    second = write_spec(tmp_path, "second", reps=1, kernels=kernels)
    seen = Seen(cluster.scheduler)
    cluster.scheduler.add_plugin(seen, name="seen")
    try:
        assert gs("run", second, "--cluster", "test", "--cluster-file", cluster_file, "--no-report")[0] == 0
    finally:
        cluster.scheduler.remove_plugin(name="seen")
    plan = sweep.load(second)
    by_hash = {t.hash: t for t in plan.tasks}
    sent = {next(h for h in by_hash if key.startswith(by_hash[h].key)): seen.tasks[key] for key in seen.tasks
            if any(key.startswith(t.key) for t in plan.tasks)}
    assert set(sent) == set(by_hash)
    order = [by_hash[h] for h in sorted(sent, key=lambda h: sent[h][0])]       # Dask runs the lowest first
    # the slow task's dataset first (its estimated seconds, learned from the first run), the slow task first
    assert [(t.kernel, t.dataset.params["n"]) for t in order] == [
        ("test.flaky", 1024), ("listrank.sequential", 1024), ("listrank.sequential", 2048)]
    # each on one worker (runner.owners), loosely: an idle worker may steal it, a lost one's runs elsewhere
    assert all(len(workers) == 1 and loose for _, workers, loose in sent.values())


def test_a_runs_wall_shares_add_up_to_its_wall_on_each_worker(tmp_path, cluster, cluster_file, gs, write_spec):
    from graphsweep.pipeline import history
    # 2 lists x 3 reps of a kernel sleeping 100 ms a run: 0.6 s of timed reps at least
    spec = write_spec(tmp_path, "shares", kernels=[{"name": "test.flaky", "params": {"sleep_ms": 100}}], reps=3)
    assert gs("run", spec, "--cluster", "test", "--cluster-file", cluster_file, "--no-report")[0] == 0
    out = history.wall_shares(sweep.load(spec).results)
    assert sum(out[k] for k in history.SHARES) == pytest.approx(out["wall"] * out["workers"], rel=0.02)
    assert all(out[k] >= -0.01 for k in history.SHARES), out
    assert 0.6 <= out["timed reps"] <= out["wall"] * out["workers"]
    # the run against its plan, from the plan's lines in the run's log: every task's estimate and
    # worker, every worker's planned finish beside the seconds its tasks took
    workers, tasks = history.plan_against_run(sweep.load(spec).results)
    rows = reduce.rows_of(sweep.load(spec).results).drop_duplicates("task")
    assert sorted(tasks["task"]) == sorted(rows["task"])
    assert set(tasks["planned_worker"]) <= set(workers.index) and (workers["planned_s"] >= 0).all()
    assert workers["ran_s"].sum() == pytest.approx(rows["task_s"].sum())
    assert workers["tasks"].sum() == len(rows)
    assert (tasks["off_s"] == tasks["took_s"] - tasks["estimate_s"]).all()
    assert list(tasks["off_s"].abs()) == sorted(tasks["off_s"].abs(), reverse=True)


def test_a_worker_goes_back_to_the_dataset_before_without_loading_it_again(tmp_path, monkeypatch):
    # a split dataset's tasks on either side of another's, or a task stolen at a run's end: the
    # worker dropped the dataset it switched from, and loaded and built it again coming back
    from graphsweep.pipeline import worker
    first, second = _list(tmp_path, "first", 3000), _list(tmp_path, "second", 2000)
    plan = sweep.expand({"name": "back", "results": str(tmp_path / "results"), "backend": "cpu",
                         "datasets": [{"path": first}, {"path": second}], "kernels": ["listrank.sequential"]})
    a, b = plan.datasets
    state = worker.WorkerState()
    loaded_a, _ = state.dataset(a, "cpu")
    state.dataset(b, "cpu")
    again, seconds = state.dataset(a, "cpu")
    assert again is loaded_a and seconds == 0.0
    assert state.dataset(b, "cpu")[1] == 0.0 and state.kept[0][0] == a.path
    # where the two do not fit beside each other, the one before is dropped as before
    monkeypatch.setattr(worker, "KEEP_SHARE", 0.0)
    state.dataset(a, "cpu")
    assert state.kept is None and state.dataset(b, "cpu")[0] is not None and state.dataset(a, "cpu")[1] > 0


# --- warm-ups on a small graph of the input's generator (issue #34) --------------------------------

def test_sample_params_keep_a_graphs_shape_at_a_small_size():
    from graphsweep.pipeline.samples import sample_params
    edges = 1 << 20
    kron = sample_params("rmat", {"scale": 23, "edge_factor": 16, "weights": "1:255"}, edges)
    assert kron == {"scale": 16, "edge_factor": 16, "a": 0.57, "b": 0.19, "c": 0.19, "weights": "1:255"}
    assert sample_params("uniform", {"n": 1 << 23, "degree": 32}, edges) == {"n": 1 << 16, "degree": 32.0,
                                                                             "weights": "none"}
    grid = sample_params("grid", {"rows": 4096, "cols": 4096, "keep": 0.8}, edges)
    assert grid["keep"] == 0.8 and 0.5 < 2 * grid["rows"] * grid["cols"] * 0.8 / edges < 1.5
    assert sample_params("grid", {"rows": 4096, "cols": 4096, "keep": 0.8, "permute_ids": True}, edges) == {
        **grid, "permute_ids": True}   # ids in the input's order
    dense = sample_params("density", {"m": 1 << 24, "density": 1e-5, "count": 64}, edges)
    assert dense["m"] == edges and dense["count"] == 4 and dense["density"] == 1e-5
    assert sample_params("list-graph", {"n": 1 << 25, "count": 1 << 19}, edges) == {"n": edges, "count": 1 << 14,
                                                                                     "weights": "none"}
    # a graph no larger than the sample, or a generator this does not know: none
    assert sample_params("rmat", {"scale": 12}, edges) is None
    assert sample_params("no-such-generator", {"n": 1 << 30}, edges) is None


def test_a_kernel_warms_up_once_per_parameters_on_a_small_graph_of_its_generator(tmp_path, monkeypatch):
    # A large input's first task of a kernel warmed up with a full run on it, on every worker
    # running the kernel, and each other parameter set ran its first timed rep twice (a module it
    # compiles); now each (kernel, parameters) warms up once per worker on a graph of ~2^20 edges
    # (here 2^10) of the same generator and shape, and the input runs only its timed reps.
    import dask.config

    from graphsweep import generators
    from graphsweep.kernels import harness, registry
    from graphsweep.pipeline import store, worker
    monkeypatch.setattr(worker, "cache_bytes", lambda backend: 0)   # no input fits a cache (a GPU's large graphs)
    monkeypatch.setattr(worker, "_OUTSIDE_A_WORKER", worker.WorkerState())
    sizes = []
    run_once = harness._run_once

    def counted(impl, inp, params, backend):
        sizes.append(inp.n)
        return run_once(impl, inp, params, backend)
    monkeypatch.setattr(harness, "_run_once", counted)
    plan = sweep.expand({"name": "sampled", "results": str(tmp_path / "results"), "data": str(tmp_path / "data"),
                         "backend": "cpu", "reps": 2, "warmup": 1, "roots": 2,
                         "datasets": [{"generator": "rmat", "params": {"scale": 11, "edge_factor": 8}, "seed": 1}],
                         "kernels": [{"name": "bfs.best", "params": {"alpha": [15.0, 14.0]}}, "cc.best"]})
    ref = plan.datasets[0]
    generators.generate(ref.generator, ref.path, seed=ref.seed, params=ref.params, progress=False)
    store.init(plan, resume=False)
    n, small = 1 << 11, 1 << 7                    # the input's vertices, the sample's (2^10 edges / 8 a vertex)
    timed = 2 * 2 + 2 * 2 + 2                     # 2 BFS tasks x 2 roots x 2 reps, CC 2 reps
    with dask.config.set({"graphsweep.worker.warm-up-sample-edges": 1 << 10}):
        for task in plan.tasks:
            before = len(sizes)
            assert worker.run_task(task, str(plan.results), "s", "continue", [])["status"] == "ok"
            # one run of one root on the sample (and that run again if it compiled or loaded anything)
            assert 1 <= sizes[before:].count(small) <= 2, sizes[before:]
            rows = pd.read_parquet(store.task_file(plan.results, task.hash))
            assert rows["warmup_s"].iloc[0] > 0 and rows["verified"].all()
        assert sizes.count(n) == timed, sizes     # no warm-up run on the input, no first rep run again
        sizes.clear()
        for task in plan.tasks:     # the same tasks again on the same worker: nothing left to warm up
            store.task_file(plan.results, task.hash).unlink()
            assert worker.run_task(task, str(plan.results), "s2", "continue", [])["status"] == "ok"
        assert sizes == [n] * timed
    # a graph within a few samples' size warms up on itself, as before
    with dask.config.set({"graphsweep.worker.warm-up-sample-edges": 1 << 13}):
        state = worker.WorkerState()
        data, _ = state.dataset(ref, "cpu")
        resolved = harness.Resolved("cc.best", registry.get("cc.best"), plan.tasks[-1].params)
        assert state.warm_up_on_sample(plan.tasks[-1], resolved, data, "cpu", "host") is None


def test_a_sweep_task_looks_its_kernel_up_once_and_coerces_its_parameters_once(tmp_path, monkeypatch):
    # The spec's parameters are coerced as it is read; the task's run (its warm-up on a small graph
    # too) takes them as they are, and looks its kernel up once.  Its rows name the kernel as asked
    # beside the one that ran, and take params and the param_* columns from one source.
    import json

    import dask.config
    import pyarrow.parquet as pq

    from graphsweep import generators
    from graphsweep.kernels import registry
    from graphsweep.kernels.contract import Kernel
    from graphsweep.pipeline import store, worker
    monkeypatch.setattr(worker, "cache_bytes", lambda backend: 0)   # no input fits a cache: a warm-up on a sample
    monkeypatch.setattr(worker, "_OUTSIDE_A_WORKER", worker.WorkerState())
    plan = sweep.expand({"name": "once", "results": str(tmp_path / "results"), "data": str(tmp_path / "data"),
                         "backend": "cpu", "reps": 1, "warmup": 1, "roots": 1,
                         "datasets": [{"generator": "rmat", "params": {"scale": 11, "edge_factor": 8}, "seed": 1}],
                         "kernels": [{"name": "bfs.best", "params": {"alpha": "14"}}]})
    [task] = plan.tasks
    ref = plan.datasets[0]
    generators.generate(ref.generator, ref.path, seed=ref.seed, params=ref.params, progress=False)
    store.init(plan, resume=False)
    looked, coerced = [], []
    get, resolve_params = registry.get, Kernel.resolve_params
    monkeypatch.setattr(registry, "get", lambda name: looked.append(name) or get(name))
    monkeypatch.setattr(Kernel, "resolve_params", lambda k, given: coerced.append(k.name) or resolve_params(k, given))
    with dask.config.set({"graphsweep.worker.warm-up-sample-edges": 1 << 10}):
        assert worker.run_task(task, str(plan.results), "s", "continue", [])["status"] == "ok"
    ran = registry.ALIASES["bfs.best"][0]
    assert looked == ["bfs.best"] and ran not in coerced, (looked, coerced)
    [row, *_] = pq.read_table(store.task_file(plan.results, task.hash)).to_pylist()
    assert (row["asked"], row["kernel"], json.loads(row["given"])) == ("bfs.best", ran, {"alpha": 14.0})
    assert json.loads(row["params"]) == task.params == {k[6:]: v for k, v in row.items() if k.startswith("param_")}
    # a task that did not run: its own parameters, in both columns alike
    failed = worker.error_row(task, "s", "DatasetError: boom")
    assert json.loads(failed["params"]) == {k[6:]: v for k, v in failed.items() if k.startswith("param_")}


def test_a_worker_done_with_its_share_takes_tasks_from_a_busy_one_at_once(tmp_path, write_spec, gs, cluster_file,
                                                                          monkeypatch):
    # A plan its estimates got wrong: one worker given one task, the other nine.  On a cluster
    # graphsweep starts, Dask's stealing waits until a worker has run its share of the plan, then
    # looks every cluster.steal-interval (100 ms; Dask's default, every second, left a worker idle
    # for up to a second at a run's end while another had tasks queued).
    from graphsweep.pipeline import cluster, history
    started = []
    start = cluster._start

    def seen(name, profile):
        made = start(name, profile)
        started.append(made.scheduler.periodic_callbacks["stealing"].callback_time)
        return made
    monkeypatch.setattr(cluster, "_start", seen)

    def lopsided(todo, workers, *args, **kwargs):
        first, second = sorted(workers)[:2]
        return {t.hash: second if i == 0 else first for i, t in enumerate(todo)}
    monkeypatch.setattr(runner, "owners", lopsided)
    spec = write_spec(tmp_path, "tail", reps=1, datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"sleep_ms": 250, "blocks": list(range(1, 11))}}])
    rc, out, err = gs("run", spec, "--cluster", "local-cpu", "--cluster-file", cluster_file, "--no-report")
    assert rc == 0, out + err
    assert started == [100]                                        # milliseconds
    results = sweep.load(spec).results
    workers, tasks = history.plan_against_run(results)
    rows = reduce.rows_of(results).drop_duplicates("task").set_index("task").fillna({"ceilings_s": 0.0})
    tasks = tasks.set_index("task").join(rows[["started_at", "ceilings_s"]])
    tasks["ended_at"] = tasks["started_at"] + tasks["task_s"] + tasks["ceilings_s"]   # a CPU worker's first task
    light = tasks["planned_worker"].value_counts().idxmin()        # measures its ceilings after it
    own = tasks[(tasks["planned_worker"] == light) & ~tasks["taken"]]
    taken = tasks[tasks["taken"] & (tasks["worker"] == light)].sort_values("started_at")
    # it took over a share of the other's queue at once (here: 3-4 of its last 8 tasks, 0.12-0.14 s
    # after its own; before, 1-2 tasks, 0.16-0.97 s after)
    assert len(own) == 1 and len(taken) >= 3, tasks
    assert taken["started_at"].iloc[0] - own["ended_at"].iloc[0] < 0.3


def test_owners_keep_a_kernels_tasks_on_a_graph_together_where_its_references_cost():
    # two graphs, two workers: kron's BC (four tasks) verifies against references its first task on
    # a worker computes (0.8 s); split over both workers, they are computed twice
    todo = [_task(d, f"{k}{i}", kernel=k) for d in ("kron", "urand") for k in ("bc", "tc") for i in range(4)]
    seconds = {t.hash: {"kron": 1.0, "urand": 0.5}[t.dataset.id] for t in todo}
    load = {"kron": 0.3, "urand": 0.3}
    first = {("kron", "bc"): 0.8, ("kron", "tc"): 0.8}
    costs = runner.Costs(seconds, load, first=first)
    owner = runner.owners(todo, ["w0", "w1"], costs)
    split = {(d, k): {owner[t.hash] for t in todo if (t.dataset.id, t.kernel) == (d, k)}
             for d in ("kron",) for k in ("bc", "tc")}
    assert all(len(workers) == 1 for workers in split.values()), split
    finish = runner.finishes(owner, todo, costs)
    assert max(finish.values()) <= (sum(seconds.values()) + 2 * 0.3 + 1.6) / 2 + 0.5 + 1e-9
    # without them the plan only balances the tasks and the loads, as before
    plain = runner.Costs(seconds, load)
    assert max(runner.finishes(runner.owners(todo, ["w0", "w1"], plain), todo, plain).values()) \
        <= (sum(seconds.values()) + 2 * 0.3) / 2 + 0.5 + 1e-9


def test_a_tasks_rows_have_each_rows_rates_computed_at_once(tmp_path, make_list):
    # rates for every row at once (a task's hundreds of step rows took 30-100 ms between two tasks
    # one row at a time), the same values and types as one row's, ceilings known or not
    import math

    from graphsweep.kernels import harness, throughput
    from graphsweep.pipeline import worker
    path = write_arrays(tmp_path / "list", kind="list", n=4096, columns={"succ": make_list(4096, seed=2)},
                        generator={"name": "random_list", "params": {"n": 4096}, "seed": 2})
    plan = sweep.expand({"name": "rates", "results": str(tmp_path / "r"), "backend": "cpu", "reps": 3,
                         "datasets": [{"path": str(path)}], "kernels": ["listrank.wyllie"]})
    [task] = plan.tasks
    result = harness.run(task.runs, path, backend="cpu", reps=3, warmup=0, keep_output=False)
    for ceilings in ({}, {"copy_gbps": 10.0, "gather_gelems": 0.2, "chase_gsteps": 0.1}):
        rows = worker.result_rows(task, "r", result, ceilings, {})
        assert len(rows) == len(result.rows) + len(result.step_rows) + len(result.input_rows) > 3
        for row in rows:
            one = throughput.rates(row["ms"], row["bytes_read"] + row["bytes_written"], row["random_accesses"],
                                   result.elements, ceilings, link_bytes=row.get("bytes_link") or 0)
            for key, value in one.items():
                assert type(row[key]) is type(value) and (row[key] == value or math.isnan(value)), key
        table = worker._table(rows)
        assert table.num_rows == len(rows) and table.column("ms").to_pylist() == [r["ms"] for r in rows]


def test_owners_keep_a_warm_up_keys_tasks_together_where_its_sample_warm_up_costs():
    # one kernel with two parameter sets (x, y) on two graphs of one generator: a worker warms each
    # set up once on the generator's sample (0.5 s) for both graphs.  Kept by graph (A's tasks 2 s,
    # B's 1 s), one worker ends at 2 + 2 + 0.5 + 0.5; kept by parameter set, both at 2 + 1 + 0.5
    todo = [_task(d, p) for d in "AB" for p in "xy"]
    seconds = {t.hash: {"A": 2.0, "B": 1.0}[t.dataset.id] for t in todo}
    load = {"A": 0.0, "B": 0.0}
    sample = {t.hash: (("k", t.hash[-1]), 0.5) for t in todo}
    costs = runner.Costs(seconds, load, sample=sample)
    owner = runner.owners(todo, ["w0", "w1"], costs)
    assert runner.finishes(owner, todo, costs) == pytest.approx({"w0": 3.5, "w1": 3.5})
    assert all(len({owner[t.hash] for t in todo if t.hash.endswith(p)}) == 1 for p in "xy"), owner
    # a plan that splits a parameter set's tasks over workers pays its warm-up on each of them
    split = {"A-x": "w0", "A-y": "w0", "B-x": "w1", "B-y": "w1"}
    assert runner.finishes(split, todo, costs) == pytest.approx({"w0": 5.0, "w1": 3.0})


def test_owners_of_no_tasks_is_no_plan():
    assert runner.owners([], ["tcp://a", "tcp://b"], runner.Costs({})) == {}


# --- a task's rows stored while the worker's next task starts (issue #34) ----------------------------

def _ok_rows(task):
    return [{"task": task.hash, "kernel": task.kernel, "verified": True, "error": None, "ms": 1.0}]


def test_a_workers_store_thread_writes_rows_after_the_task_returns_and_names_a_failed_write(tmp_path, monkeypatch):
    import threading

    from graphsweep.pipeline import store, worker
    plan = sweep.expand({"name": "later", "results": str(tmp_path / "results"), "backend": "cpu",
                         "datasets": [{"path": _list(tmp_path, "a", 1000)}],
                         "kernels": ["listrank.sequential", "listrank.wyllie"]})
    store.init(plan, resume=False)
    first, second = plan.tasks
    release, write = threading.Event(), store.write_task

    def slow(results, task_hash, table, **kw):
        release.wait(10)
        if task_hash == second.hash:
            raise OSError(28, "No space left on device")
        return write(results, task_hash, table, **kw)
    monkeypatch.setattr(store, "write_task", slow)
    state = worker.WorkerState()
    outcome = state.store_later(str(plan.results), first, _ok_rows(first))
    assert outcome["status"] == "ok" and not store.task_file(plan.results, first.hash).exists()   # not yet
    state.store_later(str(plan.results), second, _ok_rows(second))
    release.set()
    state.settle()
    assert store.outcome(store.task_file(plan.results, first.hash)) == ("ok", None)
    [(task_hash, label, error)] = state.flush()
    assert task_hash == second.hash and label == second.label and "No space left" in error
    assert state.flush() == [] and not store.task_file(plan.results, second.hash).exists()


def test_a_tasks_timed_reps_wait_for_the_rows_of_the_task_before(tmp_path, monkeypatch):
    import time

    from graphsweep.kernels import harness
    from graphsweep.pipeline import store, worker
    monkeypatch.setattr(worker, "_OUTSIDE_A_WORKER", worker.WorkerState())
    plan = sweep.expand({"name": "quiet", "results": str(tmp_path / "results"), "backend": "cpu", "reps": 2,
                         "datasets": [{"path": _list(tmp_path, "a", 1000)}],
                         "kernels": ["listrank.sequential", "listrank.wyllie"]})
    store.init(plan, resume=False)
    written, timed, write, time_instances = [], [], store.write_task, harness._time_instances

    def slow(*args, **kw):
        time.sleep(0.3)
        written.append(time.perf_counter())
        return write(*args, **kw)

    def timing(*args, **kw):
        timed.append(time.perf_counter())
        return time_instances(*args, **kw)
    monkeypatch.setattr(store, "write_task", slow)
    monkeypatch.setattr(harness, "_time_instances", timing)
    first, second = plan.tasks
    t0 = time.perf_counter()
    assert worker.run_task(first, str(plan.results), "q", "continue", [], store_later=True)["status"] == "ok"
    assert written == [] and timed[0] < t0 + 0.3      # its own reps ran at once; its rows not stored yet
    assert worker.run_task(second, str(plan.results), "q", "continue", [], store_later=True)["status"] == "ok"
    assert timed[1] >= written[0]                      # the second's reps began once the first's rows were stored
    assert worker._OUTSIDE_A_WORKER.flush() == []
    assert all(store.outcome(store.task_file(plan.results, t.hash))[0] == "ok" for t in plan.tasks)
    # the wait is a stage of its own (not the warm-up's, which estimates learn from)
    waited = pd.read_parquet(store.task_file(plan.results, second.hash))["quiet_s"].iloc[0]
    assert 0.05 < waited < 0.5, waited


def test_a_run_counts_a_task_whose_rows_were_not_stored_as_failed(tmp_path, write_spec, gs, monkeypatch):
    from distributed import LocalCluster

    from graphsweep.pipeline import store
    spec = write_spec(tmp_path, "unstored", kernels=["listrank.sequential"])
    plan = sweep.load(spec)
    victim, write = plan.tasks[0].hash, store.write_task

    def failing(results, task_hash, table, **kw):
        if task_hash == victim:
            raise OSError(28, "No space left on device")
        return write(results, task_hash, table, **kw)
    monkeypatch.setattr(store, "write_task", failing)   # the workers are threads of this process
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      resources={"HOST": 1}) as cluster:
        rc, out, err = gs("run", spec, "--cluster", cluster.scheduler_address, "--no-report", "--no-progress")
    assert rc == 1, (out, err)
    assert "its rows were not stored: OSError" in err and "1 pending" in out + err, (out, err)
    assert not store.task_file(plan.results, victim).exists()
    assert all(store.task_file(plan.results, t.hash).exists() for t in plan.tasks if t.hash != victim)


def test_flushed_names_the_failed_writes_of_every_worker_and_survives_a_closing_cluster():
    failed = ("h1", "k on d", "OSError: full")
    client = SimpleNamespace(run=lambda fn: {"tcp://a": [failed], "tcp://b": []})
    assert runner._flushed(client) == [failed]

    def closing(fn):
        raise OSError("the cluster is closing")
    assert runner._flushed(SimpleNamespace(run=closing)) == []
