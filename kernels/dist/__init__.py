"""One graph over K workers: the layer every partitioned kernel (``cc``/``bfs``/``pagerank.distributed``)
stands on.

- ``slices``  — a graph's 1-D, edge-balanced slices of CSR rows, built by the workers themselves;
- ``driver``  — the workers, the partition (slices + communicator) and runs on it; failures;
- ``spmd``    — the worker side of a run: one task per worker (a ``Rank``), timed from a barrier;
- ``ledger``  — a run's records as the harness's rows (work, time in collectives, bytes, rounds);
- ``verify``  — a run's output verified where it lies (each rank its slice's rows; ``Kernel.check``);
- ``plugin``  — what each worker holds (slices, communicators, outputs), a Dask ``WorkerPlugin``;
- ``comm``    — the communicator's protocol and its transports: NCCL (``comm.nccl``) between workers
  that each own a GPU, Dask's comms (``comm.dask_tcp``) otherwise.

A partitioned kernel declares ``PARAMS`` (partitions, scheduler, comms), runs ``slice_graph`` as
its setup, its work as ``Ledger(part, timer).run(fn, ...)`` with ``fn(rank, ...)`` on every rank,
keeps its output on the workers (``Rank.keep``) and collects it after timing (``Kernel.collect``).
"""

from .driver import PARAMS, Partition, PartitionError, driving, partitioned, reserving, slice_graph  # noqa: F401
from .ledger import Ledger  # noqa: F401


class Remote:
    """A partitioned run's output while it stays on the workers: what ``collect`` gathers."""

    def __init__(self, part: Partition, names: tuple, backend: str):
        self.part, self.names, self.backend = part, names, backend


def collect(output: Remote) -> dict:
    """The output's pieces joined in slice order, where the run's output lives (CuPy for a GPU
    run, NumPy for a CPU run): a partitioned kernel's ``Kernel.collect``."""
    pieces = output.part.collect(output.names)
    if output.backend == "gpu":
        import cupy
        return {k: cupy.asarray(v) for k, v in pieces.items()}
    return pieces
