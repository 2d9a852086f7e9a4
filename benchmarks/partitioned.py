"""One graph over K workers: the partitioned kernels against the one-GPU kernels, with the
exchange's cost model, measured in one run.

    python benchmarks/partitioned.py --cuda --scale 24 26 --partitions 1 2 4     # a worker per GPU (NCCL)
    python benchmarks/partitioned.py --backend cpu --scale 16 --partitions 1 2    # CPU workers (Dask transport)

For each R-MAT graph (generated in memory; each worker generates again the edges of its slice)
the one-GPU kernels (``cc.best``, ``bfs.best``, ``pagerank.best``) run in this process on GPU 0,
then each partitioned kernel at each K on the cluster's first K workers, all verified:

- ``ms``: the partitioned run's median time (its slowest rank, from the barrier that starts it to
  its end, by CUDA events on the GPU as the one-GPU kernels are timed; for BFS the mean over
  roots of each root's median, so that m / ms is Graph500's GTEPS, the harmonic mean of the
  roots' TEPS), ``1-GPU``: the one-GPU kernel's,
  ``speed-up``: 1-GPU / ms (strong scaling; K = 1 is the per-slice machinery's overhead);
- ``dispatch``: what the call through Dask adds (the driver's wall time less the run);
- ``rounds``, ``MB``: collectives per run and the bytes all ranks received; ``comm``: the most
  time a rank spent inside collectives (waiting for slower ranks included); ``local``: the
  slowest rank's time outside them;
- ``model``: MB / the link's bandwidth + rounds x its latency + local, with bandwidth (an
  all-reduce's bus bandwidth) and latency (an 8-byte all-reduce read on the host) measured on
  the same workers in the same run; ``meas/model`` says how much the model explains;
- ``target``: issue #30's speed-up for this K (K = 1: within 1.25x of one GPU, i.e. 0.80x) and
  whether the run met it.

The transport is NCCL when every worker owns a GPU (``--cuda``), else Dask's comms.  One JSON line
per row follows the table (``--json FILE`` writes them).
"""

import argparse
import json
import logging
import math
import statistics
import sys
import time

import numpy as np
from graphsweep.core.errors import GraphsweepError
from graphsweep.datasets.reader import Dataset
from graphsweep.generators import memory
from graphsweep.kernels import harness
from graphsweep.kernels.dist import driver

PAIRS = {"cc.distributed": "cc.best", "bfs.distributed": "bfs.best", "pagerank.distributed": "pagerank.best"}
# Issue #30's targets (R-MAT 26 on 4 GPUs; K = 1 on R-MAT 24): the speed-up over one GPU's *.best
# at K = 2 and 4, and at K = 1 at most 1.25x its time (a speed-up of at least 0.8).
# printed beside the phases
STATS = {"cc.distributed": ("merge_pairs", "merge_retries", "merge_rounds", "sparse_merges"),
         "bfs.distributed": ("levels", "bottom_up_levels", "outbox")}
WORDS = {"bfs.distributed": ("exchange", "level_graphs", "phases_by_rank"),
         "cc.distributed": ("phases_by_rank",), "pagerank.distributed": ("phases_by_rank",)}     # statistics that are words, printed as they are
# Variants run beside the default on the GPU, each from the smallest K where it differs: BFS over
# NCCL's collectives (levels queued launch by launch, captured as CUDA graphs) instead of peer
# memory (the whole search one launch a GPU); PageRank's product over the slice's own neighbour ids
# (no copy) instead of ids renamed by degree (what auto takes on graphs whose contributions outgrow
# the L2)
VARIANTS = {"bfs.distributed": [(2, {"exchange": "collectives"})],
            "pagerank.distributed": [(1, {"product": "warp-rows"})]}
TARGETS = {1: {"cc.distributed": 0.8, "bfs.distributed": 0.8, "pagerank.distributed": 0.8},
           2: {"cc.distributed": 1.4, "bfs.distributed": 1.2, "pagerank.distributed": 1.8},
           4: {"cc.distributed": 2.0, "bfs.distributed": 1.5, "pagerank.distributed": 3.2}}


def _say(text: str = "") -> None:
    print(text, flush=True)


def rmat(scale: int, edge_factor: int, seed: int, backend: str) -> Dataset:
    """The R-MAT graph made whole on ``backend``'s device (generated there: NumPy takes minutes at
    scale 26)."""
    return memory.generate("rmat", seed=seed, params={"scale": scale, "edge_factor": edge_factor}, backend=backend)


