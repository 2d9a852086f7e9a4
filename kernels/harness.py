"""The one harness every kernel runs under: load, prepare, build, warm up, time, verify, report.

``run("listrank.wyllie", "data/list-2^20", backend="auto", reps=20, warmup=2)`` looks the kernel
up and coerces its parameters (or takes a ``Resolved`` kernel: a sweep's task, its parameters
coerced as the spec was read) and returns a ``KernelResult``:

- ``rows``: one tidy row per (instance, rep, phase); a phase named ``total`` brackets each run.
  A run of an instance that does several of the problem's runs at once (``Problem.covers``: BC's
  group of roots) says how many in its rows' ``covers``, and counts them all in their ``elements``
  (else ``elements``, the problem's count on the input, is the task's).
- ``step_rows``: one row per step of phases timed with ``step=`` (iterations, BFS levels), for the
  last timed rep of each instance.
- ``input_rows``: the timed builds of the graph representations the kernel needs (``csr``), made
  once per dataset and device and reported apart from the kernel's phases (``cached`` when an
  earlier run on the same loaded dataset built it).
- ``instance_stats``: per instance, the kernel's statistics of its last rep and the verifier's facts.

Instances come from the problem (``Problem.instances``: e.g. BFS roots, the ``root`` parameter or
``instances`` roots drawn from ``instance_seed``); a problem without them has one.  Warm-up runs
(NVRTC compilation, allocator growth) use the first instance (or the problem's small sample,
``warmup_sample``) and are not recorded; a first timed rep that still paid such a cost (a GPU
module or a Numba function compiled, the pool grown) is run again (``first_run_marks``).  The last
rep of each instance is verified (every rep computes the same thing; verifying each would double a
GPU sweep's time).  Where the problem's answer is unique (``Problem.unique``: list ranking), an
output the verifier passed stays on the input (``VERIFIED``; up to ``KEEP_VERIFIED`` of the memory
it lies in), and a later kernel's output for the same instance that equals it is correct without
the verifier's pass (a comparison at copy speed, 1.7 ms on an H200 for a list of 2^28 nodes, where
the verifier's random gathers took 14 ms); its statistic ``verified_as`` names the
kernel whose output it equals.  An output that differs is verified as any other.
"""

import functools
import gc
import platform
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from numba.core import event as numba_event

from graphsweep.core import capacity, gpu
from graphsweep.core.errors import ParameterError, VerificationError
from graphsweep.datasets.format import read_manifest
from graphsweep.datasets.reader import Dataset, read

from . import placement, reference_store, registry
from .contract import Kernel, check_runs_on
from .timing import TRAFFIC, timer_for


@dataclass(frozen=True)
class Resolved:
    """A kernel looked up and its parameters coerced by whoever read them (a sweep, as it reads its
    spec): ``name`` as asked (an alias such as cc.best), ``kernel`` the one it names, ``params`` that
    kernel's, defaults filled.  ``run`` takes them as they are: a parameter is coerced once."""
    name: str
    kernel: Kernel
    params: dict


@dataclass
class KernelResult:
    kernel: str
    backend: str
    device: str
    dataset: dict
    params: dict
    elements: int = 0          # the problem's count on the input (rows of several runs at once: theirs)
    rows: list = field(default_factory=list)
    step_rows: list = field(default_factory=list)
    input_rows: list = field(default_factory=list)
    instances: list = field(default_factory=list)
    instance_stats: list = field(default_factory=list)
    verified: bool | None = None
    verify_error: str | None = None
    output: object = field(default=None, repr=False)
    placement: str = "device"   # where the graph's representation lived (kernels.placement)
    # Wall seconds of the harness's stages: prepare (input checks, cached per dataset; graph
    # builds), warmup (and a first timed rep that paid first-run costs), timed (queuing the reps
    # and the one sync after them: nothing else), stats (the reps' rows and the kernel's
    # statistics, evaluated after timing) and verify — where a run's time goes besides kernels.
    seconds: dict = field(default_factory=dict)
    # Of warmup's seconds, the first timed reps run again because they compiled a GPU module or
    # grew the memory pool, and what warm-ups that did so took beyond as many timed runs (less
    # the compilations in them, Numba's and NVRTC's, which ``compile_seconds`` counts):
    # what the process pays once per module, and a later process loads from CuPy's disk cache —
    # not the task's own cost, which an estimate learns (pipeline.history).
    first_run_s: float = 0.0

    @property
    def stats(self) -> dict:
        """The statistics of the last instance (the only one, for problems without instances)."""
        return self.instance_stats[-1] if self.instance_stats else {}

    def summary(self) -> list[dict]:
        """Per phase: mean, std, median and min ms over reps (and instances), the mean elements of a
        run (``rows``), and the per-run byte model."""
        by_phase = {}
        for row in self.rows:
            by_phase.setdefault(row["phase"], []).append(row)
        out = []
        for phase, rows in by_phase.items():
            ms = [r["ms"] for r in rows]
            out.append({"phase": phase, "reps": len(ms), "mean_ms": statistics.fmean(ms),
                        "elements": statistics.fmean(r.get("elements", self.elements) for r in rows),
                        "std_ms": statistics.stdev(ms) if len(ms) > 1 else 0.0,
                        "median_ms": statistics.median(ms), "min_ms": min(ms),
                        "bytes_read": rows[0]["bytes_read"], "bytes_written": rows[0]["bytes_written"],
                        "random_accesses": rows[0]["random_accesses"], "bytes_link": rows[0].get("bytes_link", 0),
                        "calls": rows[0]["calls"]})
        return out


