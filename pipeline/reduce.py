"""Reduce: every task file of a sweep into one table, and its per-(task, phase) summary.

``reduce(RESULTS)`` writes ``RESULTS/results.parquet`` (all rows, failed tasks included) and
``RESULTS/summary.csv``: per task and phase the mean, std (sample), median and min of ``ms`` over
the timed reps (the papers report the mean of their runs with std bars), with GB/s and the share of
the device's copy ceiling computed from the mean time.  Both are derived from the rows alone.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from graphsweep.datasets.errors import GraphsweepError
from graphsweep.datasets.writer import write_atomically

from . import store

RESULTS = "results.parquet"
SUMMARY = "summary.csv"
# Per task, not per rep: carried into the summary from the task's first row.
TASK_COLUMNS = ("sweep", "dataset", "generator", "dataset_params", "seed", "n", "m", "kernel",
                "params", "backend", "device", "verified", "error")
EXTRA_PREFIXES = ("param_", "data_", "stat_", "ceiling_")


def load(results) -> pd.DataFrame:
    """All rows of all stored tasks of the sweep in ``results``."""
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


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, phase) of the timed rows: ms statistics over reps and throughput."""
    timed = rows[rows["phase"].notna()]
    if timed.empty:
        return pd.DataFrame(columns=["task", "phase", "reps", "mean_ms", "std_ms", "median_ms", "min_ms"])
    extra = [c for c in timed.columns if c.startswith(EXTRA_PREFIXES)]
    firsts = [c for c in (*TASK_COLUMNS, *extra) if c in timed.columns]
    grouped = timed.groupby(["task", "phase"], sort=False, dropna=False)
    out = grouped["ms"].agg(reps="count", mean_ms="mean", std_ms="std", median_ms="median", min_ms="min")
    out["std_ms"] = out["std_ms"].fillna(0.0)
    per_run = grouped[["bytes_read", "bytes_written", "random_accesses", "calls"]].first()
    out = out.join(per_run).join(grouped[firsts].first()).reset_index()
    seconds = out["mean_ms"] / 1e3
    out["gbps"] = (out["bytes_read"] + out["bytes_written"]) / seconds / 1e9
    out["random_per_s"] = out["random_accesses"].where(out["random_accesses"] > 0) / seconds
    if "ceiling_copy_gbps" in out:
        out["pct_copy_ceiling"] = 100 * out["gbps"] / out["ceiling_copy_gbps"]
    if "ceiling_gather_gelems" in out:
        out["pct_gather_ceiling"] = 100 * out["random_per_s"] / (out["ceiling_gather_gelems"] * 1e9)
    out["ns_per_element"] = out["mean_ms"] * 1e6 / out["n"]
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
