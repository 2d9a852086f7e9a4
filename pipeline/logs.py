"""A run's log file: where graphsweep's records and Dask's warnings go while a sweep runs.

stderr carries one line per event (a failed task, the interruption); the detail — worker
tracebacks, lost and restarted workers, retried tasks, Dask's own warnings — goes to
``RESULTS/logs/RUN_ID.log``: from this process through ``RunLog``, and from every worker process
through the ``WorkerLog`` plugin (the results folder is shared with the workers, who write their
results there too).  Without it a worker's failed-task traceback would reach the user's terminal
through Python's last-resort handler.
"""

import logging
import os
from logging.handlers import MemoryHandler

from distributed.diagnostics.plugin import WorkerPlugin

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


class WorkerLog(WorkerPlugin):
    """On each worker: graphsweep's and Dask's records into the run's log file, not stderr.

    One instance per cluster at a time (a later run replaces it under the same name)."""

    name = "graphsweep-run-log"

    def __init__(self, path: str):
        self.path = path
        self.handler = None

    def setup(self, worker):
        if any(getattr(h, "baseFilename", None) == os.path.abspath(self.path)
               for h in logging.getLogger(GRAPHSWEEP).handlers):
            return  # a worker in the run's own process, which logs there already
        self.handler = attach(self.path)
        logging.getLogger(GRAPHSWEEP).propagate = False  # no last-resort copy on the worker's stderr

    def teardown(self, worker):
        if self.handler is not None:
            detach(self.handler)
            logging.getLogger(GRAPHSWEEP).propagate = True
