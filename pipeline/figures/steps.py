"""Per step — iterations, BFS levels — from the rows (the summary keeps none): time per step and the
frontier where the kernel records one, with the direction changes marked.  In the report only."""

import pandas as pd
from matplotlib import colormaps

from . import draw, frame
from .registry import figure


@figure("fig-steps", "Per step (iteration, BFS level): time and frontier size at each family's largest size, "
                     "direction changes dotted.", report_only=True, source="rows")
def fig_steps(rows: pd.DataFrame):
    """Time per step against the step and, on a twin axis, the frontier size, a panel per variant,
    one line per dataset family at its largest size (first root)."""
    if rows is None or rows.empty or "step" not in rows or rows["step"].isna().all():
        return None
    r = rows[rows["step"].notna() & rows["phase"].notna()]
    if "stage" in r:
        r = r[r["stage"].fillna("kernel") == "kernel"]
    if r.empty:
        return None
    r = r.assign(variant=frame.variants(r), family=frame.families(r))
    if "instance" in r:
        r = r[r["instance"].fillna(0) == r.groupby("task")["instance"].transform("min").fillna(0)]
    r = frame.largest_per_family(r)
    panels = [(v, g) for v, g in r.groupby("variant", sort=False) if g["step"].nunique() >= 2][:draw.MAX_PANELS]
    if not panels:
        return None
    fig, axes = draw.panels(len(panels), "Per step: time (solid) and frontier (dashed) at each family's largest size")
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
        draw.legend(ax)
    fig.tight_layout()
    return fig
