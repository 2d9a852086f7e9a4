"""Sending a plan's tasks to a Dask cluster: ``execute`` (wait, with a progress bar) and ``submit``.

Datasets to generate become one task each (which fans out into one task per part); every kernel
task waits for all of them, so no generation shares a GPU with a timed kernel.  Kernel tasks hold
``GPU=1`` on a GPU cluster (one kernel at a time per GPU), carry readable keys and a Dask span per
sweep and kernel, and are prioritised dataset by dataset (largest first once sizes are known),
which keeps a dataset's tasks together and the GPUs busy to the end.
Tasks store their own results, so ``submit`` can hand them to the cluster with fire_and_forget
and return.
"""

import logging
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import click
from distributed import as_completed, fire_and_forget, span

from graphsweep.datasets import gpu
from graphsweep.datasets.errors import GraphsweepError
from graphsweep.datasets.format import read_manifest

from . import cluster, config, store, worker
from . import report as reporter
from .sweep import Plan

log = logging.getLogger("graphsweep.run")


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def open_log(plan: Plan, run_id: str) -> logging.Handler:
    """Send graphsweep's log records of this run to RESULTS/logs/RUN_ID.log."""
    handler = logging.FileHandler(plan.results / store.LOGS / f"{run_id}.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("graphsweep")
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


def close_log(handler: logging.Handler) -> None:
    logging.getLogger("graphsweep").removeHandler(handler)
    handler.close()


def _cluster_has_gpu(client, backend: str) -> bool:
    """Whether kernel tasks run on GPUs: every worker sees one and the spec allows it."""
    timeout = config.get("cluster.worker-timeout")
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise GraphsweepError(f"no worker joined the cluster within {timeout}") from None
    has_gpu = all(client.run(gpu.available).values())
    if backend == "gpu" and not has_gpu:
        raise GraphsweepError("backend: gpu, but the cluster's workers have no usable CUDA device")
    if has_gpu and backend != "cpu":
        need = config.get("worker.gpu-resources")
        offered = [w.get("resources", {}) for w in client.scheduler_info(n_workers=-1)["workers"].values()]
        if not any(all(r.get(k, 0) >= v for k, v in need.items()) for r in offered):
            raise GraphsweepError(f"no worker offers the resources {need}: start GPU workers with "
                                  f"--resources {','.join(f'{k}={v}' for k, v in need.items())}")
        return True
    return False


def _dataset_rows(path: str) -> int:
    """n + m of the dataset at ``path`` (0 when it is not there)."""
    try:
        manifest = read_manifest(Path(path))
    except GraphsweepError:
        return 0
    return manifest["n"] + (manifest.get("m") or 0)


def _priorities(todo: list, wait: bool) -> dict:
    """Task key -> Dask priority (higher runs first).

    Tasks stay grouped by dataset, so a worker reuses what it has loaded.  When the datasets
    exist (``wait``), the largest go first: their long tasks start early and short ones fill the
    gaps at the end, which keeps several GPUs busy to the last task; otherwise, plan order.
    """
    if wait:
        rows = {t.dataset.id: t.dataset.path for t in todo}
        rows = {key: _dataset_rows(path) for key, path in rows.items()}
        todo = sorted(todo, key=lambda t: (-rows[t.dataset.id], t.index))
    return {t.key: len(todo) - i for i, t in enumerate(todo)}


def _sender(plan: Plan, client, run_id: str, todo: list, wait: bool):
    """Start the generation ``todo`` needs; return (its kernel tasks in sending order, send).

    With ``wait`` the generation finishes first (so kernel tasks can be ordered by dataset size);
    otherwise kernel tasks depend on the generation futures.  ``send(task)`` submits one task.
    """
    use_gpu = _cluster_has_gpu(client, plan.backend)
    resources = dict(config.get("worker.gpu-resources")) if use_gpu else None
    needed = {t.dataset.id for t in todo}
    generated = []
    with span(plan.name, "generate"):
        for ref in plan.datasets:
            if ref.generated and ref.id in needed:
                generated.append(client.submit(worker.generate_dataset, ref, plan.part_rows,
                                               "gpu" if use_gpu else "cpu", key=f"generate-{ref.id}",
                                               priority=len(plan.tasks) + 1, pure=False))
    if wait:
        generated = client.gather(generated)
    priority = _priorities(todo, wait)

    def send(task):
        with span(plan.name, task.kernel):
            return client.submit(worker.run_task, task, str(plan.results), run_id, plan.on_failure,
                                 generated, key=task.key, priority=priority[task.key],
                                 resources=resources, pure=False)

    return sorted(todo, key=lambda t: -priority[t.key]), send


def _pending(plan: Plan, client, run_id: str) -> list:
    done = store.finished(plan.results)
    todo = [t for t in plan.tasks if t.hash not in done]
    log.info("run %s of sweep %s: %d tasks, %d already finished, %d to run; dashboard %s",
             run_id, plan.name, len(plan.tasks), len(plan.tasks) - len(todo), len(todo),
             client.dashboard_link)
    return todo


def execute(plan: Plan, client, *, run_id: str, progress: bool = True, echo=click.echo) -> dict:
    """Run the plan's unfinished tasks (results directory claimed) and wait; returns outcome counts."""
    todo = _pending(plan, client, run_id)
    echo(f"dashboard: {client.dashboard_link}")
    if len(todo) < len(plan.tasks):
        echo(f"resuming: {len(plan.tasks) - len(todo)} of {len(plan.tasks)} tasks already finished")
    counts = {"ok": 0, "failed": 0, "stopped": 0}
    started = time.perf_counter()
    ordered, send = _sender(plan, client, run_id, todo, wait=True)
    queue = iter(ordered)
    by_key = {t.key: t for t in todo}

    def top_up(running):
        # The scheduler binds a task with resources to a worker as soon as it arrives, so sending
        # all at once would split the work by task count, not time: keep two per worker in flight.
        want = 2 * max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
        while running.count() < want and (task := next(queue, None)) is not None:
            running.add(send(task))

    running = as_completed()
    top_up(running)
    with click.progressbar(length=len(todo), label=plan.name, hidden=not progress, show_pos=True,
                           file=sys.stderr) as bar:
        for future in running:
            task = by_key[future.key]
            try:
                outcome = future.result()
            except Exception as exc:  # the task never ran to storing (e.g. it killed every worker)
                outcome = worker.store_rows(str(plan.results), task, [worker.error_row(
                    task, run_id, f"{type(exc).__name__}: {exc}")])
                if not outcome["stored"]:  # it had stored its own result after all
                    state, error = store.outcome(store.task_file(plan.results, task.hash))
                    outcome.update(status=state, error=error)
                if outcome["status"] == "failed" and plan.on_failure == "stop":
                    store.stop(plan.results, f"task {task.hash} ({task.label}) failed: {outcome['error']}")
            counts[outcome["status"]] += 1
            if outcome["status"] == "failed":
                log.warning("failed: %s: %s", task.label, outcome["error"])
            else:
                log.info("%s: %s", outcome["status"], task.label)
            bar.update(1)
            top_up(running)
    counts["seconds"] = time.perf_counter() - started
    log.info("run %s finished in %.1f s: %s", run_id, counts["seconds"], counts)
    return counts


def run_plan(plan: Plan, *, profile=None, cluster_file=None, resume: bool = False, progress: bool = True,
             report: bool = True, echo=click.echo) -> int:
    """Run a whole sweep: claim its results directory, run, reduce and report.

    Returns the exit code for batch use: 0 only when every task succeeded (and verified, unless
    the spec says ``verify: false``), else 1.
    """
    store.init(plan, resume=resume)
    run_id = new_run_id()
    handler = open_log(plan, run_id)
    try:
        with cluster.connect(profile, cluster_file) as client:
            execute(plan, client, run_id=run_id, progress=progress, echo=echo)
        state = store.status(plan.results)
        lines = [f"{len(plan.tasks)} tasks: {len(state['done'])} done, {len(state['failed'])} failed, "
                 f"{len(state['pending'])} pending{' (stopped after a failure)' if state['stopped'] else ''}"]
        lines += [f"  failed: {task.label}: {error}" for task, error in state["failed"].values()]
        if report and (state["done"] or state["failed"]):
            lines.append(f"report: {reporter.report(plan.results)}")
        lines.append(f"log: {handler.baseFilename}")
        for line in lines:
            log.info(line)
            echo(line)
        return 0 if not state["failed"] and not state["pending"] else 1
    finally:
        close_log(handler)


def submit_plan(plan: Plan, *, profile=None, cluster_file=None, resume: bool = False, echo=click.echo) -> int:
    """Send a sweep to a long-lived cluster and return at once; the tasks store their own results."""
    name, chosen = cluster.resolve(profile, cluster_file)
    if not cluster.is_long_lived(chosen):
        raise GraphsweepError(f"--cluster {name}: submit needs a cluster that outlives this command "
                              "(a scheduler-file or address profile); use `graphsweep run` for this one")
    store.init(plan, resume=resume)
    run_id = new_run_id()
    handler = open_log(plan, run_id)
    try:
        with cluster.connect(profile, cluster_file) as client:
            echo(f"dashboard: {client.dashboard_link}")
            sent = submit(plan, client, run_id=run_id)
        echo(f"submitted {sent} tasks of sweep {plan.name}; watch with: graphsweep status {plan.results}")
        return 0
    finally:
        close_log(handler)


def submit(plan: Plan, client, *, run_id: str) -> int:
    """Hand the plan's unfinished tasks to the cluster and return how many were sent."""
    todo = _pending(plan, client, run_id)
    ordered, send = _sender(plan, client, run_id, todo, wait=False)
    futures = [send(task) for task in ordered]
    fire_and_forget(futures)
    log.info("submitted %d tasks (fire and forget)", len(futures))
    return len(futures)
