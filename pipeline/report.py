"""The report: one self-contained report.html (PNG plots embedded as base64) from a sweep's summary.

Figures, each drawn only when the results hold what it needs (a sweep of one size has no
time-vs-n curve): time vs n with std bars, time per element vs n, per-phase time at the largest
n, GB/s per phase against the device's copy ceiling, speed-up vs thread blocks, and kernel
iterations per dataset type.  Every figure is an ``<figure class="plot" id="fig-...">``; the
tables below them (failures, devices and ceilings, the per-task summary) come from the same rows.
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
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def _axes(title: str, xlabel: str, ylabel: str, wide: bool = False):
    fig = Figure(figsize=(9 if wide else 7, 4.5))
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def _vs_n(total: pd.DataFrame, column: str, title: str, ylabel: str, errors: bool):
    curves = total.groupby(["variant", "type"])
    if total["n"].nunique() < 2:
        return None
    fig, ax = _axes(title, "n (list or graph size)", ylabel)
    for (variant, kind), rows in curves:
        rows = rows.groupby("n")[[column, "std_ms"]].mean().sort_index()
        yerr = rows["std_ms"] if errors else None
        ax.errorbar(rows.index, rows[column], yerr=yerr, marker="o", capsize=3, label=f"{variant} · {kind}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    return fig


def _largest(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of each (variant, type) at its largest n."""
    biggest = summary.groupby(["variant", "type"])["n"].transform("max")
    return summary[summary["n"] == biggest]


