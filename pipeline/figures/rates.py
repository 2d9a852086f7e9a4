"""G edges/s against m for problems that count edges: GTEPS, the harmonic mean over roots, with the
spread from the slowest to the fastest root (001 Figs 4-5, issues #7/#8)."""

import numpy as np
import pandas as pd

from . import draw, frame
from .registry import figure, table


def rate_errorbars(rows: pd.DataFrame):
    """The harmonic mean over roots and its bars down to the slowest and up to the fastest root
    (None without a spread)."""
    y = rows["gelems_hmean"]
    if not {"gelems_min", "gelems_max"} <= set(rows):
        return y, None
    return y, np.vstack([(y - rows["gelems_min"]).clip(lower=0), (rows["gelems_max"] - y).clip(lower=0)])


@figure("fig-gteps-vs-m", "G edges/s vs m: harmonic mean over roots, bars from the slowest to the fastest root "
                          "(001 Figs 4-5).")
def fig_rate_vs_size(summary: pd.DataFrame):
    """G edges/s against m, a panel per family, a curve per variant."""
    total = frame.totals(summary)
    if total.empty or "gelems_hmean" not in total or not total["by_edges"].any():
        return None
    graphs = total[total["by_edges"]]
    curves = frame.curves(graphs, ["variant", "family"], "size")
    if not curves:
        return None
    fig, panels, colours = draw.family_panels(curves, "G edges/s vs m (harmonic mean over roots; bars: slowest to "
                                                      "fastest)")
    for (variant, family), rows in curves:
        ax = panels.get(family)
        if ax is None:
            continue
        y, yerr = rate_errorbars(rows)
        if yerr is not None and (rows["gelems_max"] > rows["gelems_min"]).any():
            ax.errorbar(rows.index, y, yerr=yerr, marker="o", ms=3, capsize=2, color=colours[variant], label=variant)
        else:
            ax.plot(rows.index, y, marker="o", ms=3, color=colours[variant], label=variant)
    for family, ax in panels.items():
        ax.set_title(family, fontsize=9)
        draw.log2x(ax)
        ax.set_yscale("log")
        ax.set_xlabel("m (input edges)")
        ax.set_ylabel("G edges/s")
    draw.legend_below(fig, list(panels.values()))
    return fig


@table("table-over-ceiling", "Phases that moved bytes over the host link faster than the link's measured ceiling "
                             "allows (beyond its noise): their byte model counts bytes that did not cross it — a bug, "
                             "not a result.")
def table_over_ceiling(summary: pd.DataFrame):
    """The summary rows ``kernels.throughput`` flags (``over_ceiling``), with the rate and the ceiling."""
    if "over_ceiling" not in summary or not summary["over_ceiling"].notna().any():
        return None
    columns = [c for c in ("dataset", "kernel", "params", "placement", "phase", "median_ms", "bytes_link", "link_gbps",
                           "ceiling_h2d_gbps", "pct_link_ceiling", "over_ceiling") if c in summary]
    flagged = summary[summary["over_ceiling"].notna()]
    return flagged.assign(kernel=frame.kernel_names(flagged))[columns]
