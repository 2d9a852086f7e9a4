"""One graph over K Dask workers: 1-D slices of its CSR, the workers that hold them, and the
ledger of what a distributed kernel computed, sent and waited for.

Slices.  Worker i holds the rows [bounds[i], bounds[i+1]) of the graph's CSR (both directions of
an undirected edge, self-loops dropped, duplicates kept, neighbours sorted, neighbour ids global:
``kernels/graph``'s CSR build run on the slice's rows).  The bounds balance edges, not vertices:
every worker first counts the degrees of the parts i, i+K, ... of the dataset in buckets of
ceil(n / 2^16) vertices (a K x 2^16 histogram is all the driver receives), and the bounds cut
the bucketed degree sum into K equal shares (exact for n <= 2^16; at most one bucket's edges
off otherwise).  Then each worker builds its rows' CSR by ``kernels/graph/sliced.py``'s sliced
build restricted to its range: a pass counting every row's entries, then a pass per piece of its
rows of at most a memory budget's entries (the device's free memory shared by the K workers),
each reading the parts again (``datasets.reader.read_chunks``) and keeping the entries of the
piece: no worker holds more than its slice and one piece, and nothing but the histogram passes
through the driver.  A graph generated in memory (``store: memory``) is generated again by each
worker, on its device, from the generator's plan (the driver sends the plan, never the edges):
chunks i, i+K, ... for the histogram, then every chunk on every pass.  Other edge lists held only
in memory (tests) are handed to the workers by the driver, each worker its rows' edges.

Workers.  ``partitions=K`` slices on: the workers of the Dask scheduler named by ``scheduler``;
else, inside a Dask worker (a sweep's task), its own cluster; else K local worker processes
started for the run (one thread each; on the GPU they share the device), kept (and grown) for
the next run in this process and closed at exit.  A task driving a run from inside a Dask worker
leaves the worker's thread pool while it waits (``driving``).  K larger than the workers there
are is refused in one line before any slice is built.  Every task runs on its slice's worker
(``workers=``, no stealing);
results move between workers as Dask futures, worker to worker.  A worker lost while the driver
waits (polled every ``POLL_S``) fails the run with one ``PartitionError`` naming the worker, its
slice and the phase, never a hang (a task bound to a dead worker would wait for ever).

Ledger.  Each task logs on its worker the seconds it computed and the bytes it received from
other workers, per (phase, step); the driver times each phase and counts its rounds (a round is
one exchange every worker takes part in).  After the run (statistics are evaluated after timing)
the logs are collected, and per phase: ``local_ms`` (the slowest worker's compute, summed over
steps: the critical path), ``wait_ms`` (the phase's time less that: communication, scheduling and
load imbalance), ``bytes`` received and ``rounds``.
"""

import atexit
import math
import os
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from graphsweep.datasets import format as dataset_format
from graphsweep.datasets.errors import GraphsweepError, ParameterError
from graphsweep.datasets.gpu import to_host
from graphsweep.datasets.reader import read_chunks

from ..contract import Param
from . import PACK_LIMIT, _slice_budget, exchange, sliced
from .exchange import nbytes  # noqa: F401  (the kernels take it from here, with the slices)

PARAMS = {
    "partitions": Param(1, minimum=1, help="K: workers, each holding one slice of the graph (a range of source "
                                           "vertices balanced by edges)"),
    "scheduler": Param("", str, help="address of a Dask scheduler whose workers hold the slices (default: the "
                                     "cluster of the Dask worker running the task, else K local worker processes)"),
}
BUCKETS = 1 << 16         # degree histogram buckets: the driver receives K x BUCKETS counts
GENERATED_ROWS = 1 << 25  # edges a worker generates again at a time (a few arrays of 8 B per edge)
CUT_CHUNK = 1 << 28       # CSR entries tested for the cut at a time
POLL_S = 0.5              # how often a waiting driver checks that its workers are alive


class PartitionError(GraphsweepError):
    """A partitioned run lost a worker (or the slices it held): the run fails, in one line."""
    exit_code = 1


# --- worker side: the slices this worker process holds, by partition key

