"""Arrow decode of a list's parts by source (Arrow's mmap, a mmap populated at once, pread) and
allocator, alone and into pinned staging + DMA.  argv: path, then names of variants to run."""
import mmap, os, sys, time, glob, threading
from concurrent.futures import ThreadPoolExecutor
import numpy as np, pyarrow as pa, pyarrow.parquet as pq

path = sys.argv[1]
pool_name = os.environ.get("POOL", "")
if pool_name:
    pa.set_memory_pool(getattr(pa, pool_name + "_memory_pool")())
if os.environ.get("JE_DECAY"):
    pa.jemalloc_set_decay_ms(int(os.environ["JE_DECAY"]))
files = sorted(glob.glob(f"{path}/part-*.parquet"))
rows = [pq.ParquetFile(f).metadata.num_rows for f in files]
starts = np.cumsum([0] + rows)
total = int(starts[-1]); nbytes = 4 * total
try:
    import cupy, cupyx
    dev = cupy.cuda.Device(); out = cupy.empty(total, np.int32)
    def sync(): dev.synchronize(); return time.perf_counter()
except ImportError:
    cupy = None
    def sync(): return time.perf_counter()
label = f"[{pool_name or pa.default_memory_pool().backend_name}{' ' + os.environ.get('TAG', '') if os.environ.get('TAG') else ''}]"

def source(i, how):
    if how == "mmap":
        return pq.ParquetFile(files[i], memory_map=True)
    if how == "pread":
        return pq.ParquetFile(files[i], memory_map=False)
    fd = os.open(files[i], os.O_RDONLY)
    try:
        m = mmap.mmap(fd, 0, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE, prot=mmap.PROT_READ)
    finally:
        os.close(fd)
    return pq.ParquetFile(pa.BufferReader(pa.py_buffer(m)))

def decode(i, how):
    return source(i, how).read_row_group(0, use_threads=False).column(0).to_numpy()

class Staging(threading.local):
    def __init__(self):
        self.bufs = [cupyx.empty_pinned(max(rows), np.int32) for _ in range(2)]
        self.events = [None, None]; self.k = 0
        self.stream = cupy.cuda.Stream(non_blocking=True)
stage = Staging() if cupy else None

def run(T, how, sink):
    if how == "reader":
        from graphsweep.datasets import reader
        return reader.read(path, backend=sink, threads=T)
    def one(i):
        a = decode(i, how)
        if sink == "decode":
            return
        s = stage; k = s.k; s.k ^= 1
        if s.events[k] is not None: s.events[k].synchronize()
        buf = s.bufs[k][:a.size]; np.copyto(buf, a)
        out[starts[i]:starts[i] + a.size].set(buf, stream=s.stream)
        ev = cupy.cuda.Event(); ev.record(s.stream); s.events[k] = ev
    with ThreadPoolExecutor(T) as ex:
        list(ex.map(one, range(len(files))))

for v in sys.argv[2:]:
    how, sink, T = v.split(":"); T = int(T)
    if sink not in ("decode", "cpu") and cupy is None:
        continue
    run(T, how, sink)
    secs = []
    for _ in range(4):
        t0 = sync(); run(T, how, sink); secs.append(sync() - t0)
    print(f"{label:<22} {how:<8} {sink:<7} {T:>2} threads " + " ".join(f"{s*1e3:7.1f}" for s in secs)
          + f"   best {nbytes/min(secs)/1e9:5.1f} GB/s", flush=True)
