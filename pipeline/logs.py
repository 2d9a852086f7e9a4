"""A run's log file: where graphsweep's records and Dask's warnings go while a sweep runs.

stderr carries one line per event (a failed task, the interruption); the detail — worker
tracebacks, lost and restarted workers, retried tasks, Dask's own warnings — goes to
``RESULTS/logs/RUN_ID.log``, written by this process alone: its own records through ``attach``,
and the workers' graphsweep records (a failed task's traceback, a sliced build's pieces) sent here
by Dask while the run lasts (``forwarded``: ``Client.forward_logging``), each handled as if it had
been logged here.  Without them a worker's failed-task traceback would reach the user's terminal
through Python's last-resort handler.
"""

import logging
import os
from contextlib import contextmanager, suppress
from logging.handlers import MemoryHandler

# graphsweep's records from INFO up; other libraries' (Dask's) from WARNING up.
GRAPHSWEEP, DASK = "graphsweep", ("distributed", "distributed.client")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def _wanted(record) -> bool:
    return record.name.startswith(GRAPHSWEEP) or record.levelno >= logging.WARNING


def _handler(path) -> logging.Handler:
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(_wanted)
    return handler


def attach(path=None) -> logging.Handler:
    """Send this process's graphsweep and Dask records to the file ``path`` (None: hold them in
    memory until ``open_file``); returns the handler for ``open_file`` and ``detach``."""
    if path is None:
        handler = MemoryHandler(capacity=100_000, flushLevel=logging.CRITICAL + 1)
        handler.addFilter(_wanted)
    else:
        handler = _handler(path)
    root = logging.getLogger(GRAPHSWEEP)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    for name in DASK:
        logging.getLogger(name).addHandler(handler)
    return handler


def open_file(held: logging.Handler, path) -> logging.Handler:
    """Replace the memory handler ``held`` by the file ``path``, writing what it held first."""
    handler = attach(path)
    held.setTarget(handler)
    held.flush()
    detach(held)
    return handler


def detach(handler: logging.Handler) -> None:
    for name in (GRAPHSWEEP, *DASK):
        logging.getLogger(name).removeHandler(handler)
    handler.close()


@contextmanager
def forwarded(client):
    """While inside, every worker's graphsweep records (INFO up: ``WorkerState`` sets the level)
    are sent to this process and handled by its ``graphsweep`` loggers, the run's log among their
    handlers.  Workers in this process (``LocalCluster(processes=False)``) log there already."""
    if os.getpid() in client.run(os.getpid).values():
        yield
        return
    client.forward_logging(GRAPHSWEEP, level=logging.INFO)
    try:
        yield
    finally:
        with suppress(OSError):  # after an interrupt the cluster may be gone already
            client.unforward_logging(GRAPHSWEEP)
