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

import pandas as pd

from graphsweep.datasets.writer import write_atomically

from . import figures as papers
from . import reduce as reducer
from . import store
from .figures.frame import natural

REPORT = "report.html"


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def figures(summary: pd.DataFrame, rows: pd.DataFrame | None = None) -> list[tuple[str, str, str]]:
    """(id, caption, base64 PNG) of every figure the results support, the report's own included
    (``figures.registry`` declares them all, kernel families' too)."""
    return [(ident, caption, _png(fig)) for ident, caption, fig in papers.figures(summary, rows, report=True)]


def _table(frame: pd.DataFrame, wrap: bool = False) -> str:
    """An HTML table in a container that scrolls sideways; ``wrap``: its text cells may wrap, so
    that a wide table fits the page."""
    classes = ["data", "wrap"] if wrap else "data"
    table = frame.to_html(index=False, border=0, classes=classes, na_rep="", float_format=lambda v: f"{v:.4g}")
    return f"<div class='scroll'>{table}</div>"


def named(summary: pd.DataFrame, plan) -> pd.DataFrame:
    """The summary with ``asked``: the kernel name each task's spec asked for (an alias such as
    ``cc.best``; the kernel itself otherwise), beside ``kernel``, the implementation that ran."""
    if summary.empty or "task" not in summary:
        return summary
    asked = {t.hash: t.asked or t.alias or t.kernel for t in plan.tasks}
    return summary.assign(asked=summary["task"].map(asked).fillna(summary["kernel"]))


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
table.wrap th, table.wrap td { white-space: normal; overflow-wrap: anywhere; }
.failed { color: #a00; }
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
        # The link columns only when a graph was placed in host memory (kernels.placement).
        hosted = "placement" in summary and "link_gbps" in summary and summary["link_gbps"].notna().any()
        link = ("placement", "bytes_link", "link_gbps", "pct_link_ceiling") if hosted else ()
        # Tasks by the kernel name asked for, with the implementation that ran beside it where they differ.
        table = summary.rename(columns={"kernel": "ran", "asked": "kernel"})
        ran = ("ran",) if (table["ran"] != table["kernel"]).any() else ()
        columns = [c for c in ("kernel", *ran, "dataset", "n", "params", "backend", *link[:1], "phase", "reps",
                               "mean_ms", "std_ms", "median_ms", "min_ms", "gbps", "pct_copy_ceiling", *link[1:],
                               "verified") if c in table]
        if "params" in table:
            table = table.assign(params=table["params"].map(compact_params))
        shown, note = _over_ceiling(_sorted(table, [c for c in ("kernel", "dataset", "params") if c in table]),
                                    columns)
        parts += ["<h2 id='summary'>Summary (per task and phase)</h2>", _table(shown[columns], wrap=True)]
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
