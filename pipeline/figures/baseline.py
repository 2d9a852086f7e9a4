"""Every variant's speed-up over its problem's baseline kernel, the papers' first algorithm, which
the problem declares (contract.Problem.baseline: Soman's hook-compress for CC, Harish's kernels for
BFS and SSSP, Floyd-Warshall for APSP) — 004 Fig. 5's ablation, each optimisation added in turn."""

import numpy as np
import pandas as pd

from . import draw, frame
from .registry import figure


def baselines(kernels) -> list[str]:
    """The baseline kernel of each problem of ``kernels``."""
    found = (frame.kernel(str(name)) for name in kernels)
    return sorted({k.problem.baseline for k in found if k is not None and k.problem.baseline})


@figure("fig-speedup-over-baseline", "Speed-up over each problem's baseline kernel on the same dataset "
                                     "(004 Fig. 5).")
def fig_speedup_over_baseline(summary: pd.DataFrame):
    """The speed-up of every variant over its problem's baseline on the datasets the baseline ran
    on — each family at its largest size, at most 12 — a panel per baseline."""
    total = frame.totals(summary)
    if total.empty:
        return None
    total = total.assign(problem=frame.problems(total))
    groups = []
    for base in baselines(total["kernel"].unique()):
        ref = total[total["kernel"] == base]
        if ref.empty:
            continue
        ref = ref[ref["size"] == ref.groupby("family")["size"].transform("max")]
        base_ms = ref.groupby("dataset")["ms"].mean()
        same = total[(total["problem"] == frame.problem_of(base)) & (total["kernel"] != base)
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
    fig, axes = draw.panels(len(groups), "Speed-up over the baseline kernel (its time / the variant's)")
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
        draw.legend(ax)
    tallest = max(len(t) * len(t.columns) for _, t in groups)
    fig.set_size_inches(11 if len(groups) > 1 else 8, max(3.5, 1.2 + 0.16 * tallest) * -(-len(groups) // 2))
    fig.tight_layout()
    return fig
