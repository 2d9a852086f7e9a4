"""The papers' figures and tables, drawn from a sweep's summary (``reduce.summarize``) alone.

Times are the median of each task's timed runs and rates are computed from it, by reduce
(``reduce.summarize``, kernels.throughput): the figures take the summary's columns as they are.  Each ``fig_*``
function takes the summary DataFrame and returns a matplotlib ``Figure``, or
None when the summary does not hold what the figure needs (one list size has no time-vs-n
curve; a sweep without ``blocks`` has no speed-up curve).  Each ``table_*`` returns a DataFrame
or None the same way.  ``figures(summary)`` and ``tables(summary)`` give every one the summary
supports, as (id, caption, object), for the report; ``graphsweep report RESULTS --figures DIR``
writes them as PNG and Markdown (what docs/results/ holds).

Generic figures cover any kernel and parameter:

- time, time per element and G elements/s (GTEPS) against the list or graph size, one curve
  per kernel variant and dataset family (002 Figs 5.1-5.2, 000 Figs 2-3, 001 Figs 4-5);
- time (or speed-up) against any swept numeric parameter — a kernel's (``blocks``, ``p``,
  ``segments``, ``delta``) or a dataset's (``degree``, ``k``) — and grouped bars for categorical
  ones (002 Figs 5.3-5.4 and 6.4, 004 Fig. 6, 001 Fig. 7);
- the time ratio of a two-valued parameter against size, with its crossings (000 Fig. 3: 48- vs
  64-bit packing);
- per-phase time, GB/s against the measured copy ceiling, and per-phase speed-up (002 Figs 5.4,
  5.5, 5.8);
- iterations per dataset family and time per iteration per phase (002 Table 6.1, Figs 6.3/6.5;
  000 Fig. 6), and the speed-up of every variant over a problem's baseline kernel (004 Fig. 5).

Experiment-specific ones: the inflection (ns per node of the whole run and of its list walk
against n, with where the walk's random working set outgrows the L2; 002 §5.2.6), sub-list
statistics against the number of sub-lists (003 §4.2) and 000 Table 3 (random vs even
splitters).

Words used below: a *variant* is a kernel plus those of its parameters that vary in the
results (``listrank.random-splitter packing=48``); a *family* is a dataset generator plus those
of its parameters that vary and do not set its size (``tree k=5``, ``uniform degree=6``).
"""

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from graphsweep.datasets.errors import GraphsweepError
from graphsweep.kernels import registry

SIZE_KEYS = ("n", "m", "scale")                    # dataset parameters that set its size, not its kind
QUIET = {"param_seed", "data_seed", "data_weights", "param_root"}   # never an axis of their own
ITERATION_STATS = ("stat_iterations", "stat_levels")
MAX_PANELS = 6


# What a figure needs to know of a kernel, the kernel declares (contract.Kernel: walk_phase,
# walk_bytes; contract.Problem: baseline); a kernel not installed here declares nothing.

def _kernel(name: str):
    try:
        return registry.get(name)
    except GraphsweepError:
        return None


def _walk_phase(kernel: str) -> str | None:
    k = _kernel(kernel)
    return k.walk_phase if k is not None else None


def _is_walk(rows: pd.DataFrame) -> pd.Series:
    """Whether each row is its kernel's list walk (RS3, HJ2, ...)."""
    return rows["phase"] == rows["kernel"].astype(str).map(_walk_phase)


def _baselines(kernels) -> list[str]:
    """The baseline kernel of each problem of ``kernels``."""
    found = (_kernel(str(name)) for name in kernels)
    return sorted({k.problem.baseline for k in found if k is not None and k.problem.baseline})


# --- preparation -----------------------------------------------------------------------------

def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "default"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _varying(frame: pd.DataFrame, columns) -> list[str]:
    """The columns that take two or more values in ``frame`` (unset, i.e. the default, counts as one)."""
    return [c for c in columns if c in frame and frame[c].nunique(dropna=False) > 1]


def variants(summary: pd.DataFrame, exclude=()) -> pd.Series:
    """A label per row: the kernel and its parameters that vary among that kernel's rows."""
    params = [c for c in summary.columns if c.startswith("param_") and c not in exclude and c not in QUIET]
    labels = pd.Series(summary["kernel"].astype(str), index=summary.index)
    for kernel, rows in summary.groupby("kernel", sort=False):
        for c in _varying(rows, params):
            labels[rows.index] += rows[c].map(lambda v, c=c: f" {c[6:]}={_fmt(v)}")
    return labels


def families(summary: pd.DataFrame, exclude=()) -> pd.Series:
    """A label per row: the dataset's generator and its varying parameters that do not set its size."""
    data = [c for c in summary.columns if c.startswith("data_") and c[5:] not in SIZE_KEYS
            and c not in exclude and c not in QUIET]
    generator = summary["generator"] if "generator" in summary else pd.Series(np.nan, index=summary.index)
    labels = generator.fillna(summary["dataset"]).astype(str)
    for gen, rows in summary.groupby(labels, sort=False):
        for c in _varying(rows, data):
            labels[rows.index] += rows[c].map(lambda v, c=c: f" {c[5:]}={_fmt(v)}")
    return labels


def prepare(summary: pd.DataFrame, exclude=()) -> pd.DataFrame:
    """The kernel rows that timed something, with ``variant`` and ``family`` labels."""
    s = summary[summary["phase"].notna()].copy()
    if "stage" in s:
        s = s[s["stage"].fillna("kernel") == "kernel"]
    if s.empty:
        return s
    s["variant"] = variants(s, exclude)
    s["family"] = families(s, exclude)
    s["ms"] = s["median_ms"]    # reduce's time of record (its rates come from it too)
    # The size a curve runs over: input edges for problems that count edges (CC, BFS, SSSP: their
    # rates are G edges/s), else n (list nodes; APSP's vertices).
    s["size"], s["by_edges"] = s["n"], False
    if "m" in s and "elements" in s:
        m = pd.to_numeric(s["m"], errors="coerce")
        s["by_edges"] = m.notna() & (s["elements"] == m)
        s["size"] = m.where(s["by_edges"], s["n"])
    return s


def _size_label(rows: pd.DataFrame) -> str:
    edges, other = rows["by_edges"].any(), (~rows["by_edges"]).any()
    return " or ".join([*(["n (list nodes or vertices)"] if other else []), *(["m (input edges)"] if edges else [])])


def _totals(summary: pd.DataFrame, exclude=()) -> pd.DataFrame:
    s = prepare(summary, exclude)
    return s[s["phase"] == "total"] if not s.empty else s


