"""``graphsweep kernel``: run one kernel on one dataset, print per-phase timings and the verdict.

Exit status: 0 when the output was verified (or verification was skipped), 1 when the verifier
rejected it, 2 on bad input (any GraphsweepError, turned into one line by the ``cli`` group).
A partitioned kernel's local workers are closed once its table is printed; trouble closing them
is a warning, never the run's failure.
"""

import json
import logging
import math
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from graphsweep.core import gpu
from graphsweep.core.errors import ParameterError
from graphsweep.datasets.format import read_manifest
from graphsweep.kernels import harness, output, placement, registry, throughput
from graphsweep.kernels.ceilings import ceilings

from . import cluster, estimate
from .paths import prepare_output_file


def _params(pairs) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ParameterError(f"--param {pair!r}: expected NAME=VALUE")
        out[key.strip()] = value
    return out


def phase_table(result, ceiling: dict) -> list[dict]:
    """Per phase: the summary row plus its rates from the byte model against the ceilings
    (kernel phases, their runs' mean elements, then the graph builds the kernel needed, marked
    ``stage: input``)."""
    rows = [{**row, "stage": "kernel"} for row in result.summary()]
    rows += [{**row, "stage": "input", "reps": 1, "mean_ms": row["ms"], "std_ms": 0.0, "median_ms": row["ms"],
              "min_ms": row["ms"]} for row in result.input_rows]
    for row in rows:
        row.update(throughput.rates(row["mean_ms"], row["bytes_read"] + row["bytes_written"],
                                    row["random_accesses"], row.get("elements", result.elements), ceiling,
                                    link_bytes=row.get("bytes_link", 0)))
    return rows


def _cell(value, form: str) -> str:
    return "-" if isinstance(value, float) and math.isnan(value) else form.format(value)


def _print_table(result, rows, ceiling) -> None:
    element = registry.get(result.kernel).problem.element
    rate = "GTEPS" if element == "edge" else f"G {element}s/s"
    click.echo(f"{result.kernel} on {result.dataset['path']} (n = {result.dataset['n']}"
               f"{'' if result.dataset['m'] is None else ', m = ' + str(result.dataset['m'])}), "
               f"backend {result.backend}, {result.device}, placement {result.placement}; params {result.params}")
    over_link = any(r.get("bytes_link") for r in rows)     # a host-placed graph: bytes over the link, their rate
    link = f", host link {ceiling[throughput.LINK]:.1f} GB/s" if over_link and throughput.LINK in ceiling else ""
    click.echo(f"ceilings: copy {ceiling['copy_gbps']:.0f} GB/s, gather {ceiling['gather_gelems']:.2f} G/s, "
               f"chase {ceiling['chase_gsteps']:.2f} G steps/s{link}")
    if len(result.instances) > 1 or result.instances[0]:
        click.echo("instances: " + ", ".join(" ".join(f"{k} {v}" for k, v in i.items()) for i in result.instances))
    names = [r["phase"] + (" (input)" if r["stage"] == "input" else "") for r in rows]
    width = max(len("phase"), *map(len, names))
    columns = [("mean ms", 10, "mean_ms", "{:.3f}"), ("± std", 9, "std_ms", "{:.3f}"), ("calls", 6, "calls", "{}"),
               ("GB/s", 8, "gbps", "{:.1f}"), ("% copy", 7, "pct_copy_ceiling", "{:.1f}%"),
               ("rand G/s", 9, "random_per_s", "{:.3f}"), ("% gath", 7, "pct_gather_ceiling", "{:.1f}%"),
               ("% chase", 8, "pct_chase_ceiling", "{:.1f}%"), (rate, 10, "gelems_per_s", "{:.3f}")]
    if over_link:
        columns += [("link GB/s", 10, "link_gbps", "{:.1f}"), ("% link", 7, "pct_link_ceiling", "{:.1f}%")]
    click.echo(f"{'phase':<{width}}" + "".join(f" {title:>{w}}" for title, w, _, _ in columns))
    for name, r in zip(names, rows):
        # A rate the phase has no basis for (no random accesses; elements per second of a part of
        # a run) is '-', not nan.
        values = {**r, "random_per_s": r["random_per_s"] / 1e9,
                  "gelems_per_s": r["gelems_per_s"] if r["phase"] == "total" else float("nan")}
        click.echo(f"{name:<{width}}" + "".join(f" {_cell(values[key], form):>{w}}" for _, w, key, form in columns))
    for key, value in result.stats.items():
        click.echo(f"{key}: {value}")
    if result.verified is None:
        click.echo("verification: skipped")
    else:
        click.echo("verification: passed" if result.verified else f"verification: FAILED: {result.verify_error}")


def _close_local_workers() -> None:
    from distributed.utils import silence_logging_cmgr
    from graphsweep.kernels.dist import driver
    # Dask's records of their teardown (a worker process killed after its grace period) are no
    # news once the results are printed; trouble closing is ``closing``'s one warning line.
    with silence_logging_cmgr(logging.CRITICAL):
        driver.close_local()


@contextmanager
def _local_workers(chosen):
    """Around a run of ``chosen``: the local workers a partitioned kernel starts (``kernels.dist``)
    ignore Ctrl-C (this process stops them: their tracebacks would follow graphsweep's one line)
    and are closed when it ends, by ``cluster.closing``, rather than by the exit handler, where a
    close that times out would be a traceback."""
    if not chosen.drives_workers:
        yield
        return
    with cluster.closing(ExitStack(), "the kernel's local workers") as closes:
        closes.callback(_close_local_workers)
        closes.enter_context(cluster.workers_ignore_interrupts())
        yield


