"""The one step from a sweep's summary to what figures plot: the kernel rows that timed something,
labelled with their ``variant`` and dataset ``family``, their time of record and the size they run
over.  No drawing here, and no arithmetic on times or rates: those are reduce's
(``reduce.summarize``: medians of the timed runs, rates by ``kernels.throughput``), and every figure
takes them as they are.

Words used by every figure: a *variant* is a kernel plus those of its parameters that vary in the
results (``listrank.random-splitter packing=48``); a *family* is a dataset generator plus those of
its parameters that vary and do not set its size (``tree k=5``, ``uniform degree=6``).
"""

import math
import re

import numpy as np
import pandas as pd

from graphsweep.core.errors import GraphsweepError
from graphsweep.kernels import registry

SIZE_KEYS = ("n", "m", "scale")                    # dataset parameters that set its size, not its kind
QUIET = {"param_seed", "data_seed", "data_weights", "param_root"}   # never an axis of their own


def kernel(name: str):
    """The kernel ``name`` as it declares itself (contract.Kernel), or None when it is not
    installed here (a published sweep of kernels since renamed)."""
    try:
        return registry.get(name)
    except GraphsweepError:
        return None


def counts_edges(name: str) -> bool:
    """Whether kernel ``name``'s rates count input edges (its problem's ``element``)."""
    k = kernel(name)
    return k is not None and k.problem.element == "edge"


def problem_of(name: str) -> str:
    """The problem a kernel solves: its declaration's, else the part of its name before the dot."""
    k = kernel(name)
    return k.problem.name if k is not None else name.split(".")[0]


def problems(summary: pd.DataFrame) -> pd.Series:
    """The problem of each row's kernel."""
    names = summary["kernel"].astype(str)
    return names.map({name: problem_of(name) for name in names.unique()})


