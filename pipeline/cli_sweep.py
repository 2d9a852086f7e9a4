"""``graphsweep run | submit | status | reduce | report``: the sweep commands.

Each validates its arguments, builds the plan and hands off to runner, store, reduce or report.
Exit codes for batch use (each command's --help lists its own): ``run`` 0 only when every task
succeeded and verified, 1 otherwise (a task failed, or the run ended early); ``status`` 0 when all
done, 1 when any task failed, 4 when tasks a submit launched were lost (none failed), 3 when a run
or submit is at work (none failed or lost), 5 when tasks are pending and nothing works on them
(an interrupted run); 2 for bad input or a refusal (any command); 130 / 143 when interrupted /
terminated.
"""

import json
import shlex
from pathlib import Path

import click

from graphsweep.core.errors import GraphsweepError

from . import config, launched, paths, runner, store, sweep
from . import figures as papers
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
              help=f"run the small built-in sweep (results in ./{config.raw('run.default-results')}; "
                   "an unfinished run there is finished, a finished one set aside beside it)")
@click.option("--dry-run", is_flag=True, help="print the expanded plan with its costs, check there is room, and exit")
@_resume_option
@_retry_option
@_results_option
@_cluster_options
@click.option("--no-report", is_flag=True, help="skip reduce and report at the end")
@click.option("--no-progress", is_flag=True, help="no progress lines on stderr (failures are still shown)")
def run(spec, use_default, dry_run, resume, retry_failed, results, profile, cluster_file, no_report, no_progress):
    """Run the sweep SPEC to the end on a cluster, then reduce and report.

    A log per run is kept in RESULTS/logs/.  --dry-run refuses (exit 2) what a run would refuse
    before starting, and a kernel's datasets pattern that names no dataset.

    \b
    Exit codes:
      0    every task succeeded and verified
      1    a task failed or is still pending
      2    bad input, or refused before any work (no room, results folder in use or not writable)
      130  interrupted (Ctrl-C); 143 terminated (SIGTERM): finish with --resume
    """
    if bool(spec) == use_default:
        raise GraphsweepError("run: give a sweep SPEC or --default (not both)")
    given_results = results
    if use_default:
        spec, results = DEFAULT_SPEC, results or config.get("run.default-results")
    plan = sweep.load(spec, results=results)
    retry_failed = _retrying(resume, retry_failed)
    claim = True
    if use_default and not resume:
        resume, note = runner.reuse(plan, say_only=dry_run)
        claim = not (dry_run and note and not resume)  # a folder that would be set aside is no obstacle
        if note:
            click.echo(note)
    for warning in plan.warnings:
        click.echo(f"graphsweep: warning: {warning}", err=True)
    if dry_run:
        return runner.dry_run(plan, profile, cluster_file, resume=resume, claim=claim)
    try:
        return runner.run_plan(plan, profile=profile, cluster_file=cluster_file, resume=resume,
                               retry_failed=retry_failed, progress=not no_progress, report=not no_report)
    except KeyboardInterrupt:
        if (plan.results / store.PLAN).is_file():
            again = ("--default" if use_default else f"{shlex.quote(str(spec))} --resume") + (
                f" --results {shlex.quote(given_results)}" if given_results else "")
            click.echo(f"finished tasks are kept; finish the sweep with: graphsweep run {again}", err=True)
        raise


@click.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@_resume_option
@_retry_option
@_results_option
@_cluster_options
def submit(spec, resume, retry_failed, results, profile, cluster_file):
    """Send the sweep SPEC to a long-lived cluster and return; tasks store their own results.

    \b
    Exit codes:
      0    the tasks were sent (watch them with graphsweep status RESULTS)
      2    bad input, or refused before sending (no room, results folder in use, no cluster)
      130  interrupted (Ctrl-C); 143 terminated (SIGTERM)
    """
    plan = sweep.load(spec, results=results)
    for warning in plan.warnings:
        click.echo(f"graphsweep: warning: {warning}", err=True)
    return runner.submit_plan(plan, profile=profile, cluster_file=cluster_file, resume=resume,
                              retry_failed=_retrying(resume, retry_failed))


# status's exit codes by the sweep's state (a cron loop acts on them; docs/cron.md).
STATUS_CODES = {"done": 0, "failed": 1, "running": 3, "starting": 3, "lost": 4, "interrupted": 5}


