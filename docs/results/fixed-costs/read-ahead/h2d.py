"""Where a 2^28-node list's load goes (H200): read to GPU directly; to host then one copy; to host
then 8 threads of slice copies; into pinned memory then one copy.  And whether a pinned allocation
on another thread moves a timed kernel loop on this one."""
import sys, threading, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np, cupy, cupyx
from graphsweep.datasets import reader

path = sys.argv[1]
dev = cupy.cuda.Device()
pool = cupy.get_default_memory_pool()
def t(): dev.synchronize(); return time.perf_counter()
for rep in range(2):
    pool.free_all_blocks(); a = t()
    d = reader.read(path, backend="gpu", threads=8); b = t(); del d; pool.free_all_blocks()
    print(f"[{rep}] direct to gpu: {b - a:.3f} s", flush=True)
    a = t(); h = reader.read(path, backend="cpu", threads=8); b = t()
    x = cupy.asarray(h.succ); c = t(); del x; pool.free_all_blocks()
    print(f"[{rep}] to host {b - a:.3f} s; one pageable copy {c - b:.3f} s ({h.succ.nbytes / (c - b) / 1e9:.1f} GB/s)", flush=True)
    y = cupy.empty_like(cupy.asarray(h.succ[:1])); y = cupy.empty(h.succ.shape, h.succ.dtype)
    a = t()
    parts = np.array_split(np.arange(h.succ.size), 8)
    def cp(ix):
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            y[ix[0]:ix[-1] + 1].set(h.succ[ix[0]:ix[-1] + 1], stream=s)
        s.synchronize()
    with ThreadPoolExecutor(8) as ex:
        list(ex.map(cp, parts))
    b = t(); print(f"[{rep}] 8-thread pageable copy {b - a:.3f} s ({h.succ.nbytes / (b - a) / 1e9:.1f} GB/s)", flush=True)
    del y; pool.free_all_blocks()
    a = t(); p = cupyx.empty_pinned(h.succ.shape, h.succ.dtype); b = t()
    np.copyto(p, h.succ); c = t(); x = cupy.asarray(p); e = t()
    print(f"[{rep}] pinned alloc {b - a:.3f} s; host copy into it {c - b:.3f} s; pinned copy {e - c:.3f} s "
          f"({h.succ.nbytes / (e - c) / 1e9:.1f} GB/s)", flush=True)
    del x, p, h; pool.free_all_blocks()

# a timed loop of short kernels with and without a pinned allocation of 1 GB on another thread
a = cupy.arange(1 << 26, dtype=cupy.int32)
def loop(n=400):
    s, e = cupy.cuda.Event(), cupy.cuda.Event()
    s.record()
    for _ in range(n):
        a[:] = a + 1
    e.record(); e.synchronize()
    return cupy.cuda.get_elapsed_time(s, e)
loop()
quiet = [loop() for _ in range(3)]
def alloc():
    for _ in range(3):
        p = cupyx.empty_pinned(1 << 28, np.int32); p[:] = 1; del p
        cupy.get_default_pinned_memory_pool().free_all_blocks()
th = threading.Thread(target=alloc); th.start()
busy = []
while th.is_alive():
    busy.append(loop())
th.join()
print(f"kernel loop ms quiet {['%.1f' % q for q in quiet]}; beside pinned allocations {['%.1f' % q for q in busy]}")
