"""A worker reads the next dataset of its plan into host memory while the tasks of the one before run
on its GPU (``runner.next_datasets``, ``WorkerState.prefetch``): its first task then only copies it."""

import threading
from types import SimpleNamespace

import dask
import numpy as np
import pytest

from graphsweep.datasets import reader
from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import placement
from graphsweep.pipeline import runner, store, sweep, worker


def _task(dataset, i):
    return SimpleNamespace(dataset=SimpleNamespace(id=dataset), hash=f"{dataset}-{i}")


def test_each_task_names_the_first_task_of_the_next_dataset_on_its_worker():
    a0, a1, b0, c0, c1, d0, e0 = (_task("a", 0), _task("a", 1), _task("b", 0), _task("c", 0), _task("c", 1),
                                  _task("d", 0), _task("e", 0))
    todo = [a0, d0, a1, b0, c0, e0, c1]      # sending order; A runs a a b c c, B runs d e
    owner = {t.hash: ("A" if t.dataset.id in "abc" else "B") for t in todo}
    then = runner.next_datasets(todo, owner)
    assert then == {"a-0": b0, "a-1": b0, "b-0": c0, "d-0": e0}   # c and e: nothing after them
    assert runner.next_datasets(todo, {}) == {}                   # no plan (no worker): nothing to read ahead


def _lists(tmp_path, backend="cpu"):
    paths = []
    for name, n in (("big", 5000), ("small", 3000)):
        order = np.random.default_rng(n).permutation(n).astype(np.int32)
        succ = np.empty(n, dtype=np.int32)          # one random list: order[i] -> order[i + 1]
        succ[order[:-1]], succ[order[-1]] = order[1:], order[-1]
        paths.append(str(write_arrays(tmp_path / name, kind="list", n=n, columns={"succ": succ},
                                      generator={"name": "random-list", "params": {"n": n}, "seed": 1})))
    plan = sweep.expand({"name": "ahead", "results": str(tmp_path / "results"), "backend": backend, "reps": 1,
                         "datasets": [{"path": p} for p in paths], "kernels": ["listrank.wyllie"]})
    return plan


def _on_gpu(monkeypatch, memory=1 << 40):
    """As if the tasks' lists were loaded onto a GPU of ``memory`` bytes (the read ahead is only for
    those), the read ahead done on the host (no GPU here)."""
    monkeypatch.setattr(worker.harness, "place", lambda *a, **k: placement.Placement("device", "whole", "gpu"))
    monkeypatch.setattr(worker, "_memory", lambda on_gpu: memory)
    reads = []
    monkeypatch.setattr(worker, "read_ahead", lambda ref: reads.append(ref.path) or reader.read(
        ref.path, check_values=False))
    return reads


def test_the_next_gpu_dataset_is_read_once_and_taken_by_its_first_task(tmp_path, monkeypatch):
    plan = _lists(tmp_path)
    first, second = plan.tasks
    state = worker.WorkerState()
    assert not state.prefetch(second)                     # a CPU task's: never beside a timed CPU twin
    assert not state.prefetch(None)
    reads = _on_gpu(monkeypatch)
    assert state.prefetch(second) and not state.prefetch(second)    # once
    key = (second.dataset.path, worker.dataset_manifest(second.dataset).get("created"))
    ahead = state._read_ahead(key, "gpu")
    assert reads == [second.dataset.path] and state.ahead is None
    np.testing.assert_array_equal(ahead.succ, reader.read(second.dataset.path).succ)
    assert state._read_ahead(key, "gpu") is None          # taken by the task it was read for
    # another dataset than the one read ahead: the usual read
    assert state.prefetch(second)
    assert state._read_ahead(("elsewhere", None), "gpu") is None and state.ahead is None
    state.teardown(None)


def test_no_read_ahead_when_switched_off_held_already_or_without_room(tmp_path, monkeypatch):
    plan = _lists(tmp_path)
    first, second = plan.tasks
    _on_gpu(monkeypatch)
    state = worker.WorkerState()
    state.dataset(first.dataset, "cpu")
    assert not state.prefetch(first)                      # held already
    with dask.config.set({"graphsweep.worker.prefetch": False}):
        assert not state.prefetch(second)
    _on_gpu(monkeypatch, memory=1 << 10)
    assert not state.prefetch(second)                     # a task of each would not fit on the GPU
    state.teardown(None)


def test_a_failed_read_ahead_leaves_the_task_to_the_usual_read_and_its_error(tmp_path, monkeypatch):
    plan = _lists(tmp_path)
    first, second = plan.tasks
    _on_gpu(monkeypatch)
    state = worker.WorkerState()
    gate = threading.Event()

    def broken(ref):
        gate.wait(10)
        raise OSError("disk went away")
    monkeypatch.setattr(worker, "read_ahead", broken)
    assert state.prefetch(second)
    gate.set()
    key = (second.dataset.path, worker.dataset_manifest(second.dataset).get("created"))
    assert state._read_ahead(key, "gpu") is None          # the usual read runs and says what is wrong
    state.teardown(None)


@pytest.mark.gpu
def test_a_gpu_task_runs_on_the_dataset_its_worker_read_ahead(tmp_path, monkeypatch):
    plan = _lists(tmp_path, "gpu")
    store.init(plan, resume=False)
    first, second = plan.tasks
    state = worker.WorkerState()
    monkeypatch.setattr(worker, "_OUTSIDE_A_WORKER", state)
    ahead, read_ahead = [], worker.read_ahead
    monkeypatch.setattr(worker, "read_ahead", lambda ref: ahead.append(ref.path) or read_ahead(ref))
    assert worker.run_task(first, str(plan.results), "ahead", "continue", [], then=second)["status"] == "ok"
    assert ahead == [second.dataset.path] and state.ahead is not None
    assert worker.run_task(second, str(plan.results), "ahead", "continue", [])["status"] == "ok"
    assert state.ahead is None                           # taken by the second task
    assert all(store.outcome(store.task_file(plan.results, t.hash)) == ("ok", None) for t in plan.tasks)
    state.teardown(None)
