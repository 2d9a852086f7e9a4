"""The strips twin on a road-like grid, lock-step ticks, buckets with and without a one-bucket
lookahead (an idle block expands its pile's next bucket while the bucket's tail runs elsewhere;
the bucket ends when no work below T is queued anywhere)."""
import sys, time
import numpy as np
from graphsweep.generators import memory
from graphsweep.kernels.graph import graph_input
from graphsweep.kernels.sssp import strips
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import twin_lookahead as twin_la

side = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
roots = int(sys.argv[2]) if len(sys.argv) > 2 else 2
blocks = int(sys.argv[3]) if len(sys.argv) > 3 else 264
data = memory.generate("grid", seed=24301, params={"rows": side, "cols": side, "keep": 0.8, "weights": "1:300"})
inp = graph_input(data)
csr = inp.csr()
rows = strips.ell_rows(csr, np).view(np.int64)
delta = strips.default_delta(csr)
rng = np.random.default_rng(24301)
deg = np.diff(csr.offsets)
cands = np.flatnonzero(deg > 0)
for r in rng.choice(cands, roots, replace=False):
    out = {}
    for la in (False, True):
        t = time.time()
        dist, parent, epochs, ticks, smax, smean, edges, entries, mails, sumbusy = twin_la._strips(
            rows, csr.indices, csr.weights, int(r), delta, blocks, la)
        out[la] = dist
        print(f"n={csr.n} root={r} delta={delta} lookahead={la}: buckets {epochs} ticks {ticks} "
              f"sum-of-bucket-busiest {sumbusy} busiest-block-total {smax} mean {smean:.0f} "
              f"entries {entries} edges {edges} mails {mails}  ({time.time() - t:.1f} s)", flush=True)
    assert np.array_equal(out[False], out[True]), "lookahead changed distances"
