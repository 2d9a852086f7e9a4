"""One graph sliced over K Dask workers: the partition (edge-balanced bounds, slices read from
Parquet parts, generated again in place, or handed over), cc/bfs/pagerank.distributed against the
one-worker kernels on many shapes and K = 1..4, the ledger in the rows, and the failures (K larger
than the workers, a worker lost) as one clear error, never a hang."""

import numpy as np
import pytest
from graphsweep.datasets.errors import ParameterError
from graphsweep.generators import driver, memory
from graphsweep.kernels import harness
from graphsweep.kernels.graph import partition
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, shortest_path

from ..conftest import SHAPES, dataset

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.fixture(autouse=True, scope="module")
def _local_workers_closed_after():
    """The local worker processes the runs start stay up between tests (as between a user's runs);
    the suite's later tests get the machine back when this module is done."""
    yield
    partition._close_local()
# Every shape at K = 3 (more workers than CI's cores, slices of unequal sizes); the larger ones at every K.
CASES = ([(shape, 3) for shape in SHAPES] +
         [(shape, k) for shape in ("components", "messy", "rmat", "star") for k in (1, 2, 4)])


def run(name, data, backend, **params):
    res = harness.run(name, data, backend=backend, reps=1, warmup=0, **params)
    assert res.verified, res.verify_error
    return res


def canonical(graph):
    n, src, dst = graph
    _, comp = connected_components(coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)
    _, first = np.unique(comp, return_index=True)
    return first[comp]


def levels(graph, root):
    n, src, dst = graph
    hops = shortest_path(coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr(), unweighted=True,
                         directed=False, indices=root)
    return np.where(np.isinf(hops), -1, hops).astype(np.int32)


