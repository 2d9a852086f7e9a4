"""What a worker holds for partitioned runs, for as long as the worker lives: a Dask
``WorkerPlugin`` (one instance per worker, no module globals shared by workers of one process).

- ``slices``: partition key -> ``slices.Slice`` (the worker's rows of a graph, on its device);
- ``comms``: partition key -> its rank of the partition's communicator (``comm``);
- ``outputs``: partition key -> the last run's output on this slice (what ``driver.collect``
  gathers after timing: the answer stays where it was computed while runs are timed);
- ``mailbox``: the Dask transport's pieces (its handler is installed at setup, before any peer
  can send here);
- ``threads``: partition key -> the thread its ranks run on here (``spmd.run``), kept for the
  partition's life: a rank on a fresh thread paid ~0.5 ms of first-call costs (CUDA and CuPy
  per-thread state, the staging buffer of host reads) in every run — a Dask task runs on a new
  thread once it leaves the pool.  One per partition, so runs of two partitions never queue behind
  each other.

Teardown (the worker closing, or the plugin removed) destroys the communicators.
"""

from concurrent.futures import ThreadPoolExecutor

from distributed import WorkerPlugin, get_worker

from .comm import dask_tcp

NAME = "graphsweep-slices"


class SliceStore(WorkerPlugin):
    name = NAME

    def setup(self, worker):
        self.slices: dict = {}
        self.comms: dict = {}
        self.outputs: dict = {}
        self.threads: dict = {}
        self.mailbox = dask_tcp.Mailbox()
        worker.handlers[dask_tcp.HANDLER] = self.mailbox.deliver

    def teardown(self, worker):
        for key in set(self.comms) | set(self.threads):
            self.drop(key)

    def drop(self, key) -> None:
        """Forget partition ``key`` here: its slice, its output, its communicator (destroyed)."""
        self.slices.pop(key, None)
        self.outputs.pop(key, None)
        thread = self.threads.pop(key, None)
        if thread is not None:
            thread.shutdown(wait=False)
        comm = self.comms.pop(key, None)
        if comm is not None:
            comm.close()

    def thread(self, key) -> ThreadPoolExecutor:
        """The thread partition ``key``'s ranks run on here."""
        if key not in self.threads:
            self.threads[key] = ThreadPoolExecutor(1, thread_name_prefix=f"graphsweep-rank-{key[-8:]}")
        return self.threads[key]

    def cancel(self, key) -> None:
        """End every wait of partition ``key``'s communicator here (a peer failed)."""
        self.mailbox.cancel(key)
        comm = self.comms.get(key)
        if comm is not None and hasattr(comm, "cancel"):
            comm.cancel()


def here() -> SliceStore:
    """This worker's store (inside a task)."""
    return get_worker().plugins[NAME]


def installed(dask_worker) -> bool:
    """Whether the worker has the store (named for ``Client.run``)."""
    return NAME in dask_worker.plugins


def cancel(key, dask_worker) -> None:
    """``SliceStore.cancel`` on a worker (named for ``Client.run``, which runs it on the worker's
    event loop while the task that waits holds a thread)."""
    if NAME in dask_worker.plugins:
        dask_worker.plugins[NAME].cancel(key)


def ensure(client) -> None:
    """Install the store on the cluster's workers unless they have it (installing it again would
    replace every worker's store, dropping the slices they hold).  Workers that join later get it
    from the scheduler."""
    if not all(client.run(installed).values()):
        client.register_plugin(SliceStore(), name=NAME)