def _list_kernels() -> None:
    for known in registry.names():
        alias = registry.ALIASES.get(known)
        if alias:
            click.echo(f"{known:<34} = {alias[0]} ({alias[1]})")
            continue
        k = registry.get(known)
        backends = "/".join(b for b in ("gpu", "cpu") if getattr(k, b) is not None)
        click.echo(f"{known:<34} [{backends}] {k.summary}")
        for pname, p in k.params.items():
            extra = f", one of {', '.join(map(str, p.choices))}" if p.choices else ""
            click.echo(f"{'':<36}{pname} = {p.default!r} ({p.type.__name__}{extra}){': ' + p.help if p.help else ''}")


@click.command()
@click.argument("name", required=False)
@click.argument("dataset", required=False, type=click.Path(path_type=Path))
@click.option("--backend", type=click.Choice(gpu.BACKENDS), default="auto", show_default=True)
@click.option("--reps", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--warmup", type=click.IntRange(min=0), default=2, show_default=True)
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a kernel parameter (repeatable)")
@click.option("--roots", type=click.IntRange(min=1), default=None,
              help="single-source problems: draw this many roots of non-zero degree (unless --param root=V)")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the roots drawn")
@click.option("--placement", type=click.Choice(placement.PLACEMENTS), default=None,
              help="graph kernels: keep the graph in device memory or in pinned host memory read over the link "
                   "(default: the device when it fits, else the host; see ARCHITECTURE.md)")
@click.option("--save-output", type=click.Path(dir_okay=False, path_type=Path),
              help="write the output as named columns (primary first) to this Parquet file (atomically)")
@click.option("--no-verify", is_flag=True, help="skip the independent verifier")
@click.option("--no-checksums", is_flag=True,
              help="skip checking each part's sha256 against the manifest as the dataset is read")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.option("--list", "list_kernels", is_flag=True, help="list the registered kernels and their parameters, and exit")
def kernel(name, dataset, backend, reps, warmup, params, roots, seed, placement, save_output, no_verify, no_checksums,
           as_json, list_kernels):
    """Run kernel NAME on DATASET and report per-phase times against the device's ceilings.

    \b
    Exit codes:
      0  verified (or --no-verify)
      1  the verifier rejected the output
      2  bad input, or refused before any work (a part's sha256 differs from the manifest, the
         graph fits neither the GPU nor the host, the dataset does not fit in memory,
         --save-output cannot be written, more partitions than the workers this machine can start)
      130  interrupted (Ctrl-C); 143 terminated (SIGTERM)
    A partitioned kernel's local workers slow to close afterwards are a warning, not a failure.
    """
    if list_kernels:
        _list_kernels()
        return 0
    if not name or dataset is None:
        raise ParameterError("kernel needs NAME and DATASET (or --list)")
    if save_output is not None:
        save_output = prepare_output_file(save_output, "--save-output")
    # The memory check a sweep makes for each task, before anything is loaded.
    chosen = registry.get(name)
    on_gpu = harness.resolve_backend(backend, chosen) == "gpu"
    # the kernel looked up and its parameters coerced once, here, for the checks and the run alike
    resolved = harness.Resolved(name, chosen, chosen.resolve_params(_params(params)))
    sliced = resolved.params["partitions"] if chosen.drives_workers else None
    if sliced and not resolved.params.get("scheduler"):   # local workers: the sweep's check, on this machine's
        cluster.check_partitions(f"{name} on {dataset}", sliced, cluster.partition_workers(on_gpu), "this machine",
                                 f" to start (one per core{' or GPU' if on_gpu else ''}; --param "
                                 "scheduler=ADDRESS slices over a running cluster's workers)")
    estimate.check_kernel(read_manifest(dataset), on_gpu=on_gpu, subject=f"{name} on {dataset}",
                          graph=chosen.problem.dataset_kind == "graph", forced=placement, sliced=sliced)
    with _local_workers(chosen):
        result = harness.run(resolved, dataset, backend=backend, reps=reps, warmup=warmup, verify=not no_verify,
                             instances=roots, instance_seed=seed, placement=placement,
                             keep_output=save_output is not None, checksums=not no_checksums)
        ceiling = ceilings(result.backend)
        rows = phase_table(result, ceiling)
        for line in throughput.over_ceiling_warnings(result.kernel, rows, ceiling):
            click.echo(f"graphsweep: warning: {line}", err=True)
        if save_output is not None:
            output.save(registry.get(result.kernel).problem, result.output, save_output)
        if as_json:
            click.echo(json.dumps({"kernel": result.kernel, "backend": result.backend, "device": result.device,
                                   "placement": result.placement,
                                   "dataset": result.dataset, "params": result.params, "ceilings": ceiling,
                                   "elements": result.elements, "instances": result.instances,
                                   "phases": rows, "steps": result.step_rows, "stats": result.stats,
                                   "instance_stats": result.instance_stats,
                                   "verified": result.verified, "verify_error": result.verify_error}, default=str))
        else:
            _print_table(result, rows, ceiling)
    return 1 if result.verified is False else 0