def _figure(title: str, xlabel: str, ylabel: str, width: float = 7.5, height: float = 4.6):
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def _panels(count: int, title: str, width: float = 11.0):
    """A figure of ``count`` subplots (at most MAX_PANELS), two per row."""
    count = min(count, MAX_PANELS)
    cols = 1 if count == 1 else 2
    rows = -(-count // cols)
    fig = Figure(figsize=(width if cols > 1 else 7.5, 3.6 * rows + 0.6))
    fig.suptitle(title, fontsize=10)
    axes = [fig.add_subplot(rows, cols, i + 1) for i in range(count)]
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    return fig, axes


def _legend(ax, **kw):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, **kw)


def _log2x(ax):
    ax.set_xscale("log", base=2)


def _ceiling(summary: pd.DataFrame, key: str):
    column = f"ceiling_{key}"
    if column in summary and summary[column].notna().any():
        return float(summary[column].dropna().max())
    return None


def natural(text) -> tuple:
    """A sort key that orders numbers inside labels by value: 'tree k=2' before 'tree k=10'."""
    return tuple(float(t) if i % 2 else t for i, t in enumerate(re.split(r"(\d+(?:\.\d+)?)", str(text))))


def _curves(frame: pd.DataFrame, keys, x: str, min_points: int = 2):
    """(key, rows sorted by x, averaged per x) of each group with at least ``min_points`` x values,
    in natural order of the keys."""
    out = []
    for key, rows in frame.groupby(keys, sort=False):
        if rows[x].nunique() >= min_points:
            out.append((key, rows.groupby(x).mean(numeric_only=True).sort_index()))
    return sorted(out, key=lambda kv: natural(" ".join(map(str, kv[0])) if isinstance(kv[0], tuple) else kv[0]))


# --- against size -----------------------------------------------------------------------------

def _variant_colours(variants_) -> dict:
    names = list(dict.fromkeys(variants_))
    palette = colormaps["tab10"].colors if len(names) <= 10 else colormaps["tab20"].colors
    return {v: palette[i % len(palette)] for i, v in enumerate(names)}


def _family_panels(curves, title: str):
    """A panel per dataset family (at most MAX_PANELS) for ``curves`` keyed (variant, family), one
    colour per variant across panels, the legend below the panels."""
    fams = list(dict.fromkeys(f for (_, f), _ in curves))[:MAX_PANELS]
    fig, axes = _panels(len(fams), title)
    colours = _variant_colours(v for (v, _), _ in curves)
    return fig, dict(zip(fams, axes)), colours


