"""Where a list's load from Parquet to the GPU goes, on the device host: Arrow decode alone,
the reader as it is, and decode + copy into pinned staging allocated once + async DMA."""
import sys, time, glob, threading
from concurrent.futures import ThreadPoolExecutor
import numpy as np, pyarrow as pa, pyarrow.parquet as pq, cupy, cupyx
from graphsweep.datasets import reader

path = sys.argv[1]
files = sorted(glob.glob(f"{path}/part-*.parquet"))
rows = [pq.ParquetFile(f).metadata.num_rows for f in files]
starts = np.cumsum([0] + rows)
total = int(starts[-1]); nbytes = 4 * total
dev = cupy.cuda.Device()
def sync(): dev.synchronize(); return time.perf_counter()
def show(name, secs):
    print(f"{name:<48} " + " ".join(f"{s*1e3:7.1f}" for s in secs) + f"   best {nbytes/min(secs)/1e9:5.1f} GB/s", flush=True)

def decode(i, mm=True):
    return pq.ParquetFile(files[i], memory_map=mm).read_row_group(0, use_threads=False).column(0).to_numpy()

def arrow_only(T, mm=True):
    with ThreadPoolExecutor(T) as ex:
        list(ex.map(lambda i: decode(i, mm).size, range(len(files))))

big = np.ones(total, np.int32); big2 = np.empty_like(big); big2[:] = 0
def host_copy(T):
    parts = np.array_split(np.arange(len(files)), T)
    def cp(ix):
        a, b = starts[ix[0]], starts[ix[-1] + 1]; np.copyto(big2[a:b], big[a:b])
    with ThreadPoolExecutor(T) as ex:
        list(ex.map(cp, parts))

out = cupy.empty(total, np.int32)
def pageable(T, mm=True):
    def one(i):
        a = decode(i, mm); out[starts[i]:starts[i] + a.size].set(a)
    with ThreadPoolExecutor(T) as ex:
        list(ex.map(one, range(len(files))))

class Staging(threading.local):
    def __init__(self):
        self.bufs = [cupyx.empty_pinned(max(rows), np.int32) for _ in range(2)]
        self.events = [None, None]; self.k = 0
        self.stream = cupy.cuda.Stream(non_blocking=True)
stage = Staging()
def pinned(T, mm=True):
    def one(i):
        a = decode(i, mm); s = stage
        k = s.k; s.k ^= 1
        if s.events[k] is not None: s.events[k].synchronize()
        buf = s.bufs[k][:a.size]; np.copyto(buf, a)
        out[starts[i]:starts[i] + a.size].set(buf, stream=s.stream)
        ev = cupy.cuda.Event(); ev.record(s.stream); s.events[k] = ev
    with ThreadPoolExecutor(T) as ex:   # the caller's device sync waits for every stream
        list(ex.map(one, range(len(files))))

def timeit(f, *a, k=3):
    f(*a)   # warm: staging allocated, pool, page cache
    secs = []
    for _ in range(k):
        t0 = sync(); f(*a); secs.append(sync() - t0)
    return secs

print(f"{path}: {len(files)} parts, {total} rows, {nbytes/1e9:.2f} GB; pool {pa.default_memory_pool().backend_name}")
for T in (1, 8, 16): show(f"host memcpy, {T} threads", timeit(host_copy, T))
for T in (1, 4, 8, 16): show(f"arrow decode only mmap, {T} threads", timeit(arrow_only, T))
for T in (8, 16): show(f"arrow decode only pread, {T} threads", timeit(arrow_only, T, False))
for T in (1, 2, 4, 8, 16): show(f"reader.read gpu, {T} threads", timeit(lambda: reader.read(path, backend="gpu", threads=T)))
for T in (1, 2, 4, 8, 16): show(f"decode + pageable set, {T} threads", timeit(pageable, T))
for T in (2, 4, 8, 16): show(f"decode + pinned staging, {T} threads", timeit(pinned, T))
for T in (8, 16): show(f"decode pread + pinned staging, {T} threads", timeit(pinned, T, False))
for name in ("jemalloc", "system"):
    try:
        pa.set_memory_pool(getattr(pa, name + "_memory_pool")())
    except Exception as e:
        print(name, e); continue
    for T in (8, 16): show(f"[{name}] arrow decode only mmap, {T} threads", timeit(arrow_only, T))
    for T in (8,): show(f"[{name}] decode + pageable set, {T} threads", timeit(pageable, T))
    for T in (8, 16): show(f"[{name}] decode + pinned staging, {T} threads", timeit(pinned, T))
