"""Experiment 8 (issue #9): each ``*.best`` against the device's floors, from the shipped sweeps'
results.

    python3 benchmarks/floors.py results/cc-best results/bfs-best results/sssp-best results/apsp \\
        results/listrank-time-vs-n results/gap-suite
    python3 benchmarks/floors.py --chase            # GPU, in process: the chase curves (below)

The floors need no sweep task of their own: every worker measures the device's ceilings when it
starts (``kernels/ceilings.py``: copy GB/s, random int32 gather, the dependent pointer chase and
the chase with a 4- or 8-byte store per step, the SM count and clock) and stamps them on every
row, so each kernel is judged against floors measured on its own device in its own run.  For every
row of a ``*.best`` alias at its defaults (and blocked Floyd-Warshall, APSP's reference), the
floors, each a time at those rates:

- copy: the bytes of its input read once and its output written once (graphs: the CSR);
- gather: its unavoidable random accesses (CC: one per edge; BFS: one per vertex; SSSP: one per
  stored edge, each relaxed at least once);
- chase (list ranking): n dependent steps, bare and with a 4-byte store per step;
- compute (APSP): n^3 int32 add-min steps at 64 per SM per clock;
- model (PageRank, BC, TC): the kernel's own byte model at the copy and gather rates.

Each problem is judged against one of them (``REFERENCE``, the larger where two are named): the
chase with a store for list ranking (every node's record is written once in walk order; rows from
before that ceiling was stamped fall back to the bare chase); one pass over the CSR for CC and BFS
(not a bound: sampling and bottom-up steps skip most edges, so a ratio below 1 says how much of
the graph a kernel avoids); copy or gather, the larger, for SSSP; the add-min peak for APSP.  The
peers quoted in the issues are the per-alias printers' (components.py, bfs.py, sssp.py, gap.py).

``--chase`` measures what no kernel runs: the chase against its table's size (4 MiB ... 4 GiB:
the L2 and the TLB's reach) and against the number of chains (latency- or throughput-bound).
"""

import argparse
import math

import pandas as pd
from graphsweep.pipeline.ratios import mark_best, model_floor_ms, totals, run_printer

from graphsweep.kernels import registry

REFERENCE = {"listrank": ("chase+store",), "cc": ("copy",), "bfs": ("copy",), "sssp": ("copy", "gather"),
             "apsp": ("compute",), "pagerank": ("model",), "bc": ("model",), "tc": ("model",)}
APSP_REFERENCE = "apsp.blocked-floyd-warshall"
LANES_PER_SM = 64              # int32 add-min (DPX) per SM per clock


def floors(problem: str, row) -> dict:
    """Each floor of ``problem`` for the summary row ``row``, in ms (see the module doc)."""
    n, m = float(row["n"]), float(row["m"] if pd.notna(row["m"]) else 0)
    copy, gather = row["ceiling_copy_gbps"] * 1e9, row["ceiling_gather_gelems"] * 1e9
    out = {}
    if problem == "listrank":
        out["copy"] = 8 * n / copy                       # read succ, write rank
        out["chase"] = n / (row["ceiling_chase_gsteps"] * 1e9)
        store = row.get("ceiling_chase_store4_gsteps", math.nan)
        if store > 0:
            out["chase+store"] = n / (store * 1e9)
    elif problem in ("cc", "bfs", "sssp"):
        nnz = 2 * m                                      # the CSR holds both directions
        weights = 4 * nnz if problem == "sssp" else 0
        out_bytes = {"cc": 4 * n, "bfs": 4 * n, "sssp": 8 * n}[problem]
        out["copy"] = (8 * (n + 1) + 4 * nnz + weights + out_bytes) / copy
        out["gather"] = {"cc": m, "bfs": n, "sssp": nnz}[problem] / gather
    elif problem == "apsp":
        out["copy"] = 4 * n * n / copy                   # the distance matrix written once
        peak = LANES_PER_SM * row["ceiling_sm_count"] * row.get("ceiling_clock_khz", math.nan) * 1e3
        if peak > 0:
            out["compute"] = n ** 3 / peak
    else:
        return {"model": model_floor_ms(row)}
    return {k: v * 1e3 for k, v in out.items()}


def best_rows(total: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``*.best`` aliases at their defaults (and APSP's reference), with ``alias``."""
    picked = []
    for alias in [*sorted(a for a in registry.ALIASES), APSP_REFERENCE]:
        rows = total[mark_best(total, alias)]
        if not rows.empty:
            picked.append(rows.assign(alias=alias))
    return pd.concat(picked, ignore_index=True) if picked else total.iloc[:0].assign(alias="")


def table(results: list) -> None:
    rows = best_rows(totals(*results))
    fallbacks = 0
    print(f"{'alias · dataset (sweep)':<70} {'ms':>10} {'judged by':>12} {'floor ms':>9} {'x floor':>8}  other floors (ms)")
    for _, r in rows.sort_values(["alias", "n"]).iterrows():
        label = f"{r['alias']} · {r['dataset']} ({r['sweep']})"
        problem = r["alias"].split(".")[0]
        f = floors(problem, r)
        named = [k for k in REFERENCE[problem] if k in f]
        ref = max(named or f, key=f.get)            # the reference, or the largest floor its row allows
        mark = "" if named else "*"
        fallbacks += bool(mark)
        others = " ".join(f"{k} {v:.3g}" for k, v in f.items() if k != ref)
        flag = "" if r["verified"] else "  NOT VERIFIED"
        print(f"{label:<70} {r['median_ms']:10.3f} {mark + ref:>12} {f[ref]:9.3f} "
              f"{r['median_ms'] / f[ref]:8.2f}  [{others}]  on {r['device']}{flag}")
    if fallbacks:
        print("* not the problem's reference floor: these rows were stamped before its ceiling was "
              "(chase with a store, SM clock); the largest floor they allow instead")


def chase_curves() -> None:
    import cupy
    import numpy as np

    from graphsweep.kernels.ceilings import chase_gsteps, make_cycle
    from graphsweep.kernels.cuda import device_name, sm_count, thread_slots_per_sm

    full = sm_count() * thread_slots_per_sm()

    def rate(log: int, chains: int, kind: str) -> float:
        """G steps/s of ``chains`` chains walking one random cycle of 2^log int32 between them."""
        table = cupy.empty(1 << log, dtype=np.int32)
        return chase_gsteps(table, make_cycle(table), chains, kind)

    print(f"chase on {device_name()} ({sm_count()} SMs, {full} thread slots)")
    for chains in (1024, 8192, 32767, full // 4, full):
        print(f"  table {256:>5} MiB  chains {chains:>7}  chase {rate(26, chains, 'chase'):6.2f} G steps/s")
    for log in range(20, 31):
        print(f"  table {4 << (log - 20):>5} MiB  chains {full:>7}  chase {rate(log, full, 'chase'):6.2f}  "
              f"with an 8-byte store {rate(log, full, 'store8'):6.2f} G steps/s")
        cupy.get_default_memory_pool().free_all_blocks()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="*", help="results folders of shipped sweeps (any that hold *.best rows)")
    ap.add_argument("--chase", action="store_true", help="the chase against table size and chains (GPU, in process)")
    args = ap.parse_args()
    if not (args.results or args.chase):
        ap.error("give results folders, --chase, or both")
    if args.results:
        table(args.results)
    if args.chase:
        chase_curves()


if __name__ == "__main__":
    run_printer(main)