def rate(name: str, data: Dataset, ms: float, k: int, stats: list) -> str:
    """Graph500's counting (input edges / time): BFS GTEPS a root, CC G edges/s, and each a GPU
    (weak scaling compares those); PageRank G input arcs (2m) per second per GPU per iteration."""
    if name.startswith("pagerank"):
        iterations = statistics.median(s["iterations"] for s in stats)
        return f"{2 * data.m * iterations / (ms / 1e3) / k / 1e9:.1f} G arcs/s/GPU/iter"
    total = data.m / (ms / 1e3) / 1e9
    return f"{total:.1f} {'GTEPS' if name.startswith('bfs') else 'G edges/s'} ({total / k:.1f} a GPU)"


def _link(rank, nbytes: int, tries: int) -> dict:
    """On every rank: an all-reduce of ``nbytes`` (bus bandwidth) and of 8 bytes read on the host
    (latency), medians over ``tries``."""
    xp, comm = rank.xp, rank.comm
    k = comm.size
    big = xp.ones(nbytes // 4, dtype=np.float32)
    small = xp.zeros(1, dtype=np.int64)
    times, lat = [], []
    for t in range(tries + 1):
        rank.sync()
        t0 = time.perf_counter()
        comm.host(comm.allreduce(big)[:1])
        if t:
            times.append(time.perf_counter() - t0)
    for t in range(10 * tries + 5):
        t0 = time.perf_counter()
        comm.host(comm.allreduce(small))
        if t >= 5:
            lat.append(time.perf_counter() - t0)
    seconds = statistics.median(times)
    return {"busbw_gbps": 2 * (k - 1) / k * nbytes / seconds / 1e9 if k > 1 else float("inf"),
            "latency_ms": 1e3 * statistics.median(lat) if k > 1 else 0.0}


def link(part, nbytes: int = 1 << 28, tries: int = 5) -> dict:
    records = part.spmd(_link, nbytes, tries, name="link")
    return {"busbw_gbps": min(r["busbw_gbps"] for r in records), "latency_ms": max(r["latency_ms"] for r in records)}


def _partition_of(data: Dataset):
    """The partition the last partitioned run of ``data`` built (cached on its graph input), or None
    where that input is no longer cached (the harness may drop inputs to make room)."""
    for value in data.cache.values():
        if "partition" in getattr(value, "cache", {}):
            return value.cache["partition"][1]
    return None


def measure(name: str, data: Dataset, backend: str, params: dict, reps: int, roots: int) -> tuple:
    """(median ms per run — for BFS the mean over roots of each root's median —, the result)."""
    instances = roots if name.startswith("bfs") else None
    res = harness.run(name, data, backend=backend, reps=reps, warmup=1, instances=instances, instance_seed=1,
                      keep_output=False, **params)
    if not res.verified:
        raise SystemExit(f"{name} on {data.path}: not verified: {res.verify_error}")
    return statistics.mean(_per_instance(res)), res


def _per_instance(res) -> list:
    """Each instance's (root's) median ms."""
    return [statistics.median(r["ms"] for r in res.rows if r["phase"] == "total" and r.get("instance", 0) == i)
            for i in range(len(res.instance_stats))]


def _progress(what: str, fn, *args):
    """``fn(*args)`` (a ``measure``), with a line when it is done: a graph of 2^26 vertices takes
    minutes to generate, build and verify, which should not pass in silence; None if it failed."""
    t0 = time.perf_counter()
    try:
        out = fn(*args)
    except (GraphsweepError, SystemExit) as exc:   # a failed or unverified run: said, and the others go on
        _say(f"  {what}: FAILED ({time.perf_counter() - t0:.0f} s): {exc}")
        return None
    _say(f"  {what}: {out[0]:.2f} ms ({time.perf_counter() - t0:.0f} s with set-up and verification)")
    return out


def _median(values) -> float:
    """The median, NaN if any value is (collectives run inside CUDA graphs are not timed)."""
    values = list(values)
    return math.nan if any(math.isnan(v) for v in values) else statistics.median(values)


def _ms(value: float, width: int) -> str:
    return f"{'-':>{width}}" if math.isnan(value) else f"{value:{width}.2f}"


def _phases(res) -> str:
    """Each measured phase's median (CUDA events on the GPU: device time, host gaps inside included)."""
    names = dict.fromkeys(r["phase"] for r in res.rows if r["phase"] not in ("dispatch", "total"))
    return ", ".join(f"{name} {statistics.median(r['ms'] for r in res.rows if r['phase'] == name):.3f}"
                     for name in names)


def _steps(graph: str, label: str, k: int, res) -> list:
    """The run's step rows of its last rep (K = 0: the one-GPU kernel), for ``--steps``."""
    return [{"graph": graph, "kernel": label, "partitions": k, **r} for r in res.step_rows]


def _dispatch_ms(res) -> float:
    rows = [r for r in res.rows if r["phase"] in ("dispatch", "total")]
    dispatch = statistics.median(r["ms"] for r in rows if r["phase"] == "dispatch")
    total = statistics.median(r["ms"] for r in rows if r["phase"] == "total")
    return dispatch - total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["cpu", "gpu"], default="gpu")
    ap.add_argument("--scale", type=int, nargs="+", default=[24])
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--partitions", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--kernels", nargs="+", default=list(PAIRS), choices=list(PAIRS))
    ap.add_argument("--roots", type=int, default=8)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cuda", action="store_true", help="a dask-cuda cluster of one worker per GPU (NCCL between "
                                                        "them); else local workers")
    ap.add_argument("--single", action=argparse.BooleanOptionalAction, default=True,
                    help="time the one-GPU *.best beside (--no-single: a graph no single GPU holds, never made whole)")
    ap.add_argument("--variants", action=argparse.BooleanOptionalAction, default=True,
                    help="run the variants beside the default at K > 1 (BFS over the collectives)")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a parameter of the partitioned runs of kernels that take it (named in their rows), e.g. "
                         "outbox=1048576")
    ap.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                    help="one more run beside the default at every K, of the kernels that take every key named, "
                         "e.g. alpha=8,beta=24 (repeat for several)")
    ap.add_argument("--json", help="write the rows here as JSON lines")
    ap.add_argument("--steps", help="write every run's step rows (a BFS level, a CC pass: time, collectives' time and "
                                    "bytes) here as JSON lines, labelled with kernel and K")
    args = ap.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.ERROR)

    params = {}
    given = dict(p.split("=", 1) for p in args.param)
    asked = [dict(p.split("=", 1) for p in v.split(",")) for v in args.variant]
    if args.cuda:
        from dask_cuda import LocalCUDACluster
        cluster = LocalCUDACluster(dashboard_address=":0", threads_per_worker=1)
        params["scheduler"] = cluster.scheduler_address
        _say(f"dask-cuda cluster: {len(cluster.workers)} workers, one per GPU")
    rows, steps = [], []
    header = (f"{'graph':<14} {'kernel':<30} {'K':>2} {'ms':>8} {'1-GPU':>8} {'speed-up':>8} {'dispatch':>8} "
              f"{'rounds':>6} {'MB':>8} {'comm':>8} {'local':>8} {'model':>8} {'meas/model':>10} {'target':>12}")
    for scale in args.scale:
        graph = f"rmat-{scale}-ef{args.edge_factor}"
        # the partitioned runs' graph is never made whole: each worker generates its share (a dataset
        # moved to another placement would start a fresh cache, and the partition cached on it be lost)
        data = memory.unmade("rmat", seed=args.seed, params={"scale": scale, "edge_factor": args.edge_factor})
        _say(f"\n{graph}: n = {data.n:,}, m = {data.m:,} ({args.backend})")
        single = {name: math.nan for name in args.kernels}
        if args.single:
            whole = rmat(scale, args.edge_factor, args.seed, args.backend)
            for name in args.kernels:
                done = _progress(f"{PAIRS[name]} on one device", measure, PAIRS[name], whole, args.backend, {},
                                 args.reps, args.roots)
                if done:
                    single[name] = done[0]
                    steps.extend(_steps(graph, PAIRS[name], 0, done[1]))
            del whole, done
        for k in args.partitions:
            measured, part = {}, None
            for name in args.kernels:
                extra = ([v for least, v in VARIANTS.get(name, []) if k >= least]
                         if args.backend == "gpu" and args.variants else [])
                extra += [v for v in asked if set(v) <= set(harness.registry.get(name).params)]
                mine = {key: value for key, value in given.items() if key in harness.registry.get(name).params}
                for variant in [mine | v for v in [{}] + extra]:
                    label = " ".join([name] + [f"{key}={value}" for key, value in variant.items()])
                    done = _progress(f"{label} at K = {k} (its partition built in the first)", measure, name,
                                     data, args.backend, {**params, **variant, "partitions": k}, args.reps,
                                     args.roots)
                    if done:
                        measured[label] = done
                        steps.extend(_steps(graph, label, k, done[1]))
                        part = _partition_of(data) or part
            if not measured:
                continue
            if part is None:
                _say(f"{graph} at K = {k}: its partition was dropped before its facts were read")
                continue
            # a failed run leaves its partition's communicators aborted: its build facts stand, no link
            net = {"busbw_gbps": math.nan, "latency_ms": math.nan} if part.broken else link(part)
            _say(f"K = {k} ({part.transport}): all-reduce bus bandwidth {net['busbw_gbps']:.1f} GB/s, latency "
                 f"{net['latency_ms'] * 1e3:.1f} us; slices of {part.facts['slice_edges_min']:,}.."
                 f"{part.facts['slice_edges_max']:,} entries and {part.facts['slice_rows_min']:,}.."
                 f"{part.facts['slice_rows_max']:,} rows, {part.facts['cut_entries']:,} cut, built in "
                 f"{part.facts['partition_s']:.1f} s by the shuffle ({part.facts['partition_passes']} passes over "
                 f"each worker's share, all-to-all rounds: {part.facts['partition_rounds']}); largest slice "
                 f"{part.facts['slice_bytes_max'] / 1e9:.2f} GB, a worker's build peak (memory pool high water) "
                 f"{part.facts.get('build_peak_bytes_max', math.nan) / 1e9:.2f} GB = "
                 f"{part.facts.get('build_peak_bytes_max', math.nan) / part.facts['slice_bytes_max']:.2f}x")
            _say(header)
            for label, (ms, res) in measured.items():
                name = label.split()[0]
                stats = res.instance_stats
                rounds = statistics.median(s["rounds"] for s in stats)
                exchanged = statistics.median(s["bytes_exchanged"] for s in stats)
                local = _median(s["local_ms"] for s in stats)
                comm_ms = _median(s["comm_ms"] for s in stats)
                per_rank = exchanged / max(k, 1)
                model = (1e3 * per_rank / 1e9 / net["busbw_gbps"] + rounds * net["latency_ms"] + local)
                row = {"graph": graph, "kernel": label, "partitions": k, "transport": part.transport, "ms": ms,
                       "single_ms": single[name], "speedup": single[name] / ms, "dispatch_ms": _dispatch_ms(res),
                       "rounds": rounds, "bytes_exchanged": exchanged, "comm_ms": comm_ms, "local_ms": local,
                       "model_ms": model, "target_speedup": TARGETS.get(k, {}).get(name), "instance_ms": _per_instance(res),
                       **net, **part.facts}
                rows.append(row)
                target = row["target_speedup"]
                verdict = (f"{target:.2f}x {'met' if row['speedup'] >= target else 'MISS'}"
                           if target and args.single else "")
                _say(f"{graph:<14} {label:<30} {k:>2} {ms:8.2f} {_ms(single[name], 8)} {_ms(row['speedup'], 7)}x "
                     f"{row['dispatch_ms']:8.2f} {rounds:6.0f} {exchanged / 1e6:8.1f} {_ms(comm_ms, 8)} "
                     f"{_ms(local, 8)} {_ms(model, 8)} {_ms(ms / model if model else 0, 10)} {verdict:>12}")
                facts = "".join(f"; {key} {statistics.median(st[key] for st in stats):,.0f}"
                                for key in STATS.get(name, ()))
                facts += f"; {rate(name, data, ms, k, stats)}"
                if len(stats) > 1:
                    each = _per_instance(res)
                    facts += f"; roots {min(each):.2f}..{statistics.median(each):.2f}..{max(each):.2f} ms"
                facts += "".join(f"; {key} {stats[0][key]}" for key in WORDS.get(name, ()) if key in stats[0])
                _say(f"{'':<14} {'':<30}    phases (slowest rank, ms): {_phases(res)}{facts}")
        del data
    _say()
    for row in rows:
        _say(json.dumps(row, default=float))
    if args.json:
        with open(args.json, "w") as f:
            f.writelines(json.dumps(row, default=float) + "\n" for row in rows)
    if args.steps:
        with open(args.steps, "w") as f:
            f.writelines(json.dumps(row, default=float) + "\n" for row in steps)
    if args.cuda:
        driver.close_local()     # its client to the cluster first: a client left behind retries, then logs at exit
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
