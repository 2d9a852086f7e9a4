"""One graph over K Dask workers: the partitioned kernels against the one-worker kernels, with the
exchange's cost model, measured in one run.

    python benchmarks/partitioned.py --backend cpu --scale 18 --partitions 1 2 4
    python benchmarks/partitioned.py --backend gpu --scale 24 --partitions 1 2 4        # K workers share GPU 0
    python benchmarks/partitioned.py --backend gpu --scale 27 --partitions 1 2 --cuda   # a worker per GPU

For each graph (an R-MAT graph generated in memory, which each worker generates again for its
slice; with ``--grid`` also the road-like ``grid`` generator's, keeping 80 % of its edges) and each K, every
partitioned kernel beside the one-worker kernel it stands for (``cc.best``, ``bfs.best``,
``pagerank.best``) on the same graph and device, all verified, then:

- ``overhead``: the partitioned median time over the one-worker kernel's;
- ``rounds``, ``MB``: exchanges every worker took part in, and the bytes they moved;
- ``model``: bytes / the worker-to-worker bandwidth + rounds x the latency of a round, both
  measured now between these workers.  cc runs a round as tasks through the scheduler (a task
  on each worker taking a small piece from every other, then the driver gathering a number from
  each); bfs and pagerank run one task per worker that sends its pieces straight to the others
  (``kernels/graph/exchange.py``), a round being an all-reduce of a few bytes;
  ``meas/model`` says how much of the time the exchange explains;
- ``local``, ``wait``: the critical path of the workers' compute, and the rest (exchange,
  scheduling, imbalance).

Through Dask (TCP between worker processes): on the GPU every exchanged array goes through host
memory.  One JSON line per row follows the table (``--json FILE`` writes them).
"""

import argparse
import json
import logging
import statistics
import sys
import time

import numpy as np
from graphsweep.datasets.reader import Dataset
from graphsweep.generators import memory
from graphsweep.kernels import harness

PAIRS = {"cc.distributed": "cc.best", "bfs.distributed": "bfs.best", "pagerank.distributed": "pagerank.best"}
# Each partitioned kernel's runs: (label, parameters); cc both ways of merging slices.
VARIANTS = {"cc.distributed": [("cc.distributed", {"merge": "tree"}), ("cc.distributed/hook", {"merge": "hook"})],
            "bfs.distributed": [("bfs.distributed", {})], "pagerank.distributed": [("pagerank.distributed", {})]}


def _say(text: str = "") -> None:
    print(text, flush=True)


def _piece(size: int):
    return np.ones(size, dtype=np.uint8)


def _count(*pieces) -> int:
    return sum(int(p.shape[0]) for p in pieces)


def link(client, workers: list, size: int = 1 << 28, tries: int = 5) -> dict:
    """Worker-to-worker bandwidth (an array made on one worker, read by a task on another) and the
    median latency of one round over ``workers`` (see the module doc)."""
    rates = []
    if len(workers) > 1:
        for t in range(tries):
            a = client.submit(_piece, size, workers=[workers[0]], pure=False, key=f"link-make-{t}")
            a.result()
            t0 = time.perf_counter()
            client.submit(_count, a, workers=[workers[1]], pure=False, key=f"link-read-{t}").result()
            rates.append(size / (time.perf_counter() - t0) / 1e9)
            del a
    rounds = []
    for t in range(2 * tries + 2):
        t0 = time.perf_counter()
        pieces = [client.submit(_piece, 64, workers=[w], pure=False, key=f"round-piece-{t}-{i}")
                  for i, w in enumerate(workers)]
        done = [client.submit(_count, *(p for j, p in enumerate(pieces) if j != i), workers=[w], pure=False,
                              key=f"round-take-{t}-{i}") for i, w in enumerate(workers)]
        client.gather(done)
        rounds.append(time.perf_counter() - t0)
    return {"gbps": statistics.median(rates) if rates else float("inf"),
            "round_ms": 1e3 * statistics.median(rounds[2:])}


