"""The driver's side of one graph over K workers: which workers, the partition they hold, its
communicator, and running a kernel on them.

Workers.  ``partitions=K`` slices on: the workers of the Dask scheduler named by ``scheduler``;
else, inside a Dask worker (a sweep's task), its own cluster; else local workers started for the
run and kept (and grown) for the next run in this process: on a GPU machine with K GPUs or more a
dask-cuda cluster of one worker per GPU, else K worker processes of one thread (on the GPU
sharing the device).  K larger than the workers there are — or, for local workers, than the
cores that could run them — is refused in one line before any work.

Partition (``partitioned``, cached on the graph input; built in the kernel's untimed setup).
First the communicator is made (``comms``: ``auto`` takes NCCL when every worker owns a distinct
GPU and NCCL loads there, else the Dask transport; K = 1 needs none); then each worker builds its
slice from its share of the edges, the entries shuffled to their owners through the
communicator (``slices``, ``shuffle``), and keeps it in its ``plugin.SliceStore``; the driver
receives the bounds and the facts only.  For K > 1 the communicator's all-reduce bandwidth and
latency are measured last, as facts (``link_*``) that the runs' rows carry for the cost model.

Runs.  ``Partition.spmd(fn, *args)`` runs ``fn`` as one task per worker (``spmd.run``), tasks
bound to their slice's worker (no stealing), named on the dashboard.  The driver polls while it
waits: a lost worker or a failed rank fails the run with one ``PartitionError`` naming the
worker, its slice and the phase; the surviving ranks are cancelled (their communicator aborted,
so none waits for ever) and the partition is marked broken, to be built again by the next run.
"""

import atexit
import logging
import os
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from graphsweep.datasets import format as dataset_format
from graphsweep.core.errors import GraphsweepError, ParameterError
from graphsweep.core.gpu import backend_module, to_host
from graphsweep.core.workers import live_workers

from .. import registry
from ..contract import Param
from ..graph import PACK_LIMIT, WITH_EDGES
from . import plugin, shuffle, slices, spmd
from .comm import TRANSPORTS, CommError, SoloComm
from .comm import nccl as nccl_transport
from .comm.dask_tcp import DaskComm

PARAMS = {
    "partitions": Param(1, minimum=1, help="K: workers, each holding one slice of the graph (a range of source "
                                           "vertices balanced by edges)"),
    "scheduler": Param("", str, help="address or scheduler file (a .json path) of a Dask scheduler whose workers "
                                     "hold the slices, on this host or several (default: the cluster of the Dask "
                                     "worker running the task, else local workers)"),
    "comms": Param("auto", str, choices=TRANSPORTS,
                   help="how the workers exchange: nccl (device to device; one GPU per worker), dask (Dask's comms "
                        "through host memory), auto: nccl when every worker owns a distinct GPU"),
}
POLL_S = 0.5              # how often a waiting driver checks that its workers are alive
LOST_S = 10.0             # how long a run whose ranks all failed because of a peer waits to see a worker gone


def _peer_side(exc) -> bool:
    """A rank's error that a peer caused: its wait cancelled (a peer failed), a connection to a
    peer closed, or its own worker killed under it (Dask's KilledWorker)."""
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError
    return isinstance(exc, (CommError, ConnectionError, CommClosedError, KilledWorker))


class PartitionError(GraphsweepError):
    """A partitioned run lost a worker or a rank failed: the run fails, in one line."""
    exit_code = 1


# --- the workers

_LOCAL: dict = {}            # backend -> (cluster, Client): local workers started for runs in this process
_CLIENTS: dict = {}          # scheduler address -> Client
_LOCK = threading.Lock()
_RESERVED = threading.local()  # .workers: the workers ``reserving`` holds for this thread's task


def _gpus() -> int:
    from graphsweep.core import gpu
    if not gpu.available():
        return 0
    import cupy
    return cupy.cuda.runtime.getDeviceCount()


