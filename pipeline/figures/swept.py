"""Against each swept parameter — a kernel's (``blocks``, ``p``, ``segments``, ``delta``) or a
dataset's (``degree``, ``k``): time, or speed-up over its smallest value, against numeric ones;
G edges/s against a dataset's; the ratio of a two-valued one against size with its crossings; bars
for categorical ones (002 Figs 5.3-5.4 and 6.4, 004 Fig. 6, 001 Fig. 7, 000 Fig. 3).

Thread blocks (every GPU kernel's ``blocks``) are drawn as the speed-up over the fewest, with the
SM count and the resident limit marked and each phase's speed-up beside; a kernel family names its
own parameters that are drawn as speed-ups too (``speedup_axis``).
"""

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from . import draw, frame
from .rates import rate_errorbars
from .registry import each

SPEEDUP_AXES = {"blocks"}


def speedup_axis(name: str) -> None:
    """Draw sweeps of the parameter ``name`` (a kernel's or a dataset's) as the speed-up over its
    smallest value rather than as time: a parallelism knob, as blocks are."""
    SPEEDUP_AXES.add(name)


@each()
def by_swept_parameter(summary: pd.DataFrame):
    """(id, caption, make) of the figures of each swept parameter."""
    for column in frame.swept(summary):
        name = column.split("_", 1)[1]
        values = summary[column].dropna()
        if name == "blocks":
            yield ("fig-speedup-blocks", "Speed-up vs thread blocks over the same kernel at its fewest, with the SM "
                                         "count and the resident limit (002 Figs 5.3, 6.4).",
                   lambda s, c=column: fig_vs_param(s, c, speedup=True, min_points=2))
            yield ("fig-phase-speedup-blocks", "Speed-up per phase vs blocks (002 Fig. 5.4).",
                   lambda s, c=column: fig_phase_speedup(s, c))
        elif frame.numeric(values) and values.nunique() >= 3:
            speedup = name in SPEEDUP_AXES
            yield (f"fig-vs-{name}", f"{'Speed-up over the fewest' if speedup else 'Time vs'} {name} "
                                     "(004 Fig. 6; 001 Fig. 7).",
                   lambda s, c=column, sp=speedup: fig_vs_param(s, c, speedup=sp))
            if column.startswith("data_"):
                yield (f"fig-gteps-vs-{name}", f"G edges/s vs {name}, harmonic mean over roots (001 Fig. 7).",
                       lambda s, c=column: fig_vs_param(s, c, rate=True))
        else:
            if values.nunique() == 2:
                yield (f"fig-ratio-{name}", f"Time with one value of {name} over the other vs size, with the "
                                            "crossings (000 Fig. 3).",
                       lambda s, c=column: fig_ratio_vs_size(s, c))
            yield f"fig-by-{name}", f"Time by {name}, per dataset.", lambda s, c=column: fig_bars_vs_param(s, c)


def fig_vs_param(summary: pd.DataFrame, column: str, *, speedup: bool = False, rate: bool = False,
                 min_points: int = 3):
    """Time against a swept numeric parameter — or, with ``speedup``, the time at its smallest value
    over the time at each; with ``rate``, G edges/s (harmonic mean over roots, bars slowest to
    fastest root) for problems that count edges — one curve per variant and dataset; the SM count
    and the resident blocks are marked on a ``blocks`` axis."""
    s = frame.sweep_rows(summary, column)
    if rate and not s.empty:
        s = s[s["by_edges"]]
    if s.empty or not frame.numeric(s[column]) or s[column].nunique() < min_points:
        return None
    curves = frame.curves(s, frame.groups_for(column), column, min_points=min_points)
    if not curves:
        return None
    name = column.split("_", 1)[1]
    what = ("speed-up over the smallest " + name if speedup else
            "G edges/s (harmonic mean over roots)" if rate else "ms per run (median)")
    fig, ax = draw.figure(f"{'Speed-up' if speedup else 'G edges/s' if rate else 'Time'} vs {name}", name, what)
    for (variant, where), rows in curves:
        if rate:
            y, yerr = rate_errorbars(rows)
            if yerr is not None:
                ax.errorbar(rows.index, y, yerr=yerr, marker="o", ms=3, capsize=2, label=f"{variant} · {where}")
                continue
        else:
            y = rows["ms"].iloc[0] / rows["ms"] if speedup else rows["ms"]
        ax.plot(rows.index, y, marker="o", ms=3, label=f"{variant} · {where}")
    values = s[column].astype(float)
    if values.min() > 0 and values.max() / values.min() >= 8:
        draw.log2x(ax)
    if rate or (not speedup and s["ms"].max() / max(s["ms"].min(), 1e-12) > 20):
        ax.set_yscale("log")
    if name == "blocks":
        sms = frame.ceiling(summary, "sm_count")
        if sms:
            ax.axvline(sms, color="tab:red", ls="--", lw=1, label=f"{sms:.0f} SMs")
            ax.axvline(8 * sms, color="tab:gray", ls=":", lw=1, label=f"{8 * sms:.0f} = resident blocks of 256 threads")
    if len(curves) > 4:
        draw.legend_below(fig, [ax])
    else:
        draw.legend(ax)
    return fig


