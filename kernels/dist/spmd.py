"""The worker side of a partitioned run: one task per worker (SPMD), each a ``Rank``.

``driver.Partition.spmd(fn, *args)`` runs ``fn(rank, *args)`` on every slice's worker at once.
Before ``fn`` the ranks meet at a barrier; the run's time on a rank is from there to the end of
its work, so a run's time — the slowest rank's — counts the work and the exchanges, not Dask's
dispatch of the tasks (the driver's wall time of the call is a phase of its own, ``dispatch``).
On the GPU it is timed as a one-GPU kernel's total is, by CUDA events on the rank's stream: from
the first work queued after the barrier (and, over NCCL, after a meeting of the GPUs queued on the
device, so every rank's clock starts together) to the last work of the run (``Rank.done``: where ``fn``
says its device work is all queued, else when it returns), host gaps inside included, the
reads after it that only inspect the run (a control block, level records) not.  On the CPU, by
the clock from the barrier to ``fn``'s return.  Each rank returns its record:

    {"ms": the rank's time, "comm_ms": inside collectives, "bytes": received, "rounds": collectives,
     **what fn returned (its phases, steps and statistics)}

The task leaves its worker's thread pool while it runs (it waits for its peers, and a peer task
of another run queued behind it on a worker of one thread would otherwise never start) and hands
the rank to the partition's own thread on the worker (``plugin.SliceStore.thread``), the same one
every run, so no run pays a fresh thread's first CUDA calls.
"""

import time
from contextlib import contextmanager

from .plugin import here


class Rank:
    """One rank of a run: its slice, its communicator, its device, where its output is kept."""

    def __init__(self, key, store):
        self.key, self.store = key, store
        self.slice = store.slices[key]
        self.comm = store.comms[key]
        self.xp = self.slice.xp
        self.backend = self.slice.backend
        self.phases: dict = {}      # name -> seconds (summed over calls; on the GPU once the run is synchronised)
        self._events: list = []     # (name, start, end) of the GPU's phases
        self._span: list = []       # the run's first and last events on the GPU (``begin``, ``done``)

    def sync(self) -> None:
        """Wait for the device (through the communicator, so a cancelled run does not hang here)."""
        if self.backend == "gpu":
            self.comm.host(self.xp.zeros(1, dtype="int8"))

    @contextmanager
    def phase(self, name: str):
        """Time a stretch of the rank's work as phase ``name``: CUDA events on the GPU (nothing
        synchronised), the clock on the CPU."""
        if self.backend == "gpu":
            start = self.xp.cuda.Event()
            start.record()
            yield
            end = self.xp.cuda.Event()
            end.record()
            self._events.append((name, start, end))
            return
        t0 = time.perf_counter()
        yield
        self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - t0

    def phases_ms(self) -> dict:
        """Each phase's milliseconds (after the run's last synchronisation)."""
        for name, start, end in self._events:
            self.phases[name] = self.phases.get(name, 0.0) + self.xp.cuda.get_elapsed_time(start, end) / 1e3
        self._events = []
        return {k: 1e3 * v for k, v in self.phases.items()}

    def begin(self) -> None:
        """The run starts here (after the barrier): on the GPU an event on the stream."""
        if self.backend == "gpu":
            self._span = [self.xp.cuda.Event()]
            self._span[0].record()

    def restart(self) -> None:
        """The run's device work starts here, not at the barrier: for a kernel whose host-side
        set-up (its workspace looked up, Python objects made) comes before its first launch.  The
        GPUs meet again on the device first, so no rank's clock counts another's set-up."""
        self.comm.align()
        self.begin()

    def done(self) -> None:
        """The run's device work is all queued: its time ends where the stream gets here (the
        first call counts; reads that only inspect the run may follow)."""
        if self.backend == "gpu" and len(self._span) == 1:
            self._span.append(self.xp.cuda.Event())
            self._span[1].record()

    def span_ms(self) -> float | None:
        """The GPU run's milliseconds from ``begin`` to ``done`` (after its last synchronisation)."""
        return self.xp.cuda.get_elapsed_time(*self._span) if len(self._span) == 2 else None

    def mark(self) -> tuple:
        """Where the rank's clock and ledger stand (after a host read: device work up to it is done)."""
        return time.perf_counter(), self.comm.received, self.comm.rounds

    def since(self, mark: tuple, **info) -> dict:
        """The time, time in collectives (NaN if one ran untimed, inside a CUDA graph), bytes
        received and collectives since ``mark`` (after a host read), with ``info``: a step's record."""
        t, b, r = self.mark()
        return {"ms": 1e3 * (t - mark[0]), "comm_ms": 1e3 * self.comm.seconds_between(mark[2], r), "bytes": b - mark[1],
                "rounds": r - mark[2], **info}

    def keep(self, **outputs) -> None:
        """This rank's share of the run's output (arrays over its slice's vertices), kept on the
        worker until the driver collects it after timing."""
        self.store.outputs[self.key] = outputs


def run(key, fn, *args) -> dict:
    """The task on each worker: the rank run on the partition's thread here; its record."""
    from distributed import secede
    store = here()
    secede()
    return store.thread(key).submit(_run_rank, key, store, fn, *args).result()


def _run_rank(key, store, fn, *args) -> dict:
    """Barrier, ``fn(rank, *args)``, sync; the rank's record."""
    rank = Rank(key, store)
    if rank.backend == "cpu":
        from .slices import set_threads
        set_threads(rank.slice.threads)
    rank.comm.barrier()
    # the GPUs meet on the device before the first event: each rank's clock then starts when the
    # last GPU got there, not when its own host left the barrier (hosts leave it up to a few
    # hundred microseconds apart, which a rank's first exchange would count as its own time)
    rank.comm.align()
    start = rank.mark()
    rank.begin()
    out = fn(rank, *args) or {}
    rank.done()
    rank.sync()
    record = rank.since(start)
    span = rank.span_ms()
    if span is not None:
        record["ms"] = span
    return {**record, "phases_ms": rank.phases_ms(), **out}


def output_piece(key, names: tuple) -> dict:
    """This worker's kept output, on the host (the driver's collect)."""
    from graphsweep.core.gpu import to_host
    kept = here().outputs.get(key)
    if kept is None:
        raise RuntimeError("this worker holds no output of the run (restarted since?)")
    return {name: to_host(kept[name]) for name in names}
