"""The communicator's protocol, rank by rank, over the Dask transport (K = 1..4 CPU workers, as CI
runs it) and over NCCL (one worker per GPU; ``multi_gpu``): every collective's answer, empty and
uneven pieces, the ledger, and a cancelled wait that ends in one error instead of a hang."""

import re
import sys

import numpy as np
import pytest
from graphsweep.kernels import harness
from graphsweep.kernels.dist import driver
from graphsweep.kernels.dist.comm import CommError

from ..conftest import SHAPES, dataset
from .conftest import by_value

by_value(sys.modules[__name__])


def _protocol(rank) -> dict:
    """Every collective once, with pieces that differ by rank (some empty)."""
    comm, xp, r, k = rank.comm, rank.xp, rank.comm.rank, rank.comm.size
    out = {"rank": r, "size": k}
    x = xp.asarray(np.array([r + 1, 10 * (r + 1), -r], dtype=np.int64))
    out["sum"] = comm.host(comm.allreduce(x, "sum")).tolist()
    out["min"] = comm.host(comm.allreduce(x, "min")).tolist()
    out["max"] = comm.host(comm.allreduce(x.astype(np.float64), "max")).tolist()
    bounds = np.array([0] + [sum(j % 3 for j in range(i + 1)) for i in range(k)], dtype=np.int64)   # 0, 1, 2, 0 wide
    whole = xp.full(int(bounds[-1]), -1, dtype=np.float32)
    whole[int(bounds[r]):int(bounds[r + 1])] = r
    comm.allgatherv(whole, bounds)
    out["gathered"] = comm.host(whole).tolist()
    pieces = [xp.asarray(np.full((j + r) % 3, 100 * r + j, dtype=np.int32)) for j in range(k)]
    out["alltoallv"] = [comm.host(p).tolist() for p in comm.alltoallv(pieces)]
    outs = [xp.full(2 + j, -1, dtype=np.int64) for j in range(k)]      # rank j sends 2 + j numbers
    comm.alltoallv_into([xp.asarray(np.arange(2 + r, dtype=np.int64) + 100 * r) for _ in range(k)], outs)
    out["into"] = [comm.host(o).tolist() for o in outs]
    rounds = comm.rounds
    left, right = xp.zeros(k, dtype=np.int32), xp.zeros(2 * k, dtype=np.int32)
    left[r], right[2 * r:2 * r + 2] = r + 1, -(r + 1)
    with comm.group():
        comm.allgatherv(left, np.arange(k + 1))
        comm.allgatherv(right, np.arange(0, 2 * k + 1, 2))
    out["grouped"] = [comm.host(left).tolist(), comm.host(right).tolist()]
    out["group_rounds"] = comm.rounds - rounds
    comm.barrier()
    out["rounds"], out["received"] = comm.rounds, comm.received
    return out


_INPUTS: dict = {}


def _partition(address: str, k: int, backend: str = "cpu", comms: str = "auto"):
    """The partition of one small graph (the same input each time: a partition is cached on it)."""
    if backend not in _INPUTS:
        kernel = harness.registry.get("cc.distributed")
        _INPUTS[backend] = harness.prepared(kernel, dataset(SHAPES["rmat"]()).to(backend))
    return driver.partitioned(_INPUTS[backend], {"partitions": k, "scheduler": address, "comms": comms}, backend)