def _local_client(k: int, backend: str):
    """A client of at least ``k`` local workers (see the module doc), started on first use, grown
    when a run asks for more, kept for the next run in this process."""
    from distributed import Client, LocalCluster
    cores = os.cpu_count() or 1
    gpus = _gpus() if backend == "gpu" else 0
    if k > max(cores, gpus):
        raise ParameterError(f"parameter 'partitions': {k} slices, but this machine can start at most "
                             f"{max(cores, gpus)} local workers ({cores} cores)")
    with _LOCK:
        kind = "cuda" if backend == "gpu" and k <= gpus and _has_dask_cuda() else "processes"
        slot = (backend, kind)
        if slot not in _LOCAL:
            if kind == "cuda":
                from dask_cuda import LocalCUDACluster
                cluster = LocalCUDACluster(dashboard_address=":0", threads_per_worker=1, silence_logs=logging.CRITICAL)
            else:
                if backend == "cpu":
                    compile_cpu_twins()
                # the workers' own records off stderr, as from the pipeline's local clusters: a run's
                # failure is the driver's one line (a worker's heartbeat to a scheduler closed first
                # at Ctrl-C was a traceback after it)
                cluster = LocalCluster(n_workers=k, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       memory_limit=0, silence_logs=logging.CRITICAL)
            _LOCAL[slot] = (cluster, Client(cluster, set_as_default=False))
        cluster, client = _LOCAL[slot]
        if kind == "processes" and len(cluster.workers) < k:
            cluster.scale(k)
        client.wait_for_workers(k, timeout=120)   # also while a nanny restarts a worker of an earlier run
        return client


def compile_cpu_twins() -> None:
    """Compile here every partitioned kernel's CPU twins (``Kernel.compile_cpu_twins``) before
    worker processes run any.  Numba's on-disk cache (``cache=True``) is not safe for processes
    that compile and write the same functions at once (numba/numba#4807, #10128), as K fresh
    workers do in step at a run's first levels (CI lost a worker so, at a first bfs.distributed
    run).  Compiled and cached once here, the workers only load them; once cached, this loads
    them too (about a second).  A test holds the ranks to running nothing compiled elsewhere."""
    for name in registry.names():
        compile_twins = registry.get(name).compile_cpu_twins
        if compile_twins:
            compile_twins()


def _has_dask_cuda() -> bool:
    try:
        import dask_cuda  # noqa: F401
    except ImportError:
        return False
    return True


@atexit.register
def close_local() -> None:
    """Close the clients kept for clusters given by address, then the local workers started for
    runs (at exit; whoever closes a cluster it gave by address calls it first, or the kept client
    retries the closed scheduler for 10 s and logs its failure as the interpreter ends)."""
    for client in _CLIENTS.values():
        client.close()
    _CLIENTS.clear()
    for cluster, client in _LOCAL.values():
        client.close()
        cluster.close()
    _LOCAL.clear()


def _in_worker() -> bool:
    from distributed import get_worker
    try:
        get_worker()
    except ValueError:
        return False
    return True


def _client(params: dict, k: int, backend: str):
    """The Dask client whose workers hold the slices (see the module doc) and where they come from."""
    from distributed import Client, get_client
    address = params["scheduler"]
    if address:
        with _LOCK:
            if address not in _CLIENTS:
                where = ({"scheduler_file": address} if address.endswith(".json") or Path(address).is_file()
                         else {"address": address})
                try:
                    _CLIENTS[address] = Client(**where, timeout=10, set_as_default=False)
                except (OSError, ValueError) as exc:
                    raise ParameterError(f"parameter 'scheduler': cannot connect to {address} ({exc})") from None
            return _CLIENTS[address], f"the cluster at {address}"
    if _in_worker():
        return get_client(), "this task's cluster"
    return _local_client(k, backend), "local workers"


