"""What runs on a Dask worker: generating a sweep's datasets and running one task.

``run_task`` runs one kernel over one dataset through the kernel harness and stores its rows
(see ``ROW`` below) as one result file (in a sweep, by the worker's store thread while its next task
starts: ``WorkerState.store_later``).  Each worker keeps the dataset it last loaded, on the
device the kernels use, so the next task on the same dataset starts at once, and the one before it
where a task of each fits in half its memory (a task stolen back needs no second load); switching
datasets otherwise drops it and returns the GPU memory pool's blocks.  It measures its device's ceilings (copy
GB/s, random gather and pointer-chase rates) once and stamps them on every row.  Any failure
(exception, GPU out of memory, verification) becomes a stored row with its error: a task only
raises when the worker itself cannot store anything.

That per-worker state is a Dask ``WorkerPlugin`` (``WorkerState``), registered on every worker of
the cluster when graphsweep starts or joins it (workers that join later get it too; see
``ensure_state``) and torn down with the worker.  Its setup is the worker's warm start
(``worker.warm-start``): the kernels imported and, on a GPU, the CUDA context made, the ceilings
measured and the graph builds compiled, so the first task of a sweep pays none of it.

A kernel warms up on a worker only for what it runs there, and once: on a large generated graph,
each (kernel, parameters) warms up on a small graph of the same generator and shape
(``samples.sample_params``, ``WorkerState.warm_up_on_sample``: its modules loaded, the variant it picks
for that shape chosen) instead of a full run on the input, which every worker running the kernel
used to pay (and every other parameter set, as a first timed rep run again).
"""

import asyncio

import contextlib
import json
import logging
import os
import socket
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
from distributed.diagnostics.plugin import WorkerPlugin

from graphsweep.datasets import format as dataset_format
from graphsweep.core import capacity, gpu
from graphsweep.core.workers import live_workers
from graphsweep.datasets import reader
from graphsweep.core.errors import DatasetError
from graphsweep.generators import memory
from graphsweep.kernels import ceilings, cuda, graph, harness, registry, throughput
from graphsweep.kernels import dist

from . import config, estimate, store
from .samples import warm_up_key
from .sweep import DatasetRef, Task

log = logging.getLogger("graphsweep.worker")

# One tidy row per (task, instance, rep, phase); ``stage`` is "kernel", or "input" for the timed
# builds of graph representations (csr); ``step`` is null but in per-step rows (iterations, levels,
# kept for the last rep of each instance); a failed task is one row with phase null and its error.
ROW = ("run_id", "sweep", "task", "dataset", "dataset_path", "generator", "dataset_params", "seed",
       "n", "m", "kernel", "params", "asked", "given", "backend", "device", "placement", "worker", "stage",
       "instance", "rep", "phase", "step", "ms", "bytes_read", "bytes_written", "random_accesses", "bytes_link", "calls",
       "elements",
       "gbps", "pct_copy_ceiling", "random_per_s", "pct_gather_ceiling", "pct_chase_ceiling", "link_gbps",
       "pct_link_ceiling", "gelems_per_s", "ns_per_element",
       "verified", "error", "load_s", "prepare_s", "warmup_s", "quiet_s", "timed_s", "stats_s", "verify_s", "kernel_s",
       "task_s", "compile_s", "first_warmup", "first_run_s", "ceilings_s", "started_at", "finished")