def resolve_backend(backend: str, kernel) -> str:
    if backend not in gpu.BACKENDS:
        raise ParameterError(f"backend must be one of {', '.join(gpu.BACKENDS)}, got {backend!r}")
    backend = gpu.choose(backend, kernel.gpu is not None)
    if backend == "gpu" and not gpu.available():
        raise ParameterError("backend 'gpu' asked for, but no CUDA device is usable here (CuPy or driver missing)")
    if getattr(kernel, backend) is None:
        raise ParameterError(f"{kernel.name} has no {backend} implementation")
    return backend


def device_name(backend: str) -> str:
    if backend == "gpu":
        from .cuda import device_name as name
        return name()
    return platform.processor() or platform.machine() or "cpu"


def place(kernel, manifest: dict, backend: str, forced: str | None = None, what: str = "graph",
          memory: tuple | None = None) -> placement.Placement:
    """Where ``kernel``'s run on the dataset of ``manifest`` puts the graph (``kernels.placement``;
    ``memory``: (device bytes, host bytes), this machine's when not given).  List kernels run on
    the device that runs them."""
    if kernel.problem.dataset_kind != "graph":
        if forced == "host" and backend == "gpu":
            raise ParameterError(f"{kernel.name}: placement 'host' is for graph kernels (a list is ranked on the device)")
        on = "gpu" if backend == "gpu" else "cpu"
        return placement.Placement("device" if on == "gpu" else "host", "whole", on)
    device_bytes, host_bytes = memory or placement.machine_memory(backend)
    size = placement.GraphSize.of(manifest, in_memory=manifest.get("store") == "memory")
    return placement.decide(size, backend=backend, device_bytes=device_bytes, host_bytes=host_bytes,
                            forced=forced, what=what)


def prepared(kernel, data: Dataset):
    """The problem's input for ``data``, made once per dataset, problem and placement and cached on
    it (graph problems share one input per dataset, so their representations are built once)."""
    check_runs_on(kernel, data.manifest, data.path)
    problem = kernel.problem
    key = ("input", problem.name, data.cache.get("placement"))
    if key not in data.cache:
        data.cache[key] = problem.prepare(data)
        reference_store.attach(data.cache[key], data)
    return data.cache[key]


def _run_once(impl, inp, params, backend):
    """One run, timed; the timer is not synchronised, so the host queues the next run while the
    device works on this one (no idle gap between reps; events still time each run alone)."""
    timer = timer_for(backend)
    with timer.total():
        output = impl(inp, params, timer)
    return output, timer


class _Outermost(numba_event.Listener):
    """How many times a Numba event began (outermost: nested ones are part of it) and its seconds."""

    def __init__(self):
        self.count, self.seconds, self._depth, self._since = 0, 0.0, 0, 0.0

    def on_start(self, event):
        if self._depth == 0:
            self.count += 1
            self._since = time.perf_counter()
        self._depth += 1

    def on_end(self, event):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._since


_compiles = {}


def numba_compiles() -> tuple[int, float]:
    """(how many Numba functions this process has compiled or loaded from its disk cache — each takes
    the compiler's lock —, the seconds it spent compiling those not in the cache) since the first
    call: the CPU twins' first-run cost (``first_run_marks``), and what a later run, loading from
    the cache, no longer pays (the worker records it, ``compile_s``)."""
    if not _compiles:
        for kind in ("numba:compiler_lock", "numba:compile"):
            _compiles[kind] = _Outermost()
            numba_event.register(kind, _compiles[kind])
    return _compiles["numba:compiler_lock"].count, _compiles["numba:compile"].seconds


