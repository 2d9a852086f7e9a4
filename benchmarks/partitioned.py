"""One graph over K workers: the partitioned kernels against the one-GPU kernels, with the
exchange's cost model, from the results of the shipped sweep ``sweeps/partitioned.yaml``.

    graphsweep run sweeps/partitioned.yaml               # a worker per GPU (NCCL between them)
    python3 benchmarks/partitioned.py results/partitioned

Per graph and K, each partitioned kernel (and variant) the sweep ran, all verified:

- ``ms``: the partitioned run's time (its slowest rank, from the barrier that starts it to its end,
  by CUDA events on the GPU as the one-GPU kernels are timed); for BFS the mean over roots of each
  root's median, so that m / ms is Graph500's GTEPS, the harmonic mean of the roots' TEPS;
  ``1-GPU``: the one-worker ``*.best`` of the same problem on the same graph, from the same sweep;
  ``speed-up``: 1-GPU / ms (strong scaling; K = 1 is the per-slice machinery's overhead);
- ``dispatch``: what the call through Dask adds (the driver's wall time less the run);
- ``rounds``, ``MB``: collectives per run and the bytes all ranks received; ``comm``: the most
  time a rank spent inside collectives (waiting for slower ranks included); ``local``: the
  slowest rank's time outside them;
- ``model``: MB / the link's bandwidth + rounds x its latency + local, with bandwidth (an
  all-reduce's bus bandwidth) and latency (an 8-byte all-reduce read on the host) measured by the
  partition's build on the same workers (``stat_link_*`` on the rows); ``meas/model`` says how
  much the model explains;
- ``target``: issue #30's speed-up for this K (K = 1: within 1.25x of one GPU, i.e. 0.80x) and
  whether the run met it.

Then a line of phases (the slowest rank's), the kernel's statistics, its rate (Graph500's
counting: BFS GTEPS, CC G edges/s, PageRank G input arcs per second per GPU per iteration) and,
per K, the partition's facts (slices, cut, build time and peak memory, the link).  The transport
is NCCL when every worker owns a GPU (a ``local-gpu`` cluster), else Dask's comms.  Weak scaling:
sweep larger graphs at larger K (the distributed kernels' ``datasets`` patterns) and compare the
per-GPU rates.
"""

import argparse
import math

import pandas as pd

from graphsweep.pipeline import reduce
from graphsweep.pipeline.figures import variants
from graphsweep.pipeline.ratios import mark_best, run_printer

PAIRS = {"cc.distributed": "cc.best", "bfs.distributed": "bfs.best", "pagerank.distributed": "pagerank.best"}
# Issue #30's targets (R-MAT 26 on 4 GPUs; K = 1 on R-MAT 24): the speed-up over one GPU's *.best
# at K = 2 and 4, and at K = 1 at most 1.25x its time (a speed-up of at least 0.8).
TARGETS = {1: {"cc.distributed": 0.8, "bfs.distributed": 0.8, "pagerank.distributed": 0.8},
           2: {"cc.distributed": 1.4, "bfs.distributed": 1.2, "pagerank.distributed": 1.8},
           4: {"cc.distributed": 2.0, "bfs.distributed": 1.5, "pagerank.distributed": 3.2}}
# statistics printed beside the phases: numbers, then words as they are
STATS = {"cc.distributed": ("merge_pairs", "merge_retries", "merge_rounds", "sparse_merges"),
         "bfs.distributed": ("levels", "bottom_up_levels", "outbox")}
WORDS = {"bfs.distributed": ("exchange", "level_graphs", "phases_by_rank"),
         "cc.distributed": ("phases_by_rank",), "pagerank.distributed": ("phases_by_rank",)}
HEADER = (f"{'kernel':<44} {'K':>2} {'ms':>8} {'1-GPU':>8} {'speed-up':>8} {'dispatch':>8} {'rounds':>6} "
          f"{'MB':>8} {'comm':>8} {'local':>8} {'model':>8} {'meas/model':>10} {'target':>12}")


def _ms(value: float, width: int) -> str:
    return f"{'-':>{width}}" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:{width}.2f}"


def _get(row, key: str, default=math.nan):
    value = row.get(key, default)
    return default if value is None or (isinstance(value, float) and math.isnan(value)) else value


def run_ms(row) -> float:
    """A run's time: the mean over instances (roots) of each instance's median — elements over the
    harmonic mean of their rates, Graph500's reduction; one instance's median where there is one."""
    rate = _get(row, "gelems_hmean")
    return row["elements"] / rate / 1e6 if rate and not math.isnan(rate) else row["median_ms"]


def model_ms(row, k: int) -> float:
    """The exchange's cost model: the bytes a rank received at the link's bus bandwidth, each round at
    its latency, plus the slowest rank's local time; NaN where a term was not measured."""
    if k == 1:
        return _get(row, "stat_local_ms")
    per_rank = _get(row, "stat_bytes_exchanged") / k
    return (1e3 * per_rank / 1e9 / _get(row, "stat_link_busbw_gbps")
            + _get(row, "stat_rounds") * _get(row, "stat_link_latency_ms") + _get(row, "stat_local_ms"))


