"""The NCCL transport: collectives between workers that each own a distinct GPU, through
``cupy.cuda.nccl``, on device buffers only (NVLink or PCIe peer to peer within a host, the
network across hosts: NCCL picks; nothing of ours changes).

Bootstrapped through Dask as raft-dask does: ``unique_id`` runs on rank 0's worker, the id goes
to the K workers, and ``join`` (one task on each, all at once) creates the communicator; ranks
follow the partition's worker order.  The communicator lives as long as the partition (the
workers' ``plugin.SliceStore``), destroyed when it is dropped or its worker closes.

Collectives run on the current stream and the host does not wait for them, except in ``host``
(a device-to-host read) — there it polls an event, so a wait can be cancelled by the driver (a
peer failed: ``cancel`` marks the communicator, the poll sees it and calls ``ncclCommAbort``,
which also ends the NCCL kernels spinning for the lost peer) and never outlasts ``WAIT_S``.
NVLink multicast (NVLS) is never asked for: ``NCCL_NVLS_ENABLE=0`` is set before NCCL is loaded.

``allgatherv``, ``alltoallv`` and ``alltoallv_into`` are grouped sends and receives (NCCL >= 2.7):
each rank's piece goes where it belongs, no padding.  ``alltoallv`` first learns what it will
receive: the K x K counts all-gathered and read on the host (one small round trip);
``alltoallv_into``'s sizes are agreed beforehand.  ``group`` makes the collectives inside one NCCL
group, one launch.  Time inside collectives is bracketed by events, a bracket a round (a group
is one), and summed after the rank's last sync (``seconds_between``).
Collectives captured into a CUDA graph (``capturing``; NCCL >= 2.9 captures them) are counted
once per replay (``replayed``) but not timed: an event recorded during a capture times nothing,
so their time reads as NaN.
"""

import math
import os
import time
from contextlib import contextmanager

import numpy as np

from . import WAIT_S, CommError, Communicator

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")    # NVLink multicast stays off on shared machines

POLL_SPINS = 256
SPIN_S = 5e-3      # a wait spins this long before it sleeps between polls (a level's result
                   # is read while the next level runs: a late wake-up would leave the GPU idle)
UNTIMED = "untimed"   # a round that ran inside a CUDA graph: counted, no events around it


def available() -> bool:
    try:
        from cupy.cuda import nccl
        nccl.get_version()
    except Exception:   # no CuPy, no NCCL library: the Dask transport serves
        return False
    return True


def unique_id() -> tuple:
    """The communicator's id, made on rank 0's worker."""
    from cupy.cuda import nccl
    return nccl.get_unique_id()


def join(uid: tuple, rank: int, size: int):
    """This worker's rank of the communicator ``uid`` (blocks until all ``size`` ranks joined)."""
    from cupy.cuda import nccl
    return nccl.NcclCommunicator(size, uid, rank)


def _dtype(dtype) -> int:
    from cupy.cuda import nccl
    return {np.dtype(np.int8): nccl.NCCL_INT8, np.dtype(np.uint8): nccl.NCCL_UINT8,
            np.dtype(np.int32): nccl.NCCL_INT32, np.dtype(np.uint32): nccl.NCCL_UINT32,
            np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.uint64): nccl.NCCL_UINT64,
            np.dtype(np.float32): nccl.NCCL_FLOAT32, np.dtype(np.float64): nccl.NCCL_FLOAT64,
            np.dtype(np.bool_): nccl.NCCL_UINT8}[np.dtype(dtype)]


def _op(op: str) -> int:
    from cupy.cuda import nccl
    return {"sum": nccl.NCCL_SUM, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX}[op]


