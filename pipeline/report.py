"""The report: one self-contained report.html (PNG plots embedded as base64) from a sweep's results.

Figures and tables are whatever ``figures`` declares (``figures.registry``: the papers' figures,
each drawn only when the results hold what it needs, kernel families' own among them, and the
report's overview and per-step figure); the report knows none of them.  Every figure is a
``<figure class="plot" id="fig-...">``; below them the declared tables, then failures, skipped
kernel x dataset pairs, devices and ceilings and the per-task summary, from the same rows.

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

from graphsweep.datasets.writer import write_atomically

from . import figures as papers
from . import reduce as reducer
from . import store
from .figures.frame import families, kernel_names, natural

REPORT = "report.html"


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def figures(summary: pd.DataFrame, rows: pd.DataFrame | None = None) -> list[tuple[str, str, str]]:
    """(id, caption, base64 PNG) of every figure the results support, the report's own included
    (``figures.registry`` declares them all, kernel families' too)."""
    return [(ident, caption, _png(fig)) for ident, caption, fig in papers.figures(summary, rows, report=True)]


def _table(frame: pd.DataFrame) -> str:
    """An HTML table in a container that scrolls sideways."""
    table = frame.to_html(index=False, border=0, classes="data", na_rep="", float_format=lambda v: f"{v:.4g}")
    return f"<div class='scroll'>{table}</div>"


def named(summary: pd.DataFrame, plan) -> pd.DataFrame:
    """The summary with ``asked``: the kernel name each task's spec asked for (an alias such as
    ``cc.best``; the kernel itself otherwise), beside ``kernel``, the implementation that ran."""
    if summary.empty or "task" not in summary:
        return summary
    asked = {t.hash: t.asked or t.alias or t.kernel for t in plan.tasks}
    return summary.assign(asked=summary["task"].map(asked).fillna(summary["kernel"]))


# The per-task summary's columns, (summary column, heading): a phase's times, then its rates (and
# the host link's where a graph was placed in host memory).  summary.csv keeps every column.
TIMES = (("phase", "phase"), ("reps", "reps"), ("median_ms", "median ms"), ("min_ms", "min ms"),
         ("std_ms", "sd ms"), ("gbps", "GB/s"), ("pct_copy_ceiling", "% of copy ceiling"))
LINK = (("link_gb", "GB over the link"), ("link_gbps", "link GB/s"), ("pct_link_ceiling", "% of link ceiling"))


def _cell(value) -> str:
    """A summary cell as text: whole numbers whole, other numbers to 4 significant digits."""
    if isinstance(value, (str, bool, np.bool_)):
        return str(value)
    if pd.isna(value):
        return ""
    return f"{int(value)}" if float(value).is_integer() else f"{value:.4g}"


def _task_name(task: pd.Series, varying: list[str]) -> str:
    """A task's heading row: kernel (as asked), dataset, n, parameters; then those of its backend
    and placement that differ between the sweep's tasks, and a failed verification."""
    verified = task.get("verified")
    parts = [task["kernel"], task.get("dataset"), None if pd.isna(task.get("n")) else f"n = {_cell(task['n'])}",
             task.get("params"), *(f"{c} {task.get(c)}" for c in varying),
             "not verified" if isinstance(verified, (bool, np.bool_)) and not verified else None]
    return " · ".join(html.escape(p) for p in parts if isinstance(p, str) and p)


def summary_table(summary: pd.DataFrame) -> tuple[str, str]:
    """The per-task summary as (HTML, note under it): a heading row per task naming it, then a row
    per phase with its times and rates.  Tasks sorted by kernel (as asked: ``kernel_names``),
    dataset family, n, dataset and parameters, so that a reader goes down a kernel's tasks from
    the smallest input.  Only the phases' numbers have columns (seven; three more for the host
    link), none of them broken across lines: it fits the page, and by its print style a printed one."""
    shown, note = _over_ceiling(summary, [c for c, _ in TIMES + LINK if c in summary])
    stage = shown["stage"].fillna("kernel") if "stage" in shown else pd.Series("kernel", index=shown.index)
    phase = shown["phase"].astype(str)
    table = shown.assign(
        kernel=kernel_names(shown), family=families(shown),
        params=shown["params"].map(compact_params) if "params" in shown else "",
        phase=phase.where(stage == "kernel", phase + " (" + stage + ")"),
        link_gb=shown["bytes_link"] / 1e9 if "bytes_link" in shown else np.nan)
    table = _sorted(table, [c for c in ("kernel", "family", "n", "dataset", "params") if c in table])
    hosted = "link_gbps" in table and table["link_gbps"].notna().any()
    columns = [*TIMES, *(LINK if hosted else ())]
    # backend and placement: in a task's heading where they differ between tasks, else said once
    varying = [c for c in ("backend", "placement") if c in table and table[c].nunique() > 1]
    alike = [f"{c} {table[c].dropna().iloc[0]}" for c in ("backend", "placement")
             if c in table and table[c].nunique() == 1]
    head = "".join(f"<th>{html.escape(heading)}</th>" for _, heading in columns)
    bodies = []
    for _, rows in table.groupby("task", sort=False):
        cells = ["<tr>" + "".join(f"<td>{html.escape(_cell(row.get(c)))}</td>" for c, _ in columns) + "</tr>"
                 for _, row in rows.iterrows()]
        bodies.append(f"<tbody><tr class='task'><th colspan='{len(columns)}'>{_task_name(rows.iloc[0], varying)}"
                      f"</th></tr>{''.join(cells)}</tbody>")
    caption = ("<p class='note'>Each task (kernel as asked, with the one that ran where they differ; dataset, "
               "n, parameters), then its phases, sorted by kernel, dataset family, n and parameters."
               f"{html.escape(' All tasks: ' + ', '.join(alike) + '.') if alike else ''} "
               "summary.csv has every column.</p>")
    body = f"<table class='data summary'><thead><tr>{head}</tr></thead>{''.join(bodies)}</table>"
    return f"{caption}<div class='scroll'>{body}</div>", note


def _sorted(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``frame`` sorted by ``keys`` in natural order (list_n=1024 before list_n=16384), stably: a
    task's phases keep the order they were timed in."""
    return frame.sort_values(keys, key=lambda column: column.map(natural), kind="stable")


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
table.summary td { text-align: right; }
table.summary td:first-child, table.summary thead th:first-child { text-align: left; }
table.summary tr.task th { text-align: left; white-space: normal; padding-top: 8px; border-bottom: 1px solid #888; }
.failed { color: #a00; }
@media print {
  body { margin: 0; max-width: none; }
  div.scroll { overflow: visible; }
  table.data { font-size: 7pt; }
  table.data tr, table.summary tbody, figure.plot { break-inside: avoid; }
}
"""


def render(results, rows: pd.DataFrame, summary: pd.DataFrame) -> str:
    """The report's HTML for the sweep in ``results`` from its rows and summary."""
    state = store.status(results)
    plan = state["plan"]
    summary = named(summary, plan)
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
        table, note = summary_table(summary)
        parts += ["<h2 id='summary'>Summary (per task and phase)</h2>", table]
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
