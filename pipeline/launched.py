"""Where the tasks a ``submit`` launched are now, asked of the scheduler that took them.

``submit`` records each task's Dask key and the scheduler's address (``store.record_submission``).
A task without a result file is then ``running`` (processing on a worker), ``queued`` (waiting
for a worker or its inputs), ``lost`` (launched, but the scheduler no longer knows it or gave up
on it, and no result came: run the sweep again with --resume), ``unreachable`` (its scheduler
cannot be asked now) or ``not submitted`` (pending in a run, or never sent).
"""

from distributed import Client

from . import store

RUNNING, QUEUED = {"processing"}, {"released", "waiting", "queued", "no-worker"}
STATES = ("running", "queued", "lost", "unreachable", "not submitted")


def scheduler_states(address: str, keys: list, *, client=None, timeout: float = 5.0) -> dict | None:
    """key -> the scheduler's state of it (None when it does not know the key), or None when the
    scheduler cannot be reached.  ``client``: one already connected to ``address``."""
    if client is not None and client.scheduler.address == address:
        return client.sync(client.scheduler.get_task_status, keys=list(keys))
    try:
        with Client(address, timeout=timeout, set_as_default=False) as other:
            return other.sync(other.scheduler.get_task_status, keys=list(keys))
    except OSError:  # refused, unreachable, timed out
        return None


def classify(results, pending: list, *, client=None, timeout: float = 5.0) -> dict:
    """State (one of ``STATES``) -> the pending tasks in it, from the latest submission of each
    (``timeout``: seconds to wait for each scheduler)."""
    latest = {}
    for record in store.submissions(results):
        for task_hash, key in record["keys"].items():
            latest[task_hash] = (record["scheduler"], key)
    by_state = {state: [] for state in STATES}
    by_scheduler = {}
    for task in pending:
        if task.hash in latest:
            by_scheduler.setdefault(latest[task.hash][0], []).append(task)
        else:
            by_state["not submitted"].append(task)
    for address, tasks in by_scheduler.items():
        states = scheduler_states(address, [latest[t.hash][1] for t in tasks], client=client, timeout=timeout)
        for task in tasks:
            if states is None:
                by_state["unreachable"].append(task)
                continue
            state = states.get(latest[task.hash][1])
            if state in RUNNING:
                by_state["running"].append(task)
            elif state in QUEUED:
                by_state["queued"].append(task)
            elif store.task_file(results, task.hash).exists():  # it finished since the directory was read
                continue
            else:
                by_state["lost"].append(task)
    return by_state
