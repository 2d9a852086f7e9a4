"""Per-phase timers: CUDA events on the GPU, ``perf_counter`` on the CPU.

A timer records one run.  ``phase`` marks a region and its byte model; GPU regions are bracketed
by events on the current stream (and an NVTX range), so nothing is synchronised or copied inside
the timed region; ``finish`` synchronises once.  ``rows`` gives one row per phase name (repeated
phases summed, with a ``calls`` count) and ``step_rows`` one row per phase marked with ``step=i``
(an iteration, a BFS level), carrying its sizes (``info``) so per-step behaviour can be plotted.
"""

import time
from contextlib import contextmanager

TRAFFIC = ("bytes_read", "bytes_written", "random_accesses")


class _Traffic:
    __slots__ = ("read", "written", "random")

    def __init__(self, read=0, written=0, random=0):
        self.read, self.written, self.random = int(read), int(written), int(random)

    def add(self, read=0, written=0, random=0):
        """Add traffic found while the phase runs (e.g. a frontier's size known only then)."""
        self.read += int(read)
        self.written += int(written)
        self.random += int(random)


def _value(v):
    """A statistic or step size as a plain Python value: callables are called, device scalars fetched."""
    if callable(v):
        v = v()
    if hasattr(v, "item") and getattr(v, "ndim", 0) == 0:
        return v.item()
    return v


class Timer:
    """Base: collects (phase, step, info, traffic, start, end) and kernel statistics."""

    def __init__(self):
        self._marks = []
        self._stats = {}

    def stat(self, name, value):
        """Record a statistic; a callable is evaluated after timing (keep analysis out of the run)."""
        self._stats[name] = value

    def stats(self) -> dict:
        return {k: _value(v) for k, v in self._stats.items()}

    @contextmanager
    def phase(self, name, *, read=0, written=0, random=0, step=None, info=None):
        """Time the enclosed work as phase ``name`` with its byte model; ``step`` keeps it as a step row too."""
        traffic = _Traffic(read, written, random)
        start = self._start(name)
        try:
            yield traffic
        finally:
            self._marks.append((name, None if step is None else int(step), info, traffic, start, self._stop()))

    @contextmanager
    def total(self):
        with self.phase("total"):
            yield

    def rows(self) -> list[dict]:
        """One row per phase name, in first-seen order: ms, bytes, random accesses, calls."""
        merged = {}
        for name, _, _, traffic, ms in self._elapsed():
            row = merged.setdefault(name, {"phase": name, "ms": 0.0, "bytes_read": 0, "bytes_written": 0,
                                           "random_accesses": 0, "calls": 0})
            row["ms"] += ms
            row["bytes_read"] += traffic.read
            row["bytes_written"] += traffic.written
            row["random_accesses"] += traffic.random
            row["calls"] += 1
        return list(merged.values())

    def step_rows(self) -> list[dict]:
        """One row per phase run with ``step=``: phase, step, ms, bytes, and ``info`` as ``step_<key>``."""
        out = []
        for name, step, info, traffic, ms in self._elapsed():
            if step is None:
                continue
            row = {"phase": name, "step": step, "ms": ms, "bytes_read": traffic.read,
                   "bytes_written": traffic.written, "random_accesses": traffic.random, "calls": 1}
            row.update({f"step_{k}": _value(v) for k, v in (info or {}).items()})
            out.append(row)
        return out

    def _elapsed(self):
        return [(name, step, info, traffic, self._ms(a, b)) for name, step, info, traffic, a, b in self._marks]


class CpuTimer(Timer):
    def _start(self, name):
        return time.perf_counter()

    def _stop(self):
        return time.perf_counter()

    def finish(self):
        pass

    @staticmethod
    def _ms(a, b):
        return (b - a) * 1e3


class CudaTimer(Timer):
    def __init__(self):
        super().__init__()
        import cupy
        self._cupy = cupy
        self._nvtx = cupy.cuda.nvtx

    def _event(self):
        ev = self._cupy.cuda.Event()
        ev.record()
        return ev

    def _start(self, name):
        self._nvtx.RangePush(name)
        return self._event()

    def _stop(self):
        ev = self._event()
        self._nvtx.RangePop()
        return ev

    def finish(self):
        self._cupy.cuda.get_current_stream().synchronize()

    def _ms(self, a, b):
        return self._cupy.cuda.get_elapsed_time(a, b)


def timer_for(backend: str) -> Timer:
    """A fresh timer for ``backend`` ('gpu' or 'cpu')."""
    return CudaTimer() if backend == "gpu" else CpuTimer()