def fig_bars_vs_param(summary: pd.DataFrame, column: str):
    """Median time per value of a categorical (or two-valued) parameter, bars grouped by dataset:
    random vs even splitters, splitter rules, the ablation's switches."""
    s = frame.sweep_rows(summary, column)
    if s.empty or s[column].nunique() < 2:
        return None
    s["group"] = s["variant"] + " · " + s["dataset"].astype(str)
    values = list(dict.fromkeys(s[column].map(frame.fmt)))
    table = s.assign(value=s[column].map(frame.fmt)).pivot_table(index="group", columns="value", values="ms",
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
    draw.legend(ax)
    return fig


def crossings(x, ratio) -> list[float]:
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
    s = frame.sweep_rows(summary, column)
    if s.empty or s[column].nunique() != 2:
        return None
    s[column] = s[column].map(frame.fmt)          # labels, not values (True/False would index as a mask)
    a, b = sorted(s[column].unique())
    name = column.split("_", 1)[1]
    fig, ax = draw.figure(f"{name}={a} time over {name}={b} time", "n (list nodes or graph vertices)",
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
        cross = crossings(ratio.index, ratio.values)
        note = "; crosses 1 at n ≈ " + ", ".join(f"{c / 1e6:.3g}M" for c in cross) if cross else ""
        ax.plot(ratio.index, ratio.values, marker="o", ms=3, label=f"{variant} · {family}{note}")
        for c in cross:
            ax.axvline(c, color="tab:gray", ls=":", lw=1)
        drawn = True
    if not drawn:
        return None
    ax.axhline(1.0, color="black", lw=0.8)
    draw.log2x(ax)
    draw.legend(ax)
    return fig


def fig_phase_speedup(summary: pd.DataFrame, column: str = "param_blocks"):
    """Each phase's speed-up over its time at the smallest value of ``column`` (002 Fig. 5.4: RS3
    follows the total, RS2 stays flat, RS4 declines)."""
    if column not in summary:
        return None
    s = frame.prepare(summary, exclude=(column,))
    if s.empty:
        return None
    s = s[(s["phase"] != "total") & s[column].notna()]
    panels = [(v, r) for v, r in s.groupby("variant", sort=False)
              if r["phase"].nunique() >= 2 and r[column].nunique() >= 3][:draw.MAX_PANELS]
    if not panels:
        return None
    name = column.split("_", 1)[1]
    fig, axes = draw.panels(len(panels), f"Speed-up per phase vs {name} (over the smallest {name})")
    for ax, (variant, rows) in zip(axes, panels):
        colours = draw.phase_colours(rows["phase"])
        for (phase, dataset), curve in rows.groupby(["phase", "dataset"], sort=False):
            curve = curve.groupby(column)["ms"].mean().sort_index()
            ax.plot(curve.index, curve.iloc[0] / curve.values, marker="o", ms=2.5, color=colours[phase], label=str(phase))
        ax.set_title(variant, fontsize=8)
        draw.log2x(ax)
        ax.set_xlabel(name)
        ax.set_ylabel("speed-up")
        draw.legend(ax)
    fig.tight_layout()
    return fig
