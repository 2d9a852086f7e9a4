"""Task order: grouped by dataset, the largest dataset first once sizes are known."""

import numpy as np

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


def test_affinity_gives_each_dataset_to_one_worker_then_shares_the_tail():
    from types import SimpleNamespace

    from graphsweep.pipeline.runner import Affinity

    def task(dataset, i):
        return SimpleNamespace(dataset=SimpleNamespace(id=dataset), key=f"{dataset}-{i}")

    ordered = [task(d, i) for d in ("big", "mid", "small") for i in range(3)]
    a = Affinity(ordered)
    assert [a.pick("A").key, a.pick("A").key] == ["big-0", "big-1"]       # A owns the largest
    assert [a.pick("B").key, a.pick("B").key] == ["mid-0", "mid-1"]       # B the next one
    assert a.pick("A").key == "big-2"
    assert a.pick("A").key == "small-0" and a.owner == {"big": "A", "mid": "B", "small": "A"}
    assert a.pick("B").key == "mid-2"
    assert a.pick("B").key == "small-1"                                  # the tail is shared
    a.forget({"A"})
    assert a.owner == {"mid": "B"} and a.pick("C").key == "small-2" and a.pick("C") is None
