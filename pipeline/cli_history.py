"""``graphsweep compare | history | results``: sweeps run again and again (a nightly cron job).

Each validates its arguments and hands off to compare or history; tables go to stdout.
"""

import json
import math
from pathlib import Path

import click
import pandas as pd

from graphsweep.core.errors import GraphsweepError

from . import compare as comparer
from . import history as historian
from .cli_sweep import _results_dir

_folder = click.Path(file_okay=False, path_type=Path)


@click.command()
@click.argument("base", type=_folder)
@click.argument("new", type=_folder)
@click.option("--threshold", type=click.FloatRange(min=0), default=0.10, show_default=True,
              help="slower by more than this share (0.10 = 10%) and significantly: a regression")
@click.option("--json", "as_json", is_flag=True, help="print the comparisons as JSON")
def compare(base, new, threshold, as_json):
    """Compare the kernel times of the sweep results NEW with BASE, task by task.

    For each (kernel, dataset, params) in both: the ratio of median kernel times NEW / BASE with a
    95% bootstrap confidence interval from the reps; 'slower' when the ratio exceeds 1 + threshold
    and the interval lies above 1 (with one rep, the threshold alone decides).

    \b
    Exit codes:
      0  nothing regressed
      1  a task is slower, or failed in NEW and not in BASE
      2  bad input (not a results folder, no task results)
    """
    results, only = comparer.compare(_results_dir(base), _results_dir(new), threshold=threshold)
    regressed = [c for c in results if c.regressed]
    if as_json:
        compared = [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in vars(c).items()}
                    for c in results]  # a failed side has no time: null, not NaN (not JSON)
        click.echo(json.dumps({"threshold": threshold, "compared": compared,
                               "regressed": len(regressed),
                               **{k.replace(" ", "_"): [dict(zip(comparer.KEY, key)) for key in keys]
                                  for k, keys in only.items()}}, default=str))
    else:
        if results:
            click.echo("\n".join(comparer.lines(results)))
        faster = sum(c.verdict == "faster" for c in results)
        click.echo(f"{len(results)} tasks compared (threshold {threshold:.0%}): {len(regressed)} regressed, "
                   f"{faster} faster; {len(only['base only'])} only in BASE, {len(only['new only'])} only in NEW")
    return 1 if regressed else 0


@click.command()
@click.argument("root", type=_folder)
@click.option("--no-page", is_flag=True, help="only the table: do not write ROOT/history.html")
def history(root, no_page):
    """The runs under ROOT (results folders, as a nightly job makes them), one line each, oldest
    first; and ROOT/history.html plotting each kernel's time across the runs.

    Exit codes: 0 listed; 2 bad input (ROOT is not a folder, or holds no results folder)."""
    runs = historian.runs(root)
    if not runs:
        raise GraphsweepError(f"{root}: no results folders (with a plan.json) in it or directly under it")
    click.echo(historian.table(runs).to_string(index=False, na_rep="-",
                                               formatters={"geomean kernel ms": "{:.4g}".format}))
    if not no_page:
        click.echo(f"history: {historian.page(root, runs)}")
    return 0


@click.command()
@click.argument("roots", nargs=-1, type=_folder)
@click.option("--depth", type=click.IntRange(min=0), default=2, show_default=True,
              help="how many folder levels below each ROOT to look")
def results(roots, depth):
    """List the results folders under ROOTS (default: the current folder) with their state:
    done, failed, pending (not finished or lost), or running (a run holds it now).

    Exit codes: 0 listed (also when there are none); 2 bad input."""
    found = [run for root in roots or (Path("."),) for run in historian.runs(root, depth=depth, times=False)]
    if not found:
        click.echo("no results folders")
        return 0
    click.echo(pd.DataFrame([{"results": str(r.path), "sweep": r.sweep, "state": r.state, "tasks": r.tasks,
                              "done": r.done, "failed": r.failed, "pending": r.pending,
                              "first run": f"{r.when:%Y-%m-%d %H:%M}"} for r in found]).to_string(index=False))
    return 0
