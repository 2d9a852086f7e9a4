"""Cluster profiles: where a sweep's tasks run, and a client connected to it.

Profiles come from graphsweep's Dask config (``graphsweep.cluster.profiles``: local-gpu and
local-cpu) and from a ``cluster.yaml`` (``profiles: {NAME: {kind: ..., ...}}``), which adds or
replaces profiles.  Kinds:

- ``local-gpu``: ``dask_cuda.LocalCUDACluster`` in this process, one worker per GPU;
- ``local-cpu``: ``distributed.LocalCluster`` (CPU);
- ``scheduler-file`` (``scheduler_file: PATH``) and ``address`` (``address: tcp://HOST:PORT``):
  an existing cluster started with ``dask scheduler`` and ``dask cuda worker``;
- ``slurm``: ``dask_jobqueue.SLURMCluster`` (``options`` for the job, ``jobs`` to start).

The built-in profiles are named after their kinds (the kinds' old names ``local-cuda`` and
``local`` are still read, with a FutureWarning).  ``auto`` picks local-gpu when this machine has a
GPU (and the sweep may use it), else local-cpu.
``--cluster`` also takes a scheduler address (``tcp://...``) or a scheduler file (``*.json``)
directly.  Kernel tasks hold a worker resource, so that timed kernels never share what they
measure: ``GPU=1`` on GPU workers (one kernel per GPU) and ``HOST=1`` for CPU kernels (one per
host: the CPU twins use every core).  Both are set here for the local kinds; workers started by
hand take ``--resources GPU=1`` (one per GPU) or ``--resources HOST=1`` (one CPU worker per host).
Local clusters keep Dask's own log records off stderr (``silence_logs``); runs send them to their
log file instead.  A cluster started here (local or SLURM: its scheduler runs in this process,
``STARTED_HERE``) looks for work to steal every ``cluster.steal-interval`` (Dask's default is 1 s),
and a run holds its stealing back until a worker has done its share (``runner._TailStealing``).
A local-gpu worker's memory pool is CuPy's own; a profile that asks for an RMM
pool with dask-cuda's ``rmm_*`` options (cluster.yaml's local-gpu-rmm) gets one where rmm is
installed, CuPy's where it is not (``memory_pool``).
"""

import importlib.util
import logging
import os
import signal
import threading
import warnings
from contextlib import contextmanager
from pathlib import Path

import click
import dask.config
from distributed import Client
from distributed.deploy.utils import nprocesses_nthreads
from distributed.diagnostics.plugin import WorkerPlugin

from graphsweep.core import gpu
from graphsweep.core.errors import GraphsweepError

from . import config

log = logging.getLogger("graphsweep.cluster")
KINDS = ("local-gpu", "local-cpu", "scheduler-file", "address", "slurm")
DEPRECATED_KINDS = {"local-cuda": "local-gpu", "local": "local-cpu"}   # old name -> the one name
LOCAL_KINDS = ("local-gpu", "local-cpu")
LONG_LIVED = ("scheduler-file", "address")
STARTED_HERE = (*LOCAL_KINDS, "slurm")   # kinds whose scheduler graphsweep starts, in this process
PROFILE_KEYS = {"local-gpu": ("kind", "options"), "local-cpu": ("kind", "options"),
                "scheduler-file": ("kind", "scheduler_file"), "address": ("kind", "address"),
                "slurm": ("kind", "options", "jobs")}


