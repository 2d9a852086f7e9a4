"""The same dataset whether parts run in this process or on a 2-process distributed cluster
(at millions of rows, with 1M parts here and 3M parts there)."""

import numpy as np
import pytest

from graphsweep.datasets import read
from graphsweep.generators import generate


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize("kind,params,part_rows", [
    ("list", {"n": 4 << 20}, 3 << 20),
    ("rmat", {"scale": 18, "edge_factor": 16, "weights": "1:10"}, 3 << 20),
    ("tree", {"n": 300_000, "count": 5, "k": 3}, 100_000),
    ("grid", {"rows": 1000, "cols": 1500, "keep": 0.8, "permute_ids": True}, 700_000),
])
def test_two_workers_match_in_process(tmp_path, client, kind, params, part_rows):
    from distributed import get_task_stream

    local = generate(kind, tmp_path / "local", seed=3, params=params, part_rows=1 << 20, progress=False)
    with get_task_stream(client) as stream:
        spread = generate(kind, tmp_path / "spread", seed=3, params=params, part_rows=part_rows,
                          client=client, progress=False)
    a, b = read(local), read(spread)
    assert len(b.manifest["parts"]) > 1
    for name in a.columns:
        assert np.array_equal(a.columns[name], b.columns[name])
    ran_on = {task["worker"] for task in stream.data if task["key"].startswith("graphsweep-generate-")}
    assert len(ran_on) == 2  # the parts ran on both workers


def test_a_task_writes_several_parts_side_by_side(tmp_path, client):
    from distributed import get_task_stream

    from graphsweep.generators import driver

    params, part_rows = {"n": 1 << 20, "degree": 3}, 1 << 15      # 48 parts on 2 worker threads
    local = generate("uniform", tmp_path / "local", seed=5, params=params, part_rows=part_rows, progress=False)
    with get_task_stream(client) as stream:
        spread = generate("uniform", tmp_path / "spread", seed=5, params=params, part_rows=part_rows,
                          client=client, progress=False)
    parts = len(read(spread).manifest["parts"])
    tasks = [t for t in stream.data if t["key"].startswith("graphsweep-generate-")]
    assert parts == 48 and len(tasks) == parts // driver.PARTS_PER_TASK
    a, b = read(local), read(spread)
    assert a.manifest["parts"] == b.manifest["parts"]          # same bytes, part for part
    for name in a.columns:
        assert np.array_equal(a.columns[name], b.columns[name])


def _break_list_generator(finished: str | None):
    """Run on each worker: make the first 'list' part raise and the others take a while, then
    leave a file in ``finished`` (or, for None, restore the generator)."""
    import dataclasses
    import time
    from pathlib import Path

    from graphsweep.generators import driver, lists

    def broken(plan, start, stop, xp):
        if start == 0:
            raise RuntimeError("worker disk on fire")
        time.sleep(0.5)
        (Path(finished) / str(start)).touch()
        return lists.LIST.part(plan, start, stop, xp)

    driver.GENERATORS["list"] = lists.LIST if finished is None else dataclasses.replace(lists.LIST, part=broken)


def test_failure_on_a_worker_aborts_after_the_running_parts_and_leaves_nothing(tmp_path, client):
    (tmp_path / "finished").mkdir()
    client.run(_break_list_generator, str(tmp_path / "finished"))
    try:
        with pytest.raises(RuntimeError, match="worker disk on fire"):
            generate("list", tmp_path / "out" / "d", seed=1, params={"n": 300}, part_rows=100,
                     client=client, progress=False)
    finally:
        client.run(_break_list_generator, None)
    # the parts still running when part 0 failed had finished before the abort cleaned up
    assert sorted(p.name for p in (tmp_path / "finished").iterdir()) == ["100", "200"]
    assert list((tmp_path / "out").iterdir()) == []