def fmt(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "default"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def varying(frame: pd.DataFrame, columns) -> list[str]:
    """The columns that take two or more values in ``frame`` (unset, i.e. the default, counts as one)."""
    return [c for c in columns if c in frame and frame[c].nunique(dropna=False) > 1]


def kernel_names(summary: pd.DataFrame) -> pd.Series:
    """Each row's kernel as the sweep asked for it (``asked``: the rows' own, or ``report.named``'s
    from the plan) with the implementation that ran beside it where the two differ: 'cc.best
    (cc.select)'.  Rows without ``asked`` (results older than it) are named by what ran."""
    ran = summary["kernel"].astype(str)
    if "asked" not in summary:
        return ran
    asked = summary["asked"].fillna(summary["kernel"]).astype(str)
    return asked.where(asked == ran, asked + " (" + ran + ")")


def variants(summary: pd.DataFrame, exclude=()) -> pd.Series:
    """A label per row: the kernel (``kernel_names``: 'cc.best (cc.select)') and its parameters
    that vary among that kernel's rows."""
    params = [c for c in summary.columns if c.startswith("param_") and c not in exclude and c not in QUIET]
    labels = kernel_names(summary)
    for kernel_, rows in summary.groupby("kernel", sort=False):
        for c in varying(rows, params):
            labels[rows.index] += rows[c].map(lambda v, c=c: f" {c[6:]}={fmt(v)}")
    return labels


def families(summary: pd.DataFrame, exclude=()) -> pd.Series:
    """A label per row: the dataset's generator and its varying parameters that do not set its size."""
    data = [c for c in summary.columns if c.startswith("data_") and c[5:] not in SIZE_KEYS
            and c not in exclude and c not in QUIET]
    generator = summary["generator"] if "generator" in summary else pd.Series(np.nan, index=summary.index)
    labels = generator.fillna(summary["dataset"]).astype(str)
    for gen, rows in summary.groupby(labels, sort=False):
        for c in varying(rows, data):
            labels[rows.index] += rows[c].map(lambda v, c=c: f" {c[5:]}={fmt(v)}")
    return labels


def prepare(summary: pd.DataFrame, exclude=()) -> pd.DataFrame:
    """The kernel rows that timed something, with ``variant`` and ``family`` labels, ``ms`` (the
    summary's median, the time its rates come from too) and ``size``: input edges for problems that
    count edges (CC, BFS, SSSP: their rates are G edges/s; ``by_edges``), else n (list nodes;
    APSP's vertices)."""
    s = summary[summary["phase"].notna()].copy()
    if "stage" in s:
        s = s[s["stage"].fillna("kernel") == "kernel"]
    if s.empty:
        return s
    s["variant"] = variants(s, exclude)
    s["family"] = families(s, exclude)
    s["ms"] = s["median_ms"]
    s["size"], s["by_edges"] = s["n"], False
    if "m" in s and "elements" in s:
        m = pd.to_numeric(s["m"], errors="coerce")
        # a run of k roots at once (bc.batched) counts k m: its kernel's declaration says edges
        s["by_edges"] = m.notna() & ((s["elements"] == m) | s["kernel"].map(counts_edges))
        s["size"] = m.where(s["by_edges"], s["n"])
    return s


def totals(summary: pd.DataFrame, exclude=()) -> pd.DataFrame:
    """``prepare``'s rows of whole runs (phase ``total``)."""
    s = prepare(summary, exclude)
    return s[s["phase"] == "total"] if not s.empty else s


def size_label(rows: pd.DataFrame) -> str:
    edges, other = rows["by_edges"].any(), (~rows["by_edges"]).any()
    return " or ".join([*(["n (list nodes or vertices)"] if other else []), *(["m (input edges)"] if edges else [])])


def ceiling(summary: pd.DataFrame, key: str):
    """The device's measured ``key`` (copy_gbps, l2_bytes, sm_count ...) stamped on the rows."""
    column = f"ceiling_{key}"
    if column in summary and summary[column].notna().any():
        return float(summary[column].dropna().max())
    return None


def natural(text) -> tuple:
    """A sort key that orders numbers inside labels by value: 'tree k=2' before 'tree k=10'."""
    return tuple(float(t) if i % 2 else t for i, t in enumerate(re.split(r"(\d+(?:\.\d+)?)", str(text))))


def natural_index(table: pd.DataFrame) -> pd.DataFrame:
    return table.loc[sorted(table.index, key=natural)]


def curves(frame: pd.DataFrame, keys, x: str, min_points: int = 2):
    """(key, rows sorted by x, averaged per x) of each group with at least ``min_points`` x values,
    in natural order of the keys."""
    out = []
    for key, rows in frame.groupby(keys, sort=False):
        if rows[x].nunique() >= min_points:
            out.append((key, rows.groupby(x).mean(numeric_only=True).sort_index()))
    return sorted(out, key=lambda kv: natural(" ".join(map(str, kv[0])) if isinstance(kv[0], tuple) else kv[0]))


def largest_per_family(s: pd.DataFrame) -> pd.DataFrame:
    """The rows of each (variant, family) at its largest n."""
    biggest = s.groupby(["variant", "family"])["n"].transform("max")
    return s[s["n"] == biggest]


def slope(n, y) -> float:
    """Least-squares change of y per doubling of n, relative to y's mean."""
    x = np.log2(np.asarray(n, dtype=float))
    y = np.asarray(y, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0:
        return float("nan")
    return float(np.polyfit(x, y, 1)[0] / np.mean(y))


def upper(rows: pd.DataFrame) -> pd.DataFrame:
    """The larger half of a curve's sizes (at least three points), where fixed costs no longer
    dominate: the range the change per doubling is fitted on."""
    keep = max(3, -(-len(rows) // 2))
    return rows.iloc[-keep:]


# --- swept parameters ---------------------------------------------------------------------------

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


def numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def groups_for(column: str) -> list[str]:
    """What one curve of a sweep of ``column`` holds fixed: the dataset for a kernel parameter; the
    dataset's other parameters (``where``) for a dataset parameter, whose datasets differ per point."""
    return ["variant", "dataset"] if column.startswith("param_") else ["variant", "where"]


def sweep_rows(summary: pd.DataFrame, column: str, phase: str = "total") -> pd.DataFrame:
    """``prepare``'s rows of ``phase`` where ``column`` is set (not folded into the variant or
    family labels); for a dataset parameter, ``where`` names the generator and its other varying
    parameters (and seed)."""
    s = prepare(summary, exclude=(column,))
    if s.empty or column not in s:
        return s.iloc[0:0]
    s = s[(s["phase"] == phase) & s[column].notna()].copy()
    if column.startswith("data_"):
        others = varying(s, [c for c in s.columns if c.startswith("data_") and c != column and c not in QUIET])
        where = s["generator"].astype(str) if "generator" in s else s["dataset"].astype(str)
        for c in others + (["seed"] if "seed" in s and s["seed"].nunique() > 1 else []):
            where = where + s[c].map(lambda v, c=c: f" {c.removeprefix('data_')}={fmt(v)}")
        s["where"] = where
    return s
