"""Graphs in host memory: the link's floors and the price of placement, measured in one run.

    python benchmarks/link.py --scale 26 --edge-factor 16 --placements device host
    python benchmarks/link.py --scale 29 --edge-factor 20 --placements host --cpu   # larger than the GPU

Prints (1) the link's floors measured now — pinned host-to-device and device-to-host copies, a
kernel reading mapped host memory sequentially, a warp reading random aligned 128-byte lines, a
thread reading its own random line — beside the figures the issue measured on an H200; (2) for
an R-MAT graph generated in memory (``store: memory``: no disk), each kernel on each placement:
the CSR build, the run's median time, GTEPS (harmonic mean over the roots), bytes over the link
per run and their rate, and the ratio to the kernel's link floor:

- ``cc``: the CSR's bytes at the host-to-device copy rate (target: at most 1.2x);
- ``bfs``: ``floor_ms`` (each level the cheaper of its lines at the warp-per-line rate and the
  whole CSR at the copy rate) and the bytes of the lines the frontiers span at the sequential
  zero-copy rate (target: at most 1.5x);
- ``sssp``: priced by its bytes over the link (correct first: zero-copy reads).

With ``--cpu`` the CPU twins run on the same host-resident CSR (16 cores on the lent hosts); their
outputs are compared with the verified GPU outputs.  One JSON line per row follows the table
(``--json FILE`` writes them).
"""

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

from graphsweep.datasets.reader import Dataset
from graphsweep.generators import memory
from graphsweep.kernels import ceilings, harness, throughput
from graphsweep.kernels.cc import canonical_labels
from graphsweep.kernels.graph import GraphInput

ISSUE_H200 = {"h2d_gbps": 50.0, "d2h_gbps": 55.0, "mapped_sequential_gbps": 45.0, "mapped_naive_gbps": 0.54}
FLOORS = (("h2d_gbps", "pinned host -> device copy"), ("d2h_gbps", "device -> pinned host copy"),
          ("mapped_sequential_gbps", "kernel reading mapped host memory sequentially"),
          ("mapped_lines_gbps", "warp per random aligned 128-byte line"),
          ("mapped_naive_gbps", "thread per random 128-byte line (naive)"))


def _say(text: str = "") -> None:
    print(text, flush=True)


def floors(c: dict) -> None:
    _say(f"link floors on {c['device']}:")
    for key, what in FLOORS:
        issue = ISSUE_H200.get(key)
        ratio = f"   {c[key] / issue:5.2f}x the issue's {issue} GB/s (H200)" if issue else ""
        _say(f"  {what:<48} {c[key]:8.2f} GB/s{ratio}")


def graph(scale: int, edge_factor: int, weights: str, seed: int) -> Dataset:
    """The R-MAT graph as an edge source only: generated again, on the GPU, by every pass that needs it."""
    params = {"scale": scale, "edge_factor": edge_factor, "weights": weights}
    resolved, plan = memory.plan("rmat", seed=seed, params=params)
    data = Dataset(Path(f"<memory:rmat-{scale}-{edge_factor}>"), memory.manifest("rmat", resolved, seed, plan), {})
    data.cache["edges"] = memory.GeneratedEdges("rmat", plan)
    return data


def _total_ms(result) -> list[float]:
    return [r["ms"] for r in result.rows if r["phase"] == "total"]


def row(result, c: dict, kernel: str) -> dict:
    totals = _total_ms(result)
    per_instance = [np.median([r["ms"] for r in result.rows if r["phase"] == "total" and r["instance"] == i])
                    for i in range(len(result.instances))]
    link = max(r.get("bytes_link", 0) for r in result.rows if r["phase"] == "total")
    ms = float(np.median(totals))
    gteps = throughput.harmonic_mean([result.elements / (t / 1e3) / 1e9 for t in per_instance])
    out = {"kernel": kernel, "ran": result.kernel, "placement": result.placement, "ms": ms, "gteps": gteps,
           "build_ms": sum(r["ms"] for r in result.input_rows if not r.get("cached")),
           "link_gb": link / 1e9, "link_gbps": link / ms / 1e6 if ms else float("nan"),
           "verified": result.verified, "error": result.verify_error, "roots": len(result.instances)}
    stats = result.instance_stats
    if result.kernel.startswith("cc.") and result.placement == "host":
        floor = link / (c["h2d_gbps"] * 1e9) * 1e3
        out.update(floor_ms=floor, ratio=ms / floor)
    if "floor_ms" in (stats[0] if stats else {}) and result.placement == "host":
        floor = float(np.mean([s["floor_ms"] for s in stats]))
        lines = float(np.mean([s["line_bytes"] for s in stats]))
        out.update(floor_ms=floor, ratio=ms / floor if floor else float("nan"),
                   lines_floor_ms=lines / (c["mapped_sequential_gbps"] * 1e9) * 1e3,
                   stream_levels=float(np.mean([s["stream_levels"] for s in stats])))
        out["lines_ratio"] = ms / out["lines_floor_ms"] if out["lines_floor_ms"] else float("nan")
    return out