def _starting(results: str, as_json: bool) -> int | None:
    """status of a folder a run has locked but not claimed yet (its cluster is starting); None
    when no run holds it."""
    holder = store.lock_holder(results) if Path(results).is_dir() else None
    if holder is None:
        return None
    code = STATUS_CODES["starting"]
    if as_json:
        click.echo(json.dumps({"results": str(results), "state": "starting", "in_use": holder, "exit_code": code}))
    else:
        click.echo(f"{results}: starting (no plan yet): {holder}")
    return code


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the state as one JSON object")
def status(results, as_json):
    """Show the sweep's tasks: done, failed (and why), and of the rest which are running, queued
    or lost on the cluster a submit sent them to, and which were never launched.

    \b
    Exit codes (a cron loop acts on them):
      0  every task done
      1  a task failed (run again with --resume --retry-failed)
      2  bad input: RESULTS is not a results folder
      3  a run or submit is at work: tasks running or queued, or a run starting (its folder is
         locked, its cluster not up yet); none failed or lost (ask again later)
      4  tasks lost, none failed: launched, no result, and their scheduler does not know them or
         does not answer (run again with --resume)
      5  interrupted: tasks pending, none failed, and nothing works on them (no run holds the
         folder, no task a submit launched is running or queued): run again with --resume
    """
    if not (Path(results) / store.PLAN).is_file():
        code = _starting(results, as_json)
        if code is not None:
            return code
    results = _results_dir(results)
    state = store.status(results)
    plan = state["plan"]
    where, why_lost = launched.classify(results, state["pending"])
    holder = store.lock_holder(results)
    at_work = holder is not None or where["running"] or where["queued"]
    name = ("failed" if state["failed"] else "lost" if where["lost"] else "running" if at_work and state["pending"]
            else "interrupted" if state["pending"] else "done")
    code = STATUS_CODES[name]
    if as_json:
        click.echo(json.dumps({
            "sweep": plan.name, "results": str(results), "tasks": len(plan.tasks), "state": name,
            "done": len(state["done"]), "stopped": state["stopped"], "in_use": holder,
            "failed": [{"task": t.hash, "label": t.label, "error": e} for t, e in state["failed"].values()],
            "pending": {s: [{"task": t.hash, "label": t.label, **({"why": why_lost[t.hash]} if s == "lost" else {})}
                            for t in tasks] for s, tasks in where.items()},
            "exit_code": code}, indent=1))
        return code
    click.echo(f"sweep {plan.name}: {len(plan.tasks)} tasks: {len(state['done'])} done, "
               f"{len(state['failed'])} failed, {len(state['pending'])} pending"
               f"{' (stopped after a failure)' if state['stopped'] else ''}")
    if holder:
        click.echo(f"  {holder}")
    if state["pending"] and store.submissions(results):
        click.echo("  pending: " + ", ".join(f"{len(tasks)} {s}" for s, tasks in where.items() if tasks))
    if name == "interrupted":
        click.echo(f"  interrupted: nothing works on the {len(state['pending'])} pending tasks (no run holds the "
                   "folder, and no task a submit launched is running or queued); finish them with --resume")
    for task, error in state["failed"].values():
        click.echo(f"  failed  {task.hash}  {task.label}: {(error or 'verification failed').splitlines()[0]}")
    for task in where["lost"]:
        click.echo(f"  lost    {task.hash}  {task.label} (launched, no result, {why_lost[task.hash]}: "
                   f"run again with --resume)")
    return code


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
def reduce(results):
    """Gather the task results into RESULTS/results.parquet and RESULTS/summary.csv.

    Exit codes: 0 written; 2 bad input (not a results folder, no task results, not writable)."""
    results = _results_dir(results, writing=True)
    rows, summary = reducer.reduce(results)
    click.echo(f"{len(rows)} rows -> {results / reducer.RESULTS}")
    click.echo(f"{len(summary)} task-phase summaries -> {results / reducer.SUMMARY}")
    return 0


@click.command()
@click.argument("results", type=click.Path(file_okay=False))
@click.option("--figures", "figures_dir", type=click.Path(file_okay=False),
              help="also write every figure (PNG) and table (Markdown) into this folder (what docs/results holds)")
def report(results, figures_dir):
    """Reduce, then write RESULTS/report.html (self-contained, plots embedded).

    Exit codes: 0 written; 2 bad input (not a results folder, no task results, not writable)."""
    results = _results_dir(results, writing=True)
    if figures_dir:
        figures_dir = paths.check_writable(figures_dir, "--figures")
    click.echo(f"report: {reporter.report(results)}")
    if figures_dir:
        summary = reporter.named(reducer.summarize(reducer.rows_of(results)), store.read_plan(results))
        for path in papers.write(summary, figures_dir):
            click.echo(str(path))
    return 0
