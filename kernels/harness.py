"""The one harness every kernel runs under: load, prepare, warm up, time, verify, report.

``run("listrank.wyllie", "data/list-2^20", backend="auto", reps=20, warmup=2)`` returns a
``KernelResult`` whose ``rows`` hold one tidy row per (rep, phase); a phase named ``total``
brackets the whole run.  Warm-up runs (NVRTC compilation, allocator growth) are not recorded.
"""

import platform
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from graphsweep.datasets import gpu
from graphsweep.datasets.errors import ParameterError, VerificationError
from graphsweep.datasets.reader import Dataset, read

from . import registry
from .timing import CpuTimer, CudaTimer

BACKENDS = ("auto", "gpu", "cpu")


@dataclass
class KernelResult:
    kernel: str
    backend: str
    device: str
    dataset: dict
    params: dict
    rows: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    verified: bool | None = None
    verify_error: str | None = None
    output: object = field(default=None, repr=False)
    # Wall seconds of the harness's stages: prepare (input checks, cached per dataset), warmup,
    # timed (the reps, timer sync included) and verify — where a run's time goes besides kernels.
    seconds: dict = field(default_factory=dict)

    def summary(self) -> list[dict]:
        """Per phase: mean, std, median and min ms over reps, and the (per-run) byte model."""
        by_phase = {}
        for row in self.rows:
            by_phase.setdefault(row["phase"], []).append(row)
        out = []
        for phase, rows in by_phase.items():
            ms = [r["ms"] for r in rows]
            out.append({"phase": phase, "reps": len(ms), "mean_ms": statistics.fmean(ms),
                        "std_ms": statistics.stdev(ms) if len(ms) > 1 else 0.0,
                        "median_ms": statistics.median(ms), "min_ms": min(ms),
                        "bytes_read": rows[0]["bytes_read"], "bytes_written": rows[0]["bytes_written"],
                        "random_accesses": rows[0]["random_accesses"], "calls": rows[0]["calls"]})
        return out


def resolve_backend(backend: str, kernel) -> str:
    if backend not in BACKENDS:
        raise ParameterError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "auto":
        backend = "gpu" if kernel.gpu is not None and gpu.available() else "cpu"
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


def prepared(kernel, data: Dataset):
    """The problem's input for ``data``, made once per dataset and problem and cached on it."""
    problem = kernel.problem
    if data.kind != problem.dataset_kind:
        raise ParameterError(f"{kernel.name} needs a {problem.dataset_kind} dataset; "
                             f"{data.path} is a {data.kind} dataset")
    key = ("input", problem.name)
    if key not in data.cache:
        data.cache[key] = problem.prepare(data)
    return data.cache[key]


def run(name: str, dataset, *, backend: str = "auto", reps: int = 20, warmup: int = 2,
        verify: bool = True, keep_output: bool = True, **params) -> KernelResult:
    """Run kernel ``name`` on ``dataset`` (a path or a loaded ``Dataset``); see the module doc.

    ``keep_output`` copies the last rep's output to the host as ``result.output``.
    """
    kernel = registry.get(name)
    backend = resolve_backend(backend, kernel)
    params = kernel.resolve_params(params)
    if reps < 1 or warmup < 0:
        raise ParameterError(f"reps must be >= 1 and warmup >= 0 (got reps={reps}, warmup={warmup})")
    device = "gpu" if backend == "gpu" else "cpu"
    data = read(dataset, device=device) if isinstance(dataset, (str, Path)) else dataset.to(device)
    clock = time.perf_counter()
    inp = prepared(kernel, data)
    if kernel.setup is not None:
        kernel.setup(inp, params)
    impl = getattr(kernel, backend)
    make_timer = CudaTimer if backend == "gpu" else CpuTimer

    result = KernelResult(kernel=kernel.name, backend=backend, device=device_name(backend),
                          dataset={"path": str(data.path), "n": data.n, "m": data.m, **data.identity},
                          params=params)
    clock = _lap(result, "prepare", clock)
    output = None
    for i in range(warmup + reps):
        if i == warmup:
            clock = _lap(result, "warmup", clock)
        output = None  # let the previous rep's output go before the next one allocates
        timer = make_timer()
        with timer.total():
            output = impl(inp, params, timer)
        timer.finish()
        if i >= warmup:
            rows = timer.rows()
            total = next(r for r in rows if r["phase"] == "total")
            for key in ("bytes_read", "bytes_written", "random_accesses"):
                total[key] = sum(r[key] for r in rows if r is not total)
            result.rows += [{"rep": i - warmup, **r} for r in rows]
    clock = _lap(result, "timed", clock)
    result.stats = timer.stats()  # of the last rep, whose output is verified
    if verify:
        try:
            result.stats.update(kernel.problem.verify(inp, output) or {})
            result.verified = True
        except VerificationError as exc:
            result.verified, result.verify_error = False, str(exc)
    if keep_output:
        result.output = gpu.to_host(output)
    _lap(result, "verify", clock)
    return result


def _lap(result: KernelResult, stage: str, since: float) -> float:
    now = time.perf_counter()
    result.seconds[stage] = now - since
    return now
