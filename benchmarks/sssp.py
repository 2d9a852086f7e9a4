"""sssp.best's ratio table, from the results of the shipped sweep ``sweeps/sssp-best.yaml``.

    graphsweep run sweeps/sssp-best.yaml            # on a GPU machine
    python3 benchmarks/sssp.py results/sssp-best    # + SciPy's Dijkstra on R-MAT 22, on this host

Per graph, each variant's median time per root, GTEPS (harmonic mean over roots, slowest and
fastest root) and time over sssp.best's; then, on R-MAT 22, sssp.best against GAPBS's
delta-stepping on 16 cores (quoted from the SSSP issue) and SciPy's Dijkstra timed here from the
sweep's own roots (the issue's targets: >= 10x and >= 50x).

The road-like 4096^2 grid (the ``grid`` generator), where sssp.best runs sssp.strips, is timed in
process beside hand-tuned near-far by ``benchmarks/sssp_road.py``.
"""

import argparse
import statistics
import time
from pathlib import Path

from graphsweep.pipeline.ratios import mark_best, print_groups, totals, run_printer

RMAT22 = "rmat_scale=22_edge_factor=16_weights=1:255_seed=1"
GAPBS_RMAT22_MS, TARGET_VS_GAPBS, TARGET_VS_SCIPY = 91.6, 10.0, 50.0
SCIPY_ROOTS = 3


def scipy_ms(path: str, roots: list) -> float:
    """SciPy's Dijkstra per root (median ms) on the dataset at ``path``, the lightest copy of each
    edge in both directions (SciPy would sum duplicates)."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import dijkstra

    from graphsweep.datasets.reader import read
    data = read(path)
    keep = data.src != data.dst
    src, dst = np.concatenate([data.src[keep], data.dst[keep]]), np.concatenate([data.dst[keep], data.src[keep]])
    weight = np.concatenate([data.weight[keep], data.weight[keep]]).astype(np.float64)
    order = np.lexsort((weight, dst, src))
    first = np.ones(order.size, dtype=bool)
    first[1:] = (src[order][1:] != src[order][:-1]) | (dst[order][1:] != dst[order][:-1])
    pick = order[first]
    mat = coo_matrix((weight[pick], (src[pick], dst[pick])), shape=(data.n, data.n)).tocsr()
    times = []
    for root in roots:
        t = time.perf_counter()
        dijkstra(mat, directed=True, indices=int(root))
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def table(results: str) -> None:
    from graphsweep.pipeline import reduce
    spread = lambda r: f"  roots {r['gelems_min']:.2f}-{r['gelems_max']:.2f} GTEPS"  # noqa: E731
    total = totals(results)
    best = print_groups(total, "sssp.best", "dataset", extra=spread)
    if RMAT22 not in best:
        return
    ms = best[RMAT22]
    print(f"\n{RMAT22}: sssp.best {ms:.3f} ms per root; GAPBS delta-stepping (16 cores) {GAPBS_RMAT22_MS} ms = "
          f"{GAPBS_RMAT22_MS / ms:.1f}x (target >= {TARGET_VS_GAPBS:g}x)")
    rows = reduce.rows_of(results)
    task = total[mark_best(total, "sssp.best") & (total["dataset"] == RMAT22)]["task"].iloc[0]
    mine = rows[(rows["task"] == task) & (rows["phase"] == "total")]
    roots = sorted(mine["inst_root"].dropna().astype(int).unique())[:SCIPY_ROOTS]
    path = Path(mine["dataset_path"].iloc[0])
    if not path.is_dir():     # a published folder travels without its datasets
        print(f"{RMAT22}: SciPy's Dijkstra not timed: the dataset {path} is not on this host (`graphsweep run "
              f"sweeps/sssp-best.yaml` generates it)")
        return
    scipy = scipy_ms(path, roots)
    print(f"{RMAT22}: SciPy dijkstra (this host, {len(roots)} of the sweep's roots) {scipy:.0f} ms per root = "
          f"{scipy / ms:.0f}x sssp.best (target >= {TARGET_VS_SCIPY:g}x)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/sssp-best.yaml")
    args = ap.parse_args()
    table(args.results)


if __name__ == "__main__":
    run_printer(main)
