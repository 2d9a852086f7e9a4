"""Benchmark: the defaults sssp.best and tc.best choose from a graph's statistics, against every
value of an axis swept beside them on the same graph (issue #21: a user who picks ``*.best``
gets the fastest parameters the project has on their graph).

- SSSP: sssp.near-far's bucket width delta (``kernels/sssp/near_far.py``'s ``delta_rule``)
  on the graphs of sweeps/sssp-best.yaml (R-MAT 22 and 24 with weights 1-255, uniform and
  scale-free 2^24 with weights 1-10), GAP's urand 22, the road-like 4096^2 grid (whose near-far
  delta sssp.strips doubles) and families outside them; near-far at its default and at each
  delta of ``--deltas`` (``--grid-deltas`` on the grid), 16 seeded roots, every root verified.
- TC: tc.search's lanes per oriented edge (``kernels/tc/search.py``'s ``lanes_rule``) on
  GAP's kron and urand 22 (sweeps/gap-suite.yaml) and other families, at its default and at
  each of ``--lanes``.

Per graph: the statistics the rules read, each run's mean ms (per root for SSSP) with the
kernel's statistics, and the default against the fastest value of the axis (``x best``: 1.00
is the best; the acceptance bound is 1.10).  Graphs are generated in memory on the GPU (as
Graph500 and GAPBS do); a JSON of every row goes to ``--out``.

    python3 benchmarks/best_rules.py --out $OUT/best-rules [--sssp rmat-22,...] [--tc kron-22,...]
"""

import argparse
import json
import statistics
import time
from pathlib import Path

from graphsweep.generators import memory
from graphsweep.kernels import harness
from graphsweep.kernels.graph import graph_input
from graphsweep.kernels.sssp import near_far
from graphsweep.kernels.tc import search

ROOT_SEED = 24301        # sweeps/sssp-best.yaml's roots_seed
GRAPHS = {
    # name: (generator, params, seed) -- the sweeps' graphs first
    "rmat-22": ("rmat", {"scale": 22, "edge_factor": 16, "weights": "1:255"}, 1),
    "rmat-24": ("rmat", {"scale": 24, "edge_factor": 16, "weights": "1:255"}, 1),
    "uniform-24": ("uniform", {"n": 1 << 24, "degree": 6, "weights": "1:10"}, 1),
    "scale-free-24": ("scale-free", {"n": 1 << 24, "weights": "1:10"}, 1),
    "kron-22": ("rmat", {"scale": 22, "edge_factor": 16, "weights": "1:255"}, 1),
    "urand-22": ("uniform", {"n": 1 << 22, "degree": 32, "weights": "1:255"}, 2),
    "grid-4096": ("grid", {"rows": 4096, "cols": 4096, "keep": 0.8, "weights": "1:300"}, 0x5EED),
    # families outside the sweeps
    "scale-free-24-w255": ("scale-free", {"n": 1 << 24, "weights": "1:255"}, 1),
    "scale-free-22-hubs1%": ("scale-free", {"n": 1 << 22, "hub_fraction": 0.01, "max_degree": 200,
                                            "weights": "1:100"}, 3),
    "rmat-22-w10": ("rmat", {"scale": 22, "edge_factor": 16, "weights": "1:10"}, 1),
    "rmat-22-ef4": ("rmat", {"scale": 22, "edge_factor": 4, "weights": "1:255"}, 1),
    "uniform-22-d16-w10": ("uniform", {"n": 1 << 22, "degree": 16, "weights": "1:10"}, 1),
    "urand-20-d128": ("uniform", {"n": 1 << 20, "degree": 128, "weights": "1:255"}, 2),
    "rmat-20": ("rmat", {"scale": 20, "edge_factor": 16, "weights": "1:255"}, 1),
}
SSSP_GRAPHS = "rmat-22,rmat-24,uniform-24,scale-free-24,urand-22,grid-4096,scale-free-24-w255,rmat-22-w10," \
              "uniform-22-d16-w10,scale-free-22-hubs1%"
TC_GRAPHS = "kron-22,urand-22,rmat-20,rmat-22-ef4,uniform-24,scale-free-24,urand-20-d128,grid-4096"
DELTAS = "1,4,8,16,32,64,128,256,512"     # powers of two, as the rule gives; 1-512 holds the former rule's
GRID_DELTAS = "1024,2048,4096"
LANES = "1,2,4,8,16,32"


def sssp_statistics(data) -> dict:
    return near_far.delta_statistics(graph_input(data).csr())


