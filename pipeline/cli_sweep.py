"""``graphsweep run | submit | status | reduce | report``: the sweep commands.

Each validates its arguments, builds the plan and hands off to runner, store, reduce or report.
Exit codes for batch use: ``run`` 0 only when every task succeeded and verified, 1 otherwise;
``status`` 0 when all done, 1 when any task failed, 3 when tasks are pending and none failed;
2 for bad input (any command).
"""

from pathlib import Path

import click

from graphsweep.datasets.errors import GraphsweepError

from . import config, runner, store, sweep
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


def _results_dir(results: str) -> Path:
    path = Path(results)
    if not (path / store.PLAN).is_file():
        raise GraphsweepError(f"{path}: not a graphsweep results directory (no {store.PLAN})")
    return path


@click.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@click.option("--default", "use_default", is_flag=True,
              help=f"run the small built-in sweep (results in ./{config.get('run.default-results')})")
@click.option("--dry-run", is_flag=True, help="print the expanded plan and exit")
@_resume_option
@_results_option
@_cluster_options
@click.option("--no-report", is_flag=True, help="skip reduce and report at the end")
@click.option("--no-progress", is_flag=True, help="no progress bar")
def run(spec, use_default, dry_run, resume, results, profile, cluster_file, no_report, no_progress):
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
        return 0
    return runner.run_plan(plan, profile=profile, cluster_file=cluster_file, resume=resume,
                           progress=not no_progress, report=not no_report)


@click.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@_resume_option
@_results_option
@_cluster_options
def submit(spec, resume, results, profile, cluster_file):
    """Send the sweep SPEC to a long-lived cluster and return; tasks store their own results."""
    plan = sweep.load(spec, results=results)
    return runner.submit_plan(plan, profile=profile, cluster_file=cluster_file, resume=resume)


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
def status(results):
    """Show how many of the sweep's tasks are done, failed or pending (and which failed)."""
    state = store.status(_results_dir(results))
    plan = state["plan"]
    click.echo(f"sweep {plan.name}: {len(plan.tasks)} tasks: {len(state['done'])} done, "
               f"{len(state['failed'])} failed, {len(state['pending'])} pending"
               f"{' (stopped after a failure)' if state['stopped'] else ''}")
    for task, error in state["failed"].values():
        click.echo(f"  failed  {task.hash}  {task.label}: {(error or 'verification failed').splitlines()[0]}")
    if state["failed"]:
        return 1
    return 3 if state["pending"] else 0


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
def reduce(results):
    """Gather the task results into RESULTS/results.parquet and RESULTS/summary.csv."""
    results = _results_dir(results)
    rows, summary = reducer.reduce(results)
    click.echo(f"{len(rows)} rows -> {results / reducer.RESULTS}")
    click.echo(f"{len(summary)} task-phase summaries -> {results / reducer.SUMMARY}")
    return 0


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
def report(results):
    """Reduce, then write RESULTS/report.html (self-contained, plots embedded)."""
    click.echo(f"report: {reporter.report(_results_dir(results))}")
    return 0
