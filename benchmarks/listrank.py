"""listrank.best against the chase floors: a shipped sweep's ratio table, or measured in process.

    graphsweep run sweeps/listrank-time-vs-n.yaml   # on a GPU machine (and, for the variants,
    graphsweep run sweeps/listrank-splitters.yaml   # listrank-random-splitter and -threads-blocks)
    python3 benchmarks/listrank.py results/listrank-time-vs-n [results/listrank-splitters ...]

Per list, each kernel variant's median time, G nodes/s and time over listrank.best's, and its
time over the chase floor: n dependent steps at the chase rate measured in the same run (the
ceiling on every row), the least a walk of the list can take.

    python3 benchmarks/listrank.py --floor [--log-n 26 28] [--reps 7] [--variant LABEL[:k=v,...] ...]
                                   [--json OUT.json] [--against OTHER.json]

In process (issue #21's list-ranking target): per size, the floors on a random cycle of n entries
(the ceilings' chase, and the chase with a 4- or 8-byte store per step), then each
variant on the list generator's random list of n nodes (``kernel=`` picks another kernel than
listrank.best, the other keys are its parameters): the median of ``reps`` verified runs after a
warm-up, its ratio to the chase-with-store floor, and the median of each phase (time outside any
phase: ``other``), with the level-0 walk's tail (when its walkers ran out of work, after the
first did) where the kernel records it.  ``--against`` prints another process's variants (e.g.
main's tree, run the same way just before) against this run's floors as well.
"""

import argparse
import json
import statistics
from pathlib import Path

import numpy as np

SEED = 0x5EED                 # the list's seed (the in-process runs of docs/results/listrank-floor)


def sweep_table(results):
    from graphsweep.pipeline.ratios import print_groups, totals
    total = totals(*results)
    total = total[total["generator"] == "list"].sort_values("n")        # random lists (ordered ones: scan)

    def over_floor(row) -> str:
        floor_ms = row["n"] / (row["ceiling_chase_gsteps"] * 1e9) * 1e3
        return f" {row['median_ms'] / floor_ms:6.2f}x chase floor"

    print_groups(total, "listrank.best", "dataset", extra=over_floor)


def parse_variant(text: str) -> tuple[str, str, dict]:
    """'label:k=v,k=v' -> (label, kernel, params); values as the CLI passes them (strings)."""
    label, _, rest = text.partition(":")
    params = dict(kv.split("=", 1) for kv in rest.split(",") if kv)
    return label, params.pop("kernel", "listrank.best"), params


def measure_floors(n: int) -> dict:
    """G steps/s of the chase and the chase with a 4- and 8-byte store on a random cycle of n
    entries, every thread slot a chain (the ceilings' chases, at this list's size)."""
    import cupy
    from graphsweep.kernels.ceilings import chase_gsteps, make_cycle
    from graphsweep.kernels.cuda import sm_count, thread_slots_per_sm
    table = cupy.empty(n, dtype=np.int32)
    bits = make_cycle(table)
    chains = sm_count() * thread_slots_per_sm()
    rates = {kind: chase_gsteps(table, bits, chains, kind) for kind in ("chase", "store4", "store8")}
    del table
    cupy.get_default_memory_pool().free_all_blocks()
    return {kind: {"gsteps": r, "ms": n / (r * 1e9) * 1e3} for kind, r in rates.items()}


def run_variant(label: str, kernel: str, params: dict, data, reps: int) -> dict:
    from graphsweep.kernels import harness
    result = harness.run(kernel, data, backend="gpu", reps=reps, warmup=1, verify=True, keep_output=False, **params)
    by_phase = {}
    for r in result.rows:
        by_phase.setdefault(r["phase"], []).append(r["ms"])
    phases = {k: statistics.median(v) for k, v in by_phase.items()}
    total = phases.pop("total")
    stats = result.stats
    reduced = {}
    for r in result.step_rows:          # the last rep's walks of the reduced levels
        reduced[r["step"]] = reduced.get(r["step"], 0.0) + r["ms"]
    return {"label": label, "kernel": result.kernel, "params": result.params, "ms": total,
            "ms_all": sorted(by_phase["total"]), "phases": phases, "other": total - sum(phases.values()),
            "verified": result.verified, "error": result.verify_error, "device": result.device,
            "exits_us": stats.get("walk_exits_us"), "level_sizes": stats.get("level_sizes"),
            "continued": stats.get("continued"), "reduced_walks_ms": reduced}