_nvrtc = {"seconds": 0.0, "timed": set(), "looked": False}


def _time_nvrtc(compiler) -> None:
    """Have ``compiler`` (CuPy's ``cupy.cuda.compiler``) add the seconds of every NVRTC compilation
    its disk cache misses to ``_nvrtc`` — graphsweep's modules and CuPy's own kernels (a sort, a
    reduction, an elementwise kernel) alike; once per module object."""
    name = "_compile_using_nvrtc_no_warning"     # what its cached path calls on a miss (CuPy 13-14)
    inner = getattr(compiler, name, None)
    if inner is None or id(compiler) in _nvrtc["timed"]:
        return

    @functools.wraps(inner)
    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            _nvrtc["seconds"] += time.perf_counter() - t0
    setattr(compiler, name, timed)
    _nvrtc["timed"].add(id(compiler))


def compile_seconds() -> float:
    """Seconds this process has spent compiling what a disk cache then holds — Numba's functions
    (``numba_compiles``) and, where CuPy is, NVRTC's GPU code — since the first call: what a later
    run on the machine loads instead, not a task's own cost (the worker records it, ``compile_s``)."""
    if not _nvrtc["looked"]:       # once: a failed import searches the path again each time
        _nvrtc["looked"] = True
        try:
            from cupy.cuda import compiler
        except ImportError:      # no CuPy: Numba's alone
            pass
        else:
            _time_nvrtc(compiler)
    return numba_compiles()[1] + _nvrtc["seconds"]


def first_run_marks(backend: str):
    """What grows when a kernel runs for the first time in a process: on the GPU the bytes CuPy's
    memory pool holds (a cudaMalloc) and the modules compiled or loaded (``kernels.cuda``); on the
    CPU the Numba functions compiled or loaded.  A rep during which they changed paid allocation or
    compilation inside its events."""
    if backend != "gpu":
        return numba_compiles()[0]
    import cupy

    from .cuda import modules_made
    return cupy.get_default_memory_pool().total_bytes(), modules_made()


def warmup_input(kernel, data, inp, params):
    """The problem's small sample of ``inp`` (``Problem.sample``), set up for ``kernel``, or
    ``inp`` itself where the problem has none or ``inp`` is small: what a warm-up that is to pay
    compilation and module loading, not a full run, runs on.  Made once per loaded dataset."""
    problem = kernel.problem
    if problem.sample is None or problem.instances is not None or kernel.requires:
        return inp     # instances (roots) belong to the input; a sample has no capabilities beyond its kind
    key = ("sample", problem.name, data.cache.get("placement"))
    if key not in data.cache:
        data.cache[key] = problem.sample(inp)
    sample = data.cache[key]
    if sample is None:
        return inp
    if kernel.setup is not None:
        kernel.setup(sample, params)
    return sample