def tc_statistics(data) -> dict:
    return search.lanes_statistics(graph_input(data).representation("oriented"))


def timed(graph: str, kernel: str, data, params: dict, roots: int | None) -> dict | None:
    try:
        res = harness.run(kernel, data, backend="gpu", reps=2, warmup=1, keep_output=False,
                          **({"instances": roots, "instance_seed": ROOT_SEED} if roots else {}), **params)
    except Exception as exc:  # a benchmark keeps going: the failure is a line of its output
        print(f"{graph}: {kernel} {params}: FAILED {type(exc).__name__}: {exc}", flush=True)
        return None
    totals = [r["ms"] for r in res.rows if r["phase"] == "total"]
    keep = ("delta", "iterations", "relaxations", "max_dist", "lanes", "triangles")
    row = {"graph": graph, "kernel": kernel, "params": params, "mean_ms": statistics.fmean(totals),
           "median_ms": statistics.median(totals), "device": res.device,
           "stats": {k: res.stats[k] for k in keep if k in res.stats},
           "verified": res.verified, "verify_error": res.verify_error}
    print(f"{graph:<22} {kernel:<14} {str(params):<16} {row['mean_ms']:9.2f} ms (median {row['median_ms']:.2f})  "
          f"{row['stats']}{'' if res.verified else '  VERIFY FAILED: ' + str(res.verify_error)}", flush=True)
    return row


def sweep(graph: str, kernel: str, name: str, axis: list[int], statistics_of, roots) -> list[dict]:
    generator, params, seed = GRAPHS[graph]
    t0 = time.perf_counter()
    data = memory.generate(generator, seed=seed, backend="gpu", params=params)
    stats = statistics_of(data)
    print(f"\n{graph}: n {data.n}, m {data.m}, made in {time.perf_counter() - t0:.1f} s; {stats}", flush=True)
    rows = [timed(graph, kernel, data, {}, roots)] + [timed(graph, kernel, data, {name: v}, roots) for v in axis]
    rows = [r for r in rows if r]
    for r in rows:
        r["statistics"] = stats
    del data
    try:    # the next graph gets the memory back (the benchmark runs on the GPU; the CPU twin in tests)
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()
    except ImportError:
        pass
    return rows


def table(rows: list[dict], name: str, stat: str) -> None:
    print(f"\n{'graph':<22} {'default':>8} {'ms':>9} {'best ' + name:>11} {'ms':>9} {'x best':>7}   axis (ms)")
    for graph in dict.fromkeys(r["graph"] for r in rows):
        mine = [r for r in rows if r["graph"] == graph]
        default = next((r for r in mine if not r["params"]), None)
        axis = [r for r in mine if r["params"]]
        if default is None or not axis:
            continue
        best = min(axis, key=lambda r: r["mean_ms"])
        print(f"{graph:<22} {default['stats'].get(stat, '?'):>8} {default['mean_ms']:9.2f} "
              f"{best['params'][name]:>11} {best['mean_ms']:9.2f} {default['mean_ms'] / best['mean_ms']:7.2f}   "
              + "  ".join(f"{r['params'][name]}: {r['mean_ms']:.2f}" for r in axis))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sssp", default=SSSP_GRAPHS, help="graphs for the delta axis, comma-separated ('' none)")
    ap.add_argument("--tc", default=TC_GRAPHS, help="graphs for the lanes axis, comma-separated ('' none)")
    ap.add_argument("--deltas", default=DELTAS)
    ap.add_argument("--grid-deltas", default=GRID_DELTAS)
    ap.add_argument("--lanes", default=LANES)
    ap.add_argument("--roots", type=int, default=16)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    numbers = lambda text: [int(x) for x in text.split(",") if x]  # noqa: E731
    sssp_rows, tc_rows = [], []
    for graph in filter(None, args.sssp.split(",")):
        axis = numbers(args.grid_deltas if graph.startswith("grid") else args.deltas)
        sssp_rows += sweep(graph, "sssp.near-far", "delta", axis, sssp_statistics, args.roots)
        (args.out / "sssp.json").write_text(json.dumps(sssp_rows, indent=1, default=str))
    for graph in filter(None, args.tc.split(",")):
        tc_rows += sweep(graph, "tc.search", "lanes", numbers(args.lanes), tc_statistics, None)
        (args.out / "tc.json").write_text(json.dumps(tc_rows, indent=1, default=str))
    table(sssp_rows, "delta", "delta")
    table(tc_rows, "lanes", "lanes")


if __name__ == "__main__":
    main()
