"""Benchmark (CPU): the latency floor of issue #21's road-like grid for SSSP designs that advance one
hop per grid barrier, and what strip-local relaxation would leave.

Any near-far / Δ-stepping / Bellman-Ford round relaxes one edge of a path per round, so the rounds
are at least the hop depth of the shortest-path tree, whatever Δ (the tree of the CPU twin's
answer).  If a block owned a strip of consecutive rows (row-major ids: a contiguous id range) and
relaxed inside it until it settled, only a path's strip crossings would need a grid barrier; the
hops inside a strip would cost block barriers instead.  Printed per root and strip height: hop
depth, most strip crossings on one path, and depth x ``--barrier-us`` (the floor of barriers alone).
The grid is a dataset the ``grid`` generator wrote, ids row-major (not ``permute_ids``), e.g.
issue #21's:

    graphsweep generate grid --rows 4096 --cols 4096 --keep 0.8 --weights 1:300 --seed 24301 --out data/road
    python3 benchmarks/sssp_road_floor.py data/road [--barrier-us 6]
"""

import argparse
import sys
from pathlib import Path

import numba
import numpy as np

from graphsweep.core.errors import GraphsweepError
from graphsweep.datasets import read_manifest
from graphsweep.kernels import harness

TARGET_MS = 30.0


@numba.njit(cache=True)
def depth_and_crossings(order, parent, cols, rows_per_strip):
    """Hop depth and strip crossings of the deepest tree paths; ``order``: vertices by distance."""
    depth = np.zeros(parent.shape[0], np.int64)
    cross = np.zeros(parent.shape[0], np.int64)
    for v in order:
        p = parent[v]
        if p < 0 or p == v:
            continue
        depth[v] = depth[p] + 1
        cross[v] = cross[p] + ((v // cols) // rows_per_strip != (p // cols) // rows_per_strip)
    return depth.max(), cross.max()


def grid_shape(path: Path) -> tuple[int, int]:
    """(rows, cols) of the grid dataset at ``path``, whose ids must be row-major."""
    generator = read_manifest(path).get("generator") or {}
    params = generator.get("params") or {}
    if generator.get("name") != "grid":
        raise GraphsweepError(f"{path}: not made by the grid generator ({generator.get('name') or 'imported'})")
    if params.get("permute_ids"):
        raise GraphsweepError(f"{path}: its ids are permuted; strips need the grid's row-major ids")
    return int(params["rows"]), int(params["cols"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("grid", type=Path, help="a weighted grid dataset (graphsweep generate grid ... --weights LO:HI)")
    ap.add_argument("--barrier-us", type=float, default=6.0, help="one grid barrier (the H200's, issue #21)")
    args = ap.parse_args()
    try:
        rows_total, cols = grid_shape(args.grid)
    except (GraphsweepError, OSError) as exc:
        sys.exit(f"sssp_road_floor.py: error: {exc}")
    centre = (rows_total // 2) * cols + cols // 2
    for root in (centre, 0):
        res = harness.run("sssp.near-far", str(args.grid), backend="cpu", reps=1, warmup=0, root=root)
        if not res.verified:
            raise SystemExit(f"sssp.near-far from root {root}: VERIFY FAILED: {res.verify_error}")
        dist, parent = res.output["dist"], res.output["parent"]
        order = np.argsort(np.where(dist < 0, np.iinfo(np.int64).max, dist), kind="stable")
        depth, _ = depth_and_crossings(order, parent, cols, rows_total)
        print(f"root {root} (row {root // cols}): near-far iterations {res.stats['iterations']} "
              f"(delta {res.stats['delta']}); hop depth {depth} -> {depth * args.barrier_us / 1e3:.1f} ms of "
              f"grid barriers alone (target {TARGET_MS} ms)", flush=True)
        for rows in (31, 16, 8):
            _, crossings = depth_and_crossings(order, parent, cols, rows)
            print(f"  strips of {rows} rows ({-(-rows_total // rows)} strips): most strip crossings on a path "
                  f"{crossings}", flush=True)


if __name__ == "__main__":
    main()
