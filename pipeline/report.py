"""The report: one self-contained report.html (PNG plots embedded as base64) from a sweep's results.

Figures come from ``figures.py`` (the papers' figures, each drawn only when the results hold what
it needs: time and time per element vs size, G edges/s, per-phase time and GB/s, speed-up vs
blocks, iterations per dataset family, the inflection, sub-list statistics, parameter sweeps),
plus two overviews drawn here (each phase's time, and its GB/s against the copy ceiling, at each
kernel's largest size) and the per-step figure read from the rows.  Every figure is a
``<figure class="plot" id="fig-...">``; the tables below them (the papers' tables, graph builds,
failures, skipped kernel x dataset pairs, devices and ceilings, the per-task summary) come from
the same rows.

``report(RESULTS)`` reduces the task files first; a results directory without them (what
docs/results/<sweep>/ holds: plan.json, results.parquet, summary.csv) is rendered from
results.parquet, so a published sweep can be re-rendered anywhere.
"""

import base64
import html
import io
import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from graphsweep.datasets.writer import write_atomically

from . import figures as papers
from .figures import phase_colours
from . import reduce as reducer
from . import store

REPORT = "report.html"


def _variant(summary: pd.DataFrame) -> pd.Series:
    """A label per row: the kernel, plus those of its parameters that vary in these results."""
    params = summary["params"].map(json.loads)
    labels = []
    for kernel, p in zip(summary["kernel"], params):
        same = params[summary["kernel"] == kernel]
        varying = [k for k in p if len({json.dumps(q.get(k)) for q in same}) > 1]
        labels.append(kernel + "".join(f" {k}={p[k]}" for k in varying))
    return pd.Series(labels, index=summary.index)


