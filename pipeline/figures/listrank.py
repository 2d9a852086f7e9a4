"""List ranking's figures: the inflection — time per node jumping where the list walk's random
working set outgrows the L2 (002 §5.2.6, Fig. 5.6) — and the sub-lists random splitters cut
(003 §4.2, 000 Table 3).

What they need of a kernel, the kernel declares (contract.Kernel): ``walk_phase``, the phase that
walks the list (RS3, HJ2, PJ2, ...), and ``walk_bytes(params)``, the bytes per node it touches at
random; the ``sublists`` stat (a JSON object per task) is recorded by the splitter kernels.
"""

import json
import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from graphsweep.core.errors import GraphsweepError

from . import draw, frame
from .registry import figure, table

LISTRANK = ("listrank",)


def walk_phase(kernel: str) -> str | None:
    k = frame.kernel(kernel)
    return k.walk_phase if k is not None else None


def is_walk(rows: pd.DataFrame) -> pd.Series:
    """Whether each row is its kernel's list walk."""
    return rows["phase"] == rows["kernel"].astype(str).map(walk_phase)


def walk_bytes(kernel: str, params: dict) -> float | None:
    k = frame.kernel(kernel)
    if k is None or k.walk_bytes is None:
        return None
    try:
        return k.walk_bytes(k.resolve_params(params))   # defaults filled: the task's params as it ran
    except GraphsweepError:
        return None


def _walks(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of the whole run and of its list walk, of kernels that declare a walk."""
    s = frame.prepare(summary)
    if s.empty:
        return s
    s = s[s["kernel"].astype(str).map(walk_phase).notna() & s["n"].notna()]
    return s[(s["phase"] == "total") | is_walk(s)]


@figure("fig-inflection", "ns per node of the run and of its list walk vs n, and where the walk's random working "
                          "set passes the L2 (002 §5.2.6, Fig. 5.6).", problems=LISTRANK)
def fig_inflection(summary: pd.DataFrame):
    """ns per node of the whole run and of its list walk against n, for variants with four or more
    sizes, and where n x (bytes per node the walk touches at random) equals the L2 (RS3's time per
    node jumped at n ~ 46M / 58M on the GTX 260)."""
    s = _walks(summary)
    if s.empty:
        return None
    l2 = frame.ceiling(summary, "l2_bytes")
    panels = [(variant, rows) for variant, rows in s.groupby("variant", sort=False) if rows["n"].nunique() >= 4]
    if not panels:
        return None
    fig, axes = draw.panels(len(panels), "ns per node vs n: total and the list walk" +
                            (f" (L2 {l2 / 2**20:.0f} MiB)" if l2 else ""))
    for ax, (variant, rows) in zip(axes, panels[:draw.MAX_PANELS]):
        for (phase, family), curve in rows.groupby(["phase", "family"], sort=False):
            ns = curve.groupby("n")["ns_per_element"].mean().sort_index()
            ax.plot(ns.index, ns.values, marker="o", ms=2.5, label=f"{phase} · {family}")
        first = rows.iloc[0]
        per_node = walk_bytes(str(first["kernel"]), json.loads(first["params"]) if "params" in first else {})
        if l2 and per_node:
            ax.axvline(l2 / per_node, color="tab:red", ls="--", lw=1, label=f"{per_node:g} B/node x n = L2")
        ax.set_title(variant, fontsize=8)
        draw.log2x(ax)
        ax.set_xlabel("n")
        ax.set_ylabel("ns per node")
        draw.legend(ax)
    fig.tight_layout()
    return fig


@table("table-steps", "Rises of more than 15% in time per node between consecutive sizes (the inflections).",
       problems=LISTRANK)
def inflections(summary: pd.DataFrame, threshold: float = 0.15):
    """Where a variant's time per node (the whole run, and its list walk) rises by more than
    ``threshold`` between consecutive sizes: (variant, family, phase, n before, n after, ns before,
    ns after, rise)."""
    s = _walks(summary)
    out = []
    for (variant, family, phase), rows in (s.groupby(["variant", "family", "phase"], sort=False) if not s.empty else ()):
        ns = rows.groupby("n")["ns_per_element"].mean().sort_index()
        if len(ns) < 4:
            continue
        for (n0, a), (n1, b) in zip(ns.items(), list(ns.items())[1:]):
            if b > a * (1 + threshold):
                out.append({"variant": variant, "family": family, "phase": phase, "n before": int(n0),
                            "n after": int(n1), "ns/node before": a, "ns/node after": b, "rise": b / a - 1})
    return pd.DataFrame(out) if out else None


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


@figure("fig-sublists", "Time and sub-list balance vs the number of sub-lists (003 §4.2, 000 Table 3).",
        problems=LISTRANK)
def fig_sublists(summary: pd.DataFrame):
    """Time, longest sub-list over the mean, and singletons against the number of sub-lists, one
    curve per kernel and list (n/log n splitters give many singletons, n/2log²n long sub-lists;
    000 §3.2: the GPU tolerates the imbalance)."""
    s = sublist_columns(frame.prepare(summary, exclude=("param_p", "param_sublist", "param_rule", "param_splitters")))
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
        draw.log2x(ax)
        ax.set_xlabel("sub-lists (splitters)")
        ax.set_ylabel(ylabel)
    axes[0].set_yscale("log")
    axes[1].set_yscale("log")
    draw.legend_below(fig, axes[:1])
    return fig


@table("table-sublists", "Random vs even splitters (000 Table 3).", problems=LISTRANK)
def table_sublists(summary: pd.DataFrame):
    """000 Table 3: random vs even splitters — per n, the mean sub-list n/p, the expected shortest
    and longest random sub-list as the table computes them (mean/2p, mean·ln 2p), the measured
    shortest and longest for each, the walk's (RS3) time and the difference."""
    if "param_splitters" not in summary:
        return None
    s = sublist_columns(frame.prepare(summary, exclude=("param_splitters",)))
    if s.empty or s["param_splitters"].nunique() < 2:
        return None
    walk = s[is_walk(s)].groupby(["variant", "n", "param_splitters"])["ms"].mean()
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
