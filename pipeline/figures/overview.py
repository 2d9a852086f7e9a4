"""The report's overview: each phase's time, stacked, and its GB/s against the copy ceiling, at each
kernel's largest size — a bar (group) per variant and dataset type.  Past ``OVERVIEW_MAX`` of them
(a sweep over blocks or p) it stops being an overview and the swept figures say it better, so it
draws nothing.  In the report only (docs/results hold the papers' figures)."""

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .draw import phase_colours
from .frame import variants
from .registry import figure

OVERVIEW_MAX = 16


def _largest(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of each (variant, type) at its largest n."""
    biggest = summary.groupby(["variant", "type"])["n"].transform("max")
    return summary[summary["n"] == biggest]


def overview(summary: pd.DataFrame) -> pd.DataFrame | None:
    """The kernel rows labelled with their ``variant`` and dataset ``type`` (its generator), or None
    when there are none or too many groups for an overview."""
    kernel = summary[summary["stage"].fillna("kernel") == "kernel"] if "stage" in summary else summary
    if kernel.empty:
        return None
    labelled = kernel.assign(variant=variants(kernel), type=kernel["generator"].fillna(kernel["dataset"]).astype(str))
    if _largest(labelled).groupby(["variant", "type"]).ngroups > OVERVIEW_MAX:
        return None
    return labelled


@figure("fig-phases", "Median time of each phase, stacked, at each kernel's largest size.", report_only=True)
def fig_phases(summary: pd.DataFrame):
    labelled = overview(summary)
    if labelled is None:
        return None
    rows = _largest(labelled[labelled["phase"] != "total"])
    if rows.empty:
        return None
    table = rows.pivot_table(index=rows["variant"] + " · " + rows["type"] + " n=" + rows["n"].astype(str),
                             columns="phase", values="median_ms", aggfunc="mean", sort=False)
    # Horizontal bars: labels of any length stay whole and readable (rotated ones were cut off).
    fig = Figure(figsize=(9, 1.6 + 0.3 * len(table)))
    ax = fig.add_subplot()
    ax.set_title("Time per phase at the largest n")
    ax.set_xlabel("ms per run (median)")
    ax.grid(True, axis="x", alpha=0.3)
    colours = phase_colours(table.columns)
    left = np.zeros(len(table))
    for phase in table.columns:
        values = table[phase].fillna(0).to_numpy()
        ax.barh(table.index, values, left=left, label=phase, color=colours[phase])
        left += values
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7, ncols=max(1, -(-len(table.columns) // 12)), loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


@figure("fig-gbps", "GB/s of each phase (bytes of its byte model over its median time) at each kernel's "
                    "largest size, against the device's measured copy ceiling.", report_only=True)
def fig_gbps(summary: pd.DataFrame):
    labelled = overview(summary)
    if labelled is None:
        return None
    rows = _largest(labelled[labelled["gbps"].notna() & (labelled["gbps"] > 0)])
    if rows.empty:
        return None
    labels = rows["variant"] + " · " + rows["type"] + " · " + rows["phase"].astype(str)
    # Horizontal bars: one readable label per (kernel, dataset type, phase), however many there are.
    fig = Figure(figsize=(9, 1.2 + 0.22 * len(rows)))
    ax = fig.add_subplot()
    ax.set_title("Memory throughput per phase at the largest n")
    ax.set_xlabel("GB/s (bytes of the model / median time)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.barh(labels, rows["gbps"], color="tab:blue")
    ax.invert_yaxis()
    if "ceiling_copy_gbps" in rows and rows["ceiling_copy_gbps"].notna().any():
        for device, ceiling in rows.groupby("device")["ceiling_copy_gbps"].max().items():
            ax.axvline(ceiling, color="tab:red", linestyle="--", label=f"copy ceiling, {device}: {ceiling:.0f} GB/s")
        ax.legend(fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    return fig