def _dataset_type(summary: pd.DataFrame) -> pd.Series:
    return summary["generator"].fillna(summary["dataset"]).astype(str)


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def _largest(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of each (variant, type) at its largest n."""
    biggest = summary.groupby(["variant", "type"])["n"].transform("max")
    return summary[summary["n"] == biggest]


def _phases(summary: pd.DataFrame):
    rows = _largest(summary[summary["phase"] != "total"])
    if rows.empty:
        return None
    table = rows.pivot_table(index=rows["variant"] + " · " + rows["type"] + " n=" + rows["n"].astype(str), columns="phase",
                             values="median_ms", aggfunc="mean", sort=False)
    # Horizontal bars: labels of any length stay whole and readable (rotated ones were cut off).
    fig = Figure(figsize=(9, 1.6 + 0.3 * len(table)))
    ax = fig.add_subplot()
    ax.set_title("Time per phase at the largest n")
    ax.set_xlabel("ms per run (median)")
    ax.grid(True, axis="x", alpha=0.3)
    colours = phase_colours(table.columns)
    left = np.zeros(len(table))
    for phase in table.columns:
        values = table[phase].fillna(0).to_numpy()
        ax.barh(table.index, values, left=left, label=phase, color=colours[phase])
        left += values
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7, ncols=max(1, -(-len(table.columns) // 12)), loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def _gbps(summary: pd.DataFrame):
    rows = _largest(summary[summary["gbps"].notna() & (summary["gbps"] > 0)])
    if rows.empty:
        return None
    labels = rows["variant"] + " · " + rows["type"] + " · " + rows["phase"].astype(str)
    # Horizontal bars: one readable label per (kernel, dataset type, phase), however many there are.
    fig = Figure(figsize=(9, 1.2 + 0.22 * len(rows)))
    ax = fig.add_subplot()
    ax.set_title("Memory throughput per phase at the largest n")
    ax.set_xlabel("GB/s (bytes of the model / median time)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.barh(labels, rows["gbps"], color="tab:blue")
    ax.invert_yaxis()
    if "ceiling_copy_gbps" in rows and rows["ceiling_copy_gbps"].notna().any():
        for device, ceiling in rows.groupby("device")["ceiling_copy_gbps"].max().items():
            ax.axvline(ceiling, color="tab:red", linestyle="--", label=f"copy ceiling, {device}: {ceiling:.0f} GB/s")
        ax.legend(fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    return fig


OVERVIEW_MAX = 16


def figures(summary: pd.DataFrame, rows: pd.DataFrame | None = None) -> list[tuple[str, str, str]]:
    """(id, caption, base64 PNG) of every figure the results support: figures.py's, with the two
    overviews of this module after the time-per-element one, and the per-step figure (from the rows)."""
    kernel = summary[summary["stage"].fillna("kernel") == "kernel"] if "stage" in summary else summary
    # times and rates as reduce computed them (the median of the timed runs)
    overview = kernel.assign(variant=_variant(kernel), type=_dataset_type(kernel)) if not kernel.empty else kernel
    made = papers.figures(summary)
    at = next((i + 1 for i, (ident, _, _) in enumerate(made) if ident == "fig-time-per-n"), min(2, len(made)))
    extra = []
    # The overviews have a bar (group) per variant and dataset type: past OVERVIEW_MAX of them (a
    # sweep over blocks or p) they stop being an overview, and the swept figures say it better.
    if not overview.empty and _largest(overview).groupby(["variant", "type"]).ngroups <= OVERVIEW_MAX:
        extra = [("fig-phases", "Median time of each phase, stacked, at each kernel's largest size.",
                  _phases(overview)),
                 ("fig-gbps", "GB/s of each phase (bytes of its byte model over its median time) at each kernel's "
                              "largest size, against the device's measured copy ceiling.", _gbps(overview))]
    made = made[:at] + [e for e in extra if e[2] is not None] + made[at:]
    steps = papers.fig_steps(rows) if rows is not None else None
    if steps is not None:
        made.append(("fig-steps", "Per step (iteration, BFS level): time and frontier size at each family's "
                                  "largest size, direction changes dotted.", steps))
    return [(ident, caption, _png(fig)) for ident, caption, fig in made]


def _table(frame: pd.DataFrame) -> str:
    table = frame.to_html(index=False, border=0, classes="data", na_rep="", float_format=lambda v: f"{v:.4g}")
    return f"<div class='scroll'>{table}</div>"


def compact_params(text) -> str:
    """'packing=64 threads=256' from a params JSON object, without the unset (null) ones."""
    try:
        params = json.loads(text)
    except (TypeError, ValueError):
        return "" if text is None or text != text else str(text)
    return " ".join(f"{k}={v}" for k, v in params.items() if v is not None)


def _over_ceiling(summary: pd.DataFrame, columns: list[str]) -> tuple[pd.DataFrame, str]:
    """The summary with % of ceiling values above 100 marked '*', and the note that explains them."""
    pct = [c for c in columns if c.startswith("pct_")]
    over = pd.concat([summary[c] > 100 for c in pct], axis=1).any(axis=1) if pct else pd.Series(False, summary.index)
    if not over.any():
        return summary, ""
    shown = summary.copy()
    for c in pct:
        shown[c] = [f"{v:.4g}*" if v > 100 else ("" if pd.isna(v) else f"{v:.4g}") for v in summary[c]]
    table_bytes = summary["ceiling_table_bytes"].max() if "ceiling_table_bytes" in summary else float("nan")
    table = f" a table of {table_bytes / 2**20:.0f} MiB" if table_bytes == table_bytes else " a table"
    note = (f"<p class='note'>* {int(over.sum())} phases run above 100% of a ceiling.  Each ceiling is "
            f"measured on{table} that no cache holds; a phase whose input fits in a cache (the GPU's L2, "
            f"the CPU's caches) can beat it.  Those rates show the kernel on cache-resident data and "
            f"are not comparable with the rates of large inputs.</p>")
    return shown, note


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
figure.plot { margin: 1.5em 0; } figure.plot img { max-width: 100%; }
figcaption, p.note { color: #555; font-size: 0.9em; }
div.scroll { overflow-x: auto; }
table.data { border-collapse: collapse; font-size: 0.8em; }
table.data td, table.data th { padding: 2px 6px; border-bottom: 1px solid #ddd; white-space: nowrap; }
.failed { color: #a00; }
"""


def render(results, rows: pd.DataFrame, summary: pd.DataFrame) -> str:
    """The report's HTML for the sweep in ``results`` from its rows and summary."""
    state = store.status(results)
    plan = state["plan"]
    title = f"graphsweep report: {plan.name}"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p>{len(plan.tasks)} tasks: {len(state['done'])} done, "
             f"<span class='{'failed' if state['failed'] else 'ok'}'>{len(state['failed'])} failed</span>, "
             f"{len(state['pending'])} pending"
             f"{' (stopped after a failure)' if state['stopped'] else ''}. "
             f"Backend {html.escape(plan.backend)}, {plan.reps} timed reps after {plan.warmup} warm-up, "
             f"verify {str(plan.verify).lower()}. Generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.</p>"]
    if not summary.empty:
        for ident, caption, png in figures(summary, rows):
            parts.append(f"<figure class='plot' id='{ident}'><img alt='{html.escape(caption)}' "
                         f"src='data:image/png;base64,{png}'><figcaption>{html.escape(caption)}</figcaption></figure>")
        for ident, caption, table in papers.tables(summary):
            parts += [f"<h2 id='{ident}'>{html.escape(caption)}</h2>", _table(table)]
    if state["failed"]:
        failed = pd.DataFrame([{"task": h, "kernel": t.label, "error": e or "verification failed"}
                               for h, (t, e) in state["failed"].items()])
        parts += ["<h2 class='failed'>Failed tasks</h2>", _table(failed)]
    if plan.skipped:
        skipped = pd.DataFrame(plan.skipped, columns=["dataset", "kernel", "why"])
        parts += [f"<h2 id='skipped'>Skipped kernel x dataset pairs ({len(skipped)})</h2>", _table(skipped)]
    ceilings = [c for c in rows.columns if c.startswith("ceiling_")]
    devices = rows.dropna(subset=["device"]).groupby(["device", "backend"], as_index=False)[ceilings].first() \
        if "device" in rows and rows["device"].notna().any() else pd.DataFrame()
    if not devices.empty:
        parts += ["<h2>Devices and measured ceilings</h2>", _table(devices)]
    if not summary.empty:
        # The link columns only when a graph was placed in host memory (kernels.placement).
        hosted = "placement" in summary and "link_gbps" in summary and summary["link_gbps"].notna().any()
        link = ("placement", "bytes_link", "link_gbps", "pct_link_ceiling") if hosted else ()
        columns = [c for c in ("dataset", "n", "kernel", "params", "backend", *link[:1], "phase", "reps", "mean_ms",
                               "std_ms", "median_ms", "min_ms", "gbps", "pct_copy_ceiling", *link[1:], "verified")
                   if c in summary]
        shown, note = _over_ceiling(summary.assign(params=summary["params"].map(compact_params))
                                    if "params" in summary else summary, columns)
        parts += ["<h2>Summary (per task and phase)</h2>", _table(shown[columns])]
        if note:
            parts.append(note)
    parts.append("</body></html>")
    return "\n".join(parts)


def report(results) -> Path:
    """Reduce the sweep in ``results`` and write its report.html; returns the report's path.  A
    directory without task files but with results.parquet (a published sweep) is rendered from it."""
    results = Path(results)
    if not store.finished(results) and (results / reducer.RESULTS).is_file():
        rows = reducer.rows_of(results)
        page = render(results, rows, reducer.summarize(rows))
    else:
        page = render(results, *reducer.reduce(results))
    return write_atomically(results / REPORT, lambda tmp: tmp.write_text(page))
