"""Rounds per dataset family: the iterations (CC, SSSP, PageRank) or levels (BFS, BC) a kernel
records as its ``iterations`` or ``levels`` stat, and the time each phase takes per round
(002 Table 6.1, Figs 6.3/6.5; 000 Fig. 6).  Any kernel that counts its rounds under one of those
names gets them."""

import numpy as np
import pandas as pd

from . import draw, frame
from .registry import figure, table

ROUND_STATS = ("stat_iterations", "stat_levels")   # the first one the results hold is drawn


def round_stat(s: pd.DataFrame) -> str | None:
    for c in ROUND_STATS:
        if c in s and s[c].notna().any():
            return c
    return None


def _per_family(summary: pd.DataFrame):
    """(stat, its table: dataset family x variant, at each family's largest size), or None."""
    total = frame.totals(summary)
    stat = round_stat(total) if not total.empty else None
    if stat is None:
        return None
    rows = frame.largest_per_family(total[total[stat].notna()])
    return stat, rows.pivot_table(index="family", columns="variant", values=stat, aggfunc="mean", sort=False)


@figure("fig-iterations", "Iterations (or levels) per dataset family at its largest size (002 Table 6.1, "
                          "Fig. 6.3).")
def fig_iterations(summary: pd.DataFrame):
    """Iterations (or levels) per dataset family and variant, at each family's largest size (random
    graphs need far fewer than lists and trees)."""
    found = _per_family(summary)
    if found is None or found[1].empty:
        return None
    stat, table_ = found
    table_ = frame.natural_index(table_)
    fig, ax = draw.figure(f"{stat.removeprefix('stat_')} per dataset family", "", stat.removeprefix("stat_"),
                          width=max(7.5, 0.55 * len(table_.index) * max(1, len(table_.columns) / 2)))
    width = 0.8 / len(table_.columns)
    x = np.arange(len(table_.index))
    for i, variant in enumerate(table_.columns):
        ax.bar(x + i * width, table_[variant].fillna(0), width, label=variant)
    ax.set_xticks(x + width * (len(table_.columns) - 1) / 2, table_.index, rotation=45, ha="right", fontsize=7)
    draw.legend(ax)
    fig.tight_layout()
    return fig


@table("table-iterations", "Iterations per dataset family (002 Table 6.1).")
def table_iterations(summary: pd.DataFrame):
    """Iterations per family (rows) and variant (columns), at each family's largest size."""
    found = _per_family(summary)
    if found is None:
        return None
    table_ = found[1]
    return frame.natural_index(table_).reset_index() if len(table_.index) >= 2 else None


@figure("fig-time-per-iteration", "Time per iteration by phase and dataset family (000 Fig. 6, 002 Fig. 6.5).")
def fig_time_per_iteration(summary: pd.DataFrame):
    """Each phase's time per round, stacked, per dataset family — a panel per variant (SV2 and SV3
    dominate; trees cost most per iteration)."""
    s = frame.prepare(summary)
    stat = round_stat(s) if not s.empty else None
    if stat is None:
        return None
    s = frame.largest_per_family(s[s[stat].notna() & (s[stat] > 0) & (s["phase"] != "total")])
    panels = [(v, r) for v, r in s.groupby("variant", sort=False)
              if r["phase"].nunique() >= 2 and r["family"].nunique() >= 2][:draw.MAX_PANELS]
    if not panels:
        return None
    fig, axes = draw.panels(len(panels), f"Time per {stat.removeprefix('stat_').rstrip('s')} by phase")
    for ax, (variant, rows) in zip(axes, panels):
        table_ = frame.natural_index(rows.assign(per=rows["ms"] / rows[stat]).pivot_table(
            index="family", columns="phase", values="per", aggfunc="mean", sort=False))
        colours = draw.phase_colours(table_.columns)
        bottom = np.zeros(len(table_))
        for phase in table_.columns:
            values = table_[phase].fillna(0).to_numpy()
            ax.bar(np.arange(len(table_)), values, bottom=bottom, label=str(phase), color=colours[phase])
            bottom += values
        ax.set_xticks(np.arange(len(table_)), table_.index, rotation=45, ha="right", fontsize=7)
        ax.set_title(variant, fontsize=8)
        ax.set_ylabel("ms per iteration")
        draw.legend(ax, ncols=2)
    fig.tight_layout()
    return fig
