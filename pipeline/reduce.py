"""Reduce: every task file of a sweep into one table, and its per-(task, phase) summary.

``reduce(RESULTS)`` writes ``RESULTS/results.parquet`` (all rows, failed tasks included) and
``RESULTS/summary.csv``: per task, stage and phase the mean, std (sample), median and min of ``ms``
over the timed reps, with GB/s, the share of the device's ceilings and elements per second
computed from the median time (a rare host stall skews a mean of five runs), and the
per-instance rates' harmonic mean (GTEPS over roots).  Both are derived from the rows alone, and
the report, the figures (docs/results) and ``compare`` take their times and rates from here.
``over_ceiling`` names the phases whose median rate no hardware produces (bytes over the host
link faster than its measured ceiling, beyond its noise: ``kernels.throughput``); the report lists
them (``figures.rates``' table), and the worker logs them as it stores their rows.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from graphsweep.core.errors import GraphsweepError
from graphsweep.datasets.writer import write_atomically

from graphsweep.kernels import throughput

from . import store

RESULTS = "results.parquet"
SUMMARY = "summary.csv"
# Per task, not per rep: carried into the summary from the task's first row.
TASK_COLUMNS = ("sweep", "dataset", "generator", "dataset_params", "seed", "n", "m", "kernel",
                "params", "asked", "given", "backend", "device", "placement", "verified", "error")
EXTRA_PREFIXES = ("param_", "data_", "stat_", "ceiling_")


def load(results) -> pd.DataFrame:
    """All rows of all stored tasks of the sweep in ``results``."""
    if not Path(results).is_dir():
        raise GraphsweepError(f"{results}: no such results folder")
    files = sorted(store.finished(results).values())
    if not files:
        raise GraphsweepError(f"{results}: no task results yet (nothing under {store.TASKS}/)")
    tables = []
    for f in files:
        try:
            tables.append(pq.read_table(f).replace_schema_metadata(None))
        except (pa.ArrowException, OSError) as exc:
            raise GraphsweepError(f"{f}: unreadable task result ({str(exc).splitlines()[0]})") from None
    # Columns differ between tasks (kernel parameters and stats); missing ones become nulls.
    try:
        return pa.concat_tables(tables, promote_options="permissive").to_pandas()
    except pa.ArrowException as exc:
        raise GraphsweepError(f"{results}: task results disagree on a column's type "
                              f"({str(exc).splitlines()[0]})") from None


def rows_of(results) -> pd.DataFrame:
    """The rows of the sweep in ``results``: its task files, or the results.parquet of a folder
    without them (a published sweep)."""
    results = Path(results)
    if not store.finished(results) and (results / RESULTS).is_file():
        try:
            return pd.read_parquet(results / RESULTS)
        except (pa.ArrowException, OSError) as exc:
            raise GraphsweepError(f"{results / RESULTS}: unreadable ({str(exc).splitlines()[0]})") from None
    return load(results)


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, stage, phase) of the timed rows (per-step rows left out): ms statistics
    over reps and instances, rates from the median time (``kernels.throughput``), and per-instance
    rates (elements over each instance's median time) as their harmonic mean, min, median and max
    — GTEPS over BFS roots as Graph500 reduces them.  Numeric ``stat_`` columns are averaged over
    instances; other task columns come from the task's first row."""
    timed = rows[rows["phase"].notna()]
    if "step" in timed:
        timed = timed[timed["step"].isna()]
    if timed.empty:
        return pd.DataFrame(columns=["task", "stage", "phase", "reps", "mean_ms", "std_ms", "median_ms", "min_ms"])
    timed = timed.assign(stage=timed["stage"].fillna("kernel") if "stage" in timed else "kernel",
                         instance=timed["instance"].fillna(0) if "instance" in timed else 0,
                         elements=timed["elements"].fillna(timed["n"]) if "elements" in timed else timed["n"])
    keys = ["task", "stage", "phase"]
    stats = [c for c in timed.columns if c.startswith("stat_") and pd.api.types.is_numeric_dtype(timed[c])]
    extra = [c for c in timed.columns if c.startswith(EXTRA_PREFIXES) and c not in stats]
    firsts = [c for c in (*TASK_COLUMNS, "elements", *extra) if c in timed.columns]
    grouped = timed.groupby(keys, sort=False, dropna=False)
    out = grouped["ms"].agg(reps="count", mean_ms="mean", std_ms="std", median_ms="median", min_ms="min")
    out["std_ms"] = out["std_ms"].fillna(0.0)
    if "bytes_link" not in timed:  # results stored before the host placement existed
        timed = timed.assign(bytes_link=0)
        grouped = timed.groupby(keys, sort=False, dropna=False)
    per_run = grouped[["bytes_read", "bytes_written", "random_accesses", "bytes_link", "calls"]].first()
    out = out.join(per_run).join(grouped[firsts].first())
    if stats:
        per_instance_stats = timed.groupby([*keys, "instance"], sort=False)[stats].first()
        out = out.join(per_instance_stats.groupby(level=keys, sort=False).mean())
    per_instance = timed.groupby([*keys, "instance"], sort=False).agg(median_ms=("ms", "median"),
                                                                      elements=("elements", "first"))
    rate = per_instance["elements"] / (per_instance["median_ms"] / 1e3) / 1e9
    by_task = rate.groupby(level=keys, sort=False)
    out["instances"] = by_task.size()
    out["gelems_hmean"] = by_task.agg(throughput.harmonic_mean)
    out["gelems_min"], out["gelems_median"], out["gelems_max"] = by_task.min(), by_task.median(), by_task.max()
    out = out.reset_index()
    ceilings = {key: out[f"ceiling_{key}"] for key in (throughput.COPY, throughput.GATHER, throughput.CHASE,
                                                       throughput.LINK) if f"ceiling_{key}" in out}
    rates = throughput.rates(out["median_ms"].to_numpy(), (out["bytes_read"] + out["bytes_written"]).to_numpy(),
                             out["random_accesses"].to_numpy(), out["elements"].to_numpy(dtype=float), ceilings,
                             link_bytes=out["bytes_link"].fillna(0).to_numpy())
    for column, values in rates.items():
        out[column] = values
    return out.replace([np.inf, -np.inf], np.nan)


def reduce(results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Write results.parquet and summary.csv into ``results``; returns (rows, summary)."""
    results = Path(results)
    rows = load(results)
    summary = summarize(rows)
    table = pa.Table.from_pandas(rows, preserve_index=False)
    write_atomically(results / RESULTS, lambda p: pq.write_table(table, p))
    write_atomically(results / SUMMARY, lambda p: summary.to_csv(p, index=False))
    return rows, summary