def _legend_below(fig, axes):
    handles, names = {}, []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                names.append(lab)
    if names:
        fig.legend([handles[n] for n in names], names, loc="lower center", ncols=min(3, len(names)), fontsize=7,
                   bbox_to_anchor=(0.5, 0.0))
        rows = -(-len(names) // 3)
        fig.set_size_inches(fig.get_size_inches()[0], fig.get_size_inches()[1] + 0.22 * rows)
        fig.tight_layout(rect=(0, 0.05 + 0.035 * rows, 1, 0.97))


def fig_time_vs_size(summary: pd.DataFrame):
    """Time (the median of the timed runs) against size — n for lists, m for problems that count
    edges — a panel per dataset family and a curve per variant (002 Fig. 5.1, 000 Fig. 2, 001 Figs 4-5)."""
    total = _totals(summary)
    curves = _curves(total, ["variant", "family"], "size") if not total.empty else []
    if not curves:
        return None
    fig, panels, colours = _family_panels(curves, "Time vs size (median of the timed runs)")
    for (variant, family), rows in curves:
        ax = panels.get(family)
        if ax is None:
            continue
        ax.plot(rows.index, rows["ms"], marker="o", ms=3, color=colours[variant], label=variant)
    for family, ax in panels.items():
        ax.set_title(family, fontsize=9)
        _log2x(ax)
        ax.set_yscale("log")
        ax.set_xlabel(_size_label(total[total["family"] == family]))
        ax.set_ylabel("ms per run")
    _legend_below(fig, list(panels.values()))
    return fig


def _slope(n, y) -> float:
    """Least-squares change of y per doubling of n, relative to y's mean."""
    x = np.log2(np.asarray(n, dtype=float))
    y = np.asarray(y, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0:
        return float("nan")
    return float(np.polyfit(x, y, 1)[0] / np.mean(y))


def _upper(rows: pd.DataFrame) -> pd.DataFrame:
    """The larger half of a curve's sizes (at least three points), where fixed costs no longer
    dominate: the range the change per doubling is fitted on."""
    keep = max(3, -(-len(rows) // 2))
    return rows.iloc[-keep:]


def fig_time_per_element(summary: pd.DataFrame):
    """Time per element against size, a panel per family, each curve labelled with its change per
    doubling of n over the larger half of its sizes: flat for O(n) work, +1/log2 n per doubling
    for O(n log n) (002 Fig. 5.2, 000 Fig. 3 left)."""
    total = _totals(summary)
    curves = _curves(total, ["variant", "family"], "size") if not total.empty else []
    if not curves:
        return None
    fig, panels, colours = _family_panels(curves, "Time per element vs size (change per doubling over the larger half)")
    spread = {}
    for (variant, family), rows in curves:
        ax = panels.get(family)
        if ax is None:
            continue
        upper = _upper(rows)
        slope = _slope(upper.index, upper["ns_per_element"])
        ax.plot(rows.index, rows["ns_per_element"], marker="o", ms=3, color=colours[variant],
                label=f"{variant} ({slope:+.1%})")
        spread.setdefault(family, []).extend(rows["ns_per_element"].dropna())
    for family, ax in panels.items():
        values = spread.get(family, [])
        if values and max(values) / max(min(values), 1e-12) > 20:
            ax.set_yscale("log")
        ax.set_title(family, fontsize=9)
        _log2x(ax)
        ax.set_xlabel(_size_label(total[total["family"] == family]))
        ax.set_ylabel("ns per element (node or input edge)")
        _legend(ax)
    fig.tight_layout()
    return fig


def fig_rate_vs_size(summary: pd.DataFrame):
    """G edges/s against m for problems that count edges — GTEPS, the harmonic mean over roots,
    bars from the slowest to the fastest root — a panel per family (001 Figs 4-5, issues #7/#8)."""
    total = _totals(summary)
    if total.empty or "gelems_hmean" not in total or not total["by_edges"].any():
        return None
    graphs = total[total["by_edges"]]
    curves = _curves(graphs, ["variant", "family"], "size")
    if not curves:
        return None
    fig, panels, colours = _family_panels(curves, "G edges/s vs m (harmonic mean over roots; bars: slowest to fastest)")
    for (variant, family), rows in curves:
        ax = panels.get(family)
        if ax is None:
            continue
        y = rows["gelems_hmean"]
        if {"gelems_min", "gelems_max"} <= set(rows) and (rows["gelems_max"] > rows["gelems_min"]).any():
            yerr = np.vstack([(y - rows["gelems_min"]).clip(lower=0), (rows["gelems_max"] - y).clip(lower=0)])
            ax.errorbar(rows.index, y, yerr=yerr, marker="o", ms=3, capsize=2, color=colours[variant], label=variant)
        else:
            ax.plot(rows.index, y, marker="o", ms=3, color=colours[variant], label=variant)
    for family, ax in panels.items():
        ax.set_title(family, fontsize=9)
        _log2x(ax)
        ax.set_yscale("log")
        ax.set_xlabel("m (input edges)")
        ax.set_ylabel("G edges/s")
    _legend_below(fig, list(panels.values()))
    return fig


# --- against a swept parameter ------------------------------------------------------------------

def swept(summary: pd.DataFrame) -> list[str]:
    """The parameter columns (kernel ``param_*``, dataset ``data_*`` other than its size) that take
    two or more values for one kernel, in column order."""
    out = []
    for c in summary.columns:
        if not c.startswith(("param_", "data_")) or c in QUIET or c[5:] in SIZE_KEYS:
            continue
        if summary.groupby("kernel")[c].nunique(dropna=True).max() > 1:
            out.append(c)
    return out


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _groups_for(column: str) -> list[str]:
    """What one curve of a sweep of ``column`` holds fixed: the dataset for a kernel parameter; the
    dataset's other parameters (``where``) for a dataset parameter, whose datasets differ per point."""
    return ["variant", "dataset"] if column.startswith("param_") else ["variant", "where"]


def _sweep_rows(summary: pd.DataFrame, column: str, phase: str = "total") -> pd.DataFrame:
    s = prepare(summary, exclude=(column,))
    if s.empty or column not in s:
        return s.iloc[0:0]
    s = s[(s["phase"] == phase) & s[column].notna()].copy()
    if column.startswith("data_"):
        # the dataset's generator and other parameters (those that vary among these rows), and seed
        others = _varying(s, [c for c in s.columns if c.startswith("data_") and c != column and c not in QUIET])
        where = s["generator"].astype(str) if "generator" in s else s["dataset"].astype(str)
        for c in others + (["seed"] if "seed" in s and s["seed"].nunique() > 1 else []):
            where = where + s[c].map(lambda v, c=c: f" {c.removeprefix('data_')}={_fmt(v)}")
        s["where"] = where
    return s


def fig_vs_param(summary: pd.DataFrame, column: str, *, speedup: bool = False, rate: bool = False,
                 min_points: int = 3):
    """Time against a swept numeric parameter — or, with ``speedup``, the time at its smallest value
    over the time at each; with ``rate``, G edges/s (harmonic mean over roots, bars slowest to
    fastest root) for problems that count edges — one curve per variant and dataset; the SM count
    and the resident blocks are marked on a ``blocks`` axis (002 Figs 5.3 and 6.4, 004 Fig. 6,
    001 Fig. 7)."""
    s = _sweep_rows(summary, column)
    if rate and not s.empty:
        s = s[s["by_edges"]]
    if s.empty or not _numeric(s[column]) or s[column].nunique() < min_points:
        return None
    curves = _curves(s, _groups_for(column), column, min_points=min_points)
    if not curves:
        return None
    name = column.split("_", 1)[1]
    what = ("speed-up over the smallest " + name if speedup else
            "G edges/s (harmonic mean over roots)" if rate else "ms per run (median)")
    fig, ax = _figure(f"{'Speed-up' if speedup else 'G edges/s' if rate else 'Time'} vs {name}", name, what)
    for (variant, where), rows in curves:
        if rate:
            y = rows["gelems_hmean"]
            if {"gelems_min", "gelems_max"} <= set(rows):
                yerr = np.vstack([(y - rows["gelems_min"]).clip(lower=0), (rows["gelems_max"] - y).clip(lower=0)])
                ax.errorbar(rows.index, y, yerr=yerr, marker="o", ms=3, capsize=2, label=f"{variant} · {where}")
                continue
        else:
            y = rows["ms"].iloc[0] / rows["ms"] if speedup else rows["ms"]
        ax.plot(rows.index, y, marker="o", ms=3, label=f"{variant} · {where}")
    values = s[column].astype(float)
    if values.min() > 0 and values.max() / values.min() >= 8:
        _log2x(ax)
    if rate or (not speedup and s["ms"].max() / max(s["ms"].min(), 1e-12) > 20):
        ax.set_yscale("log")
    if name == "blocks":
        sms = _ceiling(summary, "sm_count")
        if sms:
            ax.axvline(sms, color="tab:red", ls="--", lw=1, label=f"{sms:.0f} SMs")
            ax.axvline(8 * sms, color="tab:gray", ls=":", lw=1, label=f"{8 * sms:.0f} = resident blocks of 256 threads")
    if len(curves) > 4:
        _legend_below(fig, [ax])
    else:
        _legend(ax)
    return fig


def fig_bars_vs_param(summary: pd.DataFrame, column: str):
    """Mean time per value of a categorical (or two-valued) parameter, bars grouped by dataset:
    random vs even splitters, splitter rules, the ablation's switches."""
    s = _sweep_rows(summary, column)
    if s.empty or s[column].nunique() < 2:
        return None
    s["group"] = s["variant"] + " · " + s["dataset"].astype(str)
    values = list(dict.fromkeys(s[column].map(_fmt)))
    table = s.assign(value=s[column].map(_fmt)).pivot_table(index="group", columns="value", values="ms",
                                                            aggfunc="mean", sort=False)
    table = table[table.notna().sum(axis=1) >= 2]
    if table.empty:
        return None
    table = table.iloc[-12:][values]
    name = column.split("_", 1)[1]
    fig = Figure(figsize=(9, 1.4 + 0.42 * len(table) * max(1, len(values) / 2)))
    ax = fig.add_subplot()
    ax.set_title(f"Time by {name}", fontsize=10)
    ax.set_xlabel("ms per run (median)")
    ax.grid(True, axis="x", alpha=0.3)
    height = 0.8 / len(values)
    y = np.arange(len(table))
    for i, value in enumerate(values):
        ax.barh(y + i * height, table[value].fillna(0), height, label=f"{name}={value}")
    ax.set_yticks(y + height * (len(values) - 1) / 2, table.index, fontsize=7)
    ax.invert_yaxis()
    _legend(ax)
    return fig


def _crossings(x, ratio) -> list[float]:
    """Where ``ratio`` crosses 1 between consecutive points (interpolated in log x)."""
    out = []
    x, r = np.log2(np.asarray(x, dtype=float)), np.log(np.asarray(ratio, dtype=float))
    for i in range(len(x) - 1):
        if r[i] == 0:
            out.append(2 ** x[i])
        elif r[i] * r[i + 1] < 0:
            out.append(float(2 ** (x[i] + (x[i + 1] - x[i]) * r[i] / (r[i] - r[i + 1]))))
    return out


def fig_ratio_vs_size(summary: pd.DataFrame, column: str):
    """Time with one value of a two-valued parameter over the time with the other, against n, with
    the crossings marked (000 Fig. 3 right: 48- over 64-bit packing crosses 1 near 54M nodes)."""
    s = _sweep_rows(summary, column)
    if s.empty or s[column].nunique() != 2:
        return None
    s[column] = s[column].map(_fmt)          # labels, not values (True/False would index as a mask)
    a, b = sorted(s[column].unique())
    name = column.split("_", 1)[1]
    fig, ax = _figure(f"{name}={a} time over {name}={b} time", "n (list nodes or graph vertices)",
                      "time ratio (> 1: the second is faster)")
    drawn = False
    for (variant, family), rows in s.groupby(["variant", "family"], sort=False):
        pair = rows.pivot_table(index="n", columns=column, values="ms", aggfunc="mean")
        if a not in pair or b not in pair:
            continue
        pair = pair[[a, b]].dropna()
        if len(pair) < 2:
            continue
        ratio = pair[a] / pair[b]
        cross = _crossings(ratio.index, ratio.values)
        note = "; crosses 1 at n ≈ " + ", ".join(f"{c / 1e6:.3g}M" for c in cross) if cross else ""
        ax.plot(ratio.index, ratio.values, marker="o", ms=3, label=f"{variant} · {family}{note}")
        for c in cross:
            ax.axvline(c, color="tab:gray", ls=":", lw=1)
        drawn = True
    if not drawn:
        return None
    ax.axhline(1.0, color="black", lw=0.8)
    _log2x(ax)
    _legend(ax)
    return fig


# --- per phase ----------------------------------------------------------------------------------

STYLES = ("-", "--", ":", "-.")


def _phased(summary: pd.DataFrame, x: str = "size", exclude=()) -> list[tuple[str, pd.DataFrame]]:
    """(variant, its per-phase rows) for variants with two or more phases, at most MAX_PANELS; of
    each, the dataset families with two or more x values, at most len(STYLES) of them (the ones
    with the most points: one line style each)."""
    s = prepare(summary, exclude)
    if s.empty or x not in s:
        return []
    s = s[(s["phase"] != "total") & s[x].notna()]
    out = []
    for variant, rows in s.groupby("variant", sort=False):
        points = rows.groupby("family", sort=False)[x].nunique()
        keep = points[points >= 2].sort_values(ascending=False, kind="stable").index[:len(STYLES)]
        rows = rows[rows["family"].isin(keep)]
        if rows["phase"].nunique() >= 2 and not rows.empty:
            out.append((variant, rows))
    return out[:MAX_PANELS]


def _phase_lines(ax, rows: pd.DataFrame, x: str, y: str, colours: dict, families_: bool):
    """A line per phase (its colour, in the legend) and family (its line style, in the title)."""
    styles = {f: STYLES[i % len(STYLES)] for i, f in enumerate(dict.fromkeys(rows["family"]))}
    labelled = set()
    for (phase, family), curve in rows.groupby(["phase", "family"], sort=False):
        curve = curve.groupby(x)[y].mean().sort_index()
        label = None if phase in labelled else str(phase)
        labelled.add(phase)
        ax.plot(curve.index, curve.values, marker="o", ms=2.5, color=colours.get(phase), ls=styles[family],
                label=label)
    return styles


def _styles_note(styles: dict) -> str:
    names = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}
    return "; ".join(f"{names[st]}: {fam}" for fam, st in styles.items()) if len(styles) > 1 else \
        next(iter(styles), "")


def phase_colours(phases) -> dict:
    """A distinct colour per phase however many there are: tab20's pairs up to 20, beyond that
    evenly spaced hues (matplotlib's default cycle repeats after 10)."""
    phases = list(dict.fromkeys(phases))
    if len(phases) <= 20:
        palette = colormaps["tab20"].colors
        # Dark shades first, then the light ones, so up to 10 phases look like the default cycle.
        order = [palette[i] for i in range(0, 20, 2)] + [palette[i] for i in range(1, 20, 2)]
        return dict(zip(phases, order))
    hues = colormaps["turbo"]
    return {phase: hues(i / (len(phases) - 1)) for i, phase in enumerate(phases)}


def fig_phases_vs_size(summary: pd.DataFrame):
    """Each phase's mean time against n, a panel per variant (002 Fig. 5.5: RS3 dominates)."""
    panels = _phased(summary)
    if not panels:
        return None
    fig, axes = _panels(len(panels), "Time per phase vs n")
    for ax, (variant, rows) in zip(axes, panels):
        styles = _phase_lines(ax, rows, "size", "ms", phase_colours(rows["phase"]), rows["family"].nunique() > 1)
        ax.set_title(f"{variant}\n{_styles_note(styles)}", fontsize=7)
        _log2x(ax)
        ax.set_yscale("log")
        ax.set_xlabel(_size_label(rows))
        ax.set_ylabel("ms (median)")
        _legend(ax)
    fig.tight_layout()
    return fig


def fig_phase_gbps_vs_size(summary: pd.DataFrame):
    """Each phase's GB/s (its byte model over its mean time) against n, with the copy ceiling
    measured in the same run (002 Fig. 5.8: RS3's walk against RS5's coalesced pass)."""
    panels = [(v, r[r["gbps"].notna() & (r["gbps"] > 0)]) for v, r in _phased(summary)]
    panels = [(v, r) for v, r in panels if not r.empty and r["size"].nunique() >= 2]
    if not panels:
        return None
    fig, axes = _panels(len(panels), "GB/s per phase vs size (byte model / median time)")
    copy = _ceiling(summary, "copy_gbps")
    for ax, (variant, rows) in zip(axes, panels):
        styles = _phase_lines(ax, rows, "size", "gbps", phase_colours(rows["phase"]), rows["family"].nunique() > 1)
        if copy:
            ax.axhline(copy, color="tab:red", ls="--", lw=1, label=f"copy ceiling {copy:.0f} GB/s")
        ax.set_title(f"{variant}\n{_styles_note(styles)}", fontsize=7)
        _log2x(ax)
        ax.set_yscale("log")
        ax.set_xlabel(_size_label(rows))
        ax.set_ylabel("GB/s")
        _legend(ax)
    fig.tight_layout()
    return fig


def fig_phase_speedup(summary: pd.DataFrame, column: str = "param_blocks"):
    """Each phase's speed-up over its time at the smallest value of ``column`` (002 Fig. 5.4: RS3
    follows the total, RS2 stays flat, RS4 declines)."""
    if column not in summary:
        return None
    s = prepare(summary, exclude=(column,))
    if s.empty:
        return None
    s = s[(s["phase"] != "total") & s[column].notna()]
    panels = [(v, r) for v, r in s.groupby("variant", sort=False)
              if r["phase"].nunique() >= 2 and r[column].nunique() >= 3][:MAX_PANELS]
    if not panels:
        return None
    name = column.split("_", 1)[1]
    fig, axes = _panels(len(panels), f"Speed-up per phase vs {name} (over the smallest {name})")
    for ax, (variant, rows) in zip(axes, panels):
        colours = phase_colours(rows["phase"])
        for (phase, dataset), curve in rows.groupby(["phase", "dataset"], sort=False):
            curve = curve.groupby(column)["ms"].mean().sort_index()
            ax.plot(curve.index, curve.iloc[0] / curve.values, marker="o", ms=2.5, color=colours[phase], label=str(phase))
        ax.set_title(variant, fontsize=8)
        _log2x(ax)
        ax.set_xlabel(name)
        ax.set_ylabel("speed-up")
        _legend(ax)
    fig.tight_layout()
    return fig


# --- list ranking: the inflection, sub-lists ------------------------------------------------------

def _walk_bytes(kernel: str, params: dict) -> float | None:
    k = _kernel(kernel)
    if k is None or k.walk_bytes is None:
        return None
    try:
        return k.walk_bytes(k.resolve_params(params))   # defaults filled: the task's params as it ran
    except GraphsweepError:
        return None


def fig_inflection(summary: pd.DataFrame):
    """ns per node of the whole run and of its list walk against n, for list-ranking variants with
    four or more sizes, and where n x (bytes per node the walk touches at random) equals the L2
    (002 §5.2.6 and Fig. 5.6: RS3's time per node jumped at n ~ 46M / 58M on the GTX 260)."""
    s = prepare(summary)
    if s.empty:
        return None
    s = s[s["kernel"].astype(str).map(_walk_phase).notna() & s["n"].notna()]   # kernels that walk a list
    l2 = _ceiling(summary, "l2_bytes")
    panels = []
    for variant, rows in s.groupby("variant", sort=False):
        if rows["n"].nunique() >= 4:
            panels.append((variant, rows))
    if not panels:
        return None
    fig, axes = _panels(len(panels), "ns per node vs n: total and the list walk" +
                        (f" (L2 {l2 / 2**20:.0f} MiB)" if l2 else ""))
    for ax, (variant, rows) in zip(axes, panels[:MAX_PANELS]):
        for (phase, family), curve in rows[(rows["phase"] == "total") | _is_walk(rows)].groupby(["phase", "family"],
                                                                                                sort=False):
            curve = curve.groupby("n")["ms"].mean().sort_index()
            ns = curve * 1e6 / curve.index
            ax.plot(ns.index, ns.values, marker="o", ms=2.5, label=f"{phase} · {family}")
        first = rows.iloc[0]
        per_node = _walk_bytes(str(first["kernel"]), json.loads(first["params"]) if "params" in first else {})
        if l2 and per_node:
            ax.axvline(l2 / per_node, color="tab:red", ls="--", lw=1,
                       label=f"{per_node:g} B/node x n = L2")
        ax.set_title(variant, fontsize=8)
        _log2x(ax)
        ax.set_xlabel("n")
        ax.set_ylabel("ns per node")
        _legend(ax)
    fig.tight_layout()
    return fig


def sublist_columns(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary with ``stat_sublists`` (a JSON object per task) spread into sub_* columns."""
    if "stat_sublists" not in summary:
        return summary.iloc[0:0]

    def parse(v):
        if isinstance(v, dict):
            return v
        try:
            return json.loads(v)
        except (TypeError, ValueError):
            return {}

    parsed = pd.DataFrame([parse(v) for v in summary["stat_sublists"]], index=summary.index)
    if parsed.empty or "sublists" not in parsed:
        return summary.iloc[0:0]
    out = summary.copy()
    for c in ("sublists", "sublist_min", "sublist_max", "sublist_mean", "sublist_std", "singletons"):
        out[f"sub_{c.removeprefix('sublist_')}"] = parsed.get(c)
    return out[out["sub_sublists"].notna()]


def fig_sublists(summary: pd.DataFrame):
    """Time, longest sub-list over the mean, and singletons against the number of sub-lists, one
    curve per kernel and list (003 §4.2: n/log n splitters give many singletons, n/2log²n long
    sub-lists; 000 §3.2: the GPU tolerates the imbalance)."""
    s = sublist_columns(prepare(summary, exclude=("param_p", "param_sublist", "param_rule", "param_splitters")))
    if s.empty:
        return None
    s = s[s["phase"] == "total"]
    curves = [(k, r.sort_values("sub_sublists")) for k, r in s.groupby(["variant", "dataset"], sort=False)
              if r["sub_sublists"].nunique() >= 3]
    if not curves:
        return None
    fig = Figure(figsize=(14, 4.6))
    fig.suptitle("Sub-lists: time and balance vs their number", fontsize=10)
    axes = [fig.add_subplot(1, 3, i + 1) for i in range(3)]
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    for (variant, dataset), rows in curves:
        label = f"{variant} · {dataset}"
        axes[0].plot(rows["sub_sublists"], rows["ms"], marker="o", ms=3, label=label)
        axes[1].plot(rows["sub_sublists"], rows["sub_max"] / rows["sub_mean"], marker="o", ms=3, label=label)
        axes[2].plot(rows["sub_sublists"], rows["sub_singletons"] / rows["sub_sublists"], marker="o", ms=3, label=label)
    for ax, ylabel in zip(axes, ("ms per run (median)", "longest / mean sub-list", "share of singleton sub-lists")):
        _log2x(ax)
        ax.set_xlabel("sub-lists (splitters)")
        ax.set_ylabel(ylabel)
    axes[0].set_yscale("log")
    axes[1].set_yscale("log")
    _legend_below(fig, axes[:1])
    return fig


def table_sublists(summary: pd.DataFrame):
    """000 Table 3: random vs even splitters — per n, the mean sub-list n/p, the expected shortest
    and longest random sub-list as the table computes them (mean/2p, mean·ln 2p), the measured
    shortest and longest for each, the walk's (RS3) time and the difference."""
    if "param_splitters" not in summary:
        return None
    s = sublist_columns(prepare(summary, exclude=("param_splitters",)))
    if s.empty or s["param_splitters"].nunique() < 2:
        return None
    walk = s[_is_walk(s)].groupby(["variant", "n", "param_splitters"])["ms"].mean()
    rows = []
    for (variant, n), group in s[s["phase"] == "total"].groupby(["variant", "n"], sort=True):
        by = {r["param_splitters"]: r for _, r in group.iterrows()}
        if not {"random", "even"} <= set(by):
            continue
        rnd, even = by["random"], by["even"]
        p, mean = rnd["sub_sublists"], n / rnd["sub_sublists"]
        t_r, t_e = walk.get((variant, n, "random"), np.nan), walk.get((variant, n, "even"), np.nan)
        rows.append({"variant": variant, "n": int(n), "p": int(p), "mean n/p": mean,
                     "expected low": mean / (2 * p), "expected high": mean * math.log(2 * p),
                     "random low": rnd["sub_min"], "random high": rnd["sub_max"], "random walk ms": t_r,
                     "even low": even["sub_min"], "even high": even["sub_max"], "even walk ms": t_e,
                     "difference ms": t_r - t_e, "difference %": 100 * (t_r - t_e) / t_r if t_r else np.nan})
    return pd.DataFrame(rows) if rows else None


# --- graph problems: iterations, baselines ----------------------------------------------------

def _iteration_stat(s: pd.DataFrame) -> str | None:
    for c in ITERATION_STATS:
        if c in s and s[c].notna().any():
            return c
    return None


def _natural_index(table: pd.DataFrame) -> pd.DataFrame:
    return table.loc[sorted(table.index, key=natural)]


def _largest_per_family(s: pd.DataFrame) -> pd.DataFrame:
    biggest = s.groupby(["variant", "family"])["n"].transform("max")
    return s[s["n"] == biggest]


def fig_iterations(summary: pd.DataFrame):
    """Iterations (or BFS levels) per dataset family and kernel, at each family's largest size
    (002 Table 6.1 and Fig. 6.3: random graphs need far fewer than lists and trees)."""
    total = _totals(summary)
    stat = _iteration_stat(total) if not total.empty else None
    if stat is None:
        return None
    rows = _largest_per_family(total[total[stat].notna()])
    table = rows.pivot_table(index="family", columns="variant", values=stat, aggfunc="mean", sort=False)
    if table.empty:
        return None
    table = _natural_index(table)
    fig, ax = _figure(f"{stat.removeprefix('stat_')} per dataset family", "", stat.removeprefix("stat_"),
                      width=max(7.5, 0.55 * len(table.index) * max(1, len(table.columns) / 2)))
    width = 0.8 / len(table.columns)
    x = np.arange(len(table.index))
    for i, variant in enumerate(table.columns):
        ax.bar(x + i * width, table[variant].fillna(0), width, label=variant)
    ax.set_xticks(x + width * (len(table.columns) - 1) / 2, table.index, rotation=45, ha="right", fontsize=7)
    _legend(ax)
    fig.tight_layout()
    return fig


def table_iterations(summary: pd.DataFrame):
    """002 Table 6.1: iterations per family (rows) and kernel (columns), at each family's largest size."""
    total = _totals(summary)
    stat = _iteration_stat(total) if not total.empty else None
    if stat is None:
        return None
    rows = _largest_per_family(total[total[stat].notna()])
    table = rows.pivot_table(index="family", columns="variant", values=stat, aggfunc="mean", sort=False)
    return _natural_index(table).reset_index() if len(table.index) >= 2 else None


def fig_time_per_iteration(summary: pd.DataFrame):
    """Each phase's mean time per iteration, stacked, per dataset family — a panel per kernel
    (000 Fig. 6 right, 002 Fig. 6.5: SV2 and SV3 dominate; trees cost most per iteration)."""
    s = prepare(summary)
    stat = _iteration_stat(s) if not s.empty else None
    if stat is None:
        return None
    s = _largest_per_family(s[s[stat].notna() & (s[stat] > 0) & (s["phase"] != "total")])
    panels = [(v, r) for v, r in s.groupby("variant", sort=False)
              if r["phase"].nunique() >= 2 and r["family"].nunique() >= 2][:MAX_PANELS]
    if not panels:
        return None
    fig, axes = _panels(len(panels), f"Time per {stat.removeprefix('stat_').rstrip('s')} by phase")
    for ax, (variant, rows) in zip(axes, panels):
        table = _natural_index(rows.assign(per=rows["ms"] / rows[stat]).pivot_table(
            index="family", columns="phase", values="per", aggfunc="mean", sort=False))
        colours = phase_colours(table.columns)
        bottom = np.zeros(len(table))
        for phase in table.columns:
            values = table[phase].fillna(0).to_numpy()
            ax.bar(np.arange(len(table)), values, bottom=bottom, label=str(phase), color=colours[phase])
            bottom += values
        ax.set_xticks(np.arange(len(table)), table.index, rotation=45, ha="right", fontsize=7)
        ax.set_title(variant, fontsize=8)
        ax.set_ylabel("ms per iteration")
        _legend(ax, ncols=2)
    fig.tight_layout()
    return fig


def fig_speedup_over_baseline(summary: pd.DataFrame):
    """Every variant's speed-up over its problem's baseline kernel (Soman's hook-compress for CC,
    Harish's kernels for BFS/SSSP, Floyd-Warshall for APSP) on the datasets the baseline ran on —
    each family at its largest size, at most 12 — (004 Fig. 5's ablation: each optimisation added
    in turn)."""
    total = _totals(summary)
    if total.empty:
        return None
    total = total.assign(problem=total["kernel"].astype(str).str.split(".").str[0])
    groups = []
    for base in _baselines(total["kernel"].unique()):
        ref = total[total["kernel"] == base]
        if ref.empty:
            continue
        ref = ref[ref["size"] == ref.groupby("family")["size"].transform("max")]
        base_ms = ref.groupby("dataset")["ms"].mean()
        same = total[(total["problem"] == base.split(".")[0]) & (total["kernel"] != base)
                     & total["dataset"].isin(base_ms.index)]
        if same.empty:
            continue
        many = same.groupby("family")["dataset"].nunique().max() > 1
        label = same["family"] + (" " + same["size"].map(lambda v: f"{int(v):,}") if many else "")
        table = same.assign(speedup=base_ms.reindex(same["dataset"]).to_numpy() / same["ms"].to_numpy(),
                            where=label) \
            .pivot_table(index="where", columns="variant", values="speedup", aggfunc="mean", sort=False)
        groups.append((base, table.iloc[:12]))
    if not groups:
        return None
    fig, axes = _panels(len(groups), "Speed-up over the baseline kernel (its time / the variant's)")
    for ax, (base, table) in zip(axes, groups):
        width = 0.8 / len(table.columns)
        y = np.arange(len(table))
        for i, variant in enumerate(table.columns):
            ax.barh(y + i * width, table[variant].fillna(0), width, label=variant)
        ax.set_yticks(y + width * (len(table.columns) - 1) / 2, table.index, fontsize=7)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(f"over {base}", fontsize=8)
        ax.set_xlabel("speed-up")
        _legend(ax)
    tallest = max(len(t) * len(t.columns) for _, t in groups)
    fig.set_size_inches(11 if len(groups) > 1 else 8, max(3.5, 1.2 + 0.16 * tallest) * -(-len(groups) // 2))
    fig.tight_layout()
    return fig


# --- tables for list ranking ------------------------------------------------------------------

def table_phases(summary: pd.DataFrame):
    """000 Table 2: per n, each variant's total and per-phase mean ms (only when at most four
    variants have phases, as the random-splitter sweep; wider sweeps read better as figures)."""
    s = prepare(summary)
    if s.empty:
        return None
    phased = [v for v, r in s.groupby("variant", sort=False) if r["phase"].nunique() >= 3 and r["n"].nunique() >= 2]
    if not phased or len(phased) > 4:
        return None
    s = s[s["variant"].isin(phased)]
    table = s.pivot_table(index="n", columns=["variant", "phase"], values="ms", aggfunc="mean")
    table.columns = [f"{v}: {p}" for v, p in table.columns]
    return table.reset_index()


def table_scaling(summary: pd.DataFrame):
    """002 Fig. 5.2 as numbers: per variant and family, ns per element at its smallest and largest
    n, their ratio, the fitted change per doubling of n, and what O(n log n) work would give
    (log n_max / log n_min)."""
    total = _totals(summary)
    curves = _curves(total, ["variant", "family"], "size", min_points=3) if not total.empty else []
    rows = []
    for (variant, family), c in curves:
        lo, hi = c.index.min(), c.index.max()
        rows.append({"variant": variant, "family": family, "size min": int(lo), "size max": int(hi),
                     "ns/elem at min": c.loc[lo, "ns_per_element"], "ns/elem at max": c.loc[hi, "ns_per_element"],
                     "ratio": c.loc[hi, "ns_per_element"] / c.loc[lo, "ns_per_element"],
                     "per doubling (larger half)": _slope(_upper(c).index, _upper(c)["ns_per_element"]),
                     "n log n would give": math.log2(hi) / math.log2(lo)})
    return pd.DataFrame(rows) if rows else None


def steps(summary: pd.DataFrame, threshold: float = 0.15):
    """Where a list-ranking variant's time per node (total, and its walk phase) rises by more than
    ``threshold`` between consecutive sizes: the inflections, as (variant, phase, n before, n
    after, ns before, ns after, rise)."""
    s = prepare(summary)
    if s.empty:
        return None
    s = s[s["kernel"].astype(str).map(_walk_phase).notna() & ((s["phase"] == "total") | _is_walk(s))]
    out = []
    for (variant, family, phase), rows in s.groupby(["variant", "family", "phase"], sort=False):
        curve = rows.groupby("n")["ms"].mean().sort_index()
        if len(curve) < 4:
            continue
        ns = curve * 1e6 / curve.index
        for (n0, a), (n1, b) in zip(ns.items(), list(ns.items())[1:]):
            if b > a * (1 + threshold):
                out.append({"variant": variant, "family": family, "phase": phase, "n before": int(n0),
                            "n after": int(n1), "ns/node before": a, "ns/node after": b, "rise": b / a - 1})
    return pd.DataFrame(out) if out else None


# --- everything the summary supports ------------------------------------------------------------

def figures(summary: pd.DataFrame) -> list[tuple[str, str, Figure]]:
    """(id, caption, Figure) of every figure the summary supports, in report order."""
    makers = [
        ("fig-time-vs-n", "Time vs size (median of the timed runs; n for lists and APSP, m for problems that "
                          "count edges), a panel per dataset family (002 Fig. 5.1, 000 Fig. 2, 001 Figs 4-5).",
         fig_time_vs_size),
        ("fig-time-per-n", "Time per element vs size, each curve labelled with its change per doubling over the "
                           "larger half of its sizes: flat for O(n) work, log n for O(n log n) (002 Fig. 5.2).",
         fig_time_per_element),
        ("fig-gteps-vs-m", "G edges/s vs m: harmonic mean over roots, bars from the slowest to the fastest root "
                           "(001 Figs 4-5).", fig_rate_vs_size),
        ("fig-phases-vs-n", "Time per phase vs size, a panel per variant (002 Fig. 5.5).", fig_phases_vs_size),
        ("fig-phase-gbps-vs-n", "GB/s per phase (its byte model over its median time) vs size, against the copy "
                                "ceiling measured in the same run (002 Fig. 5.8).", fig_phase_gbps_vs_size),
        ("fig-inflection", "ns per node of the run and of its list walk vs n, and where the walk's random working "
                           "set passes the L2 (002 §5.2.6, Fig. 5.6).", fig_inflection),
        ("fig-sublists", "Time and sub-list balance vs the number of sub-lists (003 §4.2, 000 Table 3).",
         fig_sublists),
        ("fig-iterations", "Iterations (or levels) per dataset family at its largest size (002 Table 6.1, "
                           "Fig. 6.3).", fig_iterations),
        ("fig-time-per-iteration", "Time per iteration by phase and dataset family (000 Fig. 6, 002 Fig. 6.5).",
         fig_time_per_iteration),
        ("fig-speedup-over-baseline", "Speed-up over each problem's baseline kernel on the same dataset "
                                      "(004 Fig. 5).", fig_speedup_over_baseline),
    ]
    for column in swept(summary):
        name = column.split("_", 1)[1]
        values = summary[column].dropna()
        if name == "blocks":
            makers.append(("fig-speedup-blocks", "Speed-up vs thread blocks over the same kernel at its fewest, "
                                                 "with the SM count and the resident limit (002 Figs 5.3, 6.4).",
                           lambda sm, c=column: fig_vs_param(sm, c, speedup=True, min_points=2)))
            makers.append(("fig-phase-speedup-blocks", "Speed-up per phase vs blocks (002 Fig. 5.4).",
                           lambda sm, c=column: fig_phase_speedup(sm, c)))
        elif _numeric(values) and values.nunique() >= 3:
            speedup = name == "segments"
            makers.append((f"fig-vs-{name}", f"{'Speed-up over the fewest' if speedup else 'Time vs'} {name} "
                                             "(004 Fig. 6; 001 Fig. 7).",
                           lambda sm, c=column, sp=speedup: fig_vs_param(sm, c, speedup=sp)))
            if column.startswith("data_"):
                makers.append((f"fig-gteps-vs-{name}", f"G edges/s vs {name}, harmonic mean over roots (001 Fig. 7).",
                               lambda sm, c=column: fig_vs_param(sm, c, rate=True)))
        else:
            if values.nunique() == 2:
                makers.append((f"fig-ratio-{name}", f"Time with one value of {name} over the other vs size, with "
                                                    "the crossings (000 Fig. 3).",
                               lambda sm, c=column: fig_ratio_vs_size(sm, c)))
            makers.append((f"fig-by-{name}", f"Time by {name}, per dataset.",
                           lambda sm, c=column: fig_bars_vs_param(sm, c)))
    out = []
    for ident, caption, make in makers:
        fig = make(summary)
        if fig is not None:
            out.append((ident, caption, fig))
    return out


# --- from the rows: per-step time and size ------------------------------------------------------

def fig_steps(rows: pd.DataFrame):
    """Per-step rows (iterations, BFS levels): time per step against the step and, on a twin
    axis, the frontier size where the kernel records one, with the direction changes marked — a
    panel per kernel variant, one line per dataset family at its largest size (first root)."""
    if rows is None or rows.empty or "step" not in rows or rows["step"].isna().all():
        return None
    r = rows[rows["step"].notna() & rows["phase"].notna()]
    if "stage" in r:
        r = r[r["stage"].fillna("kernel") == "kernel"]
    if r.empty:
        return None
    r = r.assign(variant=variants(r), family=families(r))
    if "instance" in r:
        r = r[r["instance"].fillna(0) == r.groupby("task")["instance"].transform("min").fillna(0)]
    biggest = r.groupby(["variant", "family"])["n"].transform("max")
    r = r[r["n"] == biggest]
    panels = [(v, g) for v, g in r.groupby("variant", sort=False) if g["step"].nunique() >= 2][:MAX_PANELS]
    if not panels:
        return None
    fig, axes = _panels(len(panels), "Per step: time (solid) and frontier (dashed) at each family's largest size")
    for ax, (variant, g) in zip(axes, panels):
        twin = None
        for i, (family, f) in enumerate(g.groupby("family", sort=False)):
            per = f.groupby("step").agg(ms=("ms", "sum"))
            colour = colormaps["tab10"].colors[i % 10]
            ax.plot(per.index, per["ms"], marker=".", ms=3, color=colour, label=family)
            if "step_frontier" in f and f["step_frontier"].notna().any():
                twin = twin or ax.twinx()
                front = f.groupby("step")["step_frontier"].max()
                twin.plot(front.index, front.values, ls="--", color=colour, lw=1)
                twin.set_yscale("log")
                twin.set_ylabel("frontier", fontsize=7)
            if "step_direction" in f and f["step_direction"].notna().any():
                direction = f.groupby("step")["step_direction"].first()
                changes = direction.index[1:][direction.values[1:] != direction.values[:-1]]
                for step in changes:
                    ax.axvline(step, color=colour, ls=":", lw=1)
        ax.set_title(variant, fontsize=8)
        ax.set_xlabel("step (iteration or level)")
        ax.set_ylabel("ms per step")
        ax.set_yscale("log")
        _legend(ax)
    fig.tight_layout()
    return fig


def table_input_builds(summary: pd.DataFrame):
    """The timed builds of graph representations (stage ``input``: csr, rcsr), apart from the
    kernels: per dataset, the build's median ms and GB/s against the copy ceiling."""
    if "stage" not in summary:
        return None
    s = summary[(summary["stage"] == "input") & summary["phase"].notna()]
    if s.empty:
        return None
    out = s.groupby(["dataset", "phase"], sort=False).agg(n=("n", "first"), m=("m", "first"),
                                                         ms=("median_ms", "median"),
                                                         gbps=("gbps", "median"), tasks=("task", "nunique"))
    copy = _ceiling(summary, "copy_gbps")
    out = out.reset_index()
    if copy:
        out["% of copy"] = 100 * out["gbps"] / copy
    return out


def tables(summary: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    """(id, caption, DataFrame) of every table the summary supports."""
    makers = [
        ("table-input-builds", "Graph representations built apart from the kernels (stage input): median ms "
                               "and GB/s per dataset.", table_input_builds),
        ("table-scaling", "ns per element at the smallest and largest n, and the fitted change per doubling "
                          "(flat: O(n); log n_max / log n_min: O(n log n)).", table_scaling),
        ("table-phases", "Median ms per phase and n (000 Table 2's layout).", table_phases),
        ("table-steps", "Rises of more than 15% in time per node between consecutive sizes (the inflections).",
         steps),
        ("table-sublists", "Random vs even splitters (000 Table 3).", table_sublists),
        ("table-iterations", "Iterations per dataset family (002 Table 6.1).", table_iterations),
    ]
    out = []
    for ident, caption, make in makers:
        table = make(summary)
        if table is not None and not table.empty:
            out.append((ident, caption, table))
    return out


def _markdown(frame: pd.DataFrame) -> str:
    def cell(v):
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.4g}"
        return str(v)
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def write(summary: pd.DataFrame, out) -> list[Path]:
    """Every figure (PNG) and table (Markdown) ``summary`` supports into the folder ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for ident, caption, fig in figures(summary):
        path = out / f"{ident}.png"
        fig.savefig(path, dpi=80, bbox_inches="tight")
        written.append(path)
    for ident, caption, table in tables(summary):
        path = out / f"{ident}.md"
        path.write_text(f"{caption}\n\n{_markdown(table)}\n")
        written.append(path)
    return written
