"""Graphs in host memory: the link's floors and the price of placement, from the results of the
shipped sweeps ``sweeps/placement-price.yaml`` (R-MAT 26-28 forced onto each placement) and
``sweeps/host-memory.yaml`` (R-MAT 29, larger than an 80 GB GPU).

    graphsweep run sweeps/placement-price.yaml      # on a GPU machine
    python3 benchmarks/link.py results/placement-price [results/host-memory]

Prints (1) the link's floors each worker measured and stamped on its rows (pinned copies both
ways, a kernel reading mapped host memory sequentially, a warp per random aligned 128-byte line, a
thread per random line) beside the figures the issue measured on an H200; (2) per graph, each
kernel on each placement (an alias's row names the kernel that ran: ``cc.streaming`` and
``bfs.emogi`` on the host): the median time, GTEPS (harmonic mean over the roots), bytes over the
link per run and their rate, the ratio to the kernel's link floor, and the price of the host
placement (its time over the device placement's on the same graph):

- ``cc``: the CSR's bytes at the host-to-device copy rate (target: at most 1.2x);
- ``bfs``: the bytes that crossed the link (each line of the CSR the first time a run reads it, and
  streamed blocks) at the fastest rate the link moved any (the pinned copy, or sequential zero-copy
  reads where those measured faster) — not ``stat_line_bytes``, which counts a line once per row
  and level that reads it and made a floor the run beat (0.66x on R-MAT 29, H200) — (target: at
  most 1.5x); beside it ``floor_ms``, its per-level model (each level the cheaper of its lines at
  the warp-per-line rate and the whole CSR at the copy rate), which counts lines the same way;
- ``sssp``: priced by its bytes over the link (zero-copy reads).

A run faster than its floor by more than the link's noise (``kernels.throughput.LINK_NOISE``) is
printed as a byte model to fix, never as a ratio below 1.

The CPU twins' figures beside the scale-29 run (docs/results/link/h100-rmat29-cpu-bfs.jsonl) ran
on that run's own pinned CSR, which a sweep cannot share: a CPU task builds its own, and two
86 GB CSRs do not fit the host.  A sweep with ``backend: cpu`` gives them on graphs that do.
"""

import argparse
import math

from graphsweep.kernels.throughput import LINK_NOISE
from graphsweep.pipeline.ratios import totals, run_printer

ISSUE_H200 = {"h2d_gbps": 50.0, "d2h_gbps": 55.0, "mapped_sequential_gbps": 45.0, "mapped_naive_gbps": 0.54}
FLOORS = (("h2d_gbps", "pinned host -> device copy"), ("d2h_gbps", "device -> pinned host copy"),
          ("mapped_sequential_gbps", "kernel reading mapped host memory sequentially"),
          ("mapped_lines_gbps", "warp per random aligned 128-byte line"),
          ("mapped_naive_gbps", "thread per random 128-byte line (naive)"))
TARGETS = {"cc": 1.2, "bfs": 1.5}


def link_floor(row) -> tuple[float, str]:
    """(the run's link floor in ms, what it is) for a host-placed row; NaN where none applies."""
    if row["kernel"].startswith("cc."):
        return row["bytes_link"] / (row["ceiling_h2d_gbps"] * 1e9) * 1e3, "CSR at the copy rate"
    if row["kernel"].startswith("bfs.") and row.get("bytes_link", 0) > 0:
        rate = max(row["ceiling_h2d_gbps"], row.get("ceiling_mapped_sequential_gbps", 0.0))
        return row["bytes_link"] / (rate * 1e9) * 1e3, "bytes over the link at its fastest rate"
    return math.nan, ""


def against_floor(ms: float, floor_ms: float) -> str:
    """The run's time over its floor, or, for a run faster than the floor beyond the link's noise,
    the byte model named as what is wrong (bytes counted that did not cross the link)."""
    if not floor_ms > 0:
        return f"{'-':>8}"
    if ms < floor_ms / (1 + LINK_NOISE):
        return f"BELOW FLOOR ({ms / floor_ms:.2f}x): the byte model counts bytes that did not cross the link"
    return f"{ms / floor_ms:7.2f}x"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results folders of sweeps/placement-price.yaml, host-memory.yaml")
    total = totals(*ap.parse_args().results)
    for device, rows in total.groupby("device"):
        row = rows.iloc[0]
        print(f"link floors on {device}:")
        for key, what in FLOORS:
            issue = ISSUE_H200.get(key)
            ratio = f"   {row[f'ceiling_{key}'] / issue:5.2f}x the issue's {issue} GB/s (H200)" if issue else ""
            print(f"  {what:<48} {row[f'ceiling_{key}']:8.2f} GB/s{ratio}")
    print(f"\n{'graph':<40} {'kernel':<26} {'placement':<9} {'ms/run':>10} {'GTEPS':>7} {'link GB':>8} {'GB/s':>6} "
          f"{'price':>6} {'x floor':>8}")
    total = total.assign(problem=total["kernel"].str.split(".").str[0])
    for (dataset, problem), rows in total.groupby(["dataset", "problem"], sort=False):
        on_device = rows.loc[rows["placement"] == "device", "median_ms"]
        for _, r in rows.sort_values("placement").iterrows():
            link_gb = r["bytes_link"] / 1e9
            floor_ms, what = link_floor(r) if r["placement"] == "host" else (math.nan, "")
            over = against_floor(r["median_ms"], floor_ms)
            if floor_ms > 0 and problem in TARGETS:
                over += f" ({what}; target {TARGETS[problem]}x)"
            if r["placement"] == "host" and r.get("stat_floor_ms", math.nan) > 0:
                over += f"; {r['median_ms'] / r['stat_floor_ms']:.2f}x its per-level model"
            price = (f"{r['median_ms'] / on_device.iloc[0]:5.1f}x" if r["placement"] == "host" and len(on_device)
                     else f"{'':>6}")
            flag = "" if r["verified"] else "  NOT VERIFIED"
            print(f"{dataset:<40} {r['kernel']:<26} {r['placement']:<9} {r['median_ms']:>10.2f} "
                  f"{r['gelems_hmean']:>7.2f} {link_gb:>8.1f} {r['link_gbps'] if link_gb > 0 else 0:>6.1f} "
                  f"{price} {over}{flag}")


if __name__ == "__main__":
    run_printer(main)
