"""Task order: grouped by dataset, the largest dataset first once sizes are known; a worker's memory
pool grown for a dataset as it loads."""

import numpy as np
import pytest

from graphsweep.datasets.writer import write_arrays
from graphsweep.pipeline import runner, sweep


def _list(tmp_path, name, n):
    succ = np.minimum(np.arange(1, n + 1), n - 1)
    return str(write_arrays(tmp_path / name, kind="list", n=n, columns={"succ": succ},
                            generator={"name": "ordered-list", "params": {"n": n}, "seed": 1}))


def test_largest_dataset_first_then_plan_order(tmp_path):
    small, big = _list(tmp_path, "small", 100), _list(tmp_path, "big", 5000)
    plan = sweep.expand({"name": "order", "results": str(tmp_path / "results"),
                         "datasets": [{"path": small}, {"path": big}],
                         "kernels": [{"name": "listrank.sequential"}, {"name": "listrank.wyllie"}]})
    ranked = sorted(plan.tasks, key=lambda t: -runner._priorities(plan.tasks, wait=True)[t.key])
    assert [t.dataset.path for t in ranked] == [big, big, small, small]
    assert [t.index for t in ranked] == sorted(t.index for t in ranked if t.dataset.path == big) + \
        sorted(t.index for t in ranked if t.dataset.path == small)
    # Without sizes (fire-and-forget submit), plan order.
    unsized = sorted(plan.tasks, key=lambda t: -runner._priorities(plan.tasks, wait=False)[t.key])
    assert [t.index for t in unsized] == sorted(t.index for t in plan.tasks)


def test_owners_split_datasets_over_workers_by_estimated_time():
    from types import SimpleNamespace

    def task(dataset, i):
        return SimpleNamespace(dataset=SimpleNamespace(id=dataset), hash=f"{dataset}-{i}")

    todo = [task(d, i) for d, count in (("big", 2), ("mid", 3), ("small", 4), ("tiny", 1)) for i in range(count)]
    seconds = {t.hash: {"big": 10.0, "mid": 4.0, "small": 1.0, "tiny": 0.5}[t.dataset.id] for t in todo}
    owner = runner.owners(todo, ["B", "A"], seconds)
    # big (20 s) to A; mid (12 s) to B; small (4 s) to B (12 < 20); tiny (0.5 s) to B (16 < 20)
    assert owner == {"big": "A", "mid": "B", "small": "B", "tiny": "B"}
    assert runner.owners(todo, ["only"], seconds) == dict.fromkeys(("big", "mid", "small", "tiny"), "only")
    assert runner.owners(todo, [], seconds) == {}
    # every dataset has one owner whatever the workers, and no worker's load exceeds an even split by
    # more than the largest dataset (LPT's bound)
    rng = np.random.default_rng(4)
    for trial in range(20):
        costs = {f"d{i}": float(rng.exponential()) for i in range(int(rng.integers(1, 12)))}
        todo = [task(d, 0) for d in costs]
        workers = [f"w{i}" for i in range(int(rng.integers(1, 5)))]
        owner = runner.owners(todo, workers, {t.hash: costs[t.dataset.id] for t in todo})
        assert set(owner) == set(costs) and set(owner.values()) <= set(workers)
        loads = [sum(c for d, c in costs.items() if owner[d] == w) for w in workers]
        assert max(loads) <= sum(costs.values()) / len(workers) + max(costs.values()) + 1e-9


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

    from graphsweep.datasets import gpu
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