def _ping(run: str, index: int, addresses: list, rounds: int) -> float:
    """Median seconds of an all-reduce of 16 bytes among ``addresses``, from the task on ``index``."""
    from graphsweep.kernels.graph.exchange import Peers
    peers = Peers(run, index, addresses)
    times = []
    for r in range(rounds):
        t0 = time.perf_counter()
        peers.allreduce(r, np.zeros(2, dtype=np.int64))
        times.append(time.perf_counter() - t0)
    return statistics.median(times[rounds // 5:])


def hop_ms(client, workers: list, rounds: int = 200) -> float:
    """A round of the worker-to-worker exchange (one message hop each way; what a BFS level pays twice)."""
    if len(workers) == 1:
        return 0.0
    run = f"ping-{time.time_ns()}"
    futures = [client.submit(_ping, run, i, workers, rounds, workers=[w], pure=False) for i, w in enumerate(workers)]
    return 1e3 * max(client.gather(futures))


def rmat(scale: int, edge_factor: int, seed: int) -> Dataset:
    return memory.generate("rmat", seed=seed, params={"scale": scale, "edge_factor": edge_factor})


def grid(side: int, keep: float, seed: int) -> Dataset:
    """The road-like grid generator's side x side grid keeping a fraction ``keep`` of its edges."""
    return memory.generate("grid", seed=seed, params={"rows": side, "cols": side, "keep": keep})


def _partition_of(data: Dataset):
    """The partition the last partitioned run of ``data`` built (cached on its graph input)."""
    for value in data.cache.values():
        if "partition" in getattr(value, "cache", {}):
            return value.cache["partition"][1]
    raise RuntimeError("no partitioned run of this graph yet")


def measure(name: str, data: Dataset, backend: str, params: dict, reps: int, roots: int) -> tuple:
    instances = roots if name.startswith("bfs") else None
    res = harness.run(name, data, backend=backend, reps=reps, warmup=1, instances=instances, instance_seed=1,
                      keep_output=False, **params)
    if not res.verified:
        raise SystemExit(f"{name} on {data.path}: not verified: {res.verify_error}")
    stats = res.instance_stats
    return statistics.median(_median_ms_instance(res, i) for i in range(len(stats))), stats


def _median_ms_instance(result, instance: int) -> float:
    return statistics.median(r["ms"] for r in result.rows if r["phase"] == "total" and r.get("instance", 0) == instance)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--grid", type=int, default=0, help="also a road-like grid of this side (0: none)")
    ap.add_argument("--partitions", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--kernels", nargs="+", default=list(PAIRS), choices=list(PAIRS))
    ap.add_argument("--roots", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cuda", action="store_true", help="a dask-cuda cluster of one worker per GPU (else K local "
                                                        "worker processes, sharing GPU 0 on the GPU)")
    ap.add_argument("--json", help="write the rows here as JSON lines")
    args = ap.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.ERROR)

    params = {}
    if args.cuda:
        from dask_cuda import LocalCUDACluster
        cluster = LocalCUDACluster(dashboard_address=":0")
        params["scheduler"] = cluster.scheduler_address
        _say(f"dask-cuda cluster: {len(cluster.workers)} workers, one per GPU")
    graphs = [(f"rmat-{args.scale}-ef{args.edge_factor}", rmat(args.scale, args.edge_factor, args.seed))]
    if args.grid:
        graphs.append((f"grid-{args.grid}", grid(args.grid, 0.8, args.seed)))
    rows = []
    header = (f"{'graph':<16} {'kernel':<21} {'K':>2} {'ms':>9} {'1-worker':>9} {'overhead':>8} {'rounds':>6} "
              f"{'MB':>9} {'model':>9} {'meas/model':>10} {'local':>8} {'wait':>8}")
    for label, data in graphs:
        data = data.to(args.backend)
        _say(f"\n{label}: n = {data.n:,}, m = {data.m:,} ({args.backend})")
        single = {}
        for name in args.kernels:
            single[name], _ = measure(PAIRS[name], data, args.backend, {}, args.reps, args.roots)
        for k in args.partitions:
            run_params = {**params, "partitions": k}
            measured = {label: (name, *measure(name, data, args.backend, {**run_params, **extra}, args.reps,
                                               args.roots))
                        for name in args.kernels for label, extra in VARIANTS[name]}
            part = _partition_of(data)
            net = link(part.client, part.workers)
            net["hop_ms"] = hop_ms(part.client, part.workers)
            _say(f"K = {k}: worker to worker {net['gbps']:.2f} GB/s, a scheduler round {net['round_ms']:.2f} ms, "
                 f"an exchange round {net['hop_ms']:.3f} ms; slices of "
                 f"{part.facts['slice_edges_min']:,}..{part.facts['slice_edges_max']:,} entries, "
                 f"{part.facts['cut_entries']:,} cut, built in {part.facts['partition_s']:.1f} s")
            _say(header)
            for variant, (name, ms, stats) in measured.items():
                rounds = statistics.median(s["rounds"] for s in stats)
                exchanged = statistics.median(s["bytes_exchanged"] for s in stats)
                per_round = net["round_ms"] if variant == "cc.distributed" else net["hop_ms"]   # tree: scheduler
                model = 1e3 * exchanged / 1e9 / net["gbps"] + rounds * per_round
                row = {"graph": label, "kernel": variant, "partitions": k, "backend": args.backend,
                       "ms": ms, "single_ms": single[name], "overhead": ms / single[name], "rounds": rounds,
                       "bytes_exchanged": exchanged, "model_ms": model, "link_gbps": net["gbps"],
                       "round_ms": net["round_ms"], "hop_ms": net["hop_ms"],
                       "local_ms": statistics.median(s["local_ms"] for s in stats),
                       "wait_ms": statistics.median(s["wait_ms"] for s in stats), **part.facts}
                rows.append(row)
                _say(f"{label:<16} {variant:<21} {k:>2} {ms:9.2f} {single[name]:9.2f} {row['overhead']:7.2f}x "
                     f"{rounds:6.0f} {exchanged / 1e6:9.2f} {model:9.2f} {ms / model if model else 0:10.2f} "
                     f"{row['local_ms']:8.2f} {row['wait_ms']:8.2f}")
    _say()
    for row in rows:
        _say(json.dumps(row, default=float))
    if args.json:
        with open(args.json, "w") as f:
            f.writelines(json.dumps(row, default=float) + "\n" for row in rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
