"""Where the tasks a ``submit`` launched are now, asked of the scheduler that took them.

``submit`` records each task's Dask key and the scheduler's address (``store.record_submission``).
A task without a result file is then ``running`` (executing on a worker now), ``queued`` (waiting
for a worker, its inputs, or its turn on the worker the scheduler gave it to), ``lost`` (launched,
but no result came and its scheduler no longer knows it, gave up on it, or does not answer — a
scheduler that died took its tasks with it: run the sweep again with --resume) or ``not submitted``
(pending in a run, or never sent).

The scheduler calls a task ``processing`` as soon as it hands it to a worker, where it may wait
behind others (a kernel task holds the worker's one GPU or HOST resource), so the workers are asked
which of their tasks execute.
"""

from distributed import Client

from . import store
from .cluster import closing

RUNNING, QUEUED = {"processing"}, {"released", "waiting", "queued", "no-worker"}
STATES = ("running", "queued", "lost", "not submitted")


def _executing(dask_worker) -> list:
    """The keys this worker executes now (run on every worker)."""
    state = dask_worker.state
    return [ts.key for ts in (*state.executing, *state.long_running)]


def _scheduler_states(keys: list, dask_scheduler=None) -> dict:
    """key -> the scheduler's state of it, None for a key it does not know (run on the scheduler)."""
    return {key: ts.state if (ts := dask_scheduler.tasks.get(key)) is not None else None for key in keys}


def task_states(client, keys: list) -> dict:
    """key -> the scheduler's state of it (None: unknown), through distributed's public API."""
    return client.run_on_scheduler(_scheduler_states, keys=list(keys))


def _ask(client, keys: list) -> dict:
    states = task_states(client, keys)
    executing = {key for keys in client.run(_executing).values() for key in keys}
    return {key: "executing" if state in RUNNING and key in executing else state for key, state in states.items()}


def scheduler_states(address: str, keys: list, *, client=None, timeout: float = 5.0) -> dict | None:
    """key -> the scheduler's state of it (``executing`` for a processing task a worker executes
    now; None when the scheduler does not know the key), or None when the scheduler cannot be
    reached.  ``client``: one already connected to ``address``."""
    if client is not None and client.scheduler.address == address:
        return _ask(client, keys)
    try:
        # A close that times out after the answer came is no silence (closing: a warning).
        with closing(Client(address, timeout=timeout, set_as_default=False), f"the client of {address}") as other:
            return _ask(other, keys)
    except OSError:  # refused, unreachable, timed out
        return None


def classify(results, pending: list, *, client=None, timeout: float = 5.0) -> tuple[dict, dict]:
    """(state (one of ``STATES``) -> the pending tasks in it, from the latest submission of each;
    task hash -> why it is lost), asking each scheduler for at most ``timeout`` seconds."""
    latest = {}
    for record in store.submissions(results):
        for task_hash, key in record["keys"].items():
            latest[task_hash] = (record["scheduler"], key)
    by_state = {state: [] for state in STATES}
    why_lost = {}
    by_scheduler = {}
    for task in pending:
        if task.hash in latest:
            by_scheduler.setdefault(latest[task.hash][0], []).append(task)
        else:
            by_state["not submitted"].append(task)
    for address, tasks in by_scheduler.items():
        states = scheduler_states(address, [latest[t.hash][1] for t in tasks], client=client, timeout=timeout)
        for task in tasks:
            state = None if states is None else states.get(latest[task.hash][1])
            if state == "executing":
                by_state["running"].append(task)
            elif state in RUNNING | QUEUED:
                by_state["queued"].append(task)
            elif store.task_file(results, task.hash).exists():  # it finished since the directory was read
                continue
            else:
                by_state["lost"].append(task)
                why_lost[task.hash] = (f"its scheduler {address} does not answer" if states is None else
                                       f"unknown to its scheduler ({state})" if state else "unknown to its scheduler")
    return by_state, why_lost
