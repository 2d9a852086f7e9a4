"""Graph representations built apart from the kernels (stage ``input``: csr, rcsr), as Graph500
times construction apart from the searches."""

import pandas as pd

from . import frame
from .registry import table


@table("table-input-builds", "Graph representations built apart from the kernels (stage input): median ms "
                             "and GB/s per dataset.")
def table_input_builds(summary: pd.DataFrame):
    """Per dataset and representation, the build's median ms and GB/s against the copy ceiling."""
    if "stage" not in summary:
        return None
    s = summary[(summary["stage"] == "input") & summary["phase"].notna()]
    if s.empty:
        return None
    out = s.groupby(["dataset", "phase"], sort=False).agg(n=("n", "first"), m=("m", "first"),
                                                         ms=("median_ms", "median"),
                                                         gbps=("gbps", "median"), tasks=("task", "nunique"))
    copy = frame.ceiling(summary, "copy_gbps")
    out = out.reset_index()
    if copy:
        out["% of copy"] = 100 * out["gbps"] / copy
    return out