def profiles(cluster_file=None) -> dict:
    """Every profile by name: the built-in ones, then those of ``cluster_file`` (or ./cluster.yaml)."""
    out = {name: dict(p) for name, p in config.get("cluster.profiles").items()}
    path = Path(cluster_file or config.get("cluster.file")).expanduser()
    if cluster_file is None and not path.is_file():
        return out
    doc = config.read_yaml(path, "cluster file")
    if not isinstance(doc, dict) or not isinstance(doc.get("profiles"), dict):
        raise GraphsweepError(f"{path}: expected a mapping 'profiles: {{NAME: {{kind: ...}}}}'")
    for name, profile in doc["profiles"].items():
        where = f"{path}: profiles.{name}"
        if isinstance(profile, dict) and profile.get("kind") in DEPRECATED_KINDS:
            old, new = profile["kind"], DEPRECATED_KINDS[profile["kind"]]
            warnings.warn(f"{where}.kind: {old!r} is deprecated; write {new!r}", FutureWarning, stacklevel=2)
            profile = {**profile, "kind": new}
        if not isinstance(profile, dict) or profile.get("kind") not in KINDS:
            kind = profile.get("kind") if isinstance(profile, dict) else profile
            raise GraphsweepError(f"{where}.kind: {kind!r} is not one of {', '.join(KINDS)}")
        for key in profile:
            if key not in PROFILE_KEYS[profile["kind"]]:
                raise GraphsweepError(f"{where}.{key}: unknown key for kind {profile['kind']} "
                                      f"(allowed: {', '.join(PROFILE_KEYS[profile['kind']])})")
        if not isinstance(profile.get("options", {}), dict):
            raise GraphsweepError(f"{where}.options: expected a mapping of keyword arguments")
        out[str(name)] = profile
    return out


def resolve(name=None, cluster_file=None, backend: str = "auto") -> tuple[str, dict]:
    """(name, profile) for ``name`` (None: the configured default, normally ``auto``); ``auto``
    takes local-cpu for a sweep with ``backend: cpu``."""
    name = name or config.get("cluster.profile")
    if "://" in name:
        return name, {"kind": "address", "address": name}
    if name.endswith(".json"):
        return name, {"kind": "scheduler-file", "scheduler_file": name}
    if name == "auto":
        name = "local-gpu" if gpu.available() and backend != "cpu" else "local-cpu"
    known = profiles(cluster_file)
    if name not in known:
        raise GraphsweepError(f"--cluster: unknown profile {name!r} (known: auto, {', '.join(sorted(known))}; "
                              "or a scheduler address tcp://HOST:PORT, or a scheduler file *.json)")
    return name, known[name]


def _check_gpu(name: str) -> None:
    if not gpu.available():
        raise GraphsweepError(f"profile {name}: no CUDA device is usable here; use --cluster local-cpu")


def local_workers(name: str, profile: dict) -> int | None:
    """How many workers the local profile ``name`` starts (None for other kinds: only their cluster
    knows).  One per GPU for local-gpu (refused without one, as its start refuses); for local-cpu
    what its options ask of LocalCluster, and at most one per core."""
    options = profile.get("options") or {}
    if profile["kind"] == "local-gpu":
        _check_gpu(name)
        import cupy
        visible = options.get("CUDA_VISIBLE_DEVICES")
        count = (len(visible.split(",") if isinstance(visible, str) else visible) if visible
                 else cupy.cuda.runtime.getDeviceCount())
        return min(count, options.get("n_workers") or count)
    if profile["kind"] != "local-cpu":
        return None
    cores = os.cpu_count() or 1
    if options.get("n_workers"):
        workers = int(options["n_workers"])
    elif options.get("processes") is False:
        workers = 1
    elif options.get("threads_per_worker"):
        workers = max(1, cores // int(options["threads_per_worker"]))
    else:
        workers = nprocesses_nthreads()[0]   # LocalCluster's own choice
    return min(workers, cores)


def partition_workers(on_gpu: bool) -> int:
    """How many local workers a partitioned kernel run outside a cluster can slice its graph over
    (``kernels.dist.driver``: worker processes of one thread, at most one per core; on a GPU
    machine also one per GPU, where there are more GPUs than cores)."""
    processes = local_workers("local-cpu", {"kind": "local-cpu", "options": {"threads_per_worker": 1}})
    return max(processes, local_workers("local-gpu", {"kind": "local-gpu"})) if on_gpu else processes


def check_partitions(subject: str, partitions: int, workers: int, where: str, hint: str = "") -> None:
    """Refuse, in one line, ``subject`` sliced over more ``partitions`` than the ``workers`` of the
    cluster (or machine) ``where`` names; ``hint``: what to do instead."""
    if partitions > workers:
        raise GraphsweepError(f"{subject}: parameter 'partitions': {partitions} slices, but {where} has {workers} "
                              f"worker{'s' if workers != 1 else ''}{hint}")


def is_long_lived(profile: dict) -> bool:
    """Whether the cluster outlives this process (so a submitted sweep can run without us)."""
    return profile["kind"] in LONG_LIVED


def started_here(profile: dict) -> bool:
    """Whether graphsweep starts the profile's cluster, scheduler included, for one command (and so
    may tune how its scheduler balances work; a long-lived cluster may be serving others)."""
    return profile["kind"] in STARTED_HERE


def _start(name: str, profile: dict):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cluster = _start_kind(name, profile)
    except (TypeError, ValueError, RuntimeError) as exc:  # an option it does not take or refuses; a failed start
        raise GraphsweepError(f"profile {name}: the cluster did not start "
                              f"({str(exc).splitlines()[0]})") from None
    for warning in caught:
        # A busy dashboard port is no fault (Dask takes another, and the link printed is the real
        # one): it goes to the log, not as a 4-line warning on stderr.
        log.info("starting profile %s: %s", name, " ".join(str(warning.message).split()))
    return cluster


def _start_kind(name: str, profile: dict):
    if profile["kind"] == "slurm":
        return _start_slurm(name, profile)
    # Dask gives worker processes MALLOC_TRIM_THRESHOLD_, which also turns off glibc's adaptive
    # mmap threshold: every timed run then page-faults its arrays afresh (random-splitter on 2^16
    # nodes: 40% slower than in a plain process).  Timing workers run with glibc's defaults.
    # The scheduler (in this process) looks for work to steal every steal-interval, not every 1 s:
    # a worker that has run its share of a sweep waited up to a second before taking another's.
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                          "distributed.scheduler.work-stealing-interval": config.get("cluster.steal-interval")}):
        return _start_local(name, profile)


