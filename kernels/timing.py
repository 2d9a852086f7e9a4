"""Per-phase timers: CUDA events on the GPU, ``perf_counter`` on the CPU.

A timer records one run.  ``phase`` marks a region and its byte model; GPU regions are bracketed
by events on the current stream (and an NVTX range), so nothing is synchronised or copied inside
the timed region; ``finish`` synchronises once.  ``rows`` gives one row per phase name (repeated
phases summed, with a ``calls`` count) and ``step_rows`` one row per phase marked with ``step=i``
(an iteration, a BFS level), carrying its sizes (``info``) so per-step behaviour can be plotted.
"""

import time
from contextlib import contextmanager

# The byte-model columns of a row (bytes_link: those of the bytes that crossed the host link).
TRAFFIC = ("bytes_read", "bytes_written", "random_accesses", "bytes_link")



def _value(v):
    """A statistic, step size or byte count as a plain Python value: callables are called (after
    timing), device scalars fetched."""
    if callable(v):
        v = v()
    if hasattr(v, "item") and getattr(v, "ndim", 0) == 0:
        return v.item()
    return v


class _Traffic:
    """A phase's byte model: bytes read, bytes written, random accesses, and the bytes of those
    that cross the host link (a graph placed in host memory).  Each may be a number, a device
    scalar or a callable evaluated after timing (sizes known only from the output)."""
    __slots__ = ("_terms",)

    def __init__(self, read=0, written=0, random=0, link=0):
        self._terms = ([read], [written], [random], [link])

    def add(self, read=0, written=0, random=0, link=0):
        """Add traffic found while the phase runs (e.g. a frontier's size known only then)."""
        for terms, value in zip(self._terms, (read, written, random, link)):
            terms.append(value)

    def totals(self) -> tuple[int, int, int, int]:
        return tuple(int(sum(_value(t) for t in terms)) for terms in self._terms)

    def settle(self):
        """Evaluate the terms now, so their callables let go of what they hold."""
        self._terms = tuple([total] for total in self.totals())


