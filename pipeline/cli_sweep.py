"""``graphsweep run | submit | status | reduce | report``: the sweep commands.

Each validates its arguments, builds the plan and hands off to runner, store, reduce or report.
Exit codes for batch use: ``run`` 0 only when every task succeeded and verified, 1 otherwise;
``status`` 0 when all done, 1 when any task failed, 4 when tasks a submit launched were lost
(none failed), 3 when tasks are pending (none failed or lost); 2 for bad input (any command).
"""

import json
from pathlib import Path

import click

from graphsweep.datasets.errors import GraphsweepError

from . import config, launched, paths, runner, store, sweep
from . import reduce as reducer
from . import report as reporter

DEFAULT_SPEC = Path(__file__).with_name("sweeps") / "default.yaml"


def _cluster_options(f):
    f = click.option("--cluster-file", type=click.Path(dir_okay=False), default=None,
                     help="cluster profiles file [default: ./cluster.yaml when present]")(f)
    return click.option("--cluster", "profile", default=None, metavar="PROFILE",
                        help="cluster profile, scheduler address or scheduler file "
                             "[default: auto = local-gpu with a GPU, else local-cpu]")(f)


_results_option = click.option("--results", default=None, metavar="DIR",
                               help="results directory [default: the spec's 'results']")
_resume_option = click.option("--resume", is_flag=True,
                              help="finish the sweep already in the results directory, skipping finished tasks")
_retry_option = click.option("--retry-failed", is_flag=True,
                             help="with --resume: run the failed tasks again too (their results are deleted)")


def _results_dir(results: str, *, writing: bool = False) -> Path:
    path = Path(results)
    if not (path / store.PLAN).is_file():
        raise GraphsweepError(f"{path}: not a graphsweep results directory (no {store.PLAN})")
    if writing:
        paths.check_writable(path, "results directory")
    return path


def _retrying(resume: bool, retry_failed: bool) -> bool:
    if retry_failed and not resume:
        raise GraphsweepError("--retry-failed goes with --resume (it reruns the failed tasks of a sweep)")
    return retry_failed


@click.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@click.option("--default", "use_default", is_flag=True,
              help=f"run the small built-in sweep (results in ./{config.get('run.default-results')})")
@click.option("--dry-run", is_flag=True, help="print the expanded plan with its costs, check there is room, and exit")
@_resume_option
@_retry_option
@_results_option
@_cluster_options
@click.option("--no-report", is_flag=True, help="skip reduce and report at the end")
@click.option("--no-progress", is_flag=True, help="no progress lines on stderr (failures are still shown)")
def run(spec, use_default, dry_run, resume, retry_failed, results, profile, cluster_file, no_report, no_progress):
    """Run the sweep SPEC to the end on a cluster, then reduce and report.

    Exit code 0 only when every task succeeded and verified; a log per run is kept in
    RESULTS/logs/.
    """
    if bool(spec) == use_default:
        raise GraphsweepError("run: give a sweep SPEC or --default (not both)")
    if use_default:
        spec, results = DEFAULT_SPEC, results or config.get("run.default-results")
    plan = sweep.load(spec, results=results)
    if dry_run:
        click.echo(plan.describe())
        runner.check_room(plan, profile, cluster_file)
        return 0
    return runner.run_plan(plan, profile=profile, cluster_file=cluster_file, resume=resume,
                           retry_failed=_retrying(resume, retry_failed), progress=not no_progress,
                           report=not no_report)


@click.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@_resume_option
@_retry_option
@_results_option
@_cluster_options
def submit(spec, resume, retry_failed, results, profile, cluster_file):
    """Send the sweep SPEC to a long-lived cluster and return; tasks store their own results."""
    plan = sweep.load(spec, results=results)
    return runner.submit_plan(plan, profile=profile, cluster_file=cluster_file, resume=resume,
                              retry_failed=_retrying(resume, retry_failed))


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the state as one JSON object")
def status(results, as_json):
    """Show the sweep's tasks: done, failed (and why), and of the rest which are running, queued
    or lost on the cluster a submit sent them to, and which were never launched."""
    results = _results_dir(results)
    state = store.status(results)
    plan = state["plan"]
    where = launched.classify(results, state["pending"])
    holder = store.lock_holder(results)
    code = 1 if state["failed"] else 4 if where["lost"] else 3 if state["pending"] else 0
    if as_json:
        click.echo(json.dumps({
            "sweep": plan.name, "results": str(results), "tasks": len(plan.tasks),
            "done": len(state["done"]), "stopped": state["stopped"], "in_use": holder,
            "failed": [{"task": t.hash, "label": t.label, "error": e} for t, e in state["failed"].values()],
            "pending": {s: [{"task": t.hash, "label": t.label} for t in tasks] for s, tasks in where.items()},
            "exit_code": code}, indent=1))
        return code
    click.echo(f"sweep {plan.name}: {len(plan.tasks)} tasks: {len(state['done'])} done, "
               f"{len(state['failed'])} failed, {len(state['pending'])} pending"
               f"{' (stopped after a failure)' if state['stopped'] else ''}")
    if holder:
        click.echo(f"  {holder}")
    if state["pending"] and store.submissions(results):
        click.echo("  pending: " + ", ".join(f"{len(tasks)} {s}" for s, tasks in where.items() if tasks))
    for task, error in state["failed"].values():
        click.echo(f"  failed  {task.hash}  {task.label}: {(error or 'verification failed').splitlines()[0]}")
    for task in where["lost"]:
        click.echo(f"  lost    {task.hash}  {task.label} (launched, unknown to its scheduler, no result: "
                   f"run again with --resume)")
    return code


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
def reduce(results):
    """Gather the task results into RESULTS/results.parquet and RESULTS/summary.csv."""
    results = _results_dir(results, writing=True)
    rows, summary = reducer.reduce(results)
    click.echo(f"{len(rows)} rows -> {results / reducer.RESULTS}")
    click.echo(f"{len(summary)} task-phase summaries -> {results / reducer.SUMMARY}")
    return 0


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
def report(results):
    """Reduce, then write RESULTS/report.html (self-contained, plots embedded)."""
    click.echo(f"report: {reporter.report(_results_dir(results, writing=True))}")
    return 0