def _start_local(name: str, profile: dict):
    kind, options = profile["kind"], dict(profile.get("options") or {})
    if kind == "local-gpu":
        _check_gpu(name)
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            raise GraphsweepError(f"profile {name} needs dask-cuda (pip install 'graphsweep[cuda13]')") from None
        options.setdefault("resources", dict(config.get("worker.gpu-resources")))
        options.setdefault("silence_logs", logging.CRITICAL)
        return LocalCUDACluster(**memory_pool(name, options))
    from distributed import LocalCluster
    options.setdefault("resources", dict(config.get("worker.cpu-resources")))
    options.setdefault("silence_logs", logging.CRITICAL)
    return LocalCluster(**options)


# LocalCUDACluster's options that make each worker's memory pool an RMM one (dask-cuda's RMMSetup).
RMM_OPTIONS = ("rmm_pool_size", "rmm_maximum_pool_size", "rmm_managed_memory", "rmm_async", "rmm_release_threshold",
               "rmm_allocator_external_lib_list", "rmm_track_allocations", "rmm_log_directory")


def memory_pool(name: str, options: dict) -> dict:
    """The local-gpu profile's ``options`` with the workers' memory pool settled.  An RMM pool where
    they ask for one (``rmm_pool_size``, ``rmm_async``) and rmm is installed: CuPy then allocates
    from it and its allocations are tracked, so that free memory counts the pool's free blocks
    (``datasets.capacity.device_memory``).  Without rmm, CuPy's own pool (noted in the log)."""
    asked = [key for key in ("rmm_pool_size", "rmm_async", "rmm_managed_memory") if options.get(key)]
    if not asked:
        return options
    if importlib.util.find_spec("rmm") is None:
        log.info("profile %s: rmm is not installed, so the workers keep CuPy's memory pool (%s not used)",
                 name, ", ".join(asked))
        return {key: value for key, value in options.items() if key not in RMM_OPTIONS}
    return {"rmm_allocator_external_lib_list": ["cupy"], "rmm_track_allocations": True, **options}


def _start_slurm(name: str, profile: dict):
    options = dict(profile.get("options") or {})
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        raise GraphsweepError(f"profile {name} needs dask-jobqueue (pip install 'graphsweep[slurm]')") from None
    cluster = SLURMCluster(**options)
    cluster.scale(jobs=int(profile.get("jobs", 1)))
    return cluster