class Timer:
    """Base: collects (phase, step, info, traffic, start, end) and kernel statistics."""

    # Whether a run has finished when its call returns, so that evaluating its byte model then
    # waits for nothing (the CPU; on the GPU the host queues the next run while this one works).
    finished_at_return = False

    def __init__(self):
        self._marks = []
        self._measured = []     # phases timed elsewhere: (name, step, info, traffic, ms)
        self._total = None      # the run's time measured elsewhere, replacing the total's bracket
        self._stats = {}
        self._steps = []

    def stat(self, name, value):
        """Record a statistic; a callable is evaluated after timing (keep analysis out of the run)."""
        self._stats[name] = value

    def stats(self) -> dict:
        return {k: _value(v) for k, v in self._stats.items()}

    def keep_rows_only(self):
        """Forget the statistics and step sizes: the harness reads them of an instance's last rep
        alone, and their callables may hold the run's arrays (a rep's sub-list records) until the
        rows are read after all reps, so every rep's arrays would stay alive side by side.  Where
        the run has finished (``finished_at_return``) its byte model is evaluated too, for the same
        reason (bfs.harish's level sizes, counted from the level array after timing)."""
        self._stats.clear()
        self._steps.clear()
        self._marks = [(name, step, None, traffic, start, stop) for name, step, _, traffic, start, stop in self._marks]
        if self.finished_at_return:
            for *_, traffic, _, _ in self._marks:
                traffic.settle()

    def settle(self):
        """Evaluate the byte model now, so that its callables let go of the run's arrays (bfs.harish's
        level array, 4n bytes a rep), waiting for the run to finish where it has not (``wait``)."""
        self.wait()
        for *_, traffic, _, _ in self._marks:
            traffic.settle()

    def wait(self):
        """Wait for this run's last phase to end (nothing where a run has finished at return)."""

    @contextmanager
    def phase(self, name, *, read=0, written=0, random=0, link=0, step=None, info=None):
        """Time the enclosed work as phase ``name`` with its byte model (``link``: bytes of it over
        the host link); ``step`` keeps it as a step row too."""
        traffic = _Traffic(read, written, random, link)
        start = self._start(name)
        try:
            yield traffic
        finally:
            self._marks.append((name, None if step is None else int(step), info, traffic, start, self._stop()))

    def steps(self, name, rows):
        """Step rows measured inside one launch (a persistent kernel's levels): ``rows()``, called
        after timing, returns dicts with ``step``, ``ms``, optional ``bytes_read``,
        ``bytes_written``, ``random_accesses`` and ``info``.  They are not added to the phase sums
        (the enclosing phase's events already time the launch)."""
        self._steps.append((name, rows))

    @contextmanager
    def total(self):
        with self.phase("total"):
            yield

    def measured(self, name, ms, *, read=0, written=0, random=0, link=0, step=None, info=None):
        """A phase timed elsewhere — on the workers of a partitioned run, with their own clocks —
        given its milliseconds (a number or a callable evaluated after timing)."""
        self._measured.append((name, None if step is None else int(step), info, _Traffic(read, written, random, link),
                               ms))

    def total_measured(self, ms):
        """The run's time as measured elsewhere (a partitioned run's workers, from the barrier
        that starts it to its last rank's end): the ``total`` row carries it instead of the
        caller's bracket, which the kernel keeps as a phase of its own (its dispatch)."""
        self._total = ms

    def rows(self) -> list[dict]:
        """One row per phase name, in first-seen order: ms, bytes, random accesses, calls."""
        merged = {}
        for name, _, _, traffic, ms in self._elapsed():
            row = merged.setdefault(name, {"phase": name, "ms": 0.0, "bytes_read": 0, "bytes_written": 0,
                                           "random_accesses": 0, "bytes_link": 0, "calls": 0})
            read, written, random, link = traffic.totals()
            row["ms"] += ms
            row["bytes_read"] += read
            row["bytes_written"] += written
            row["random_accesses"] += random
            row["bytes_link"] += link
            row["calls"] += 1
        return list(merged.values())

    def step_rows(self) -> list[dict]:
        """One row per phase run with ``step=``: phase, step, ms, bytes, and ``info`` as ``step_<key>``."""
        out = []
        for name, step, info, traffic, ms in self._elapsed():
            if step is None:
                continue
            read, written, random, link = traffic.totals()
            row = {"phase": name, "step": step, "ms": ms, "bytes_read": read, "bytes_written": written,
                   "random_accesses": random, "bytes_link": link, "calls": 1}
            row.update({f"step_{k}": _value(v) for k, v in (info or {}).items()})
            out.append(row)
        for name, rows in self._steps:
            for r in rows():
                row = {"phase": name, "step": int(r["step"]), "ms": float(r["ms"]),
                       **{k: int(r.get(k, 0)) for k in TRAFFIC},
                       "calls": 1}
                row.update({f"step_{k}": _value(v) for k, v in (r.get("info") or {}).items()})
                out.append(row)
        return out

    def _elapsed(self):
        out = [(name, step, info, traffic, self._ms(a, b) if name != "total" or self._total is None
                else float(_value(self._total))) for name, step, info, traffic, a, b in self._marks]
        return out + [(name, step, info, traffic, float(_value(ms))) for name, step, info, traffic, ms in self._measured]


class CpuTimer(Timer):
    finished_at_return = True

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

    def wait(self):
        if self._marks:
            self._marks[-1][-1].synchronize()    # its last phase's end event

    def settle(self):
        """As ``Timer.settle``, the byte model evaluated on a stream of its own: a callable that
        reads device memory (bfs.direction-optimizing's control blocks) would otherwise synchronise
        the runs' stream, waiting for every rep queued after this one, so that the next rep starts
        on an idle GPU with the host's gaps inside its events (R-MAT 22: 0.30 -> 0.40-0.44 ms a
        root on an H200).  This rep has ended (``wait``): what its callables read is there."""
        with _side_stream(self._cupy):
            super().settle()

    def _ms(self, a, b):
        return self._cupy.cuda.get_elapsed_time(a, b)


_SIDE_STREAMS: dict = {}


def _side_stream(cupy):
    """This device's stream for reading a finished rep's values beside the queued reps (it does
    not wait for the legacy default stream's work)."""
    device = cupy.cuda.Device().id
    if device not in _SIDE_STREAMS:
        _SIDE_STREAMS[device] = cupy.cuda.Stream(non_blocking=True)
    return _SIDE_STREAMS[device]


def timer_for(backend: str) -> Timer:
    """A fresh timer for ``backend`` ('gpu' or 'cpu')."""
    return CudaTimer() if backend == "gpu" else CpuTimer()