def line(v: dict, floor: dict) -> str:
    ph = "  ".join(f"{k} {ms:.3f}" for k, ms in {**v["phases"], "other": v["other"]}.items())
    ratio = v["ms"] / floor["store4"]["ms"]
    walk = f"  walk {v['phases']['walk'] / floor['store4']['ms']:.2f}x floor" if "walk" in v["phases"] else ""
    tail = ""
    if v.get("exits_us"):
        e = v["exits_us"]
        tail = f"  walkers out after the first: p50 {e['p50']:.0f} p90 {e['p90']:.0f} p99 {e['p99']:.0f} " \
               f"last {e['last']:.0f} us"
    ok = "" if v["verified"] else f"  NOT VERIFIED: {v['error']}"
    return f"  {v['label']:<22} {v['ms']:8.3f} ms {ratio:6.3f}x floor  [{ph}]{walk}{tail}{ok}"


def floor_run(args):
    import cupy
    from graphsweep.generators import memory
    from graphsweep.kernels.cuda import device_name
    variants = [parse_variant(t) for t in args.variant] or [("best", "listrank.best", {})]
    against = json.loads(Path(args.against).read_text()) if args.against else None
    out = {"device": device_name(), "sizes": []}
    for log_n in args.log_n:
        n = 1 << log_n
        cupy.get_default_memory_pool().free_all_blocks()
        floor = measure_floors(n)
        data = memory.generate("list", seed=SEED, params={"n": n}, backend="gpu")
        print(f"2^{log_n} = {n:,} nodes, {out['device']}: chase {floor['chase']['gsteps']:.1f} G steps/s "
              f"({floor['chase']['ms']:.3f} ms), with a 4-byte store {floor['store4']['gsteps']:.2f} "
              f"({floor['store4']['ms']:.3f} ms), 8-byte {floor['store8']['gsteps']:.2f} "
              f"({floor['store8']['ms']:.3f} ms)", flush=True)
        rows = []
        for label, kernel, params in variants:
            try:
                rows.append(run_variant(label, kernel, params, data, args.reps))
            except Exception as exc:  # one variant failing must not lose the others
                print(f"  {label:<22} FAILED: {type(exc).__name__}: {exc}", flush=True)
                continue
            print(line(rows[-1], floor) + f"  levels {rows[-1]['level_sizes']}", flush=True)
            if rows[-1]["reduced_walks_ms"]:
                print("  " + " " * 22 + " reduced walks (last rep): " + "  ".join(
                    f"L{k} {ms:.3f}" for k, ms in sorted(rows[-1]["reduced_walks_ms"].items())), flush=True)
        other = next((s for s in (against or {}).get("sizes", []) if s["log_n"] == log_n), None)
        if other:
            print(f"  from {args.against} (its own floor: store4 {other['floor']['store4']['ms']:.3f} ms):")
            for v in other["variants"]:
                print(line(v, floor))
            if rows:
                best = min(rows, key=lambda v: v["ms"])
                base = min(other["variants"], key=lambda v: v["ms"])
                print(f"  fastest here {best['label']} {best['ms']:.3f} ms against {base['label']} "
                      f"{base['ms']:.3f} ms: {base['ms'] / best['ms']:.3f}x faster", flush=True)
        out["sizes"].append({"log_n": log_n, "n": n, "floor": floor, "variants": rows})
        del data
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="*", help="results folders of the listrank-*.yaml sweeps")
    ap.add_argument("--floor", action="store_true", help="measure in process against the chase floors")
    ap.add_argument("--log-n", type=int, nargs="+", default=[26, 28], help="list sizes, as powers of two")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--variant", action="append", default=[], help="LABEL[:kernel=NAME,param=value,...]")
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--against", help="a --json file of another run, printed against this run's floors")
    args = ap.parse_args()
    if args.floor:
        floor_run(args)
    elif args.results:
        sweep_table(args.results)
    else:
        ap.error("give results folders, or --floor")


if __name__ == "__main__":
    main()