def _check(records: list, k: int) -> None:
    for rec in records:
        r = rec["rank"]
        assert rec["size"] == k
        assert rec["sum"] == [k * (k + 1) // 2, 10 * k * (k + 1) // 2, -k * (k - 1) // 2]
        assert rec["min"] == [1, 10, -(k - 1)]
        assert rec["max"] == [float(k), 10.0 * k, 0.0]
        widths = [j % 3 for j in range(k)]
        assert rec["gathered"] == [float(j) for j in range(k) for _ in range(widths[j])]
        assert rec["alltoallv"] == [[100 * j + r] * ((r + j) % 3) for j in range(k)]
        for j, got in enumerate(rec["into"]):
            assert got == ([-1] * (2 + r) if j == r else [100 * j + i for i in range(2 + j)])
        assert rec["group_rounds"] == 0 if k == 1 else 1 <= rec["group_rounds"] <= 2   # NCCL: one, Dask: each
        assert rec["grouped"] == [[j + 1 for j in range(k)], [x for j in range(k) for x in (-(j + 1), -(j + 1))]]
        assert rec["rounds"] >= (0 if k == 1 else 6)
        assert (rec["received"] > 0) == (k > 1)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_every_collective_over_the_dask_transport(workers4, k):
    part = _partition(workers4, k)
    assert part.transport == ("none" if k == 1 else "dask")
    _check(part.spmd(_protocol, name="protocol"), k)


def _wait_for_a_round_nobody_sends(rank) -> None:
    if rank.comm.rank == 0:
        raise RuntimeError("rank 0 gives up before the round")
    rank.comm.allreduce(np.zeros(1, dtype=np.int64))


def test_a_failed_rank_ends_the_others_waits_in_one_error(workers4):
    """Rank 0 fails; rank 1 waits for its piece: the driver cancels it, and the run fails with
    rank 0's error (not the cancelled wait's), well before the collective's timeout."""
    import time
    part = _partition(workers4, 2)
    t0 = time.monotonic()
    with pytest.raises(driver.PartitionError, match="rank 0 gives up before the round"):
        part.spmd(_wait_for_a_round_nobody_sends, name="failing")
    assert time.monotonic() - t0 < 20
    assert part.broken
    again = _partition(workers4, 2)          # a broken partition is built again
    assert again is not part and not again.broken
    _check(again.spmd(_protocol, name="protocol"), 2)


def _die_in_the_round(rank) -> None:
    """Rank 1's worker process dies while rank 0 waits for its piece of an all-reduce."""
    if rank.comm.rank == 1:
        import os
        os._exit(1)
    rank.comm.host(rank.comm.allreduce(rank.xp.zeros(1, dtype=np.int64)))


def _killed_mid_run_then_works(address: str, fn, backend: str, comms: str) -> None:
    """``fn`` over two ranks kills rank 1's worker mid-run: the run fails within a minute in one
    line naming the worker, its slice and the run, and once the nanny has started the worker again
    the next partition on the same cluster runs every collective."""
    import time
    from graphsweep.core.workers import live_workers
    part = _partition(address, 2, backend=backend, comms=comms)
    victim = part.workers[1]
    t0 = time.monotonic()
    with pytest.raises(driver.PartitionError, match=rf"worker {re.escape(victim)} holding slice 1 of 2, vertices "
                                                    rf"\[\d+, \d+\) was lost during \S+; the run fails"):
        part.spmd(fn, name="dying")
    assert time.monotonic() - t0 < 60
    client = driver._CLIENTS[address]
    deadline = time.monotonic() + 60
    while victim in live_workers(client) or len(live_workers(client)) < len(part.workers):
        assert time.monotonic() < deadline, "the killed worker was not replaced within 60 s"
        time.sleep(0.2)
    again = _partition(address, 2, backend=backend, comms=comms)
    _check(again.spmd(_protocol, name="protocol"), 2)


def test_a_worker_killed_mid_run_fails_it_in_one_line_and_the_next_run_works():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        _killed_mid_run_then_works(cluster.scheduler_address, _die_in_the_round, "cpu", "auto")


def test_nccl_is_refused_for_cpu_workers_in_one_line(workers4):
    with pytest.raises(driver.ParameterError, match="parameter 'comms': nccl needs GPU workers"):
        _partition(workers4, 2, comms="nccl")


def test_a_cancelled_mailbox_wait_raises_at_once():
    from graphsweep.kernels.dist.comm.dask_tcp import Mailbox
    box = Mailbox()
    box.cancel("run")
    with pytest.raises(CommError, match="cancelled"):
        box.take("run", 0, 1, timeout=30)


@pytest.mark.gpu
@pytest.mark.multi_gpu
@pytest.mark.parametrize("k", [2, "all"])
def test_every_collective_over_nccl(cuda_workers, k):
    import cupy
    k = cupy.cuda.runtime.getDeviceCount() if k == "all" else k
    part = _partition(cuda_workers, k, backend="gpu", comms="nccl")
    assert part.transport == "nccl"
    _check(part.spmd(_protocol, name="protocol"), k)


@pytest.mark.gpu
@pytest.mark.multi_gpu
def test_a_failed_rank_aborts_the_nccl_waits(cuda_workers):
    _fails_within_30_s_then_works(cuda_workers, _wait_for_a_round_nobody_sends_gpu, "rank 0 gives up before the round")


def _fails_within_30_s_then_works(address: str, fn, match: str) -> None:
    """``fn`` over two NCCL ranks fails the run in one error matching ``match`` within 30 s, and
    the next partition on the same workers runs every collective."""
    import time
    part = _partition(address, 2, backend="gpu", comms="nccl")
    t0 = time.monotonic()
    with pytest.raises(driver.PartitionError, match=match):
        part.spmd(fn, name="failing")
    assert time.monotonic() - t0 < 30
    again = _partition(address, 2, backend="gpu", comms="nccl")
    _check(again.spmd(_protocol, name="protocol"), 2)


def _wait_for_a_round_nobody_sends_gpu(rank) -> None:
    if rank.comm.rank == 0:
        raise RuntimeError("rank 0 gives up before the round")
    rank.comm.host(rank.comm.allreduce(rank.xp.zeros(1, dtype=np.int64)))


def _search_a_peer_never_launches(rank) -> None:
    """Both ranks set up bfs.distributed's one-launch search (its peer buffers are collective) and
    meet on the device; rank 1 then fails instead of launching, and rank 0's search kernel waits at
    its first meeting until the driver's cancel (the host's abort word) ends it."""
    from graphsweep.kernels.bfs import distributed as bfs
    search = bfs._GpuSearch(rank, bfs.KERNEL.resolve_params({"exchange": "peer", "threads": 256, "outbox": 1 << 16}))
    if rank.comm.rank == 1:
        rank.restart()
        raise RuntimeError("rank 1 gives up before its search")
    search.in_one_launch(0, "auto", 15.0, 18.0, rank.slice.csr.nnz)


@pytest.mark.gpu
@pytest.mark.multi_gpu
def test_a_search_kernel_whose_peer_never_launches_fails_in_one_line(cuda_workers):
    _fails_within_30_s_then_works(cuda_workers, _search_a_peer_never_launches, "rank 1 gives up before its search")


def _search_a_peer_is_late(rank) -> None:
    """Both ranks set up bfs.distributed's one-launch search and meet on the device; rank 1 then
    waits in an all-reduce nobody joins instead of launching, and rank 0's search kernel, its wait
    for a peer shortened to 0.5 s, gives up at its first meeting: the timeout ends it, not the
    driver's cancel (no rank failed before it), and rank 0's error is the run's."""
    from graphsweep.kernels.bfs import distributed as bfs
    from graphsweep.kernels.dist.comm import peer
    search = bfs._GpuSearch(rank, bfs.KERNEL.resolve_params({"exchange": "peer", "threads": 256, "outbox": 1 << 16}))
    if rank.comm.rank == 1:
        rank.restart()
        rank.comm.host(rank.comm.allreduce(rank.xp.zeros(1, dtype=np.int64)))
        return
    kept, peer.TIMEOUT_S = peer.TIMEOUT_S, 0.5
    try:
        search.in_one_launch(0, "auto", 15.0, 18.0, rank.slice.csr.nnz)
    finally:
        peer.TIMEOUT_S = kept


@pytest.mark.gpu
@pytest.mark.multi_gpu
def test_a_search_kernel_whose_peer_is_late_times_out_in_one_line(cuda_workers):
    _fails_within_30_s_then_works(cuda_workers, _search_a_peer_is_late, "bfs.distributed: a peer barrier waited 0 s")


def _search_a_peer_dies_before_launching(rank) -> None:
    """As ``_search_a_peer_never_launches``, but rank 1's worker process dies instead of failing:
    rank 0's search kernel waits at its first meeting on a peer whose memory it maps, until the
    driver, finding the worker gone, cancels it."""
    from graphsweep.kernels.bfs import distributed as bfs
    search = bfs._GpuSearch(rank, bfs.KERNEL.resolve_params({"exchange": "peer", "threads": 256, "outbox": 1 << 16}))
    if rank.comm.rank == 1:
        import os
        rank.restart()
        os._exit(1)
    search.in_one_launch(0, "auto", 15.0, 18.0, rank.slice.csr.nnz)


@pytest.mark.gpu
@pytest.mark.multi_gpu
@pytest.mark.parametrize("where", ["nccl all-reduce", "peer-memory search"])
def test_a_gpu_worker_killed_mid_run_fails_it_in_one_line_and_the_next_run_works(cuda_workers, where):
    fn = _die_in_the_round if where == "nccl all-reduce" else _search_a_peer_dies_before_launching
    _killed_mid_run_then_works(cuda_workers, fn, "gpu", "nccl")