@contextmanager
def reserving(k: int, resources: dict):
    """Around a sweep's task that slices its graph over K workers of its own cluster: hold
    ``resources`` (what every timed kernel task holds: GPU=1, or HOST=1 on CPU workers) on K
    workers for the task's life, so no other timed kernel runs on them meanwhile, and have the
    partition take exactly those.  Each worker is held by a task that takes the resources, leaves
    the worker's thread pool (the ranks need the thread) and waits to be released.  Workers are
    taken one at a time in address order, so two partitioned tasks never each hold what the other
    waits for; a worker lost while its hold is awaited fails the task in one line, and a hold whose
    task is gone (its worker lost) lets its worker go."""
    from distributed import Event, get_client, get_worker, wait
    client = get_client()
    owner = get_worker().get_current_task()
    offers = client.run_on_scheduler(_offers)     # asked afresh: a worker's client may hold a stale list
    able = sorted(a for a, offered in offers.items() if all(offered.get(r, 0) >= v for r, v in resources.items()))
    if k > len(able):
        raise ParameterError(f"parameter 'partitions': {k} slices, but this task's cluster has {len(able)} worker"
                             f"{'s' if len(able) != 1 else ''} offering {resources}")
    name = f"graphsweep-hold-{uuid.uuid4().hex}"
    holds = []
    try:
        for i, address in enumerate(able[:k]):
            holds.append(client.submit(_hold, name, i, owner, key=f"{name}-{i}", resources=resources,
                                       workers=[address], allow_other_workers=False, pure=False))
            held = Event(f"{name}-held-{i}", client=client)
            while not held.wait(timeout=POLL_S):
                if holds[-1].status in ("error", "cancelled") or address not in client.run_on_scheduler(_offers):
                    raise PartitionError(f"worker {address} was lost before this task could hold it for slice {i}")
        _RESERVED.workers = able[:k]
        yield able[:k]
    finally:
        _RESERVED.workers = None
        Event(f"{name}-release", client=client).set()
        wait(holds, timeout=POLL_S * 20)
        client.cancel([h for h in holds if not h.done()])


def _offers(dask_scheduler) -> dict:
    """Each worker's resources, as the scheduler knows them now."""
    return {address: dict(ws.resources) for address, ws in dask_scheduler.workers.items()}


def _hold(name: str, index: int, owner) -> None:
    """A worker held for the partitioned task ``owner`` (see ``reserving``): its resources stay
    taken until that task releases it or is no longer running; its thread goes back to the worker."""
    from distributed import Event, get_client, secede
    secede()
    Event(f"{name}-held-{index}").set()
    release = Event(f"{name}-release")
    while not release.wait(timeout=POLL_S):
        if not get_client().run_on_scheduler(_running, owner):
            return


def _running(owner, dask_scheduler) -> bool:
    """Whether task ``owner`` is still being computed (a seceded task is, to the scheduler)."""
    task = dask_scheduler.tasks.get(owner)
    return task is not None and task.state == "processing"


def reserved() -> list | None:
    """The workers ``reserving`` holds for the calling thread's task, or None."""
    return getattr(_RESERVED, "workers", None)


@contextmanager
def driving():
    """Around a Dask task that drives a partitioned kernel: the task leaves its worker's thread
    pool while it runs (its worker may hold a slice, and a worker of one thread would otherwise
    wait for itself) and joins it again after, as ``distributed.worker_client`` does."""
    from distributed import rejoin, secede
    if not _in_worker():
        yield
        return
    secede()
    try:
        yield
    finally:
        rejoin()


# --- the partition

