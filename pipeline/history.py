"""The runs of a sweep over time: the results folders under one root (as a nightly cron job makes
them, ``results/nightly-DATE``), and the results folders there are at all.

``runs(root)``: every results folder under ``root`` (``root`` itself when it holds a plan.json,
else its subfolders that do), oldest first, each with when it ran (its first run's id, else plan.json's
time), its sweep, how many tasks are done, failed and pending, and a headline figure: the
geometric mean of its tasks' median kernel times (one number that moves when kernels slow down
or speed up; compare runs of the same sweep).  ``page(root)`` writes ``root/history.html``:
that table, and for each kernel its median time per (dataset, params) across the runs.
"""

import html
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from graphsweep.datasets.errors import GraphsweepError
from graphsweep.datasets.writer import write_atomically

from . import compare, store
from .figures import phase_colours
from .report import STYLE, _png, _table, compact_params

HISTORY = "history.html"
# Lines per kernel's plot: beyond this many (dataset, params) series, the slowest are kept.
MAX_SERIES = 12


@dataclass
class Run:
    path: Path
    when: datetime
    sweep: str
    tasks: int
    done: int
    failed: int
    pending: int
    in_use: str | None
    times: dict              # (kernel, dataset, params) -> median kernel ms (failed tasks left out)

    @property
    def state(self) -> str:
        if self.in_use:
            return "running"
        return "failed" if self.failed else "pending" if self.pending else "done"

    @property
    def headline_ms(self) -> float:
        """Geometric mean of the median kernel times of its tasks (nan without any)."""
        values = np.array(list(self.times.values()), dtype=float)
        return float(np.exp(np.log(values).mean())) if values.size else float("nan")


def folders(root, depth: int = 1) -> list[Path]:
    """The results folders at ``root`` or up to ``depth`` levels below it (not inside another)."""
    root = Path(root)
    if not root.is_dir():
        raise GraphsweepError(f"{root}: not a folder")
    if (root / store.PLAN).is_file():
        return [root]
    if depth == 0:
        return []
    return [found for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
            for found in folders(sub, depth - 1)]


def when(results: Path) -> datetime:
    """When the sweep in ``results`` first ran: its first run's id, else plan.json's time."""
    ids = sorted(p.stem for p in (results / store.LOGS).glob("*.log"))
    if ids:
        try:
            return datetime.strptime(ids[0].split("-")[0], "%Y%m%dT%H%M%S")
        except ValueError:
            pass  # a log not named by run id: fall back to the plan's time
    return datetime.fromtimestamp((results / store.PLAN).stat().st_mtime)


def read_run(results: Path, *, times: bool = True) -> Run:
    state = store.status(results)
    medians = {}
    if times and (state["done"] or state["failed"]):
        medians = {k: float(np.median(v)) for k, v in compare.kernel_times(results).items() if v is not None}
    return Run(results, when(results), state["plan"].name, len(state["plan"].tasks), len(state["done"]),
               len(state["failed"]), len(state["pending"]), store.lock_holder(results), medians)


def runs(root, *, depth: int = 1, times: bool = True) -> list[Run]:
    """The runs at or under ``root`` (``depth`` levels), oldest first (``times``: read each one's
    kernel times too)."""
    return sorted((read_run(p, times=times) for p in folders(root, depth)), key=lambda r: (r.when, str(r.path)))


def _figure(kernel: str, history: list[Run]) -> Figure | None:
    series = {}
    for index, run in enumerate(history):
        for (name, dataset, params), ms in run.times.items():
            if name == kernel:
                series.setdefault((dataset, params), []).append((index, ms))
    if not any(len(points) > 1 for points in series.values()):
        return None
    kept = sorted(series.items(), key=lambda item: -max(ms for _, ms in item[1]))[:MAX_SERIES]
    fig = Figure(figsize=(9, 4.2))
    ax = fig.add_subplot()
    labels = [f"{dataset} {compact_params(params)}".strip() for (dataset, params), _ in kept]
    colours = phase_colours(labels)  # never the same colour twice
    for label, (_, points) in zip(labels, kept):
        x, y = zip(*points)
        ax.plot(x, y, marker="o", label=label, color=colours[label])
    ax.set_yscale("log")
    ax.set_xticks(range(len(history)), [f"{r.path.name}\n{r.when:%Y-%m-%d %H:%M}" for r in history],
                  rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("median kernel time (ms)")
    ax.set_title(f"{kernel}: median kernel time per run"
                 + (f" ({MAX_SERIES} slowest of {len(series)} series)" if len(series) > MAX_SERIES else ""),
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def table(history: list[Run]) -> pd.DataFrame:
    return pd.DataFrame([{"when": f"{r.when:%Y-%m-%d %H:%M}", "results": r.path.name, "sweep": r.sweep,
                          "tasks": r.tasks, "done": r.done, "failed": r.failed, "pending": r.pending,
                          "geomean kernel ms": r.headline_ms} for r in history])


def page(root, history: list[Run]) -> Path:
    """Write ``root/history.html`` for ``history``; returns its path."""
    root = Path(root)
    title = f"graphsweep history: {root.resolve().name}"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p>{len(history)} runs under {html.escape(str(root))}; 'geomean kernel ms' is the geometric mean "
             "of each run's median kernel times (compare runs of the same sweep).</p>", _table(table(history))]
    kernels = sorted({key[0] for run in history for key in run.times})
    for kernel in kernels:
        fig = _figure(kernel, history)
        if fig is not None:
            caption = f"{kernel}: median kernel time of each (dataset, params) across the runs"
            parts.append(f"<figure class='plot'><img alt='{html.escape(caption)}' src='data:image/png;base64,"
                         f"{_png(fig)}'><figcaption>{html.escape(caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return write_atomically(root / HISTORY, lambda tmp: tmp.write_text("\n".join(parts)))
