"""Is ``cc.best`` the fastest CC on every graph family, and how far ahead of ECL-CC (issue #21)?
The ratio table of the shipped sweep ``sweeps/cc-families.yaml``, with ECL-CC timed beside it.

    graphsweep run sweeps/cc-families.yaml          # on a GPU machine
    python3 benchmarks/cc_families.py results/cc-families [--ecl peers/ecl-cc/main.cu]

Per graph, each cc.* kernel's median time (kernel only; the CSR build is timed apart), G edges/s
and time over cc.best's (whose row names the kernel it chose), then cc.best against ECL-CC (target:
at least 1.2x faster) and against the fastest other cc.* kernel at its defaults (target: at most
5% slower).

ECL-CC is a peer's published CUDA source, not a kernel of graphsweep's, so it is no sweep task:
with ``--ecl`` (HeCBench's src/cc-cuda/main.cu, see kernels/cc/ecl_cc.py) it runs here, after the
sweep and on the same device, on each of the sweep's graphs generated again in memory on the GPU
(the bytes the sweep's tasks loaded) and their CSR; its labels are checked by the CC problem's
own verifier.
"""

import argparse
import statistics

import pandas as pd
from graphsweep.pipeline.ratios import mark_best, print_groups, totals, run_printer

from graphsweep.kernels import registry

ECL_TARGET = 1.2          # cc.best at least this much faster than ECL-CC
OTHERS_SLACK = 1.05       # and never slower than another cc.* kernel (at its defaults) by more than this


def ecl_cc_times(results: str, source: str) -> dict:
    """Dataset id -> (ECL-CC's median ms, whether its labels verified) on each graph of the sweep."""
    import cupy
    from graphsweep.kernels.cc.ecl_cc import EclCC

    from graphsweep.generators import memory
    from graphsweep.kernels.cc.verify import verify_graph_labels
    from graphsweep.kernels.graph import graph_input
    from graphsweep.pipeline import store

    ecl, out = EclCC(source), {}
    for ref in store.read_plan(results).datasets:
        data = memory.generate(ref.generator, seed=ref.seed, params=ref.params, backend="gpu")
        inp = graph_input(data)
        csr = inp.csr()
        labels, times = ecl.run(csr.offsets, csr.indices, reps=7)
        try:
            verify_graph_labels(inp, labels)
            verified = True
        except Exception as exc:  # the verdict is a line of the table, not the end of the run
            print(f"{ref.id}: ECL-CC's labels FAILED verification: {exc}")
            verified = False
        out[ref.id] = (statistics.median(times), verified)
        del data, inp, csr, labels
        cupy.get_default_memory_pool().free_all_blocks()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results folder of sweeps/cc-families.yaml")
    ap.add_argument("--ecl", help="ECL-CC's main.cu (HeCBench src/cc-cuda); without it no ECL-CC column")
    args = ap.parse_args()
    total = totals(args.results)
    total = total[total["kernel"].str.startswith("cc.")]
    ecl = ecl_cc_times(args.results, args.ecl) if args.ecl else {}
    chose = lambda r: f"  chose {r['stat_chose']}" if isinstance(r.get("stat_chose"), str) else ""  # noqa: E731
    best = print_groups(total, "cc.best", "dataset", extra=chose)
    chosen = registry.get("cc.best").name
    others = pd.concat([total[mark_best(total, k)] for k in total["kernel"].unique() if k != chosen])
    print()
    for dataset, ms in best.items():
        rows = others[others["dataset"] == dataset]
        fastest = rows.loc[rows["median_ms"].idxmin()]
        degree = 2 * fastest["m"] / fastest["n"]
        text = (f"{dataset:<52} d={degree:5.2f}  cc.best {ms:8.3f} ms; fastest other {fastest['kernel']} "
                f"{fastest['median_ms']:.3f} ms: cc.best {ms / fastest['median_ms']:.3f}x its time "
                f"[{'met' if ms <= OTHERS_SLACK * fastest['median_ms'] else 'MISSED'} <= {OTHERS_SLACK}]")
        if dataset in ecl:
            ecl_ms, verified = ecl[dataset]
            text += (f"; ECL-CC {ecl_ms:.3f} ms = {ecl_ms / ms:.2f}x cc.best's "
                     f"[{'met' if ecl_ms >= ECL_TARGET * ms else 'MISSED'} {ECL_TARGET}x]"
                     f"{'' if verified else ' (ECL-CC NOT VERIFIED)'}")
        print(text)


if __name__ == "__main__":
    run_printer(main)