class HeldSignals:
    """Hold SIGINT and SIGTERM while a cluster starts, and ``deliver`` them once it is up (inside
    its ``with``, so it closes cleanly): a cluster interrupted half-started cannot be closed, and
    Dask's exit handler then prints a traceback after graphsweep's one line."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __enter__(self):
        self.caught, self.previous = [], {}
        if threading.current_thread() is threading.main_thread():
            self.previous = {s: signal.signal(s, lambda signum, frame: self.caught.append(signum))
                             for s in self.SIGNALS}
        return self

    def __exit__(self, *exc):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)

    def deliver(self):
        if self.caught:
            signal.raise_signal(self.caught[0])  # now handled as usual: KeyboardInterrupt, Terminated


def quiet_dask() -> None:
    """Dask's records (and those of its event loop, tornado's) off in this process from here on: once
    a command is interrupted, the tasks cancelled in flight and a cluster closing under them are
    logged as tracebacks (a cancelled key's message to a closed client, a cancelled wait) that
    graphsweep's one line replaces."""
    for name in ("distributed", "tornado"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


class IgnoreInterrupts(WorkerPlugin):
    """Ctrl-C at a terminal reaches every process of its group, the worker processes of a local
    cluster too, which would print their tracebacks; graphsweep stops them by closing the cluster."""

    name = "graphsweep-ignore-interrupts"

    def setup(self, worker):
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def dask_setup(worker) -> None:
    """Dask's hook for a worker preload naming this module (``workers_ignore_interrupts``), for local
    workers that graphsweep does not start itself: ``IgnoreInterrupts`` from the worker's start, and
    only errors on the terminal, as from the local clusters graphsweep starts (``silence_logs``):
    the tasks that this process's close cancels after a Ctrl-C are no news."""
    IgnoreInterrupts().setup(worker)
    logging.getLogger("distributed").setLevel(logging.ERROR)


@contextmanager
def workers_ignore_interrupts():
    """While inside, the workers started in this process ignore Ctrl-C from their start (a partitioned
    kernel's local workers, which ``kernels.dist`` starts, as a local cluster's do by its plugin)."""
    with dask.config.set({"distributed.worker.preload": [*dask.config.get("distributed.worker.preload"), __name__]}):
        yield


def _prepare_workers(client) -> None:
    """Each worker's state and warm start, at worker start rather than in a sweep's first task."""
    from .worker import ensure_state
    ensure_state(client)


@contextmanager
def closing(resource, what: str):
    """``with resource`` (a Client, a cluster, or an ExitStack of closes), except that trouble
    closing it is a warning on stderr and in the log, never the command's failure: the work is done
    and its results stored by then (a cluster's close timing out must not turn a good run's exit
    code into an error)."""
    entered = resource.__enter__()
    try:
        yield entered
    except KeyboardInterrupt:
        quiet_dask()   # its cluster goes with tasks still in flight
        raise
    finally:
        try:
            resource.__exit__(None, None, None)
        except Exception as exc:
            line = f"closing {what}: {type(exc).__name__}{f': {exc}' if str(exc) else ''}"
            log.info("%s", line, exc_info=True)  # the traceback for the run's log (INFO: not on stderr)
            click.echo(f"graphsweep: warning: {line} (what was done is kept)", err=True)


@contextmanager
def connect(name=None, cluster_file=None, backend: str = "auto"):
    """A Client on the profile's cluster, started here when it is local or SLURM, closed on exit."""
    name, profile = resolve(name, cluster_file, backend)
    kind = profile["kind"]
    if kind in LONG_LIVED:
        target = profile.get("scheduler_file" if kind == "scheduler-file" else "address")
        if not isinstance(target, str):
            raise GraphsweepError(f"profile {name}: '{'scheduler_file' if kind == 'scheduler-file' else 'address'}' is missing")
        if kind == "scheduler-file" and not Path(target).expanduser().is_file():
            raise GraphsweepError(f"profile {name}: scheduler file {target} does not exist (is the scheduler running?)")
        try:
            client = (Client(scheduler_file=str(Path(target).expanduser())) if kind == "scheduler-file"
                      else Client(target))
        except OSError as exc:
            raise GraphsweepError(f"profile {name}: cannot reach the scheduler at {target} ({exc})") from None
        with closing(client, f"the client of {target}"):
            _prepare_workers(client)
            yield client
        return
    with HeldSignals() as held:
        cluster = _start(name, profile)
    with closing(cluster, f"the cluster of profile {name}"):
        held.deliver()
        with closing(Client(cluster), f"the client of profile {name}") as client:
            if kind in LOCAL_KINDS:
                client.register_plugin(IgnoreInterrupts())
            _prepare_workers(client)
            yield client
