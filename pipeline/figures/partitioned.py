"""One graph sliced over K workers (the partitioned kernels, kernels/dist): where a run's time went
on its slowest rank — outside the collectives (the slice's work and the host between them) and
inside them (the exchange, waiting for slower ranks included) — and what it gained over K = 1."""

import math

import pandas as pd

from .registry import table

STATS = {"local_ms": "stat_local_ms", "comm_ms": "stat_comm_ms", "MB": "stat_bytes_exchanged",
         "rounds": "stat_rounds"}


@table("table-partitioned", "Partitioned runs, one graph over K workers: median ms (the slowest rank), its time "
                            "outside and inside the collectives, MB the ranks received, collectives per run, and the "
                            "speed-up over the same kernel at K = 1 on the same dataset.")
def table_partitioned(summary: pd.DataFrame):
    if not {"stat_partitions", *STATS.values()} <= set(summary.columns):
        return None
    s = summary[(summary["stage"] == "kernel") & (summary["phase"] == "total") & summary["stat_partitions"].notna()]
    if s.empty:
        return None
    out = s.groupby(["kernel", "dataset", "stat_partitions"]).agg(
        ms=("median_ms", "median"), **{name: (column, "median") for name, column in STATS.items()}).reset_index()
    out = out.rename(columns={"stat_partitions": "K"})
    out["K"] = out["K"].astype(int)
    out["MB"] = out["MB"] / 1e6
    one = {(k, d): ms for k, d, K, ms in zip(out["kernel"], out["dataset"], out["K"], out["ms"]) if K == 1}
    out["speed-up over K = 1"] = [one.get((k, d), math.nan) / ms for k, d, ms in
                                  zip(out["kernel"], out["dataset"], out["ms"])]
    return out
