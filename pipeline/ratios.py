"""What every benchmark's ratio table shares: a shipped sweep's kernel times, as reduce computed them
from its rows (one computation: medians of the timed runs, rates by kernels.throughput), labelled
by kernel variant, each against the variant a ``*.best`` alias stands for, and against floors
computed from the ceilings the worker measured and stamped on the same rows."""

import json
import sys
from pathlib import Path

import pandas as pd

from graphsweep.core.errors import GraphsweepError
from graphsweep.kernels import registry
from graphsweep.pipeline import reduce
from graphsweep.pipeline.figures import variants


def totals(*results) -> pd.DataFrame:
    """The kernel ``total`` rows of the summaries of the sweeps in ``results``, with ``variant``
    (the kernel and its parameters that vary) and ``best`` (the row is ``alias``'s kernel with its
    default parameters) columns."""
    summary = pd.concat([reduce.summarize(reduce.rows_of(r)) for r in results], ignore_index=True)
    total = summary[(summary["stage"] == "kernel") & (summary["phase"] == "total")]
    return total.assign(variant=variants(total))


def mark_best(total: pd.DataFrame, alias: str) -> pd.Series:
    """Whether each row is ``alias`` (``cc.best``): its kernel, run with that kernel's defaults."""
    kernel = registry.get(alias)
    defaults = json.dumps(kernel.resolve_params({}), sort_keys=True)
    return (total["kernel"] == kernel.name) & (total["params"].map(lambda p: json.dumps(json.loads(p), sort_keys=True))
                                               == defaults)


def print_groups(total: pd.DataFrame, alias: str, by: str, extra=lambda row: "") -> dict:
    """One block per ``by`` value (a dataset): each variant's median ms, G elements/s and time over
    ``alias``'s, fastest first, then ``extra(row)``; returns ``alias``'s median ms per group."""
    best = mark_best(total, alias)
    out = {}
    for key, rows in total.groupby(by, sort=False):
        ref = rows[best.loc[rows.index]]["median_ms"]
        out[key] = float(ref.iloc[0]) if len(ref) else float("nan")
        print(f"{key}  (n = {int(rows['n'].iloc[0]):,}, elements = {int(rows['elements'].iloc[0]):,})")
        for _, r in rows.sort_values("median_ms").iterrows():
            flag = "" if r["verified"] else "  NOT VERIFIED"
            print(f"  {r['variant']:<52} {r['median_ms']:10.3f} ms {r['gelems_per_s']:8.3f} G/s "
                  f"{r['median_ms'] / out[key]:7.2f}x {alias}{extra(r)}{flag}")
    return out


def model_floor_ms(row) -> float:
    """The floor of a run's byte model (a summary row): its streamed bytes at the copy ceiling plus
    its random accesses at the gather ceiling, both as measured by the worker that ran it.  Gathers
    into a table that fits the L2 run faster than that ceiling, so a kernel can beat this floor."""
    streamed = (row["bytes_read"] + row["bytes_written"]) / (row["ceiling_copy_gbps"] * 1e9)
    return 1e3 * (streamed + row["random_accesses"] / (row["ceiling_gather_gelems"] * 1e9))


def run_printer(main) -> None:
    """A printer's entry point: a results folder it cannot read (none there, no task results yet, an
    unreadable file) is one line on stderr and exit code 2, never a traceback."""
    try:
        main()
    except (GraphsweepError, FileNotFoundError, NotADirectoryError) as exc:
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