@dataclass
class Slice:
    index: int
    lo: int
    hi: int
    n: int
    bounds: np.ndarray        # the K + 1 bounds of every slice (host)
    csr: object               # rows lo..hi-1 (local row ids), global neighbour ids, on the worker's device
    backend: str
    threads: int              # the CPU twins' Numba threads here (the host's cores / K)
    scratch: dict = field(default_factory=dict)   # a kernel's per-run state
    log: list = field(default_factory=list)       # (run, phase, step, seconds, bytes received)
    run: str = ""                                 # the run whose task is running here

    @property
    def xp(self):
        if self.backend == "gpu":
            import cupy
            return cupy
        return np

    def owner(self, vertices):
        """The slice holding each vertex (an array on the worker's device)."""
        xp = self.xp
        return xp.searchsorted(xp.asarray(self.bounds), vertices, side="right") - 1

    def rows(self):
        """The local row of each CSR entry (cached)."""
        if "rows" not in self.scratch:
            xp = self.xp
            entries = xp.arange(self.csr.nnz, dtype=np.int64)
            self.scratch["rows"] = (xp.searchsorted(self.csr.offsets, entries, side="right") - 1).astype(
                self.csr.indices.dtype)
        return self.scratch["rows"]

    def row_entries(self, rows):
        """(which of ``rows`` each entry belongs to, the entries' CSR positions) for the rows
        ``rows`` (local ids): their out-edges laid end to end (the array twin of a warp's gather)."""
        xp = self.xp
        starts = self.csr.offsets[rows]
        degree = self.csr.offsets[rows + 1] - starts
        ends = xp.cumsum(degree)
        total = int(ends[-1]) if ends.shape[0] else 0
        t = xp.arange(total, dtype=np.int64)
        which = xp.searchsorted(ends, t, side="right")
        return which, starts[which] + t - (ends[which] - degree[which])

    def record(self, phase, step, seconds, received=0):
        self.log.append((self.run, phase, step, seconds, int(received)))


_SLICES: dict = {}    # (partition key, worker address) -> Slice: workers of one process share the module


def _slot(key) -> tuple:
    from distributed import get_worker
    return key, get_worker().address


def held(key) -> Slice:
    """The slice this worker holds under ``key`` (the partition's key, or (key, run) from a run's
    tasks: what they record is that run's); a worker restarted since the build holds none."""
    key, run = key if isinstance(key, tuple) else (key, "")
    if _slot(key) not in _SLICES:
        raise PartitionError(f"this worker holds no slice {key!r} (restarted since the slices were built?)")
    s = _SLICES[_slot(key)]
    s.run = run
    if s.backend == "cpu":
        _set_threads(s.threads)
    return s


def synchronize(backend: str) -> None:
    """Wait for the worker's device, so a task's seconds include its GPU work."""
    if backend == "gpu":
        import cupy
        cupy.cuda.get_current_stream().synchronize()


def _edge_chunks(source, share: int, shares: int, xp=np):
    """(src, dst) arrays on ``xp``'s device of a share of the edges: parts share, share + shares,
    ... of a dataset on disk; chunks share, share + shares, ... of a generated edge list (made
    again here, on the GPU where the generator can); or rows [share/shares, (share+1)/shares) of
    arrays handed over in memory."""
    kind, what = source
    if kind == "parts":
        count = len(dataset_format.read_manifest(Path(what))["parts"])
        for chunk in read_chunks(what, range(share, count, shares), columns=["src", "dst"]):
            yield xp.asarray(chunk["src"]), xp.asarray(chunk["dst"])
    elif kind == "generated":
        for start in range(share * GENERATED_ROWS, what.m, shares * GENERATED_ROWS):
            chunk = what.chunk(start, min(start + GENERATED_ROWS, what.m), xp)
            yield chunk["src"], chunk["dst"]
    else:
        src, dst = what
        a, b = share * len(src) // shares, (share + 1) * len(src) // shares
        yield xp.asarray(src[a:b]), xp.asarray(dst[a:b])


