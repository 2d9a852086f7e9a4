"""Benchmark (CPU): the latency floor of issue #21's road-like grid for SSSP designs that advance one
hop per grid barrier, and what strip-local relaxation would leave.

Any near-far / Δ-stepping / Bellman-Ford round relaxes one edge of a path per round, so the rounds
are at least the hop depth of the shortest-path tree, whatever Δ (the tree of the CPU twin's
answer).  If a block owned a strip of consecutive rows (row-major ids: a contiguous id range) and
relaxed inside it until it settled, only a path's strip crossings would need a grid barrier; the
hops inside a strip would cost block barriers instead.  Printed per root and strip height: hop
depth, most strip crossings on one path, and depth x ``--barrier-us`` (the floor of barriers alone).

    python3 benchmarks/sssp_road_floor.py [--side 4096] [--barrier-us 6]
"""

import argparse

import numba
import numpy as np

from graphsweep.generators import memory
from graphsweep.kernels import harness

SEED = 0x5EED
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=int, default=4096, help="grid rows = columns")
    ap.add_argument("--barrier-us", type=float, default=6.0, help="one grid barrier (the H200's, issue #21)")
    args = ap.parse_args()
    data = memory.generate("grid", seed=SEED, device="cpu",
                           params={"rows": args.side, "cols": args.side, "keep": 0.8, "weights": "1:300"})
    centre = (args.side // 2) * args.side + args.side // 2
    for root in (centre, 0):
        res = harness.run("sssp.near-far", data, backend="cpu", reps=1, warmup=0, root=root)
        if not res.verified:
            raise SystemExit(f"sssp.near-far from root {root}: VERIFY FAILED: {res.verify_error}")
        dist, parent = res.output["dist"], res.output["parent"]
        order = np.argsort(np.where(dist < 0, np.iinfo(np.int64).max, dist), kind="stable")
        depth, _ = depth_and_crossings(order, parent, args.side, args.side)
        print(f"root {root} (row {root // args.side}): near-far iterations {res.stats['iterations']} "
              f"(delta {res.stats['delta']}); hop depth {depth} -> {depth * args.barrier_us / 1e3:.1f} ms of "
              f"grid barriers alone (target {TARGET_MS} ms)", flush=True)
        for rows in (31, 16, 8):
            _, crossings = depth_and_crossings(order, parent, args.side, rows)
            print(f"  strips of {rows} rows ({-(-args.side // rows)} strips): most strip crossings on a path "
                  f"{crossings}", flush=True)


if __name__ == "__main__":
    main()
