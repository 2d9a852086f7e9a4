"""Task order: longest first by the estimate, grouped by dataset; each task's worker (a dataset kept
whole unless splitting it ends sooner); a worker's memory pool grown for a dataset as it loads."""

from types import SimpleNamespace

import numpy as np
import pytest

from graphsweep.datasets.writer import write_arrays
from graphsweep.pipeline import estimate, runner, sweep


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


def _task(dataset, i):
    return SimpleNamespace(dataset=SimpleNamespace(id=dataset), hash=f"{dataset}-{i}")


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
    owner = runner.owners(todo, ["B", "A"], seconds, load)
    # big (20 s) to A; mid (12 s) to B; small (4 s) and tiny (0.5 s) to B: no move ends sooner than A's 21 s
    by_dataset = {t.dataset.id: owner[t.hash] for t in todo}
    assert by_dataset == {"big": "A", "mid": "B", "small": "B", "tiny": "B"}
    assert {t.dataset.id: w for t in todo for w in [owner[t.hash]]} == by_dataset       # no dataset split
    assert set(runner.owners(todo, ["only"], seconds, load).values()) == {"only"}
    assert runner.owners(todo, [], seconds, load) == {}
    # a worker that holds a dataset from an earlier run keeps it
    assert {t.dataset.id: w for t in todo for w in [runner.owners(todo, ["A", "B"], seconds, load,
                                                                  held={"B": "big"})[t.hash]]}["big"] == "B"


def test_owners_split_a_dataset_rather_than_idle_workers():
    # gap-suite: two datasets and four GPUs; each dataset on one worker left two idle.
    todo = [_task(d, i) for d in ("kron", "urand") for i in range(12)]
    seconds = {t.hash: 1.0 for t in todo}
    load = {"kron": 0.5, "urand": 0.5}
    owner = runner.owners(todo, ["w0", "w1", "w2", "w3"], seconds, load)
    finish = _finish(owner, todo, seconds, load)
    assert set(finish) == {"w0", "w1", "w2", "w3"} and max(finish.values()) == 6.5    # 24 s of tasks over 4
    # a dataset whose loading costs more than splitting saves stays whole
    assert len(set(runner.owners(todo[:2], ["w0", "w1"], seconds, {"kron": 5.0}).values())) == 2
    assert len(set(runner.owners(todo[:2] + [_task("other", 0)], ["w0", "w1"], {**seconds, "other-0": 8.0},
                                 {"kron": 5.0, "other": 1.0}).values())) == 2
    rng = np.random.default_rng(4)
    for trial in range(30):  # never worse than whole datasets placed longest first (LPT), every task placed
        count = int(rng.integers(1, 8))
        todo = [_task(f"d{d}", i) for d in range(count) for i in range(int(rng.integers(1, 6)))]
        seconds = {t.hash: float(rng.exponential()) for t in todo}
        load = {f"d{d}": float(rng.exponential()) / 2 for d in range(count)}
        workers = [f"w{i}" for i in range(int(rng.integers(1, 5)))]
        owner = runner.owners(todo, workers, seconds, load)
        assert set(owner) == {t.hash for t in todo} and set(owner.values()) <= set(workers)
        whole = dict.fromkeys(workers, 0.0)
        for d in sorted(load, key=lambda d: -sum(seconds[t.hash] for t in todo if t.dataset.id == d)):
            w = min(whole, key=whole.get)
            whole[w] += sum(seconds[t.hash] for t in todo if t.dataset.id == d) + load[d]
        assert max(_finish(owner, todo, seconds, load).values()) <= max(whole.values()) + 1e-9


def test_one_warm_up_per_worker_for_a_kernel_whatever_its_parameters(monkeypatch):
    from graphsweep.pipeline import worker
    monkeypatch.setattr(worker.cuda, "l2_bytes", lambda: 50 << 20)
    state = worker.WorkerState()
    pull_warp, spmv = SimpleNamespace(name="pagerank.pull-warp"), SimpleNamespace(name="pagerank.spmv")
    data = SimpleNamespace(columns={"src": None}, nbytes=1 << 30, kind="graph", index_dtype=np.dtype(np.int32))

    def task(**params):
        return SimpleNamespace(params=params, warmup=2, roots=None)
    assert state.warmup(task(lanes=4), pull_warp, data, "gpu") == (2, True)      # on the problem's sample
    # a sweep over lanes warmed up once per lanes and worker; another module it compiles is the
    # harness's first-run check's to catch
    assert state.warmup(task(lanes=8), pull_warp, data, "gpu") == (0, False)
    assert state.warmup(task(lanes=8), spmv, data, "gpu") == (2, True)           # another kernel
    assert state.warmup(task(lanes=8), pull_warp, data, "gpu", "host") == (2, True)   # another placement
    assert state.warmup(task(lanes=8), pull_warp, data, "cpu") == (2, False)     # CPU tasks: on their input
    cached = SimpleNamespace(**{**vars(data), "nbytes": 1 << 20})
    assert state.warmup(task(lanes=8), pull_warp, cached, "gpu") == (2, False)   # cache-sized: per task


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
        addresses = list(client.scheduler_info()["workers"])
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
