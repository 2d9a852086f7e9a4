"""Worker-to-worker exchange for partitioned kernels that run as one task per worker (SPMD).

A kernel whose rounds are many (a BFS level each) cannot afford a scheduler round trip per round:
through Dask's scheduler a round costs several milliseconds (a task per worker, its inputs fetched
from the others, a result to the driver).  Here each worker's task runs the whole loop and sends
its pieces straight to the other workers over Dask's own comms (the worker's connection pool:
TCP, or UCX where the cluster was started with it), into a mailbox on the receiving worker (a
handler registered on the worker's server); a round costs one message hop.

    peers = Peers(run, index, addresses)   # inside the task on worker ``index``
    got = peers.exchange(tag, {j: piece_for_j for every other j})   # {j: piece from j}
    total = peers.allreduce(tag, np.array([count, edges]))           # the sum over all workers

Pieces are any objects Dask serialises (NumPy arrays go as out-of-band buffers).  A wait for a
piece that does not come (a worker lost, or the driver cancelling the run after a failure) ends
in a ``PartitionError``, never a hang: the driver cancels a failed run on the workers still alive
(``cancel``), and no wait lasts longer than ``WAIT_S``.
"""

import threading
import time

import numpy as np
from graphsweep.datasets.errors import GraphsweepError

HANDLER = "graphsweep_exchange"
WAIT_S = 600.0            # the longest a worker waits for one round's pieces
POLL_S = 0.5

_BOX: dict = {}           # (run, tag, receiver) -> {sender: piece} (workers of one process share it)
_CANCELLED: set = set()   # runs the driver cancelled
_COND = threading.Condition()


class ExchangeError(GraphsweepError):
    """A round's pieces did not come: the run was cancelled or a peer is gone."""
    exit_code = 1


def _deliver(run=None, tag=None, sender=None, receiver=None, piece=None):
    """The handler: keep ``piece`` until the task of ``run`` here asks for round ``tag``."""
    with _COND:
        if run not in _CANCELLED:
            _BOX.setdefault((run, tag, receiver), {})[sender] = piece
            _COND.notify_all()


def listen(dask_worker) -> None:
    """Give the worker the mailbox's handler; a slice's build calls it, before any peer may send
    there (a piece sent to a worker without it is lost).  Named for ``Client.run``."""
    dask_worker.handlers.setdefault(HANDLER, _deliver)


def cancel(run) -> None:
    """Make every wait of ``run`` on this worker end (the driver calls it on a failed run)."""
    with _COND:
        _CANCELLED.add(run)
        for key in [k for k in _BOX if k[0] == run]:
            del _BOX[key]
        _COND.notify_all()


class Peers:
    """The workers of one run, seen from the task on worker ``index`` (see the module doc)."""

    def __init__(self, run: str, index: int, addresses: list):
        from distributed import get_worker, secede
        # The task leaves its worker's thread pool for good (its thread ends with it): it waits for
        # its peers, and a peer task of another run queued behind it on a worker of one thread
        # would otherwise never start, each run waiting the other out for WAIT_S.
        secede()
        self.run, self.index, self.addresses = run, index, list(addresses)
        self.k = len(self.addresses)
        self.worker = get_worker()
        listen(self.worker)
        self.received = 0          # bytes received from other workers, all rounds
        self.rounds = 0
        self.waited = 0.0          # seconds blocked waiting for pieces

    def exchange(self, tag, pieces: dict) -> dict:
        """Send ``pieces[j]`` to worker j (every j but this one) and return {j: what j sent here}."""
        from distributed.protocol import to_serialize
        from distributed.utils import sync
        if self.k == 1:
            return {}

        async def send_all():
            import asyncio
            await asyncio.gather(*(getattr(self.worker.rpc(self.addresses[j]), HANDLER)(
                run=self.run, tag=tag, sender=self.index, receiver=j, piece=to_serialize(piece))
                for j, piece in pieces.items() if j != self.index))

        sync(self.worker.loop, send_all)
        got = self._wait(tag, self.k - 1)
        self.rounds += 1
        self.received += sum(nbytes(p) for p in got.values())
        return got

    def allgather(self, tag, piece) -> dict:
        """{j: piece of worker j} for every worker, this one's included."""
        got = self.exchange(tag, {j: piece for j in range(self.k) if j != self.index})
        got[self.index] = piece
        return got

    def allreduce(self, tag, values: np.ndarray) -> np.ndarray:
        """The element-wise sum of ``values`` over the workers."""
        return np.sum([np.asarray(v) for v in self.allgather(tag, np.asarray(values)).values()], axis=0)

    def _wait(self, tag, count: int) -> dict:
        t0 = time.perf_counter()
        key = (self.run, tag, self.index)
        with _COND:
            while len(_BOX.get(key, ())) < count:
                if self.run in _CANCELLED:
                    raise ExchangeError(f"run {self.run} was cancelled while waiting for round {tag!r}")
                if time.perf_counter() - t0 > WAIT_S:
                    raise ExchangeError(f"round {tag!r}: {count - len(_BOX.get(key, ()))} of {count} pieces did "
                                        f"not come in {WAIT_S:.0f} s")
                _COND.wait(POLL_S)
            got = _BOX.pop(key)
        self.waited += time.perf_counter() - t0
        return got


def nbytes(value) -> int:
    """Bytes of the arrays in ``value`` (an array, or a dict / list / tuple of them)."""
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value)
    return int(getattr(value, "nbytes", 0))
