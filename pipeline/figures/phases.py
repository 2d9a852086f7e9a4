"""Per phase against size: each phase's time and GB/s (its byte model over its median time) against
the copy ceiling measured in the same run (002 Figs 5.5 and 5.8), and 000 Table 2's layout."""

import pandas as pd

from . import draw, frame
from .registry import figure, table


def phased(summary: pd.DataFrame, x: str = "size", exclude=()) -> list[tuple[str, pd.DataFrame]]:
    """(variant, its per-phase rows) for variants with two or more phases, at most MAX_PANELS; of
    each, the dataset families with two or more x values, at most len(STYLES) of them (the ones
    with the most points: one line style each)."""
    s = frame.prepare(summary, exclude)
    if s.empty or x not in s:
        return []
    s = s[(s["phase"] != "total") & s[x].notna()]
    out = []
    for variant, rows in s.groupby("variant", sort=False):
        points = rows.groupby("family", sort=False)[x].nunique()
        keep = points[points >= 2].sort_values(ascending=False, kind="stable").index[:len(draw.STYLES)]
        rows = rows[rows["family"].isin(keep)]
        if rows["phase"].nunique() >= 2 and not rows.empty:
            out.append((variant, rows))
    return out[:draw.MAX_PANELS]


def _phase_panels(panels, title: str, y: str, ylabel: str, ceiling: float | None = None):
    """A panel per variant of its phases' ``y`` against size, log-log, with a line at ``ceiling``."""
    fig, axes = draw.panels(len(panels), title)
    for ax, (variant, rows) in zip(axes, panels):
        styles = draw.phase_lines(ax, rows, "size", y, draw.phase_colours(rows["phase"]))
        if ceiling:
            ax.axhline(ceiling, color="tab:red", ls="--", lw=1, label=f"copy ceiling {ceiling:.0f} GB/s")
        ax.set_title(f"{variant}\n{draw.styles_note(styles)}", fontsize=7)
        draw.log2x(ax)
        ax.set_yscale("log")
        ax.set_xlabel(frame.size_label(rows))
        ax.set_ylabel(ylabel)
        draw.legend(ax)
    fig.tight_layout()
    return fig


@figure("fig-phases-vs-n", "Time per phase vs size, a panel per variant (002 Fig. 5.5).")
def fig_phases_vs_size(summary: pd.DataFrame):
    """Each phase's median time against size, a panel per variant (002 Fig. 5.5: RS3 dominates)."""
    panels = phased(summary)
    return _phase_panels(panels, "Time per phase vs n", "ms", "ms (median)") if panels else None


@figure("fig-phase-gbps-vs-n", "GB/s per phase (its byte model over its median time) vs size, against the copy "
                               "ceiling measured in the same run (002 Fig. 5.8).")
def fig_phase_gbps_vs_size(summary: pd.DataFrame):
    """Each phase's GB/s against size, with the copy ceiling (002 Fig. 5.8: RS3's walk against RS5's
    coalesced pass)."""
    panels = [(v, r[r["gbps"].notna() & (r["gbps"] > 0)]) for v, r in phased(summary)]
    panels = [(v, r) for v, r in panels if not r.empty and r["size"].nunique() >= 2]
    if not panels:
        return None
    return _phase_panels(panels, "GB/s per phase vs size (byte model / median time)", "gbps", "GB/s",
                         frame.ceiling(summary, "copy_gbps"))


@table("table-phases", "Median ms per phase and n (000 Table 2's layout).")
def table_phases(summary: pd.DataFrame):
    """000 Table 2: per n, each variant's total and per-phase median ms (only when at most four
    variants have phases, as the random-splitter sweep; wider sweeps read better as figures)."""
    s = frame.prepare(summary)
    if s.empty:
        return None
    phased_ = [v for v, r in s.groupby("variant", sort=False) if r["phase"].nunique() >= 3 and r["n"].nunique() >= 2]
    if not phased_ or len(phased_) > 4:
        return None
    s = s[s["variant"].isin(phased_)]
    table = s.pivot_table(index="n", columns=["variant", "phase"], values="ms", aggfunc="mean")
    table.columns = [f"{v}: {p}" for v, p in table.columns]
    return table.reset_index()
