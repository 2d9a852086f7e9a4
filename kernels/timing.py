"""Per-phase timers: CUDA events on the GPU, ``perf_counter`` on the CPU.

A timer records one run.  ``phase`` marks a region and its byte model; GPU regions are bracketed
by events on the current stream (and an NVTX range), so nothing is synchronised or copied inside
the timed region; ``finish`` synchronises once and returns the phase rows.
"""

import time
from contextlib import contextmanager


class _Traffic:
    __slots__ = ("read", "written", "random")

    def __init__(self, read=0, written=0, random=0):
        self.read, self.written, self.random = int(read), int(written), int(random)

    def add(self, read=0, written=0, random=0):
        """Add traffic found while the phase runs (e.g. a frontier's size known only then)."""
        self.read += int(read)
        self.written += int(written)
        self.random += int(random)


class Timer:
    """Base: collects (phase, traffic, start, end) and kernel statistics."""

    def __init__(self):
        self._marks = []
        self._stats = {}

    def stat(self, name, value):
        """Record a statistic; a callable is evaluated after timing (keep analysis out of the run)."""
        self._stats[name] = value

    def stats(self) -> dict:
        return {k: (v() if callable(v) else v) for k, v in self._stats.items()}

    def rows(self) -> list[dict]:
        """One row per phase name, in first-seen order: ms, bytes, random accesses, calls."""
        merged = {}
        for name, traffic, ms in self._elapsed():
            row = merged.setdefault(name, {"phase": name, "ms": 0.0, "bytes_read": 0, "bytes_written": 0,
                                           "random_accesses": 0, "calls": 0})
            row["ms"] += ms
            row["bytes_read"] += traffic.read
            row["bytes_written"] += traffic.written
            row["random_accesses"] += traffic.random
            row["calls"] += 1
        return list(merged.values())


class CpuTimer(Timer):
    @contextmanager
    def phase(self, name, *, read=0, written=0, random=0):
        traffic = _Traffic(read, written, random)
        start = time.perf_counter()
        try:
            yield traffic
        finally:
            self._marks.append((name, traffic, start, time.perf_counter()))

    @contextmanager
    def total(self):
        with self.phase("total"):
            yield

    def finish(self):
        pass

    def _elapsed(self):
        return [(name, t, (b - a) * 1e3) for name, t, a, b in self._marks]


class CudaTimer(Timer):
    def __init__(self):
        super().__init__()
        import cupy
        self._cupy = cupy

    def _event(self):
        ev = self._cupy.cuda.Event()
        ev.record()
        return ev

    @contextmanager
    def phase(self, name, *, read=0, written=0, random=0):
        traffic = _Traffic(read, written, random)
        nvtx = self._cupy.cuda.nvtx
        nvtx.RangePush(name)
        start = self._event()
        try:
            yield traffic
        finally:
            end = self._event()
            nvtx.RangePop()
            self._marks.append((name, traffic, start, end))

    total = CpuTimer.total

    def finish(self):
        self._cupy.cuda.get_current_stream().synchronize()

    def _elapsed(self):
        get = self._cupy.cuda.get_elapsed_time
        return [(name, t, get(a, b)) for name, t, a, b in self._marks]
