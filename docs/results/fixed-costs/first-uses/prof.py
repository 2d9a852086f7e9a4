"""Where list ranking's stages outside the timed reps go, in one process as a worker runs them:
the four list kernels on a 2^28 list twice (the second pass has no first uses), under cProfile."""
import cProfile, pstats, sys, time
from graphsweep.datasets import reader
from graphsweep.kernels import harness, registry
from graphsweep.pipeline import estimate
from graphsweep.pipeline.worker import grow_pool

path = sys.argv[1]
registry.names()
t0 = time.perf_counter(); data = reader.read(path, backend="gpu", threads=8); t1 = time.perf_counter()
grow_pool(estimate.task_memory("list", data.n, 0)); t2 = time.perf_counter()
print(f"read {t1 - t0:.3f} s, grow_pool {t2 - t1:.3f} s", flush=True)
KERNELS = ["listrank.wyllie", "listrank.helman-jaja", "listrank.random-splitter", "listrank.recursive-splitter"]
prof = cProfile.Profile()
for p in range(2):
    for name in KERNELS:
        if p == 0:
            prof.enable()
        t = time.perf_counter()
        r = harness.run(name, data, backend="gpu", reps=5, warmup=1, warmup_sample=True, keep_output=False)
        wall = time.perf_counter() - t
        if p == 0:
            prof.disable()
        print(f"pass {p} {name:<28} wall {wall * 1e3:7.1f} ms  " +
              "  ".join(f"{k} {v * 1e3:.1f}" for k, v in r.seconds.items()) + f"  verified {r.verified}", flush=True)
st = pstats.Stats(prof)
st.sort_stats("cumulative").print_stats(60)
st.sort_stats("tottime").print_stats(40)