@pytest.mark.parametrize("shape,k", CASES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_components_are_the_canonical_labels(shape, k, backend):
    graph = SHAPES[shape]()
    res = run("cc.distributed", dataset(graph), backend, partitions=k)
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert res.stats["partitions"] == k
    assert res.stats["slice_edges_total"] == 2 * int(np.count_nonzero(graph[1] != graph[2]))


@pytest.mark.parametrize("shape,k", [(shape, 3) for shape in SHAPES] + [("components", 4), ("path", 2)])
@pytest.mark.parametrize("backend", BACKENDS)
def test_hooking_across_cut_edges_gives_the_same_labels(shape, k, backend):
    graph = SHAPES[shape]()
    res = run("cc.distributed", dataset(graph), backend, partitions=k, merge="hook")
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert res.stats["hook_iterations"] >= 1
    # each iteration: the labels' exchange and the all-reduce of "changed"; then the gather
    assert res.stats["rounds"] == 2 * res.stats["hook_iterations"] + 1


@pytest.mark.parametrize("fan_in", [2, 3, 8])
def test_every_reduction_tree_gives_the_same_labels(fan_in):
    graph = SHAPES["components"]()
    res = run("cc.distributed", dataset(graph), "cpu", partitions=4, fan_in=fan_in)
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert res.stats["merge_rounds"] == {2: 2, 3: 2, 8: 1}[fan_in]


@pytest.mark.parametrize("shape,k", CASES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_bfs_levels_are_the_one_worker_levels(shape, k, backend):
    graph = SHAPES[shape]()
    res = run("bfs.distributed", dataset(graph), backend, partitions=k, instances=2)
    for stats, instance in zip(res.instance_stats, res.instances):
        assert stats["levels"] >= 1
    np.testing.assert_array_equal(res.output["level"], levels(graph, res.instances[-1]["root"]))


@pytest.mark.parametrize("direction", ["top-down", "bottom-up"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_bfs_either_direction_at_every_level(direction, backend):
    graph = SHAPES["rmat"]()
    res = run("bfs.distributed", dataset(graph), backend, partitions=3, root=5, direction=direction)
    np.testing.assert_array_equal(res.output["level"], levels(graph, 5))
    bottom = res.stats["bottom_up_levels"]
    assert bottom == (res.stats["levels"] if direction == "bottom-up" else 0)


def test_bfs_switches_direction_on_a_scale_free_graph():
    graph = SHAPES["rmat"]()
    res = run("bfs.distributed", dataset(graph), "cpu", partitions=2, root=0)
    assert 0 < res.stats["bottom_up_levels"] < res.stats["levels"]
    steps = [r for r in res.step_rows if r["phase"] == "level"]
    assert len(steps) == res.stats["levels"]
    assert {r["step_direction"] for r in steps} == {"top-down", "bottom-up"}
    assert all(r["step_rounds"] == 2 for r in steps)      # the level's exchange, then the counts' all-reduce
    assert all(r["step_bytes_exchanged"] > 0 for r in steps)
    assert res.stats["search_rounds"] == 2 * res.stats["levels"] + 1


@pytest.mark.parametrize("shape,k", CASES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_pagerank_is_the_one_worker_pagerank(shape, k, backend):
    graph = SHAPES[shape]()
    res = run("pagerank.distributed", dataset(graph), backend, partitions=k)
    ref = run("pagerank.spmv", dataset(graph), backend)
    assert res.stats["iterations"] == ref.stats["iterations"]
    np.testing.assert_allclose(res.output["score"], ref.output["score"], rtol=1e-5, atol=1e-9)


def test_rows_carry_the_ledger_per_phase():
    graph = SHAPES["rmat"]()
    one = run("cc.distributed", dataset(graph), "cpu", partitions=1)
    three = run("cc.distributed", dataset(graph), "cpu", partitions=3)
    for phase in ("local", "merge", "relabel", "gather"):
        for stat in ("local_ms", "wait_ms", "bytes_exchanged", "rounds"):
            assert f"{phase}_{stat}" in three.stats
    assert three.stats["merge_rounds"] == 2 and three.stats["relabel_rounds"] == 1
    assert three.stats["merge_bytes_exchanged"] > 0
    assert one.stats["merge_bytes_exchanged"] == 0 and one.stats["relabel_rounds"] == 0
    assert three.stats["cut_entries"] > 0 == one.stats["cut_entries"]
    assert three.stats["slice_edges_max"] <= one.stats["slice_edges_max"]


def test_the_ledger_counts_each_run_alone():
    """Workers log every run's tasks; a run's statistics are its own, not the sum over reps."""
    res = harness.run("cc.distributed", dataset(SHAPES["rmat"]()), backend="cpu", reps=4, warmup=2, partitions=2)
    totals = [r["ms"] for r in res.rows if r["phase"] == "total"]
    assert res.stats["local_ms"] <= max(totals)
    assert res.stats["merge_rounds"] == 1 and res.stats["relabel_rounds"] == 1


def test_bounds_balance_edges_not_vertices():
    hist = np.zeros(partition.BUCKETS, dtype=np.int64)
    hist[:10] = 100_000        # a few heavy buckets, then a long light tail
    hist[10:] = 1
    bounds = partition.edge_balanced_bounds(hist, 1, partition.BUCKETS, 4)
    assert bounds[0] == 0 and bounds[-1] == partition.BUCKETS and np.all(np.diff(bounds) >= 0)
    shares = [hist[a:b].sum() for a, b in zip(bounds[:-1], bounds[1:])]
    assert max(shares) - min(shares) <= 100_000    # within one bucket of equal
    assert bounds[1] < 10                          # the first slice is a few heavy vertices


def test_slices_are_read_from_the_parquet_parts(tmp_path):
    path = tmp_path / "rmat"
    driver.generate("rmat", path, seed=3, params={"scale": 10, "edge_factor": 8}, part_rows=3000)
    res = run("cc.distributed", str(path), "cpu", partitions=2)
    assert res.stats["partition_passes"] >= 2          # a count pass, then a pass per piece of rows
    ref = run("cc.best", str(path), "cpu")
    np.testing.assert_array_equal(res.output["label"], ref.output["label"])


def test_a_slice_larger_than_its_budget_is_built_in_pieces(monkeypatch):
    """Workers in this process (threads), so the budget can be made small: each slice is built by
    a count pass and a pass per piece of about 2,000 entries, and the answer does not change."""
    from distributed import LocalCluster
    monkeypatch.setattr(partition, "_slice_budget", lambda xp: 2000 * 24 * 2)
    data = memory.generate("rmat", seed=5, params={"scale": 10, "edge_factor": 8})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        res = run("cc.distributed", data, "cpu", partitions=2, scheduler=cluster.scheduler_address)
    assert res.stats["partition_passes"] >= 1 + res.stats["slice_edges_max"] // 2000
    ref = run("cc.best", data, "cpu")
    np.testing.assert_array_equal(res.output["label"], ref.output["label"])


def test_a_graph_generated_in_memory_is_generated_again_by_each_worker():
    data = memory.generate("rmat", seed=4, params={"scale": 10, "edge_factor": 8})
    assert partition._source(harness.prepared(harness.registry.get("cc.distributed"), data))[0] == "generated"
    res = run("bfs.distributed", data, "cpu", partitions=2, root=0)
    ref = run("bfs.best", data, "cpu", root=0)
    np.testing.assert_array_equal(res.output["level"], ref.output["level"])


def test_more_slices_than_workers_is_refused_before_any_work():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with pytest.raises(ParameterError, match="parameter 'partitions': 3 slices, but the cluster at .* has 2 "
                                                 "workers"):
            harness.run("cc.distributed", dataset(SHAPES["rmat"]()), backend="cpu", reps=1, warmup=0,
                        partitions=3, scheduler=cluster.scheduler_address)


def _until_gone(client, worker, timeout=30.0):
    """Wait until the scheduler has seen ``worker`` go (a run started before that may still see it)."""
    import time
    deadline = time.monotonic() + timeout
    while worker in client.scheduler_info(n_workers=-1)["workers"]:
        assert time.monotonic() < deadline, f"{worker} still listed after {timeout} s"
        time.sleep(0.1)


def test_a_lost_worker_fails_the_run_in_one_line():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        data = dataset(SHAPES["rmat"]())
        params = {"partitions": 2, "scheduler": cluster.scheduler_address}
        run("cc.distributed", data, "cpu", **params)              # slices built on both workers
        client = partition._CLIENTS[cluster.scheduler_address]
        victim = sorted(client.scheduler_info(n_workers=-1)["workers"])[1]
        with pytest.raises(Exception):                                # the worker process dies under the call
            client.run(lambda: __import__("os")._exit(1), workers=[victim])
        _until_gone(client, victim)
        with pytest.raises(partition.PartitionError, match=rf"worker {victim} holding slice 1 of 2, vertices "
                                                           rf"\[\d+, \d+\) was lost during \w+; the run fails"):
            harness.run("cc.distributed", data, backend="cpu", reps=1, warmup=0, **params)


def test_a_lost_worker_fails_a_search_in_step_and_frees_the_others():
    """bfs.distributed's tasks wait for each other's pieces: when one worker is gone the driver
    fails the run in one line and tells the others to stop waiting (no thread left blocked)."""
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        data = dataset(SHAPES["rmat"]())
        params = {"partitions": 2, "scheduler": cluster.scheduler_address, "root": 0}
        run("bfs.distributed", data, "cpu", **params)
        client = partition._CLIENTS[cluster.scheduler_address]
        survivor, victim = sorted(client.scheduler_info(n_workers=-1)["workers"])
        with pytest.raises(Exception):
            client.run(lambda: __import__("os")._exit(1), workers=[victim])
        _until_gone(client, victim)
        with pytest.raises(partition.PartitionError, match=rf"worker {victim} holding slice 1 of 2"):
            harness.run("bfs.distributed", data, backend="cpu", reps=1, warmup=0, **params)
        assert client.run(lambda: len(__import__("graphsweep.kernels.graph.exchange", fromlist=["x"])._CANCELLED),
                          workers=[survivor])[survivor] >= 1


def test_directed_graphs_are_refused_in_one_line():
    n, src, dst = SHAPES["path"]()
    with pytest.raises(ParameterError, match="undirected"):
        harness.run("bfs.distributed", dataset((n, src, dst), directed=True), backend="cpu", reps=1, warmup=0,
                    partitions=2)


def _exchanging_slice(run, index, addresses):
    from graphsweep.kernels.graph.exchange import Peers
    return Peers(run, index, addresses).exchange("round", {1 - index: f"{run} from {index}"})


def test_two_runs_crossed_on_workers_of_one_thread_both_finish(monkeypatch):
    """Run A's slice 0 and run B's slice 1 start first; A's slice 1 and B's slice 0 queue behind them
    on workers of one thread.  A waiting slice leaves its worker's thread slot, so the queued ones
    start and both runs finish (they used to wait each other out for WAIT_S, then fail)."""
    import time

    from distributed import Client, LocalCluster
    from graphsweep.kernels.graph import exchange
    monkeypatch.setattr(exchange, "WAIT_S", 20.0)       # in-process workers: a deadlock fails, not hangs
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        addresses = sorted(client.scheduler_info(n_workers=-1)["workers"])
        client.run(exchange.listen)             # as a slice's build does, before any peer sends

        def start(run, index):
            return client.submit(_exchanging_slice, run, index, addresses, workers=[addresses[index]],
                                 allow_other_workers=False, pure=False)
        first = [start("A", 0), start("B", 1)]
        time.sleep(0.5)
        queued = [start("A", 1), start("B", 0)]
        a0, b1, a1, b0 = client.gather(first + queued)
    assert (a0, a1) == ({1: "A from 1"}, {0: "A from 0"})
    assert (b0, b1) == ({1: "B from 1"}, {0: "B from 0"})
