"""The same dataset whether parts run in this process or on a 2-process distributed cluster."""

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
    ("list", {"n": 4 << 20}, 1 << 20),
    ("rmat", {"scale": 18, "edge_factor": 16, "weights": "1:10"}, 3 << 20),
    ("tree", {"n": 300_000, "count": 5, "k": 3}, 100_000),
])
def test_two_workers_match_in_process(tmp_path, client, kind, params, part_rows):
    local = generate(kind, tmp_path / "local", seed=3, params=params, part_rows=1 << 20, progress=False)
    spread = generate(kind, tmp_path / "spread", seed=3, params=params, part_rows=part_rows,
                      client=client, progress=False)
    a, b = read(local), read(spread)
    assert len(b.manifest["parts"]) > 1
    for name in a.columns:
        assert np.array_equal(a.columns[name], b.columns[name])
    workers = {w for w in client.run(lambda dask_worker: dask_worker.id).values()}
    assert len(workers) == 2


def _break_list_generator(fail: bool):
    """Run on each worker: make the 'list' parts after the first raise (or restore them)."""
    import dataclasses

    from graphsweep.generators import driver, lists

    def broken(plan, start, stop, xp):
        if start > 0:
            raise RuntimeError("worker disk on fire")
        return lists.LIST.part(plan, start, stop, xp)

    driver.GENERATORS["list"] = dataclasses.replace(lists.LIST, part=broken) if fail else lists.LIST


def test_failure_on_a_worker_aborts_and_leaves_nothing(tmp_path, client):
    client.run(_break_list_generator, True)
    try:
        with pytest.raises(RuntimeError, match="worker disk on fire"):
            generate("list", tmp_path / "d", seed=1, params={"n": 1000}, part_rows=100,
                     client=client, progress=False)
    finally:
        client.run(_break_list_generator, False)
    assert list(tmp_path.iterdir()) == []