class WorkerState(WorkerPlugin):
    """Per worker: the current dataset (per backend), the ceilings of its hardware, and which
    kernels have been warmed up here."""

    name = "graphsweep-worker-state"

    def __init__(self):
        self.lock = threading.Lock()
        self.key = None
        self.loaded = {}
        self.ceilings = {}
        self.bytes = 0        # size of the last dataset loaded on the GPU
        self.warmed = set()
        self.need = 0         # the memory a task of the current dataset holds (estimate.task_memory)
        self.kept = None      # (key, loaded, need) of the dataset before the current one, kept loaded beside it
        self.samples = {}     # (generator, params, seed, backend) -> the small graph warm-ups run on
        self.sampled = {}     # (kernel, params, ..., sample) -> whether its warm-up on the sample ran
        self.writer = None    # the thread that stores tasks' rows while the next task starts (``store_later``)
        self.writing = []     # its pending writes
        self.unwritten = []   # (task hash, label, error) of writes that failed, until ``flush``

    def __getstate__(self):   # sent to the workers without its contents (a lock, datasets): each builds its own
        return {"fresh": True}

    def __setstate__(self, state):
        self.__init__()

    async def setup(self, worker):
        # graphsweep's records from INFO up, as a run's log takes them (logs.forwarded sends them there)
        logging.getLogger("graphsweep").setLevel(logging.INFO)
        if config.get("worker.warm-start"):
            # In a thread: seconds of work that must not stall the worker's event loop (heartbeats).
            await asyncio.to_thread(self.warm_start)

    def teardown(self, worker):
        self.flush()
        if self.writer is not None:
            self.writer.shutdown()
            self.writer = None
        with self.lock:
            self.drop()

    def store_later(self, results: str, task: Task, rows: list[dict]) -> dict:
        """The task's outcome now, its rows stored by the worker's store thread while the next task
        loads, prepares and warms up (a task's table and file took ~4 ms of the 5-7 ms between two
        tasks, 0.6 s of a four-GPU gap-scales run's busiest worker).  The next task's timed reps wait
        for it (``settle``); a run ends with ``flush``, which names any write that failed.  A failed
        task's rows are stored at once (``store_rows``: a run stopping at a failure finds them)."""
        outcome = _outcome(task, rows, stored=True)
        if outcome["status"] == "failed":
            return store_rows(results, task, rows)
        if self.writer is None:
            self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphsweep-store")
        # the table here (building it holds the GIL); encoding, writing and fsync in the thread
        table = _table(rows)
        self.writing = [f for f in self.writing if not f.done()]
        self.writing.append(self.writer.submit(self._write, results, task, table))
        return outcome

    def _write(self, results: str, task: Task, table: pa.Table) -> None:
        try:
            store.write_task(results, task.hash, table, failed=False, error=None)
        except Exception as exc:   # kept for flush: the run counts the task as not stored
            log.warning("task %s: its rows were not stored: %s", task.label, traceback.format_exc())
            self.unwritten.append((task.hash, task.label, f"{type(exc).__name__}: {exc}"))

    def settle(self) -> None:
        """Wait until the rows of earlier tasks are stored (before timed reps: nothing else runs then)."""
        for pending in self.writing:
            pending.result()
        self.writing = []

    def flush(self) -> list[tuple]:
        """Every pending write done; (task hash, label, error) of those that failed since the last flush."""
        self.settle()
        failed, self.unwritten = self.unwritten, []
        return failed

    def warm_start(self) -> None:
        """What every worker pays once: importing the kernels and, with a usable GPU, the CUDA
        context, the device's ceilings and the compilation of the graph builds (CPU ceilings are
        left to the first CPU task: a GPU worker may never run one)."""
        registry.names()  # imports every kernel module
        if gpu.available():
            self.device_ceilings("gpu")
            graph.warm_up_builds()

    def warmup(self, task: Task, kernel, data, backend: str, placement: str = "device") -> tuple[int, bool, bool]:
        """(warm-up runs ``task`` needs here, whether they may run on the problem's small sample,
        whether it is the kernel's first here: what its warm-up pays, later tasks do not).

        Warm-up pays compilation (NVRTC and module loading; the CPU twins' Numba functions) and
        memory-pool growth, which happen once per worker process (the pool is grown for each
        dataset as it loads, see ``dataset``, and keeps its blocks from one dataset to the next),
        and warms the caches, which matters only for inputs that fit in them.  So a kernel (on this
        kind of input, whatever its parameters) warms up the first time it runs on the worker — on
        the GPU on the problem's sample (``Problem.sample``): compilation and module loading need no
        full run — and the harness runs a first timed rep again that still paid either, as one whose
        parameters compile another module or function does (``harness.first_run_marks``); it warms
        up again, on the input, only for inputs smaller than ``CACHE_RESIDENT`` times the last-level
        cache (``cache_bytes``).  A sweep of one kernel over many parameters or datasets used to
        warm up once per task (on the CPU) or per parameter set (on the GPU)."""
        key = (kernel.name, placement, backend, data.kind, str(data.index_dtype), task.roots is not None)
        with self.lock:
            first = key not in self.warmed
            self.warmed.add(key)
        if data.columns and data.nbytes < CACHE_RESIDENT * cache_bytes(backend):  # none: generated by slices
            return task.warmup, False, first
        return (task.warmup, backend == "gpu", True) if first else (0, False, False)

    def warm_up_on_sample(self, task: Task, resolved: harness.Resolved, data, backend: str,
                          placement: str = "device") -> float | None:
        """Seconds spent warming ``task``'s kernel up (``resolved``: it and its parameters) on a small
        graph of its input's generator and shape (``samples.sample_params``), which then stands for its
        warm-up on the input: 0.0 where this worker has done so already; None where it does not
        stand for one (no warm-up asked; a list, an imported graph, one within a few samples' size or
        four last-level caches, which warms up on the input; a kernel that drives other workers; a
        sample the kernel refused, which is said in the log).

        The run on the sample (one rep of one instance, a root drawn on it, unverified) loads the
        modules the kernel compiles for these parameters and picks the variant it picks on this
        shape (BFS's registers by degree, the CC and SSSP choices), so the harness's first-run
        check finds nothing to run again on the input; a module the input still needs (a lane
        count chosen from the input's own degree) is that check's, as before.  The input's memory
        pool is grown as it loads (``grow_pool``), and again after the sample by what the sample
        keeps of it (its arrays and representations), so the input's tasks still find theirs free."""
        made = data.manifest.get("generator") or {}
        if (not task.warmup or resolved.kernel.drives_workers or data.kind != "graph" or not made.get("name")
                or str(data.index_dtype) != "int32"
                or (data.columns and data.nbytes < CACHE_RESIDENT * cache_bytes(backend))):
            return None
        warm = warm_up_key(task.runs, task.params, made, data.m, backend)
        if warm is None:
            return None
        sample_key, on = warm[-1], warm[-1][-1]
        key = (*warm, task.roots, task.roots_seed, placement)   # the plan's key, the task's roots and placement
        with self.lock:
            if key in self.sampled:
                return 0.0 if self.sampled[key] else None
        t0 = time.perf_counter()
        free = _pool_free() if backend == "gpu" else None
        try:
            with self.lock:
                sample = self.samples.get(sample_key)
            if sample is None:
                sample = memory.generate(made["name"], seed=made.get("seed") or 0, params=json.loads(sample_key[1]),
                                         backend=on)
                with self.lock:
                    self.samples[sample_key] = sample
            harness.run(resolved, sample, backend=backend, reps=1, warmup=0, verify=False, keep_output=False,
                        instances=1 if task.roots else None, instance_seed=task.roots_seed,
                        placement=placement if backend == "gpu" else task.placement)
        except Exception:   # the kernel refused the small graph (a root past its vertices): the input's warm-up
            log.info("task %s: no warm-up on a small %s graph; it warms up on its input", task.label, made["name"],
                     exc_info=True)
            with self.lock:
                self.sampled[key] = False
            return None
        finally:
            if free is not None:
                with contextlib.suppress(Exception):   # a device that fails here fails the task's own run
                    _restore_pool(free)
        with self.lock:
            self.sampled[key] = True
        return time.perf_counter() - t0

    def dataset(self, ref: DatasetRef, load: str):
        """(dataset loaded as ``load`` says — 'gpu', 'cpu', or 'none': a generated graph's edge
        source only — and seconds spent loading: 0 when it was cached)."""
        manifest = dataset_manifest(ref)
        key = (ref.path, manifest.get("created"))
        with self.lock:
            if key != self.key:
                self._switch(key, manifest, load)
            if load in self.loaded:
                return self.loaded[load], 0.0
            t0 = time.perf_counter()
            other = next((d for d in self.loaded.values() if d.columns), None)
            if load == "none":
                data = reader.Dataset(Path(ref.path), manifest, {})
                data.cache["edges"] = memory.edges(data, ref.resolved)
            elif other is not None:
                data = other.to(load)
            elif ref.in_memory:
                data = memory.generate(ref.generator, seed=ref.seed, backend=load, **ref.generator_params)
            else:
                data = reader.read(ref.path, backend=load, threads=int(config.get("worker.load-threads")),
                                   checksums=ref.checksums)
            self.loaded[load] = data
            if load == "gpu":
                grow_pool(self.need + (self.kept[2] if self.kept else 0))
            return data, time.perf_counter() - t0

    def _switch(self, key, manifest: dict, load: str) -> None:
        """Make ``key`` (of ``manifest``) the current dataset.  The one before stays loaded beside it,
        with its representations, where a task of each fits in ``KEEP_SHARE`` of the memory they run
        in: a worker whose tasks of a split dataset come between another's, or that steals a task of
        another dataset at a run's end, goes back to it without loading and building it again (a CPU
        run of gap-suite's kernels on two workers reloaded R-MAT and rebuilt its CSR after a steal).
        Otherwise it is dropped: tasks come longest dataset first, by estimated time, which grows with
        size, so a smaller one's kernels find the blocks they need in the memory pool, which is only
        handed back for a larger dataset."""
        need = estimate.task_memory(manifest["kind"], manifest["n"], manifest.get("m") or 0)
        back = self.kept if self.kept and self.kept[0] == key else None
        self.kept = None
        if self.key is not None and self.need + need <= KEEP_SHARE * _memory("gpu" in self.loaded or load == "gpu"):
            self.kept = (self.key, self.loaded, self.need)
            self.key, self.loaded = None, {}
        else:
            nbytes = 4 * (manifest["n"] + 3 * (manifest.get("m") or 0))
            self.drop(free_pool=nbytes > self.bytes)
            if load == "gpu":
                self.bytes = max(self.bytes, nbytes)
        self.key, self.need = key, need
        self.loaded = back[1] if back else {}

    def drop(self, free_pool: bool = True):
        """Forget the dataset (and the one kept beside it); with ``free_pool``, hand CuPy's memory pool's blocks back too (the
        next dataset may need all of it).  An RMM pool (a local-gpu worker's, when rmm is
        installed) keeps its memory, and its free blocks count as free (``capacity.device_memory``)."""
        self.key = None
        was_gpu = "gpu" in self.loaded or (self.kept is not None and "gpu" in self.kept[1])
        self.loaded, self.kept = {}, None
        if was_gpu and free_pool:
            import cupy
            cupy.get_default_memory_pool().free_all_blocks()
            cupy.get_default_pinned_memory_pool().free_all_blocks()
            self.bytes = 0

    def device_ceilings(self, backend: str) -> dict:
        """The ceilings of the hardware ``backend`` runs on here (measured once per worker)."""
        if backend not in self.ceilings:
            measured = ceilings.measure(backend=backend)
            self.ceilings[backend] = {k: v for k, v in measured.items()
                                      if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
        return self.ceilings[backend]


# Inputs smaller than this many last-level caches can be cache-resident between reps: they warm up per task.
CACHE_RESIDENT = 4
# A worker keeps the dataset before the current one loaded while a task of each fits in this share
# of its device's memory (of the host's available memory on the CPU): the rest stays the tasks'.
KEEP_SHARE = 0.5
def _memory(on_gpu: bool) -> int:
    """The memory a worker's datasets and tasks share: its GPU's (total), else the host's available."""
    return (capacity.device_memory(total=True) if on_gpu else capacity.available_memory()) or 0


def cache_bytes(backend: str) -> int:
    """The last-level cache of the device ``backend`` runs on: the GPU's L2, the CPU's L3 (else L2;
    glibc's figures; 32 MiB where the system does not say)."""
    if backend == "gpu":
        return cuda.l2_bytes()
    for name in ("SC_LEVEL3_CACHE_SIZE", "SC_LEVEL2_CACHE_SIZE"):
        try:
            size = os.sysconf(name)
        except (ValueError, OSError):
            continue
        if size > 0:
            return size
    return 32 << 20


def worker_devices(dask_worker) -> dict:
    """``client.run`` on each worker: its devices (backend -> name), the ceilings it has measured
    (backend -> dict; a GPU worker measures its device's as it starts), the path of the dataset it
    holds and the kernels it has warmed up: what the estimate of a run on this cluster learns from
    (``eta.forecast``)."""
    state = dask_worker.plugins.get(WorkerState.name)
    return {"devices": estimate.local_devices(gpu.available()), "ceilings": dict(state.ceilings) if state else {},
            "held": held_path(dask_worker), "warmed": sorted({key[0] for key in state.warmed}) if state else []}


def grow_pool(nbytes: int) -> None:
    """Make CuPy's memory pool hold ``nbytes`` (what a kernel task on the dataset just loaded may
    need, ``estimate.task_memory``; at most half the device's free memory) in one block, touched
    once: the kernels' allocations are then pool hits from their first run, where each kernel's
    first run on a larger dataset used to grow the pool (a cudaMalloc) and needed a full-size
    warm-up to keep it out of the timed reps.  Nothing for an RMM pool (sized when its worker
    starts) or another allocator."""
    import cupy
    pool = cupy.get_default_memory_pool()
    if cupy.cuda.memory.get_allocator() != pool.malloc:
        return
    want = min(nbytes - pool.total_bytes(), cupy.cuda.runtime.memGetInfo()[0] // 2)
    if want <= 0:
        return
    block = pool.malloc(want)
    block.memset_async(0, want)
    cupy.cuda.get_current_stream().synchronize()
    del block            # back to the pool, which keeps it and splits it for the kernels


def _pool_free() -> int | None:
    """Bytes CuPy's memory pool holds free now (None under another allocator: an RMM pool)."""
    import cupy
    pool = cupy.get_default_memory_pool()
    return pool.free_bytes() if cupy.cuda.memory.get_allocator() == pool.malloc else None


def _restore_pool(free: int) -> None:
    """Grow CuPy's memory pool until it holds ``free`` bytes free again (``grow_pool``)."""
    import cupy
    grow_pool(cupy.get_default_memory_pool().used_bytes() + free)


_OUTSIDE_A_WORKER = WorkerState()   # the state of run_task called in a plain process (a test, a script)


def _has_state(dask_worker) -> bool:
    return WorkerState.name in dask_worker.plugins


def ensure_state(client) -> None:
    """Register ``WorkerState`` unless every worker has it already: on a long-lived cluster a
    worker keeps its warm start, ceilings and loaded dataset from one run to the next."""
    have = client.run(_has_state)
    if not have or not all(have.values()):
        client.register_plugin(WorkerState())


def _state() -> WorkerState:
    """The ``WorkerState`` plugin of the worker running this task (each worker has its own, also
    when LocalCluster(processes=False) puts several in one process)."""
    from distributed import get_worker
    try:
        worker = get_worker()
    except ValueError:
        return _OUTSIDE_A_WORKER
    try:
        return worker.plugins[WorkerState.name]
    except KeyError:
        raise RuntimeError(f"worker {worker.address} has no {WorkerState.name} plugin: register "
                           "pipeline.worker.WorkerState() on the client before sending tasks") from None


def held_path(dask_worker) -> str | None:
    """``client.run`` on each worker: the path of the dataset it holds loaded, if any (the runner
    keeps that dataset's tasks there)."""
    state = dask_worker.plugins.get(WorkerState.name)
    return state.key[0] if state and state.key else None


def _worker_name() -> str:
    from distributed import get_worker
    try:
        return get_worker().address
    except ValueError:
        return socket.gethostname()


def dataset_manifest(ref: DatasetRef) -> dict:
    """The manifest of ``ref``: read from its folder, or, for a dataset generated in memory, the one
    its generator's Parquet dataset would have (``store: memory``)."""
    if ref.in_memory:
        resolved, plan = memory.plan(ref.generator, seed=ref.seed, **ref.generator_params)
        return memory.manifest(ref.generator, resolved, ref.seed, plan)
    return dataset_format.read_manifest(Path(ref.path))


def made_already(ref: DatasetRef) -> dict | None:
    """``generate_dataset``'s answer for ``ref`` when its folder holds a dataset already (made by
    its generator, or an error saying what made it), None when it holds none (as seen from here)."""
    out = Path(ref.path)
    try:
        if not dataset_format.is_dataset(out):
            return None
        have = dataset_format.read_manifest(out).get("generator") or {}
        want = {"name": ref.generator, "params": ref.params, "seed": ref.seed}
        if {k: have.get(k) for k in want} != want:
            raise DatasetError(f"{out}: exists but was made by {have or 'an importer'}, not {want}")
    except Exception as exc:  # reported to every task on this dataset
        return {"id": ref.id, "path": str(out), "error": f"generating {ref.id}: {type(exc).__name__}: {exc}"}
    return {"id": ref.id, "path": str(out), "error": None}


def generate_dataset(ref: DatasetRef, part_rows: int, backend: str) -> dict:
    """Make ``ref`` with its generator (one Dask task per part), unless it already exists.

    Returns ``{"id", "path", "error"}``: a failure is reported, not raised, so each of the
    dataset's tasks can store it as its error; a dataset made here adds ``generated``, its
    generation row (``generation_row``).
    """
    out = Path(ref.path)
    made = made_already(ref)
    if made is not None:
        return made
    try:
        from distributed import worker_client

        from graphsweep import generators
        if not generators.GENERATORS[ref.generator].gpu:
            backend = "cpu"  # this generator has no GPU path
        with worker_client() as client:
            started = time.perf_counter()
            generators.generate(ref.generator, out, seed=ref.seed, **ref.generator_params,
                                part_rows=part_rows, client=client, backend=backend, progress=False)
            seconds = time.perf_counter() - started
            workers = len(live_workers(client))
        return {"id": ref.id, "path": str(out), "error": None,
                "generated": generation_row(ref, out, seconds, backend, workers)}
    except Exception as exc:  # reported to every task on this dataset
        return {"id": ref.id, "path": str(out), "error": f"generating {ref.id}: {type(exc).__name__}: {exc}"}


def generation_row(ref: DatasetRef, out: Path, seconds: float, backend: str, workers: int) -> dict:
    """What generating ``ref`` into ``out`` made and took: rows and bytes of its parts on disk,
    over the wall time of its parallel generation on ``workers`` workers."""
    manifest = dataset_format.read_manifest(out)
    parts = manifest["parts"]
    rows = sum(int(p["rows"]) for p in parts)
    written = sum((out / p["path"]).stat().st_size for p in parts)
    return {"dataset": ref.id, "generator": ref.generator, "dataset_params": json.dumps(ref.params, sort_keys=True),
            "seed": ref.seed, "n": manifest.get("n"), "rows": rows, "bytes": written, "parts": len(parts),
            "seconds": seconds, "backend": backend, "workers": workers}


def _scalar(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "item"):  # NumPy / CuPy scalars
        return value.item()
    return json.dumps(value, default=str)


def _base(task: Task, run_id: str, kernel: str, params: dict) -> dict:
    """What every row of ``task`` holds; ``kernel`` and ``params``: what ran (a task that did not
    run: its own), the one source of ``params`` and the ``param_*`` columns."""
    d = task.dataset
    return {"run_id": run_id, "sweep": task.sweep, "task": task.hash, "dataset": d.id,
            "dataset_path": d.path, "generator": d.generator,
            "dataset_params": json.dumps(d.params, sort_keys=True), "seed": d.seed,
            "kernel": kernel, "params": json.dumps(params, sort_keys=True, default=str),
            "asked": task.name, "given": json.dumps(task.given, sort_keys=True, default=str),
            "worker": _worker_name(), **{f"param_{k}": _scalar(v) for k, v in params.items()},
            **{f"data_{k}": _scalar(v) for k, v in d.params.items()}}


def result_rows(task: Task, run_id: str, result, ceilings: dict, timing: dict) -> list[dict]:
    """The tidy rows of a finished harness run (see ``ROW``), with their rates against the ceilings."""
    # the kernel that ran (an alias stands for another one on a host-placed graph) and its parameters
    base = _base(task, run_id, result.kernel, result.params)
    base.update(n=result.dataset.get("n"), m=result.dataset.get("m"), backend=result.backend,
                device=result.device, placement=result.placement, verified=result.verified, error=result.verify_error,
                elements=result.elements,
                finished=datetime.now(timezone.utc).isoformat(timespec="seconds"), **timing)
    extra = {f"ceiling_{k}": v for k, v in ceilings.items()}
    stats = [{f"stat_{k}": _scalar(v) for k, v in s.items()} for s in result.instance_stats]
    kernel_rows = [{**r, "stage": "kernel"} for r in (*result.rows, *result.step_rows)]
    input_rows = [{**r, "stage": "input", "rep": 0} for r in result.input_rows]
    every = (*kernel_rows, *input_rows)
    # every row's rates at once (the same arithmetic as one row's): a task's hundreds of step rows
    # (levels, iterations) took 30-100 ms of the worker's time between two tasks one at a time;
    # a row of several runs at once (harness: ``covers``) brings its own elements
    rates = throughput.rates(np.array([r["ms"] for r in every], dtype=float),
                             np.array([r["bytes_read"] + r["bytes_written"] for r in every], dtype=float),
                             np.array([r["random_accesses"] for r in every], dtype=float),
                             np.array([r.get("elements", result.elements) for r in every], dtype=float),
                             ceilings, link_bytes=np.array([r.get("bytes_link", 0) for r in every], dtype=float))
    columns = {k: np.broadcast_to(np.asarray(v), (len(every),)).tolist() for k, v in rates.items()}
    rows = []
    for i, r in enumerate(every):
        row = {**base, **extra, **(stats[r["instance"]] if "instance" in r else {})}
        row.update({k: _scalar(v) for k, v in r.items() if k != "cached"})
        row.update({k: column[i] for k, column in columns.items()})
        rows.append(row)
    return rows


def _warn_over_ceiling(task: Task, rows: list[dict], ceilings: dict) -> None:
    """A line in the run's log for each phase whose rate no hardware produces (``throughput.rates``'
    ``over_ceiling``): the rows keep the flag, reduce and the report show it."""
    kernel = rows[0]["kernel"] if rows else task.kernel
    for line in throughput.over_ceiling_warnings(kernel, rows, ceilings):
        log.warning("task %s: %s", task.label, line)


def error_row(task: Task, run_id: str, error: str, timing: dict | None = None, backend: str | None = None) -> dict:
    """The one row of a task that produced no timings (``backend``: as resolved, if it got that far)."""
    row = dict.fromkeys(ROW)
    row.update(_base(task, run_id, task.kernel, task.params), backend=backend or task.backend, verified=False,
               error=error, finished=datetime.now(timezone.utc).isoformat(timespec="seconds"), **(timing or {}))
    return row


def _table(rows: list[dict]) -> pa.Table:
    """The rows as a table, column by column (3x faster than row by row at a task's hundreds of rows)."""
    if not rows:
        return pa.table({})
    names = list(ROW) + sorted({k for r in rows for k in r} - set(ROW))
    return pa.table({k: pa.array([r.get(k) for r in rows]) for k in names})


def _outcome(task: Task, rows: list[dict], stored: bool) -> dict:
    error = next((r["error"] for r in rows if r.get("error")), None)
    failed = error is not None or any(r.get("verified") is False for r in rows)
    return {"task": task.hash, "status": "failed" if failed else "ok", "error": error, "stored": stored}


def store_rows(results: str, task: Task, rows: list[dict]) -> dict:
    """Write the task's rows; returns its outcome (``stored`` False when a result already existed)."""
    outcome = _outcome(task, rows, stored=False)
    outcome["stored"] = store.write_task(results, task.hash, _table(rows), failed=outcome["status"] == "failed",
                                         error=outcome["error"])
    return outcome


def flush_stores(dask_worker) -> list[tuple]:
    """``client.run`` on each worker at a run's end: its pending writes of task rows done; those that
    failed (task hash, label, error)."""
    state = dask_worker.plugins.get(WorkerState.name)
    return state.flush() if state is not None else []


def _held(task: Task, kernel, resources: dict | None):
    """The workers a partitioned task (of ``kernel``) slices over, held for it (on its own cluster),
    else nothing."""
    k = estimate.partitions(task, kernel)
    if k and not task.params.get("scheduler") and resources:
        return dist.reserving(k, resources)
    return contextlib.nullcontext()


def run_task(task: Task, results: str, run_id: str, on_failure: str, generated: list,
             resources: dict | None = None, store_later: bool = False) -> dict:
    """Run ``task`` unless its result exists or the sweep stopped; store its rows; return the outcome.
    ``resources``: what a timed kernel task holds; a task slicing its graph over K workers of this
    cluster holds them on all K for its life (``dist.reserving``) instead of on its own worker.
    ``store_later``: the rows stored by the worker's store thread (``WorkerState.store_later``: the
    run that sent the task flushes the workers at its end; a failed task's are stored at once)."""
    existing = store.task_file(results, task.hash)
    if existing.exists():
        state, error = store.outcome(existing)
        return {"task": task.hash, "status": state, "error": error, "stored": False}
    if store.stopped(results):
        return {"task": task.hash, "status": "stopped", "error": None, "stored": False}
    t0 = time.perf_counter()
    state = _state()
    # started_at (epoch seconds) and ceilings_s (measuring the worker's ceilings, which its first
    # task pays) let estimates tell a run's tasks from its start-up and gaps (history.earlier);
    # compile_s (Numba's and NVRTC's compilations: once per machine while their disk caches last),
    # first_warmup (its warm-up was the worker's first of the
    # kernel) and first_run_s (first timed reps run again: a GPU module compiled, which CuPy's
    # disk cache makes a load for later processes) the task's own seconds from what only a
    # worker's first task of a kernel or of a module pays
    timing = {"load_s": 0.0, "kernel_s": 0.0, "ceilings_s": 0.0, "started_at": time.time()}
    compiled = harness.compile_seconds()
    failure = next((g["error"] for g in generated if g["id"] == task.dataset.id and g["error"]), None)
    backend = None
    try:
        if failure:
            raise DatasetError(failure)
        # looked up once; the harness takes the parameters as the sweep coerced them (sweep._kernels)
        resolved = harness.Resolved(task.runs, registry.get(task.runs), task.params)
        kernel = resolved.kernel
        backend = harness.resolve_backend(task.backend, kernel)
        where = harness.place(kernel, dataset_manifest(task.dataset), backend, task.placement, what=task.dataset.id)
        data, timing["load_s"] = state.dataset(task.dataset, where.load)
        t1 = time.perf_counter()
        warmup, on_sample, timing["first_warmup"] = state.warmup(task, kernel, data, backend, where.placement)
        sampled = state.warm_up_on_sample(task, resolved, data, backend, where.placement)
        if sampled is not None:   # warmed up on a small graph: none on the input
            warmup, on_sample = 0, False
        with dist.driving() if kernel.drives_workers else contextlib.nullcontext(), \
                _held(task, kernel, resources):
            result = harness.run(resolved, data, backend=backend, reps=task.reps, warmup=warmup,
                                 warmup_sample=on_sample, placement=task.placement, verify=task.verify,
                                 keep_output=False, instances=task.roots, instance_seed=task.roots_seed,
                                 quiet=state.settle)
        timing["kernel_s"] = time.perf_counter() - t1
        timing.update({f"{stage}_s": s for stage, s in result.seconds.items()})
        timing["warmup_s"] = timing.get("warmup_s", 0.0) + (sampled or 0.0)
        timing["first_run_s"] = result.first_run_s
        timing["task_s"] = time.perf_counter() - t0
        timing["compile_s"] = harness.compile_seconds() - compiled
        ceilings = state.device_ceilings(backend)  # once per worker, after the run: a failing task fails fast
        timing["ceilings_s"] = time.perf_counter() - t0 - timing["task_s"]
        rows = result_rows(task, run_id, result, ceilings, timing)
        _warn_over_ceiling(task, rows, ceilings)
    except Exception as exc:  # every failure of the task itself becomes its error row
        log.warning("task %s failed: %s", task.label, traceback.format_exc())
        if isinstance(exc, (MemoryError, *gpu.device_errors())):   # MemoryError: a full RMM pool
            with state.lock:
                state.drop()  # the dataset may be what no longer fits; start the next task clean
        timing["task_s"] = time.perf_counter() - t0
        rows = [error_row(task, run_id, f"{type(exc).__name__}: {exc}", timing, backend)]
    outcome = state.store_later(results, task, rows) if store_later else store_rows(results, task, rows)
    if outcome["status"] == "failed" and on_failure == "stop":
        store.stop(results, f"task {task.hash} ({task.label}) failed: {outcome['error']}")
    return outcome