def _degree_histogram(source, share: int, shares: int, bucket: int, backend: str) -> np.ndarray:
    """Degrees (both ends of every non-loop edge) of a share of the edges, in buckets of vertices."""
    xp = _module(backend)
    hist = xp.zeros(BUCKETS, dtype=np.int64)
    for src, dst in _edge_chunks(source, share, shares, xp):
        keep = src != dst
        hist += xp.bincount(src[keep] // bucket, minlength=BUCKETS)
        hist += xp.bincount(dst[keep] // bucket, minlength=BUCKETS)
    return to_host(hist)


class _SliceEdges:
    """The edges a worker finds for its slice (``_edge_chunks`` of ``source``), as an edge source
    for ``sliced.build``: read or generated again on each of its passes."""

    def __init__(self, source, m: int):
        self.source, self.m, self.weighted = source, m, False

    def chunks(self, xp, rows: int = 0):
        start = 0
        for src, dst in _edge_chunks(self.source, 0, 1, xp):
            yield start, {"src": src, "dst": dst}
            start += int(src.shape[0])


def _build_slice(key, source, index: int, bounds: np.ndarray, n: int, m: int, backend: str, threads: int) -> dict:
    """Build this slice's CSR on the worker's device from the edges of ``source`` (read or
    generated again): a sliced build of its rows (``kernels/graph/sliced.py``), so no step holds
    more than a budget's share of its entries; keep it under ``key``."""
    t0 = time.perf_counter()
    _set_threads(threads)
    xp = _module(backend)
    lo, hi = int(bounds[index]), int(bounds[index + 1])
    k = len(bounds) - 1
    budget = _slice_budget(xp) // k        # the K workers of one device build at once
    dtype = np.int32 if n < PACK_LIMIT else np.int64
    csr, pieces = sliced.build(xp, _SliceEdges(source, m), n, directed=False, index_dtype=dtype,
                               destination="device", budget=budget, rows=(lo, hi))
    cut = 0
    for start in range(0, csr.nnz, CUT_CHUNK):
        part = csr.indices[start:start + CUT_CHUNK]
        cut += int(xp.count_nonzero((part < lo) | (part >= hi)))
    from distributed import get_worker
    exchange.listen(get_worker())   # before any peer sends here
    _SLICES[_slot(key)] = Slice(index, lo, hi, n, bounds, csr, backend, threads)
    synchronize(backend)
    return {"edges": csr.nnz, "cut": cut, "passes": pieces + 1, "seconds": time.perf_counter() - t0}


def _module(backend: str):
    if backend == "gpu":
        import cupy
        return cupy
    return np


def _set_threads(threads: int) -> None:
    """The CPU twins' Numba threads on this worker (its share of the host's cores)."""
    import numba
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def _drop(key) -> None:
    _SLICES.pop(_slot(key), None)


def _collect_log(key) -> list:
    """The records of run ``key[1]`` here (taken out of the log)."""
    s = held(key)
    mine = [r[1:] for r in s.log if r[0] == key[1]]
    s.log = [r for r in s.log if r[0] != key[1]]
    return mine


# --- driver side

_LOCAL: dict = {}            # backend -> (LocalCluster, Client): workers started for runs in this process
_CLIENTS: dict = {}          # scheduler address -> Client
_LOCK = threading.Lock()


def _local_client(k: int, backend: str):
    """A client of local worker processes (one thread each), at least ``k`` of them: started on
    first use, grown when a run asks for more, kept for the next run in this process."""
    from distributed import Client, LocalCluster
    with _LOCK:
        if backend not in _LOCAL:
            cluster = LocalCluster(n_workers=k, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   memory_limit=0)
            _LOCAL[backend] = (cluster, Client(cluster, set_as_default=False))
        cluster, client = _LOCAL[backend]
        if len(cluster.workers) < k:
            cluster.scale(k)
        client.wait_for_workers(k, timeout=120)   # also while a nanny restarts a worker of an earlier run
        return client


@atexit.register
def _close_local() -> None:
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
                try:
                    _CLIENTS[address] = Client(address, timeout=10, set_as_default=False)
                except OSError as exc:
                    raise ParameterError(f"parameter 'scheduler': cannot connect to {address} ({exc})") from None
            return _CLIENTS[address], f"the cluster at {address}"
    if _in_worker():
        return get_client(), "this task's cluster"
    return _local_client(k, backend), "local worker processes"


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


class Partition:
    """The driver's handle on a graph sliced over K workers (see the module doc)."""

    def __init__(self, client, workers: list, bounds: np.ndarray, backend: str, n: int, key: str, threads: int):
        self.client, self.workers, self.bounds = client, workers, bounds
        self.backend, self.n, self.key, self.threads = backend, n, key, threads
        self.k = len(workers)
        self.facts: dict = {}

    def slice_range(self, i: int) -> str:
        return f"slice {i} of {self.k}, vertices [{int(self.bounds[i])}, {int(self.bounds[i + 1])})"

    def submit(self, fn, i: int, *args, name: str):
        """``fn(*args)`` on slice i's worker; the key names the task on the dashboard."""
        return self.client.submit(fn, *args, key=f"{name}-{uuid.uuid4().hex}", workers=[self.workers[i]],
                                  allow_other_workers=False, pure=False)

    def each(self, fn, *args, name: str) -> list:
        """``fn(key, *args)`` on every slice's worker."""
        return [self.submit(fn, i, self.key, *args, name=name) for i in range(self.k)]

    def item(self, future, i: int, name, label: str):
        """``future[name]`` computed where ``future`` lives (slice i's worker): a piece that moves alone."""
        return self.submit(_item, i, future, name, name=label)

    def wait(self, futures: list, phase: str, cancel: str | None = None) -> None:
        """Wait for ``futures``; a lost worker or a failed task raises, never a hang.  ``cancel``:
        the run whose tasks exchange among themselves (``exchange``): on a failure the workers
        still alive are told to stop waiting for it."""
        try:
            self._wait(futures, phase)
        except Exception:
            if cancel is not None:
                alive = set(self.client.scheduler_info(n_workers=-1)["workers"])
                self.client.run(exchange.cancel, cancel, workers=[w for w in self.workers if w in alive])
            raise

    def _wait(self, futures: list, phase: str) -> None:
        from distributed import wait
        while True:
            try:
                with self.client.as_current():
                    wait(futures, timeout=POLL_S)
                break
            except TimeoutError:
                self.check_alive(phase)
        for future in futures:
            if future.status == "error":
                raise future.exception()
            if future.status != "finished":
                self.check_alive(phase)
                raise PartitionError(f"{phase}: a task ended {future.status}")

    def gather(self, futures: list, phase: str, cancel: str | None = None) -> list:
        self.wait(futures, phase, cancel)
        return self.client.gather(futures)

    def check_alive(self, phase: str) -> None:
        alive = set(self.client.scheduler_info(n_workers=-1)["workers"])
        for i, worker in enumerate(self.workers):
            if worker not in alive:
                raise PartitionError(f"worker {worker} holding {self.slice_range(i)} was lost during {phase}; "
                                     f"the run fails (its slice is gone)")

    def close(self) -> None:
        """Drop the slices from the workers that hold them."""
        self.wait(self.each(_drop, name="partition-drop"), "drop")


def _item(value, name):
    return value[name]


def partitioned(inp, params: dict, backend: str) -> Partition:
    """The partition of ``inp`` for ``params`` (``partitions``, ``scheduler``), built on first use
    and cached on ``inp``; a different K or cluster replaces the one cached (its slices dropped)."""
    k = int(params["partitions"])
    want = (k, params["scheduler"], backend)
    cached = inp.cache.get("partition")
    if cached is not None and cached[0] == want:
        return cached[1]
    if inp.n >= PACK_LIMIT:
        raise ParameterError(f"{inp.where}: partitioned kernels take graphs of fewer than 2^31 vertices "
                             f"(n = {inp.n})")
    if inp.directed:
        raise ParameterError(f"{inp.where}: partitioned kernels take undirected graphs")
    client, where = _client(params, k, backend)
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    if k > len(workers):
        raise ParameterError(f"parameter 'partitions': {k} slices, but {where} has {len(workers)} worker"
                             f"{'s' if len(workers) != 1 else ''}")
    if cached is not None:
        cached[1].close()
        del inp.cache["partition"]
    part = _build(inp, client, workers[:k], backend)
    inp.cache["partition"] = (want, part)
    return part


def slice_graph(inp, params) -> Partition:
    """A partitioned kernel's setup: slice the graph over the workers before warm-up (untimed; the
    partition's facts become statistics)."""
    return partitioned(inp, params, inp.backend)


def answer_on(backend: str, array):
    """An answer gathered on the host, where the run's output lives: CuPy for a GPU run (a kernel
    serves both backends with one ``_run(inp, params, timer, backend)``; the slices' work ran on the
    workers' devices either way)."""
    if backend == "gpu":
        import cupy
        return cupy.asarray(array)
    return array


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



def _build(inp, client, workers: list, backend: str) -> Partition:
    t0 = time.perf_counter()
    k, n = len(workers), inp.n
    key = f"partition-{uuid.uuid4().hex}"
    threads = max(1, (os.cpu_count() or 1) // k)
    part = Partition(client, workers, np.zeros(k + 1, dtype=np.int64), backend, n, key, threads)
    bucket = max(1, math.ceil(n / BUCKETS))
    source = _source(inp)
    if source is None:       # in memory only: each worker gets a share to count, then its slice's edges
        src, dst = to_host(inp.src), to_host(inp.dst)
        shares = [("arrays", (src[i * len(src) // k:(i + 1) * len(src) // k],
                              dst[i * len(dst) // k:(i + 1) * len(dst) // k])) for i in range(k)]
        hists = part.gather([part.submit(_degree_histogram, i, shares[i], 0, 1, bucket, backend,
                                         name="partition-degrees")
                             for i in range(k)], "partition")
    else:
        hists = part.gather([part.submit(_degree_histogram, i, source, i, k, bucket, backend,
                                         name="partition-degrees")
                             for i in range(k)], "partition")
    part.bounds = edge_balanced_bounds(np.sum(hists, axis=0), bucket, n, k)
    sources = [source] * k
    if source is None:
        sources = []
        for i in range(k):
            lo, hi = part.bounds[i], part.bounds[i + 1]
            mine = ((src >= lo) & (src < hi)) | ((dst >= lo) & (dst < hi))
            sources.append(("arrays", (src[mine], dst[mine])))
    built = part.gather([part.submit(_build_slice, i, key, sources[i], i, part.bounds, n, inp.m, backend, threads,
                                     name="partition-build") for i in range(k)], "partition")
    edges = [b["edges"] for b in built]
    part.facts = {"partitions": k, "slice_edges_total": sum(edges), "slice_edges_max": max(edges),
                  "slice_edges_min": min(edges),
                  "cut_entries": sum(b["cut"] for b in built), "partition_passes": max(b["passes"] for b in built),
                  "partition_s": time.perf_counter() - t0}
    return part


def edge_balanced_bounds(hist: np.ndarray, bucket: int, n: int, k: int) -> np.ndarray:
    """K + 1 vertex bounds cutting the bucketed degree sum ``hist`` into K equal shares (on bucket
    edges; slices may be empty when a few buckets hold most edges)."""
    cum = np.cumsum(hist)
    total = int(cum[-1]) if cum.size else 0
    bounds = np.zeros(k + 1, dtype=np.int64)
    for j in range(1, k):
        bucket_end = int(np.searchsorted(cum, total * j / k, side="left")) + 1 if total else j * BUCKETS // k
        bounds[j] = min(n, bucket_end * bucket)
    bounds[k] = n
    return np.maximum.accumulate(bounds)


# --- the ledger of a distributed run

class Ledger:
    """What one run of a distributed kernel did per phase (see the module doc).  ``phase`` wraps
    ``timer.phase`` and records the phase's wall time and rounds; ``stats`` hands the timer
    per-phase and total statistics, evaluated after timing from the workers' logs."""

    def __init__(self, part: Partition, timer, phases: tuple):
        self.part, self.timer, self.phases = part, timer, phases
        self.key = (part.key, uuid.uuid4().hex)   # what the run's tasks pass as the slice key
        self.wall: dict = {}       # (phase, step) -> seconds
        self.rounds: dict = {}     # (phase, step) -> rounds
        self.driver_bytes: dict = {}   # (phase, step) -> bytes the driver received (the output)
        self._summary = None

    def each(self, fn, *args, name: str) -> list:
        """``fn(run key, *args)`` on every slice's worker, recorded as this run's."""
        return [self.part.submit(fn, i, self.key, *args, name=name) for i in range(self.part.k)]

    @contextmanager
    def phase(self, name: str, *, step=None, rounds: int = 1, info=None, **traffic):
        info = dict(info or {})
        if step is not None:
            info.update({"local_ms": lambda: self.step(name, step)["local_ms"],
                         "wait_ms": lambda: self.step(name, step)["wait_ms"],
                         "bytes_exchanged": lambda: self.step(name, step)["bytes"], "rounds": rounds})
        t0 = time.perf_counter()
        with self.timer.phase(name, step=step, info=info, **traffic) as t:
            yield t
        key = (name, step)
        self.wall[key] = self.wall.get(key, 0.0) + time.perf_counter() - t0
        self.rounds[key] = self.rounds.get(key, 0) + rounds

    def received(self, phase: str, step, count: int) -> None:
        """Bytes the driver itself received in (phase, step): a gathered output."""
        self.driver_bytes[(phase, step)] = self.driver_bytes.get((phase, step), 0) + int(count)

    def _steps(self) -> dict:
        """(phase, step) -> {local_ms, wait_ms, bytes, rounds} from the workers' logs (fetched once)."""
        if self._summary is None:
            logs = self.part.gather([self.part.submit(_collect_log, i, self.key, name="partition-log")
                                     for i in range(self.part.k)], "collecting logs")
            local, received = {}, {}
            for log in logs:
                seconds = {}
                for phase, step, s, b in log:
                    seconds[(phase, step)] = seconds.get((phase, step), 0.0) + s
                    received[(phase, step)] = received.get((phase, step), 0) + b
                for key, s in seconds.items():
                    local[key] = max(local.get(key, 0.0), s)
            self._summary = {key: {"local_ms": 1e3 * local.get(key, 0.0),
                                   "wait_ms": 1e3 * max(0.0, wall - local.get(key, 0.0)),
                                   "bytes": received.get(key, 0) + self.driver_bytes.get(key, 0),
                                   "rounds": self.rounds[key]}
                             for key, wall in self.wall.items()}
        return self._summary

    def step(self, phase: str, step) -> dict:
        return self._steps()[(phase, step)]

    def total(self, phase: str | None, field_name: str):
        return sum(v[field_name] for (p, _), v in self._steps().items() if phase is None or p == phase)

    def stats(self) -> None:
        """Per phase and in all: local_ms, wait_ms, bytes exchanged, rounds; and the partition's facts."""
        ran = {phase for phase, _ in self.wall}
        for phase in (*(p for p in self.phases if p in ran), None):
            prefix = f"{phase.replace('-', '_')}_" if phase else ""
            for stat, field_name in (("local_ms", "local_ms"), ("wait_ms", "wait_ms"),
                                     ("bytes_exchanged", "bytes"), ("rounds", "rounds")):
                self.timer.stat(prefix + stat, lambda p=phase, f=field_name: self.total(p, f))
        for name, value in self.part.facts.items():
            self.timer.stat(name, value)


def lockstep_rows(out: list, keys: tuple = ()) -> list:
    """Step rows of a run whose tasks went in step (one per worker, each returning its "steps"):
    per step the slowest worker's wall time and compute, the least wait, the bytes all workers
    received, 2 rounds (the step's exchange and its all-reduce); ``keys``: info the workers agree on."""
    rows = []
    for per_worker in zip(*(o["steps"] for o in out)):
        slowest = max(per_worker, key=lambda st: st["ms"])
        rows.append({"step": slowest["step"], "ms": slowest["ms"],
                     "info": {**{k: slowest[k] for k in keys},
                              "local_ms": slowest["ms"] - slowest["wait_ms"],
                              "wait_ms": min(st["wait_ms"] for st in per_worker),
                              "bytes_exchanged": sum(st["bytes_exchanged"] for st in per_worker),
                              "rounds": 2 if len(out) > 1 else 0}})
    return rows