def _phases(summary: pd.DataFrame):
    rows = _largest(summary[summary["phase"] != "total"])
    if rows.empty:
        return None
    table = rows.pivot_table(index=rows["variant"] + " · " + rows["type"] + " n=" + rows["n"].astype(str), columns="phase",
                             values="mean_ms", aggfunc="mean", sort=False)
    fig, ax = _axes("Time per phase at the largest n", "", "mean ms per run", wide=True)
    bottom = np.zeros(len(table))
    for phase in table.columns:
        values = table[phase].fillna(0).to_numpy()
        ax.bar(table.index, values, bottom=bottom, label=phase)
        bottom += values
    ax.tick_params(axis="x", labelrotation=30, labelsize=7)
    ax.legend(fontsize=7, ncols=2)
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
    ax.set_xlabel("GB/s (bytes of the model / mean time)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.barh(labels, rows["gbps"], color="tab:blue")
    ax.invert_yaxis()
    if "ceiling_copy_gbps" in rows and rows["ceiling_copy_gbps"].notna().any():
        for device, ceiling in rows.groupby("device")["ceiling_copy_gbps"].max().items():
            ax.axvline(ceiling, color="tab:red", linestyle="--", label=f"copy ceiling, {device}: {ceiling:.0f} GB/s")
        ax.legend(fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    return fig


def _speedup(summary: pd.DataFrame):
    if "param_blocks" not in summary:
        return None
    rows = summary[(summary["phase"] == "total") & summary["param_blocks"].notna()].copy()
    rows["blocks"] = rows["param_blocks"].astype(float)
    swept = rows.groupby(["kernel", "dataset"])["blocks"].transform("nunique") > 1
    rows = rows[swept]
    if rows.empty:
        return None
    fig, ax = _axes("Speed-up vs thread blocks (over the same kernel at its fewest blocks)",
                    "thread blocks", "speed-up")
    for (kernel, dataset), curve in rows.groupby(["kernel", "dataset"]):
        curve = curve.groupby("blocks")["mean_ms"].mean().sort_index()
        ax.plot(curve.index, curve.iloc[0] / curve, marker="o", label=f"{kernel} · {dataset}")
    ax.set_xscale("log", base=2)
    ax.legend(fontsize=7)
    return fig


def _iterations(summary: pd.DataFrame):
    stats = [c for c in summary.columns if c.startswith("stat_") and ("iteration" in c or "round" in c)]
    rows = _largest(summary[summary["phase"] == "total"])
    if not stats or rows[stats].isna().all().all():
        return None
    fig, ax = _axes("Iterations per dataset type (largest n)", "", "iterations", wide=True)
    table = rows.pivot_table(index="type", columns="variant", values=stats[0], aggfunc="mean")
    width = 0.8 / max(1, len(table.columns))
    x = np.arange(len(table.index))
    for i, variant in enumerate(table.columns):
        ax.bar(x + i * width, table[variant].fillna(0), width, label=variant)
    ax.set_xticks(x + width * (len(table.columns) - 1) / 2, table.index)
    ax.set_ylabel(stats[0].removeprefix("stat_"))
    ax.legend(fontsize=7)
    return fig


def figures(summary: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(id, caption, base64 PNG) of every figure the summary supports."""
    summary = summary.assign(variant=_variant(summary), type=_dataset_type(summary))
    total = summary[summary["phase"] == "total"]
    makers = [
        ("fig-time-vs-n", "Time vs n: mean of the timed reps, bars one std.",
         lambda: _vs_n(total, "mean_ms", "Time vs n", "ms (mean ± std)", True)),
        ("fig-time-per-n", "Time per element vs n (ns per list node or edge).",
         lambda: _vs_n(total, "ns_per_element", "Time per element vs n", "ns per element", False)),
        ("fig-phases", "Mean time of each phase, stacked, at each kernel's largest n.", lambda: _phases(summary)),
        ("fig-gbps", "GB/s of each phase (bytes of its byte model over its mean time) against the "
                     "device's measured copy ceiling.", lambda: _gbps(summary)),
        ("fig-speedup-blocks", "Speed-up vs thread blocks.", lambda: _speedup(summary)),
        ("fig-iterations", "Kernel iterations per dataset type.", lambda: _iterations(summary)),
    ]
    out = []
    for ident, caption, make in makers:
        fig = make()
        if fig is not None:
            out.append((ident, caption, _png(fig)))
    return out


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, border=0, classes="data", na_rep="", float_format=lambda v: f"{v:.4g}")


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
figure.plot { margin: 1.5em 0; } figure.plot img { max-width: 100%; }
figcaption { color: #555; font-size: 0.9em; }
table.data { border-collapse: collapse; font-size: 0.8em; } table.data td, table.data th { padding: 2px 6px; border-bottom: 1px solid #ddd; }
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
        for ident, caption, png in figures(summary):
            parts.append(f"<figure class='plot' id='{ident}'><img alt='{html.escape(caption)}' "
                         f"src='data:image/png;base64,{png}'><figcaption>{html.escape(caption)}</figcaption></figure>")
    if state["failed"]:
        failed = pd.DataFrame([{"task": h, "kernel": t.label, "error": e} for h, (t, e) in state["failed"].items()])
        parts += ["<h2 class='failed'>Failed tasks</h2>", _table(failed)]
    ceilings = [c for c in rows.columns if c.startswith("ceiling_")]
    devices = rows.dropna(subset=["device"]).groupby(["device", "backend"], as_index=False)[ceilings].first() \
        if "device" in rows and rows["device"].notna().any() else pd.DataFrame()
    if not devices.empty:
        parts += ["<h2>Devices and measured ceilings</h2>", _table(devices)]
    if not summary.empty:
        columns = [c for c in ("dataset", "n", "kernel", "params", "backend", "phase", "reps", "mean_ms",
                               "std_ms", "median_ms", "min_ms", "gbps", "pct_copy_ceiling", "verified")
                   if c in summary]
        parts += ["<h2>Summary (per task and phase)</h2>", _table(summary[columns])]
    parts.append("</body></html>")
    return "\n".join(parts)


def report(results) -> Path:
    """Reduce the sweep in ``results`` and write its report.html; returns the report's path."""
    results = Path(results)
    page = render(results, *reducer.reduce(results))
    return write_atomically(results / REPORT, lambda tmp: tmp.write_text(page))