def run(name: str | Resolved, dataset, *, backend: str = "auto", reps: int = 20, warmup: int = 2,
        warmup_sample: bool = False, verify: bool = True, keep_output: bool = True, instances: int | None = None,
        instance_seed: int = 0, placement: str | None = None, checksums: bool = True, quiet=None,
        **params) -> KernelResult:
    """Run kernel ``name`` with ``params`` on ``dataset`` (a path or a loaded ``Dataset``); see the
    module doc.  ``name`` may be a ``Resolved`` kernel instead, which brings its parameters.

    ``instances``: how many instances (roots) a problem with instances draws from ``instance_seed``
    when its parameters do not fix one.  ``keep_output`` copies the last instance's output to the
    host as ``result.output`` (a dict of named arrays).  ``placement``: 'device' or 'host' forces
    where a graph lives (``kernels.placement`` decides otherwise).  ``warmup_sample``: the warm-ups
    run on the problem's small sample of the input (``warmup_input``): they pay compilation and
    module loading, and the memory pool's growth is left to the first-run check of the timed reps.
    ``checksums``: a dataset read from its path has each part's sha256 checked (``datasets.reader``).
    ``quiet``: called after the warm-ups, before the first timed rep, to end what else the process
    is doing (a worker's store thread writing the last task's rows): nothing runs beside the reps
    (its wait: stage ``quiet``).

    The first timed rep of each instance is checked for first-run costs (``first_run_marks``): one
    that grew the GPU's memory pool or compiled a module or a Numba function counts as a warm-up
    and is run again, so no timed rep holds a cudaMalloc or a compilation.
    """
    resolved = name if isinstance(name, Resolved) else None
    if resolved is not None:
        if params:
            raise TypeError(f"run: {resolved.name} comes with its parameters; got {', '.join(sorted(params))} too")
        name, params = resolved.name, dict(resolved.params)
    standing = resolved.kernel if resolved else registry.get(name)
    backend = resolve_backend(backend, standing)
    manifest = read_manifest(dataset) if isinstance(dataset, (str, Path)) else dataset.manifest
    where = place(standing, manifest, backend, placement, what=str(dataset))
    ran = registry.for_placement(name, where.placement) if backend == "gpu" else name
    kernel = standing if ran == name else registry.get(ran)
    if kernel is not standing:
        # An alias that stands for another kernel on this placement: the parameters it was given at
        # their defaults for the device's kernel (a sweep fills them in) are not the stand-in's,
        # whose own are coerced here.
        params = kernel.resolve_params({k: v for k, v in params.items() if k in kernel.params
                                        or k not in standing.params or v != standing.params[k].default})
    elif resolved is None:
        params = kernel.resolve_params(params)
    if reps < 1 or warmup < 0:
        raise ParameterError(f"reps must be >= 1 and warmup >= 0 (got reps={reps}, warmup={warmup})")
    if instances is not None and instances < 1:
        raise ParameterError(f"instances (roots) must be >= 1, got {instances}")
    load = "cpu" if where.load == "none" else where.load
    data = read(dataset, backend=load, checksums=checksums) if isinstance(dataset, (str, Path)) else dataset.to(load)
    data.cache["placement"] = (where.placement, backend)
    clock = time.perf_counter()
    problem = kernel.problem
    inp = prepared(kernel, data)
    result = KernelResult(kernel=kernel.name, backend=backend, device=device_name(backend),
                          dataset={"path": str(data.path), "n": data.n, "m": data.m, **data.identity},
                          params=params, elements=int(problem.elements(inp)), placement=where.placement)
    if kernel.needs:
        result.input_rows = inp.build(kernel.needs)
    if kernel.setup is not None:
        built = kernel.setup(inp, params)
        if isinstance(built, list):          # rows of representations it chose to build (sssp.select's by-bfs)
            result.input_rows += built
    result.instances = problem.instances(inp, params, instances, instance_seed) if problem.instances else [{}]
    impl = getattr(kernel, backend)
    clock = _lap(result, "prepare", clock)

    warm = warmup_input(kernel, data, inp, params) if warmup and warmup_sample else inp
    marks, compiled_before, since = first_run_marks(backend), compile_seconds(), clock
    for _ in range(warmup):
        _run_once(impl, warm, {**params, **result.instances[0]}, backend)[1].finish()
    clock = _lap(result, "warmup", clock)
    # warm-ups that compiled GPU modules (or grew the pool) paid a first run's cost too: what they
    # took beyond as many timed runs, counted once the runs are timed
    first_warmups = (clock - since - (compile_seconds() - compiled_before)) if marks != first_run_marks(backend) \
        else None
    if quiet is not None:
        quiet()
        clock = _lap(result, "quiet", clock)
    errors = []
    # Python's collector, run in the middle of queuing a rep, would stall the host for tens of
    # milliseconds inside the rep's event window: it waits until the reps are done.
    gc.disable()
    try:
        output = _time_instances(result, problem, impl, inp, params, backend, reps, verify, errors, clock,
                                 kernel.collect, kernel.check, keep_output)
    finally:
        gc.enable()
    if first_warmups is not None:
        runs = [r["ms"] / 1e3 for r in result.rows if r["phase"] == "total"]
        per_run = sorted(runs)[len(runs) // 2] if runs else 0.0
        result.first_run_s += max(0.0, first_warmups - warmup * per_run)
    if verify:
        result.verified = not errors
        result.verify_error = "; ".join(errors) or None
    if keep_output:
        result.output = {k: gpu.to_host(v) for k, v in output.items()}
    return result


def _time_instances(result, problem, impl, inp, params, backend, reps, verify, errors, clock, collect,
                    check, keep: bool) -> dict | None:
    """Time ``reps`` runs of each instance and verify its last (failures appended to ``errors``);
    returns the last instance's output, named.  ``collect``: the kernel's, for an output left on
    the workers that computed it (gathered after timing, stage ``collect``, only where it is
    needed: the problem's verifier, or the last instance's output kept — a graph sliced over
    workers because no one device holds it may have an output no one device holds either; None
    is returned then); ``check``: the kernel's verifier of such an output where it lies (then the
    problem's is not run)."""
    output = None
    for index, instance in enumerate(result.instances):
        run_params = {**params, **instance}
        tags = {"instance": index, **{f"inst_{k}": v for k, v in instance.items()}}
        covers = problem.runs_in(instance)
        if covers != 1:
            tags.update(covers=covers, elements=result.elements * covers)
        timers = []
        output = None  # let the previous instance's output go before the next one allocates
        marks, compiled_before = first_run_marks(backend), compile_seconds()
        output, timer = _run_once(impl, inp, run_params, backend)
        if marks != first_run_marks(backend):   # it grew the pool or compiled: a warm-up after all
            timer.finish()
            since, clock = clock, _lap(result, "warmup", clock)
            result.first_run_s += max(0.0, clock - since - (compile_seconds() - compiled_before))
            output = None
            output, timer = _run_once(impl, inp, run_params, backend)
        timers.append(timer)
        for rep in range(1, reps):
            timers[-1].keep_rows_only()   # memory flat in reps: no earlier rep's arrays outlive it
            if len(timers) > 1:
                # and the rep before it settles its byte model, whose callables hold its arrays where
                # keep_rows_only could not (on the GPU: waiting for that rep, the last one queued)
                timers[-2].settle()
            output = None  # let the previous rep's output go before the next one allocates
            output, timer = _run_once(impl, inp, run_params, backend)
            timers.append(timer)
        timer.finish()  # one synchronisation for all reps of this instance
        clock = _lap(result, "timed", clock)
        for rep, timer in enumerate(timers):
            rows = timer.rows()
            total = next(r for r in rows if r["phase"] == "total")
            for key in TRAFFIC:
                total[key] = sum(r[key] for r in rows if r is not total)
            result.rows += [{"rep": rep, **tags, **r} for r in rows]
        result.step_rows += [{"rep": reps - 1, **tags, **r} for r in timer.step_rows()]
        stats = timer.stats()
        clock = _lap(result, "stats", clock)
        if verify and check is not None:
            _verified(stats, errors, instance, check, output, run_params)
            clock = _lap(result, "verify", clock)
        wanted = (verify and check is None) or (keep and index == len(result.instances) - 1)
        if collect is not None and not wanted:
            output = None
        else:
            if collect is not None:
                output = collect(output)
                clock = _lap(result, "collect", clock)
            output = problem.named(output)
            if verify and check is None:
                _checked(stats, errors, instance, problem, result.kernel, inp, run_params, output)
        result.instance_stats.append(stats)
        clock = _lap(result, "verify", clock)
    return output


VERIFIED = "harness.verified"   # an input's cache: {(problem, instance): (kernel, output)} of verified outputs
KEEP_VERIFIED = 1 / 16          # at most this share of the memory the output lies in (device or host)


def _checked(stats: dict, errors: list, instance: dict, problem, kernel: str, inp, params: dict, output: dict) -> None:
    """The problem's verifier on ``output``, or, for a problem of unique answers, a comparison with
    the output of the same instance that a verifier passed on this input (kept when it fits)."""
    cache = getattr(inp, "cache", None)
    key = (problem.name, repr(sorted(instance.items())))
    if problem.unique and cache is not None:
        earlier = cache.get(VERIFIED, {}).get(key)
        if earlier is not None and _same(earlier[1], output):
            stats["verified_as"] = earlier[0]
            return
    failed = len(errors)
    _verified(stats, errors, instance, problem.verify, inp, params, output)
    if problem.unique and cache is not None and len(errors) == failed and _fits(output):
        # a copy: a kernel may hand back a buffer its next run writes again
        cache.setdefault(VERIFIED, {})[key] = (kernel, {name: a.copy() for name, a in output.items()})


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for name, x in a.items():
        y = b[name]
        if x.shape != y.shape or gpu.is_device(x) != gpu.is_device(y):
            return False
        if not bool(gpu.array_module(x).array_equal(x, y)):
            return False
    return True


def _fits(output: dict) -> bool:
    size = sum(int(a.nbytes) for a in output.values())
    room = capacity.device_memory(total=True) if any(gpu.is_device(a) for a in output.values()) \
        else capacity.available_memory()
    return size <= KEEP_VERIFIED * (room or 0)


def _verified(stats: dict, errors: list, instance: dict, verify, *args) -> None:
    """``verify(*args)``'s facts into ``stats``, or its VerificationError into ``errors`` (named by
    the instance)."""
    try:
        stats.update(verify(*args) or {})
    except VerificationError as exc:
        label = ", ".join(f"{k} {v}" for k, v in instance.items())
        errors.append(f"{label}: {exc}" if label else str(exc))


def _lap(result: KernelResult, stage: str, since: float) -> float:
    """Add the seconds since ``since`` to ``stage``; returns now."""
    now = time.perf_counter()
    result.seconds[stage] = result.seconds.get(stage, 0.0) + now - since
    return now