class Partition:
    """The driver's handle on a graph sliced over K workers (see the module doc)."""

    def __init__(self, client, workers: list, backend: str, n: int, threads: int):
        self.client, self.workers, self.backend, self.n, self.threads = client, workers, backend, n, threads
        self.k = len(workers)
        self.key = f"partition-{uuid.uuid4().hex}"
        self.bounds = np.zeros(self.k + 1, dtype=np.int64)
        self.transport = "none"
        self.identities: list = []    # (host, GPU, NCCL loads) of each slice's worker (GPU backend)
        self.with_edges_counts: list = []   # each slice's rows with an edge
        self.facts: dict = {}
        self.broken = False

    def slice_range(self, i: int) -> str:
        return f"slice {i} of {self.k}, vertices [{int(self.bounds[i])}, {int(self.bounds[i + 1])})"

    def submit(self, fn, i: int, *args, name: str):
        """``fn(*args)`` on slice i's worker; the key names the task on the dashboard."""
        return self.client.submit(fn, *args, key=f"{name}-{i}-{uuid.uuid4().hex}", workers=[self.workers[i]],
                                  allow_other_workers=False, pure=False)

    def gather(self, futures: list, phase: str) -> list:
        """The results of ``futures`` (one per slice, in slice order); a lost worker or a failed
        task fails the run in one line, the other ranks cancelled, never a hang."""
        from distributed import wait
        try:
            while not any(f.status == "error" for f in futures):
                pending = [f for f in futures if f.status == "pending"]
                if not pending:
                    break
                try:
                    with self.client.as_current():
                        wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    self._check_alive(phase)
            failed = [(i, f) for i, f in enumerate(futures) if f.status == "error"]
            if failed:
                raise self._failure(phase, futures, failed)
            return self.client.gather(futures)
        except PartitionError:
            self._cancel(futures)
            raise

    def _failure(self, phase: str, futures: list, failed: list) -> PartitionError:
        """One line for a failed run: the first rank that failed of its own accord (not because a
        peer did), its worker and slice, and why; or, where every rank failed because of a peer
        (a cancelled wait, a closed connection, a task whose worker died) and one of the workers
        is gone, that worker's loss."""
        self._cancel(futures, release=False)
        deadline = time.monotonic() + 2 * POLL_S
        while time.monotonic() < deadline and any(f.status == "pending" for f in futures):
            time.sleep(0.05)
        errors = [(i, f.exception()) for i, f in enumerate(futures) if f.status == "error"]
        own = [(i, e) for i, e in errors if not _peer_side(e)]
        if not own:
            # a peer's process died: its connections closed before the scheduler dropped it
            deadline = time.monotonic() + LOST_S
            while (lost := self._lost(phase)) is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if lost is not None:
                return lost
        own = own or errors
        i, exc = own[0] if own else (failed[0][0], RuntimeError("the task failed"))
        if isinstance(exc, GraphsweepError) and not isinstance(exc, CommError):
            return exc if isinstance(exc, PartitionError) else PartitionError(str(exc))
        return PartitionError(f"{phase} failed on worker {self.workers[i]} holding {self.slice_range(i)}: "
                              f"{type(exc).__name__}: {exc}")

    def _cancel(self, futures: list, release: bool = True) -> None:
        """Tell the ranks still alive to stop waiting; the partition is broken for good."""
        self.broken = True
        try:
            alive = set(live_workers(self.client))
            self.client.run(plugin.cancel, self.key, workers=[w for w in self.workers if w in alive])
        except Exception:   # the cluster itself is going: nothing left to cancel
            pass
        if release:
            for f in futures:
                f.release()

    def _check_alive(self, phase: str) -> None:
        lost = self._lost(phase)
        if lost is not None:
            raise lost

    def _lost(self, phase: str) -> PartitionError | None:
        """The error of the first of the partition's workers no longer alive, if one is gone."""
        alive = set(live_workers(self.client))
        for i, worker in enumerate(self.workers):
            if worker not in alive:
                return PartitionError(f"worker {worker} holding {self.slice_range(i)} was lost during {phase}; "
                                      f"the run fails (its slice is gone)")
        return None

    def count_with_edges(self) -> int:
        """Vertices with an edge (other than a self-loop) over every slice."""
        return int(sum(self.with_edges_counts))

    def with_edges(self, positions) -> list[int]:
        """The vertices at ``positions`` of the sorted list of every vertex with an edge (a root
        picker's draws): each slice's share asked of its worker, in the order given."""
        positions = np.asarray(positions, dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(self.with_edges_counts)])
        owner = np.searchsorted(starts, positions, side="right") - 1
        found = self.gather([self.submit(_with_edges, i, self.key, positions[owner == i] - starts[i],
                                         name="partition-roots") for i in range(self.k)], "partition")
        out = np.empty(positions.shape[0], dtype=np.int64)
        for i in range(self.k):
            out[owner == i] = found[i]
        return [int(v) for v in out]

    def each(self, fn, *args, name: str) -> list:
        """``fn(key, *args)`` on every slice's worker (not in step: no communicator)."""
        return self.gather([self.submit(fn, i, self.key, *args, name=name) for i in range(self.k)], name)

    def spmd(self, fn, *args, name: str) -> list[dict]:
        """``fn(rank, *args)`` on every slice's worker in step (``spmd.run``): the ranks' records."""
        return self.gather([self.submit(spmd.run, i, self.key, fn, *args, name=name) for i in range(self.k)], name)

    def collect(self, names: tuple) -> dict:
        """The last run's output, its pieces from every worker joined in slice order (host arrays)."""
        pieces = self.each(spmd.output_piece, names, name="collect")
        return {name: np.concatenate([p[name] for p in pieces]) for name in names}

    def close(self) -> None:
        """Drop the slices and the communicator from the workers that hold them (as far as they
        are there: a worker lost, or the cluster closed since, holds nothing to drop)."""
        if self.client.status != "running":
            return
        try:
            self.each(_drop, name="partition-drop")
        except (PartitionError, OSError, TimeoutError):
            pass


