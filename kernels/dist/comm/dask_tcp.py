"""The Dask transport: pieces go straight from worker to worker over Dask's own comms (the
worker's connection pool: TCP, or UCX where the cluster was started with it) into a mailbox on
the receiving worker, through host memory.  A round costs one message hop, no scheduler.

For CPU workers, and for several workers sharing one GPU (NCCL refuses two ranks on one
device); CI tests every kernel's distributed logic through it.  Device arrays are copied to the
host to be sent and back to the device when they arrive.

The mailbox is the worker's (``plugin.SliceStore`` installs ``Mailbox.deliver`` as a handler when
the worker starts, so no piece can arrive before it).  Every collective is a round tagged by its
sequence number on the channel: ranks make the same calls in the same order, so tags agree.  A
wait ends in ``CommError`` when the channel is cancelled (the driver does so on a failed run) or
after ``WAIT_S``, never in a hang.
"""

import threading
import time

import numpy as np

from . import WAIT_S, CommError, Communicator, reduce_op

HANDLER = "graphsweep_mailbox"
POLL_S = 0.5


class Mailbox:
    """Pieces that reached this worker, by (channel, tag), until the rank of that channel here
    asks for them; channels the driver cancelled."""

    def __init__(self):
        self.box: dict = {}
        self.cancelled: set = set()
        self.cond = threading.Condition()

    def deliver(self, channel=None, tag=None, sender=None, piece=None):
        """The worker's handler for a piece from ``sender``."""
        with self.cond:
            if channel not in self.cancelled:
                self.box.setdefault((channel, tag), {})[sender] = piece
                self.cond.notify_all()

    def cancel(self, channel) -> None:
        with self.cond:
            self.cancelled.add(channel)
            for key in [k for k in self.box if k[0] == channel]:
                del self.box[key]
            self.cond.notify_all()

    def take(self, channel, tag, count: int, timeout: float = WAIT_S) -> dict:
        """The ``count`` pieces of round ``tag``, waiting for them."""
        t0 = time.perf_counter()
        key = (channel, tag)
        with self.cond:
            while len(self.box.get(key, ())) < count:
                if channel in self.cancelled:
                    raise CommError(f"the run was cancelled while waiting for round {tag} (a peer failed)")
                if time.perf_counter() - t0 > timeout:
                    raise CommError(f"round {tag}: {count - len(self.box.get(key, ()))} of {count} pieces did "
                                    f"not come in {timeout:.0f} s")
                self.cond.wait(POLL_S)
            return self.box.pop(key)


class DaskComm(Communicator):
    """One rank of a channel over Dask comms (see the module doc)."""

    def __init__(self, channel: str, rank: int, addresses: list, worker, mailbox: Mailbox, xp):
        super().__init__(rank, len(addresses))
        self.channel, self.addresses, self.worker, self.mailbox, self.xp = channel, list(addresses), worker, mailbox, xp
        self._seq = 0
        self._waits: list = []      # each round's seconds

    def seconds_between(self, first: int, last: int) -> float:
        return sum(self._waits[first:last])

    def _exchange(self, pieces: dict) -> dict:
        """Send ``pieces[j]`` (host objects) to rank j, every j but this one; {j: what j sent here}."""
        from distributed.protocol import to_serialize
        from distributed.utils import sync
        tag, self._seq = self._seq, self._seq + 1
        t0 = time.perf_counter()

        async def send_all():
            import asyncio
            await asyncio.gather(*(getattr(self.worker.rpc(self.addresses[j]), HANDLER)(
                channel=self.channel, tag=tag, sender=self.rank, piece=to_serialize(piece))
                for j, piece in pieces.items() if j != self.rank))

        sync(self.worker.loop, send_all)
        got = self.mailbox.take(self.channel, tag, self.size - 1)
        self._waits.append(time.perf_counter() - t0)
        self.rounds += 1
        self.received += sum(int(getattr(p, "nbytes", 0)) for p in got.values())
        return got

    def allreduce(self, x, op: str = "sum"):
        mine = self.host(x)
        got = self._exchange({j: mine for j in range(self.size)})
        got[self.rank] = mine
        return self.xp.asarray(reduce_op(np, op)(np.stack([got[j] for j in range(self.size)]), axis=0))

    def allgatherv(self, out, bounds) -> None:
        lo, hi = int(bounds[self.rank]), int(bounds[self.rank + 1])
        mine = self.host(out[lo:hi])
        for j, piece in self._exchange({j: mine for j in range(self.size)}).items():
            out[int(bounds[j]):int(bounds[j + 1])] = self.xp.asarray(piece)

    def alltoallv(self, pieces: list) -> list:
        got = self._exchange({j: self.host(pieces[j]) for j in range(self.size) if j != self.rank})
        return [pieces[j] if j == self.rank else self.xp.asarray(got[j]) for j in range(self.size)]

    def alltoallv_into(self, pieces: list, outs: list) -> None:
        got = self._exchange({j: self.host(pieces[j]) for j in range(self.size) if j != self.rank})
        for j, piece in got.items():
            outs[j][...] = self.xp.asarray(piece)

    def barrier(self) -> None:
        self._exchange({j: np.zeros(0, dtype=np.uint8) for j in range(self.size)})

    def abort(self) -> None:
        self.mailbox.cancel(self.channel)
