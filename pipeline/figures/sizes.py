"""Time and time per element against size — n for lists, m for problems that count edges — a panel
per dataset family and a curve per variant (002 Figs 5.1-5.2, 000 Figs 2-3, 001 Figs 4-5)."""

import math

import pandas as pd

from . import draw, frame
from .registry import figure, table


@figure("fig-time-vs-n", "Time vs size (median of the timed runs; n for lists and APSP, m for problems that "
                         "count edges), a panel per dataset family (002 Fig. 5.1, 000 Fig. 2, 001 Figs 4-5).")
def fig_time_vs_size(summary: pd.DataFrame):
    """Time (the median of the timed runs) against size, a panel per family, a curve per variant."""
    total = frame.totals(summary)
    curves = frame.curves(total, ["variant", "family"], "size") if not total.empty else []
    if not curves:
        return None
    fig, panels, colours = draw.family_panels(curves, "Time vs size (median of the timed runs)")
    for (variant, family), rows in curves:
        ax = panels.get(family)
        if ax is None:
            continue
        ax.plot(rows.index, rows["ms"], marker="o", ms=3, color=colours[variant], label=variant)
    for family, ax in panels.items():
        ax.set_title(family, fontsize=9)
        draw.log2x(ax)
        ax.set_yscale("log")
        ax.set_xlabel(frame.size_label(total[total["family"] == family]))
        ax.set_ylabel("ms per run")
    draw.legend_below(fig, list(panels.values()))
    return fig


@figure("fig-time-per-n", "Time per element vs size, each curve labelled with its change per doubling over the "
                          "larger half of its sizes: flat for O(n) work, log n for O(n log n) (002 Fig. 5.2).")
def fig_time_per_element(summary: pd.DataFrame):
    """Time per element against size, a panel per family, each curve labelled with its change per
    doubling of n over the larger half of its sizes: flat for O(n) work, +1/log2 n per doubling
    for O(n log n) (002 Fig. 5.2, 000 Fig. 3 left)."""
    total = frame.totals(summary)
    curves = frame.curves(total, ["variant", "family"], "size") if not total.empty else []
    if not curves:
        return None
    fig, panels, colours = draw.family_panels(curves, "Time per element vs size (change per doubling over the "
                                                      "larger half)")
    spread = {}
    for (variant, family), rows in curves:
        ax = panels.get(family)
        if ax is None:
            continue
        upper = frame.upper(rows)
        slope = frame.slope(upper.index, upper["ns_per_element"])
        ax.plot(rows.index, rows["ns_per_element"], marker="o", ms=3, color=colours[variant],
                label=f"{variant} ({slope:+.1%})")
        spread.setdefault(family, []).extend(rows["ns_per_element"].dropna())
    for family, ax in panels.items():
        values = spread.get(family, [])
        if values and max(values) / max(min(values), 1e-12) > 20:
            ax.set_yscale("log")
        ax.set_title(family, fontsize=9)
        draw.log2x(ax)
        ax.set_xlabel(frame.size_label(total[total["family"] == family]))
        ax.set_ylabel("ns per element (node or input edge)")
        draw.legend(ax)
    fig.tight_layout()
    return fig


@table("table-scaling", "ns per element at the smallest and largest n, and the fitted change per doubling "
                        "(flat: O(n); log n_max / log n_min: O(n log n)).")
def table_scaling(summary: pd.DataFrame):
    """002 Fig. 5.2 as numbers: per variant and family, ns per element at its smallest and largest
    n, their ratio, the fitted change per doubling of n, and what O(n log n) work would give
    (log n_max / log n_min)."""
    total = frame.totals(summary)
    curves = frame.curves(total, ["variant", "family"], "size", min_points=3) if not total.empty else []
    rows = []
    for (variant, family), c in curves:
        lo, hi = c.index.min(), c.index.max()
        upper = frame.upper(c)
        rows.append({"variant": variant, "family": family, "size min": int(lo), "size max": int(hi),
                     "ns/elem at min": c.loc[lo, "ns_per_element"], "ns/elem at max": c.loc[hi, "ns_per_element"],
                     "ratio": c.loc[hi, "ns_per_element"] / c.loc[lo, "ns_per_element"],
                     "per doubling (larger half)": frame.slope(upper.index, upper["ns_per_element"]),
                     "n log n would give": math.log2(hi) / math.log2(lo)})
    return pd.DataFrame(rows) if rows else None