def _drop(key) -> None:
    plugin.here().drop(key)


def partitioned(inp, params: dict, backend: str) -> Partition:
    """The partition of ``inp`` for ``params`` (``partitions``, ``scheduler``, ``comms``), built on
    first use and cached on ``inp``; a different K, cluster, transport or set of held workers (a
    sweep's task: ``reserving``) — or a broken partition — replaces the one cached (its slices
    dropped)."""
    k = int(params["partitions"])
    held = reserved() if not params["scheduler"] and _in_worker() else None
    want = (k, params["scheduler"], params["comms"], backend, tuple(held or ()))
    cached = inp.cache.get("partition")
    if cached is not None and cached[0] == want and not cached[1].broken:
        return cached[1]
    if inp.n >= PACK_LIMIT:
        raise ParameterError(f"{inp.where}: partitioned kernels take graphs of fewer than 2^31 vertices "
                             f"(n = {inp.n})")
    if inp.directed:
        raise ParameterError(f"{inp.where}: partitioned kernels take undirected graphs")
    client, where = _client(params, k, backend)
    workers = held or sorted(live_workers(client))
    if k > len(workers):
        raise ParameterError(f"parameter 'partitions': {k} slices, but {where} has {len(workers)} worker"
                             f"{'s' if len(workers) != 1 else ''}")
    if cached is not None:
        del inp.cache["partition"]
        cached[1].close()
    plugin.ensure(client)
    part = Partition(client, workers[:k], backend, inp.n, max(1, (os.cpu_count() or 1) // k))
    _connect(part, params["comms"])       # first: the build shuffles the edges through it
    _build(inp, part)
    if k > 1:
        _measure_link(part)
    inp.cache["partition"] = (want, part)
    inp.cache[WITH_EDGES] = part
    return part


def slice_graph(inp, params) -> Partition:
    """A partitioned kernel's setup: slice the graph over the workers before warm-up (untimed; the
    partition's facts become statistics)."""
    return partitioned(inp, params, inp.backend)


def _source(inp):
    """Where the workers find the edges: the dataset's Parquet parts when it is one on disk, the
    generator's plan when it is generated in memory (each worker generates again what it needs),
    else None (the driver hands them over)."""
    if hasattr(inp.edges, "chunk"):
        return ("generated", inp.edges)
    path = Path(inp.where)
    if dataset_format.is_dataset(path):
        manifest = dataset_format.read_manifest(path)
        if manifest["n"] == inp.n and manifest.get("m") == inp.m and manifest["parts"]:
            return ("parts", str(path))
    return None


def _build(inp, part: Partition) -> None:
    """Every worker's slice, built by the shuffle (``slices.build``) through the communicator."""
    t0 = time.perf_counter()
    k, n, backend = part.k, inp.n, part.backend
    source = _source(inp)
    if source is not None and source[0] == "generated" and backend == "cpu":
        # each worker generates its share: its generator's Numba twins are compiled here first, as
        # compile_cpu_twins compiles the kernels'
        source[1].chunk(0, min(1, source[1].m), np)
    if source is None:       # in memory only: each worker is handed its share
        src, dst = to_host(inp.src), to_host(inp.dst)
        shares = [(("arrays", (src[i * len(src) // k:(i + 1) * len(src) // k],
                               dst[i * len(dst) // k:(i + 1) * len(dst) // k])), 0, 1) for i in range(k)]
    else:
        shares = [(source, i, k) for i in range(k)]
    sizes = shuffle.sizes()
    built = part.gather([part.submit(_build_slice, i, part.key, *shares[i], n, backend, part.threads, sizes,
                                     name="partition-build") for i in range(k)], "partition")
    part.bounds = built[0]["bounds"]
    edges = [b["edges"] for b in built]
    rows = np.diff(part.bounds)
    part.facts.update({
        "partitions": k, "slice_edges_total": sum(edges), "slice_edges_max": max(edges),
        "slice_edges_min": min(edges), "slice_rows_max": int(rows.max()), "slice_rows_min": int(rows.min()),
        "cut_entries": sum(b["cut"] for b in built), "partition_passes": max(b["passes"] for b in built),
        "partition_rounds": max(b["rounds"] for b in built), "partition_s": time.perf_counter() - t0,
        "slice_bytes_max": max(b["bytes"] for b in built)})
    if backend == "gpu":
        part.facts["build_peak_bytes_max"] = max(b["peak_bytes"] for b in built)
    part.with_edges_counts = [b["with_edges"] for b in built]


def _build_slice(key, source, share: int, shares: int, n: int, backend: str, threads: int, sizes) -> dict:
    from distributed import secede
    secede()        # waits for its peers at every exchange: leave the thread pool to the others' tasks
    store = plugin.here()
    piece, facts = slices.build(store.comms[key], source, share, shares, n, backend, threads, sizes)
    store.slices[key] = piece
    return {**facts, "bounds": piece.bounds, "with_edges": int(piece.xp.count_nonzero(piece.csr.degree()))}


LINK_TRIES = 3            # all-reduces of a vertex vector timed for the link's bandwidth (and 10x as many of 8 bytes)


def _measure_link(part: Partition) -> None:
    """The communicator's all-reduce bus bandwidth (of a vector of n float32, at least 1 MB, at most
    256 MB: what PageRank all-gathers) and latency (8 bytes, read on the host), the slowest rank's
    medians, as the partition's facts ``link_busbw_gbps`` and ``link_latency_ms``: the exchange's
    cost model (bytes / bandwidth + rounds x latency + local time) reads them from the runs' rows."""
    nbytes = min(1 << 28, max(1 << 20, 4 * part.n))
    records = part.spmd(_link, nbytes, LINK_TRIES, name="partition-link")
    part.facts["link_busbw_gbps"] = min(r["busbw_gbps"] for r in records)
    part.facts["link_latency_ms"] = max(r["latency_ms"] for r in records)


def _link(rank, nbytes: int, tries: int) -> dict:
    """On every rank: ``tries`` all-reduces of ``nbytes`` (bus bandwidth: the bytes a ring moves per
    rank, 2 (K - 1) / K of them, over the time) after one untimed, and 10 ``tries`` of 8 bytes each
    read on the host (latency); medians."""
    xp, comm, k = rank.xp, rank.comm, rank.comm.size
    big, small = xp.ones(nbytes // 4, dtype=np.float32), xp.zeros(1, dtype=np.int64)
    times, latencies = [], []
    for t in range(tries + 1):
        rank.sync()
        t0 = time.perf_counter()
        comm.host(comm.allreduce(big)[:1])
        if t:
            times.append(time.perf_counter() - t0)
    for t in range(10 * tries + 2):
        t0 = time.perf_counter()
        comm.host(comm.allreduce(small))
        if t >= 2:
            latencies.append(time.perf_counter() - t0)
    return {"busbw_gbps": 2 * (k - 1) / k * nbytes / float(np.median(times)) / 1e9,
            "latency_ms": 1e3 * float(np.median(latencies))}


def _with_edges(key, positions) -> np.ndarray:
    """The global ids of this slice's rows with an edge at ``positions`` of their sorted list."""
    s = plugin.here().slices[key]
    rows = s.xp.flatnonzero(s.csr.degree())
    return to_host(rows[s.xp.asarray(positions)]) + s.lo


# --- the communicator

def _identity(key) -> tuple:
    """(host, this worker's GPU, whether NCCL loads here) — a task of partition ``key``."""
    import socket

    import cupy
    return socket.gethostname(), cupy.cuda.Device().pci_bus_id, nccl_transport.available()


def _transport(part: Partition, comms: str) -> str:
    """The transport ``comms`` asks for on these workers (see ``PARAMS``), or a one-line refusal."""
    if part.k == 1:
        return "none"
    if part.backend == "cpu":
        if comms == "nccl":
            raise ParameterError("parameter 'comms': nccl needs GPU workers (this run's backend is cpu)")
        return "dask"
    if comms == "dask":
        return "dask"
    ids = part.identities
    devices = [(host, bus) for host, bus, _ in ids]
    shared = len(set(devices)) < len(devices)
    missing = [part.workers[i] for i, (_, _, ok) in enumerate(ids) if not ok]
    if comms == "nccl" and (shared or missing):
        why = (f"workers {', '.join(part.workers)} share GPUs {sorted(set(b for _, b in devices))}" if shared
               else f"NCCL does not load on {', '.join(missing)}")
        raise ParameterError(f"parameter 'comms': nccl needs one GPU per worker and NCCL on each; {why}")
    return "dask" if shared or missing else "nccl"


def _connect(part: Partition, comms: str) -> None:
    """Every worker's rank of the partition's communicator (see ``_transport``)."""
    if part.backend == "gpu" and part.k > 1:       # K = 1 needs no transport
        part.identities = part.each(_identity, name="partition-identity")
    part.transport = _transport(part, comms)
    if part.transport == "nccl":
        uid = part.gather([part.submit(nccl_transport.unique_id, 0, name="nccl-id")], "communicator")[0]
        part.gather([part.submit(_join_nccl, i, part.key, uid, i, part.k, name="nccl-join") for i in range(part.k)],
                    "communicator")
    else:
        part.gather([part.submit(_join, i, part.key, part.transport, i, part.workers, part.backend,
                                 name="comm-join") for i in range(part.k)], "communicator")
    part.facts["transport"] = part.transport


def _join(key, transport: str, rank: int, addresses: list, backend: str) -> None:
    from distributed import get_worker
    store = plugin.here()
    xp = backend_module(backend)
    store.comms[key] = SoloComm(xp) if transport == "none" else DaskComm(key, rank, addresses, get_worker(),
                                                                         store.mailbox, xp)


def _join_nccl(key, uid: tuple, rank: int, size: int) -> None:
    from distributed import secede
    secede()        # blocks until every rank joins: leave the thread pool to the others' tasks
    from .comm.nccl import NcclComm
    plugin.here().comms[key] = NcclComm(nccl_transport.join(uid, rank, size), rank, size)
