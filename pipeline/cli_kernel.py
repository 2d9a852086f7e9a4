"""``graphsweep kernel``: run one kernel on one dataset, print per-phase timings and the verdict.

Exit status: 0 when the output was verified (or verification was skipped), 1 when the verifier
rejected it, 2 on bad input (any GraphsweepError, turned into one line by the ``cli`` group).
"""

import json
from pathlib import Path

import click
import numpy as np

from graphsweep.datasets.errors import ParameterError
from graphsweep.datasets.writer import write_atomically
from graphsweep.kernels import harness, registry
from graphsweep.kernels.ceilings import ceilings


def _params(pairs) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ParameterError(f"--param {pair!r}: expected NAME=VALUE")
        out[key.strip()] = value
    return out


def phase_table(result, ceiling: dict) -> list[dict]:
    """Per phase: the summary row plus GB/s from the byte model and the rates against the ceilings."""
    rows = []
    for row in result.summary():
        seconds = row["mean_ms"] / 1e3
        moved = row["bytes_read"] + row["bytes_written"]
        gbps = moved / seconds / 1e9 if seconds > 0 else float("nan")
        random_rate = row["random_accesses"] / seconds / 1e9 if seconds > 0 else float("nan")
        rows.append({**row, "gbps": gbps, "copy_pct": 100 * gbps / ceiling["copy_gbps"],
                     "random_g_per_s": random_rate,
                     "gather_pct": 100 * random_rate / ceiling["gather_gelems"],
                     "chase_pct": 100 * random_rate / ceiling["chase_gsteps"]})
    return rows


def _save(path: Path, output) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    write_atomically(path.absolute(), lambda tmp: pq.write_table(pa.table({"rank": np.asarray(output)}), tmp))


def _print_table(result, rows, ceiling) -> None:
    click.echo(f"{result.kernel} on {result.dataset['path']} (n = {result.dataset['n']}), backend {result.backend}, "
               f"{result.device}; params {result.params}")
    click.echo(f"ceilings: copy {ceiling['copy_gbps']:.0f} GB/s, gather {ceiling['gather_gelems']:.2f} G/s, "
               f"chase {ceiling['chase_gsteps']:.2f} G steps/s")
    click.echo(f"{'phase':<10} {'mean ms':>10} {'± std':>9} {'calls':>6} {'GB/s':>8} {'% copy':>7} "
               f"{'rand G/s':>9} {'% gath':>7} {'% chase':>8}")
    for r in rows:
        click.echo(f"{r['phase']:<10} {r['mean_ms']:>10.3f} {r['std_ms']:>9.3f} {r['calls']:>6} {r['gbps']:>8.1f} "
                   f"{r['copy_pct']:>6.1f}% {r['random_g_per_s']:>9.3f} {r['gather_pct']:>6.1f}% "
                   f"{r['chase_pct']:>7.1f}%")
    for key, value in result.stats.items():
        click.echo(f"{key}: {value}")
    if result.verified is None:
        click.echo("verification: skipped")
    else:
        click.echo("verification: passed" if result.verified else f"verification: FAILED: {result.verify_error}")


@click.command()
@click.argument("name", required=False)
@click.argument("dataset", required=False, type=click.Path(path_type=Path))
@click.option("--backend", type=click.Choice(harness.BACKENDS), default="auto", show_default=True)
@click.option("--reps", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--warmup", type=click.IntRange(min=0), default=2, show_default=True)
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a kernel parameter (repeatable)")
@click.option("--save-output", type=click.Path(dir_okay=False, path_type=Path),
              help="write the output array to this Parquet file (atomically)")
@click.option("--no-verify", is_flag=True, help="skip the independent verifier")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.option("--list", "list_kernels", is_flag=True, help="list the registered kernels and exit")
def kernel(name, dataset, backend, reps, warmup, params, save_output, no_verify, as_json, list_kernels):
    """Run kernel NAME on DATASET and report per-phase times against the device's ceilings."""
    if list_kernels:
        for known in registry.names():
            alias = registry.ALIASES.get(known)
            summary = f"= {alias[0]} ({alias[1]})" if alias else registry.get(known).summary
            click.echo(f"{known:<30} {summary}")
        return 0
    if not name or dataset is None:
        raise ParameterError("kernel needs NAME and DATASET (or --list)")
    result = harness.run(name, dataset, backend=backend, reps=reps, warmup=warmup, verify=not no_verify,
                         **_params(params))
    ceiling = ceilings(result.backend)
    rows = phase_table(result, ceiling)
    if save_output is not None:
        _save(save_output, result.output)
    if as_json:
        click.echo(json.dumps({"kernel": result.kernel, "backend": result.backend, "device": result.device,
                               "dataset": result.dataset, "params": result.params, "ceilings": ceiling,
                               "phases": rows, "stats": result.stats, "verified": result.verified,
                               "verify_error": result.verify_error}, default=str))
    else:
        _print_table(result, rows, ceiling)
    return 1 if result.verified is False else 0
