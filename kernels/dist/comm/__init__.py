"""The communicator of a partitioned run: one protocol, two transports.

A partitioned kernel runs SPMD: one task per worker, each holding one rank of a communicator;
every rank makes the same calls in the same order.

    comm.allreduce(x, op)          element-wise "sum", "min" or "max" of x over the ranks
    comm.allgatherv(out, bounds)   rank r's out[bounds[r]:bounds[r + 1]] copied into every rank's out
    comm.alltoallv(pieces)         pieces[j] sent to rank j; returns what each rank sent here
    comm.alltoallv_into(pieces, outs)
                                   pieces[j] sent to rank j into its outs[this rank]: sizes agreed
                                   beforehand, so nothing is read on the host (outs[own] untouched)
    with comm.group(): ...         the collectives inside as one (NCCL: one launch; one round)
    comm.barrier()
    comm.host(x)                   x on the host, waited for as the transport waits (cancellable):
                                   in a run, every device-to-host read goes through it
    comm.wait(event)               the same wait for an event recorded after an asynchronous copy
    comm.abort()                   ends every wait of this communicator, here and for good

Arrays are the rank's own (CuPy on a GPU worker, NumPy on a CPU worker), one dtype per call.
The ledger: ``received`` (bytes that reached this rank from others), ``rounds`` (collective
calls) and ``seconds_between(a, b)`` (the time inside rounds a..b-1, waiting for the slowest peer
included, once they are done: a run's or a step's share; NaN where a round ran untimed inside a
CUDA graph).

Transports:
- ``nccl`` (``nccl.NcclComm``): NCCL through ``cupy.cuda.nccl``, device buffers only, for
  workers that each own a distinct GPU; bootstrapped through Dask (``driver``: a unique id made
  on rank 0's worker, sent to the K workers, which create the communicator together).
- ``dask`` (``dask_tcp.DaskComm``): Dask's own comms between workers into a mailbox, through
  host memory; for CPU workers and for several workers sharing one GPU (NCCL refuses two ranks on
  one device), and what CI tests every kernel's distributed logic through.
- ``SoloComm``: K = 1, every collective the identity.

No wait lasts longer than ``WAIT_S``; a cancelled run's waits end at once (``CommError``).
"""

import threading
from contextlib import nullcontext

import numpy as np
from graphsweep.core.errors import GraphsweepError

TRANSPORTS = ("auto", "nccl", "dask")
WAIT_S = 50.0     # the longest one collective waits for its peers: a lost worker fails a run within a minute


class CommError(GraphsweepError):
    """A collective did not complete: the run was cancelled, a peer is gone or the wait timed out."""
    exit_code = 1


class Communicator:
    """What every transport shares: rank, size, the ledger and the derived collectives."""

    capturable = False    # its collectives can be captured into a CUDA graph (``capturing``, ``replayed``)

    def __init__(self, rank: int, size: int):
        self.rank, self.size = rank, size
        self.received = 0
        self.rounds = 0

    def seconds_between(self, first: int, last: int) -> float:
        """Seconds inside rounds ``first`` .. ``last`` - 1 (``rounds`` before and after a step),
        read once they are done."""
        return 0.0

    def align(self) -> None:
        """Queue a meeting of the ranks on the device (nothing on the host waits for it), so that
        work queued after it starts on every rank at once; a transport without device queues has
        none (its barrier is the meeting).  Outside the ledger."""

    def peers(self):
        """The ranks' peer memory (``peer.PeerMemory``: stores straight into other GPUs' buffers),
        opened on first call — collectively — where the transport has one; else None."""
        return None

    def group(self):
        """The collectives made inside as one; here, one after the other."""
        return nullcontext()

    def wait(self, done) -> None:
        """Wait for the event ``done`` as ``host`` waits (cancellable)."""
        self._wait(done)

    def host(self, x) -> np.ndarray:
        """``x`` on the host: a device array copied into pinned memory behind the stream's work,
        then waited for (``_wait``); a NumPy array as it is."""
        if isinstance(x, np.ndarray):
            return x
        out = _staging(x.nbytes)[:x.nbytes].view(x.dtype).reshape(x.shape)
        (x if x.flags.c_contiguous else x.copy()).get(out=out, blocking=False)
        done = self.xp.cuda.Event(disable_timing=True)
        done.record()
        self._wait(done)
        return out.copy()

    def _wait(self, done) -> None:
        done.synchronize()

    def abort(self) -> None:
        pass

    def close(self) -> None:
        pass

    def allreduce_host(self, values, op: str = "sum") -> np.ndarray:
        """``allreduce`` of a few host numbers, the answer on the host: the counts every rank
        takes the same next step from."""
        return self.host(self.allreduce(self.xp.asarray(np.asarray(values)), op))


class SoloComm(Communicator):
    """One rank: nothing to exchange."""

    def __init__(self, xp):
        super().__init__(0, 1)
        self.xp = xp

    def allreduce(self, x, op: str = "sum"):
        return x

    def allgatherv(self, out, bounds) -> None:
        pass

    def alltoallv(self, pieces: list) -> list:
        return list(pieces)

    def alltoallv_into(self, pieces: list, outs: list) -> None:
        pass

    def barrier(self) -> None:
        pass


_STAGING = threading.local()


def _staging(nbytes: int) -> np.ndarray:
    """A pinned host buffer of at least ``nbytes``, the calling thread's (grown as asked, freed with
    the thread): the target of ``host``'s asynchronous copies."""
    import cupyx
    buf = getattr(_STAGING, "buf", None)
    if buf is None or buf.nbytes < nbytes:
        buf = _STAGING.buf = cupyx.empty_pinned(max(-(-nbytes // 64) * 64, 4096), dtype=np.uint8)
    return buf


def reduce_op(xp, op: str):
    """The array function of ``op`` over a stacked axis."""
    return {"sum": xp.sum, "min": xp.min, "max": xp.max}[op]