def rate(name: str, row, ms: float, k: int) -> str:
    """Graph500's counting (input edges / time): BFS GTEPS a root, CC G edges/s, and each a GPU
    (weak scaling compares those); PageRank G input arcs (2m) per second per GPU per iteration."""
    if name.startswith("pagerank"):
        return f"{2 * row['m'] * _get(row, 'stat_iterations') / (ms / 1e3) / k / 1e9:.1f} G arcs/s/GPU/iter"
    total = row["m"] / (ms / 1e3) / 1e9
    return f"{total:.1f} {'GTEPS' if name.startswith('bfs') else 'G edges/s'} ({total / k:.1f} a GPU)"


def partition_facts(row, k: int) -> str:
    peak = _get(row, "stat_build_peak_bytes_max")
    slice_bytes = _get(row, "stat_slice_bytes_max")
    link = (f"all-reduce bus bandwidth {_get(row, 'stat_link_busbw_gbps'):.1f} GB/s, latency "
            f"{_get(row, 'stat_link_latency_ms') * 1e3:.1f} us; " if k > 1 else "")
    return (f"K = {k} ({_get(row, 'stat_transport', '?')}): {link}slices of {_get(row, 'stat_slice_edges_min'):,.0f}.."
            f"{_get(row, 'stat_slice_edges_max'):,.0f} entries and {_get(row, 'stat_slice_rows_min'):,.0f}.."
            f"{_get(row, 'stat_slice_rows_max'):,.0f} rows, {_get(row, 'stat_cut_entries'):,.0f} cut, built in "
            f"{_get(row, 'stat_partition_s'):.1f} s by the shuffle ({_get(row, 'stat_partition_passes'):.0f} passes "
            f"over each worker's share, all-to-all rounds: {_get(row, 'stat_partition_rounds'):.0f}); largest slice "
            f"{slice_bytes / 1e9:.2f} GB" + (f", a worker's build peak (memory pool high water) {peak / 1e9:.2f} GB = "
                                             f"{peak / slice_bytes:.2f}x" if not math.isnan(peak) else ""))


def table(summary: pd.DataFrame) -> None:
    """Print the tables of sweeps' summaries (``reduce.summarize``)."""
    kernel_rows = summary[summary["stage"] == "kernel"]
    total = kernel_rows[kernel_rows["phase"] == "total"]
    total = total.assign(variant=variants(total))
    for dataset, rows in total.groupby("dataset", sort=False):
        first = rows.iloc[0]
        print(f"\n{dataset}: n = {int(first['n']):,}, m = {int(first['m']):,} ({first['backend']})")
        single = {alias: run_ms(r) for alias in PAIRS.values()
                  for _, r in rows[mark_best(rows, alias) & rows["verified"].astype(bool)].head(1).iterrows()}
        parted = rows[rows["kernel"].isin(PAIRS) & rows["param_partitions"].notna()]
        for k, at_k in parted.groupby(parted["param_partitions"].astype(int), sort=True):
            print(partition_facts(at_k.iloc[0], k))
            print(HEADER)
            for _, row in at_k.sort_values(["kernel", "variant"]).iterrows():
                _line(row, k, single.get(PAIRS[row["kernel"]], math.nan), kernel_rows)


def _line(row, k: int, single: float, kernel_rows: pd.DataFrame) -> None:
    name, label = row["kernel"], row["variant"]
    if not row["verified"]:
        print(f"{label:<44} {k:>2}  NOT VERIFIED: {_get(row, 'error', '')}")
        return
    ms = run_ms(row)
    phases = kernel_rows[kernel_rows["task"] == row["task"]].set_index("phase")["median_ms"]
    dispatch = phases.get("dispatch", math.nan) - row["median_ms"]
    model = model_ms(row, k)
    target = TARGETS.get(k, {}).get(name)
    speedup = single / ms
    verdict = f"{target:.2f}x {'met' if speedup >= target else 'MISS'}" if target and not math.isnan(speedup) else ""
    exchanged = _get(row, "stat_bytes_exchanged")
    print(f"{label:<44} {k:>2} {ms:8.2f} {_ms(single, 8)} {_ms(speedup, 7)}x {_ms(dispatch, 8)} "
          f"{_get(row, 'stat_rounds'):6.0f} {exchanged / 1e6:8.1f} {_ms(_get(row, 'stat_comm_ms'), 8)} "
          f"{_ms(_get(row, 'stat_local_ms'), 8)} {_ms(model, 8)} {_ms(ms / model if model else math.nan, 10)} "
          f"{verdict:>12}")
    parts = [", ".join(f"{phase} {value:.3f}" for phase, value in phases.items() if phase not in ("dispatch", "total"))]
    parts += [f"{key} {_get(row, 'stat_' + key):,.0f}" for key in STATS.get(name, ())]
    parts.append(rate(name, row, ms, k))
    if _get(row, "instances", 1) > 1:
        each = [row["elements"] / row[f"gelems_{end}"] / 1e6 for end in ("max", "median", "min")]
        parts.append(f"roots {each[0]:.2f}..{each[1]:.2f}..{each[2]:.2f} ms")
    parts += [f"{key} {row['stat_' + key]}" for key in WORDS.get(name, ())
              if isinstance(row.get("stat_" + key), str) and row["stat_" + key].strip()]
    print(f"{'':<44}    phases (slowest rank, ms): {'; '.join(p for p in parts if p)}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="results folders of sweeps/partitioned.yaml (or one like it)")
    results = ap.parse_args(argv).results
    table(pd.concat([reduce.summarize(reduce.rows_of(r)) for r in results], ignore_index=True))


if __name__ == "__main__":
    run_printer(main)