def cpu_twins(data: Dataset, gpu_input: GraphInput, kernels: list, roots: int, outputs: dict) -> list[dict]:
    """The CPU twins on the host-resident CSR the GPU used (NumPy views of the pinned memory).  A
    single-source twin runs from the GPU's last root first (its output is compared with the
    verified GPU output), then from the next ``roots - 1`` seeded roots."""
    csr = gpu_input.csr().host
    cpu = GraphInput(gpu_input.n, None, None, directed=False, where=gpu_input.where, edges=gpu_input.edges,
                     xp=np, placement="host")
    cpu._reps["csr"] = csr
    data.cache[("graph-input", "host", "cpu")] = cpu
    rows = []
    for kernel in kernels:
        if kernel.startswith("sssp"):
            continue
        t0 = time.perf_counter()
        last = outputs.get(kernel, {}).get("root")
        if last is not None:   # the root the GPU output is for, then more
            result = harness.run(kernel, data, backend="cpu", reps=1, warmup=0, verify=False, root=last)
            extra = harness.run(kernel, data, backend="cpu", reps=1, warmup=0, verify=False,
                                instances=roots - 1, keep_output=False) if roots > 1 else None
        else:
            result = harness.run(kernel, data, backend="cpu", reps=1, warmup=0, verify=False, instances=roots)
            extra = None
        same = None
        if kernel.startswith("cc") and kernel in outputs:
            same = bool(np.array_equal(canonical_labels(result.output["label"]), canonical_labels(outputs[kernel]["label"])))
        if kernel.startswith("bfs") and kernel in outputs:
            same = bool(np.array_equal(result.output["level"], outputs[kernel]["level"]))
        times = _total_ms(result) + (_total_ms(extra) if extra is not None else [])
        ms = float(np.median(times))
        rows.append({"kernel": kernel, "ran": result.kernel, "placement": "host (CPU)", "ms": ms,
                     "gteps": throughput.harmonic_mean([result.elements / (t / 1e3) / 1e9 for t in times]),
                     "roots": len(times),
                     "equal_to_gpu": same, "wall_s": time.perf_counter() - t0})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kernels", nargs="+", default=["cc.best", "bfs.best", "sssp.best"])
    ap.add_argument("--placements", nargs="+", default=["device", "host"], choices=["device", "host"])
    ap.add_argument("--roots", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--cpu", action="store_true", help="also the CPU twins on the host-resident CSR")
    ap.add_argument("--cpu-roots", type=int, default=2)
    ap.add_argument("--json", help="write the rows here as JSON lines")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)

    c = ceilings.measure("gpu")
    floors(c)
    rows = []
    weighted = any(k.startswith("sssp") for k in args.kernels)
    for weights in (("none", "1:255") if weighted else ("none",)):
        kernels = [k for k in args.kernels if k.startswith("sssp") == (weights != "none")]
        if not kernels:
            continue
        data = graph(args.scale, args.edge_factor, weights, args.seed)
        _say(f"\nR-MAT scale {args.scale}, edge factor {args.edge_factor}, weights {weights}: n = {data.n:,}, "
             f"m = {data.m:,} (generated in memory)")
        for placement in args.placements:
            outputs = {}
            for kernel in kernels:
                t0 = time.perf_counter()
                result = harness.run(kernel, data, backend="gpu", reps=args.reps, warmup=args.warmup, instances=args.roots,
                                     placement=placement)
                r = row(result, c, kernel)
                r.update(scale=args.scale, edge_factor=args.edge_factor, wall_s=time.perf_counter() - t0)
                rows.append(r)
                outputs[kernel] = {**result.output, **result.instances[-1]}
                _say(json.dumps(r, default=float))
            if args.cpu and placement == "host":
                gpu_input = data.cache[("graph-input", "host", "gpu")]
                for r in cpu_twins(data, gpu_input, kernels, args.cpu_roots, outputs):
                    r.update(scale=args.scale, edge_factor=args.edge_factor)
                    rows.append(r)
                    _say(json.dumps(r, default=float))
            for key in [k for k in data.cache if isinstance(k, tuple) and k[0] in ("graph-input", "input")]:
                del data.cache[key]     # the next placement builds its own CSR; this one's memory goes
            import cupy
            cupy.get_default_memory_pool().free_all_blocks()
    _say(f"\n{'kernel':<10} {'ran':<26} {'placement':<11} {'roots':>5} {'build s':>8} {'ms/run':>10} {'GTEPS':>7} "
         f"{'link GB':>8} {'GB/s':>6} {'floor ms':>9} {'x floor':>7} {'x lines':>7} ok")
    for r in rows:
        _say(f"{r['kernel']:<10} {r['ran']:<26} {r['placement']:<11} {r['roots']:>5} {r.get('build_ms', 0) / 1e3:>8.1f} "
             f"{r['ms']:>10.2f} {r['gteps']:>7.2f} {r.get('link_gb', 0):>8.1f} {r.get('link_gbps', float('nan')):>6.1f} "
             f"{r.get('floor_ms', float('nan')):>9.1f} {r.get('ratio', float('nan')):>7.2f} "
             f"{r.get('lines_ratio', float('nan')):>7.2f} {r.get('verified', r.get('equal_to_gpu'))}")
    if args.json:
        with open(args.json, "w") as f:
            for r in [{"ceilings": {k: v for k, v in c.items() if isinstance(v, (int, float, str))}}, *rows]:
                f.write(json.dumps(r, default=float) + "\n")
    bad = [r for r in rows if r.get("verified") is False or r.get("equal_to_gpu") is False]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