class NcclComm(Communicator):
    """One rank of an NCCL communicator (see the module doc)."""

    capturable = True

    def __init__(self, nccl_comm, rank: int, size: int):
        import cupy
        super().__init__(rank, size)
        self.xp = cupy
        self._comm = nccl_comm
        self._events = []          # (start, end) of each round not yet read
        self._elapsed = []         # seconds of each round read so far
        self._grouped = 0          # depth of group(): the calls inside bracket nothing
        self._untimed = 0          # depth of capturing(): rounds counted, not bracketed
        self._cancelled = False
        self._aborted = False
        self._peers = False        # not opened yet (``peers``)

    @property
    def _stream(self) -> int:
        return self.xp.cuda.get_current_stream().ptr

    def _bracket(self):
        if self._grouped:
            return None
        if self._untimed:
            return UNTIMED
        start = self.xp.cuda.Event()
        start.record()
        return start

    def _close_bracket(self, start) -> None:
        if start is None:
            return
        if start is UNTIMED:
            self._events.append(None)
        else:
            end = self.xp.cuda.Event()
            end.record()
            self._events.append((start, end))
        self.rounds += 1

    def _read_events(self) -> None:
        self._elapsed += [math.nan if ev is None else self.xp.cuda.get_elapsed_time(*ev) / 1e3 for ev in self._events]
        self._events = []

    @contextmanager
    def capturing(self):
        """Collectives queued inside are captured into a CUDA graph, not run: what they would add
        to the ledger goes into the yielded dict (``rounds``, ``received``) for each replay to add
        (``replayed``), and the ledger is left as it was."""
        mark = (self.rounds, self.received, len(self._events))
        counts = {}
        self._untimed += 1
        try:
            yield counts
        finally:
            self._untimed -= 1
            counts.update(rounds=self.rounds - mark[0], received=self.received - mark[1])
            self.rounds, self.received = mark[:2]
            del self._events[mark[2]:]

    def replayed(self, rounds: int, received: int) -> None:
        """A captured graph's collectives ran (launched): counted in the ledger, their time unknown."""
        self._events += [None] * rounds
        self.rounds += rounds
        self.received += received

    def seconds_between(self, first: int, last: int) -> float:
        self._read_events()
        return sum(self._elapsed[first:last])

    @contextmanager
    def group(self):
        from cupy.cuda import nccl
        self._check()
        start = self._bracket()
        self._grouped += 1
        nccl.groupStart()
        try:
            yield
        finally:
            nccl.groupEnd()
            self._grouped -= 1
        self._close_bracket(start)

    def _check(self) -> None:
        if self._cancelled or self._aborted:
            raise CommError("the run was cancelled (a peer failed); this communicator is aborted")

    def allreduce(self, x, op: str = "sum"):
        self._check()
        x = x if x.flags.c_contiguous else x.copy()
        out = self.xp.empty_like(x)
        start = self._bracket()
        self._comm.allReduce(x.data.ptr, out.data.ptr, x.size, _dtype(x.dtype), _op(op), self._stream)
        self._close_bracket(start)
        self.received += 2 * (self.size - 1) * x.nbytes // self.size     # a ring's share
        return out

    def allgatherv(self, out, bounds) -> None:
        from cupy.cuda import nccl
        self._check()
        item, dtype, stream = out.itemsize, _dtype(out.dtype), self._stream
        lo, hi = int(bounds[self.rank]), int(bounds[self.rank + 1])
        start = self._bracket()
        nccl.groupStart()
        for j in range(self.size):
            a, b = int(bounds[j]), int(bounds[j + 1])
            if j == self.rank:
                continue
            if hi > lo:
                self._comm.send(out.data.ptr + lo * item, hi - lo, dtype, j, stream)
            if b > a:
                self._comm.recv(out.data.ptr + a * item, b - a, dtype, j, stream)
                self.received += (b - a) * item
        nccl.groupEnd()
        self._close_bracket(start)

    def alltoallv(self, pieces: list) -> list:
        sizes = self.xp.asarray(np.array([int(p.shape[0]) for p in pieces], dtype=np.int64))
        return self._alltoallv(pieces, self._counts(sizes)[:, self.rank])

    def alltoallv_into(self, pieces: list, outs: list) -> None:
        from cupy.cuda import nccl
        self._check()
        stream = self._stream
        start = self._bracket()
        nccl.groupStart()
        for j in range(self.size):
            if j == self.rank:
                continue
            if pieces[j].size:
                self._comm.send(pieces[j].data.ptr, pieces[j].size, _dtype(pieces[j].dtype), j, stream)
            if outs[j].size:
                self._comm.recv(outs[j].data.ptr, outs[j].size, _dtype(outs[j].dtype), j, stream)
                self.received += outs[j].nbytes
        nccl.groupEnd()
        self._close_bracket(start)

    def _counts(self, sizes) -> np.ndarray:
        """table[i, j]: what rank i sends rank j, from every rank's ``sizes`` (an all-gather, read here)."""
        self._check()
        k = self.size
        table = self.xp.empty(k * k, dtype=np.int64)
        start = self._bracket()
        self._comm.allGather(sizes.data.ptr, table.data.ptr, k, _dtype(np.int64), self._stream)
        self._close_bracket(start)
        return self.host(table).reshape(k, k)

    def _alltoallv(self, pieces: list, incoming) -> list:
        from cupy.cuda import nccl
        xp, k = self.xp, self.size
        dtype = pieces[0].dtype
        out = [pieces[j] if j == self.rank else xp.empty((int(incoming[j]), *pieces[j].shape[1:]), dtype=dtype)
               for j in range(k)]
        start = self._bracket()
        nccl.groupStart()
        for j in range(k):
            if j == self.rank:
                continue
            send = xp.ascontiguousarray(pieces[j])
            if send.size:
                self._comm.send(send.data.ptr, send.size, _dtype(dtype), j, self._stream)
            if out[j].size:
                self._comm.recv(out[j].data.ptr, out[j].size, _dtype(dtype), j, self._stream)
                self.received += out[j].nbytes
        nccl.groupEnd()
        self._close_bracket(start)
        return out

    def barrier(self) -> None:
        self.host(self.allreduce(self.xp.zeros(1, dtype=np.int64)))

    def _wait(self, done) -> None:
        """Poll the event ``host`` recorded, so a cancelled run or a peer that never comes ends the
        wait (the communicator aborted) instead of hanging in a synchronisation."""
        t0, spins = time.perf_counter(), 0
        while not done.done:
            spins += 1
            if spins % POLL_SPINS == 0:
                waited = time.perf_counter() - t0
                if self._cancelled:
                    self.abort()
                    raise CommError("the run was cancelled while this rank waited (a peer failed)")
                if waited > WAIT_S:
                    self.abort()
                    raise CommError(f"a collective waited {WAIT_S:.0f} s for its peers; communicator aborted")
                if waited > SPIN_S:
                    time.sleep(1e-4)

    def align(self) -> None:
        self._check()
        word = self.xp.zeros(1, dtype=np.int64)
        self._comm.allReduce(word.data.ptr, word.data.ptr, 1, _dtype(word.dtype), _op("sum"), self._stream)

    def peers(self):
        """Peer memory (``peer.PeerMemory``) where every rank maps the others' (one host), else None;
        opened by the first call, which every rank makes at the same point of a run."""
        if self._peers is False:
            from .peer import PeerMemory
            self._peers = PeerMemory.open(self)
        return self._peers

    def cancel(self) -> None:
        """Called from another thread (the driver's cancel): the waiting rank aborts, and a peer
        barrier spinning on the device ends.  The device's abort word first: the waiting rank
        aborts NCCL, whose call may hold the GIL until the device is idle."""
        if self._peers:
            self._peers.cancel()
        self._cancelled = True

    def abort(self) -> None:
        if not self._aborted:
            self._aborted = True
            self._comm.abort()

    def close(self) -> None:
        if self._peers:
            self._peers.close()
            self._peers = None
        if not self._aborted:
            self._comm.destroy()
            self._aborted = True
