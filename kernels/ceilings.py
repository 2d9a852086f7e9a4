"""The device's ceilings, measured in about a second: what kernels' rates are judged against.

``measure("gpu")`` returns ``backend``, ``device``, ``sm_count`` and ``l2_bytes`` (read, not
measured) and: ``copy_gbps``, a large device-to-device copy (GB/s counting bytes read plus bytes
written); ``gather_gelems``, a random int32 gather from a table of ``table_bytes`` (256 MB; 64 MB on
the CPU; G elements/s); ``chase_gsteps``, a dependent pointer chase through the same table made one
random cycle, one chain per thread on its own segment of the cycle, as a sub-list walk does (G
steps/s); ``chase_store4_gsteps`` and ``chase_store8_gsteps``, the same chase storing 4 or 8 bytes at
each step's node (what a list walk does: follow ``succ``, write the node's rank or record; the floor
list ranking is judged against); ``clock_khz`` (read, with ``sm_count`` the compute peaks); and the
host link's floors (``_measure_link``): ``h2d_gbps``, ``d2h_gbps``,
``mapped_sequential_gbps``, ``mapped_lines_gbps``, ``mapped_naive_gbps``.  ``measure("cpu")`` does
the same with NumPy (copy, gather) and one Numba thread (the chases, on the GPU's cycle).  Each
figure is the best of a few repetitions.  ``ceilings(backend)`` measures once per process and remembers.
"""

import platform
import time
from functools import cache

import numba
import numpy as np

from graphsweep.core.errors import ParameterError

TABLE = 1 << 26                 # int32 entries: 256 MB, far beyond any L2
CPU_TABLE = 1 << 24             # 64 MB, far beyond any L3 this runs on
REPS = 5


def _random_table(n: int, size: int, seed: int):
    """``size`` random int32 indices into [0, n), on the device."""
    import cupy
    return cupy.random.RandomState(seed).randint(0, n, size=size, dtype=np.int32)


def best_gpu_seconds(fn, reps: int = REPS) -> float:
    """Seconds of the fastest of ``reps`` runs of ``fn`` on the device (CUDA events), after one
    warm-up run."""
    import cupy
    times = []
    for _ in range(reps + 1):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return min(times[1:])      # the first is a warm-up


def _measure_gpu() -> dict:
    import cupy

    from .cuda import clock_khz, device_name, l2_bytes, sm_count, thread_slots_per_sm

    best = best_gpu_seconds

    def copy_seconds():
        src = cupy.ones(1 << 28, dtype=np.int32)      # 1 GB, freed on return
        dst = cupy.empty_like(src)
        return best(lambda: dst.data.copy_from_device_async(src.data, src.nbytes))

    copy_s = copy_seconds()
    table = _random_table(TABLE, TABLE, 1)
    idx = _random_table(TABLE, TABLE, 2)
    out = cupy.empty(TABLE, dtype=np.int32)
    gather_s = best(lambda: cupy.take(table, idx, out=out))
    del idx, out
    bits = make_cycle(table)
    chains = sm_count() * thread_slots_per_sm()
    chase = {kind: chase_gsteps(table, bits, chains, kind) for kind in ("chase", "store4", "store8")}
    return {"backend": "gpu", "device": device_name(), "sm_count": sm_count(), "l2_bytes": l2_bytes(),
            "clock_khz": clock_khz(), "copy_gbps": 2 * (1 << 30) / copy_s / 1e9,
            "gather_gelems": TABLE / gather_s / 1e9, "chase_gsteps": chase["chase"],
            "chase_store4_gsteps": chase["store4"], "chase_store8_gsteps": chase["store8"],
            "table_bytes": TABLE * 4, **_measure_link()}


CYCLE_SEED = 0x5EED


def make_cycle(table, seed: int = CYCLE_SEED) -> int:
    """Make the device's int32 ``table`` one random cycle over its entries (ceilings.cu's keyed
    permutation); returns the permutation's bits, which the chases take."""
    from .cuda import module
    entries = int(table.shape[0])
    bits = max(1, (entries - 1).bit_length())
    module("ceilings.cu").get_function("graphsweep_ceiling_cycle")(
        (4096,), (256,), (table, np.int64(entries), np.int32(bits), np.uint64(seed)))
    return bits


def chase_gsteps(table, bits: int, chains: int, kind: str = "chase", seed: int = CYCLE_SEED) -> float:
    """G steps/s of ``chains`` dependent chases through the cycle ``table`` (make_cycle), each on its
    own segment; ``kind``: "chase", or "store4" / "store8", storing a 4- or 8-byte record at each
    step's node (a list walk).  On a small table (under 64 steps a chain) the segments overlap, so
    launch costs do not hide the rate."""
    import cupy

    from .cuda import module
    entries = int(table.shape[0])
    chains = min(chains, entries)
    steps = max(64, entries // chains)
    out = cupy.empty(chains if kind == "chase" else entries, dtype=np.uint64 if kind == "store8" else np.int32)
    fn = module("ceilings.cu").get_function("graphsweep_ceiling_chase" if kind == "chase"
                                            else f"graphsweep_ceiling_chase_{kind}")
    args = (table, out, np.int64(chains), np.int32(steps), np.int64(entries), np.int32(bits), np.uint64(seed))
    return chains * steps / best_gpu_seconds(lambda: fn(((chains + 255) // 256,), (256,), args)) / 1e9


# ceilings.cu's keyed permutation on b bits, whose rounds (xor a key, multiply by an odd constant,
# xor-shift by half the bits) each invert; on the CPU the table is a power of two, so there is no
# cycle walking and the inverse is the rounds undone in reverse.
_MULTIPLIER = 0x9E3779B97F4A7C15
_ROUNDS = 4


def _perm_constants(bits: int, seed: int) -> tuple:
    mask = (1 << bits) - 1
    keys = np.array([(seed * (2 * r + 1)) & mask for r in range(_ROUNDS)], dtype=np.uint64)
    return (np.uint64(mask), np.uint64((bits + 1) // 2), keys, np.uint64(_MULTIPLIER),
            np.uint64(pow(_MULTIPLIER, -1, 1 << 64)))


@numba.njit(cache=True, nogil=True)
def _perm(x, mask, half, keys, mul):
    for r in range(keys.shape[0]):
        x = ((x ^ keys[r]) * mul) & mask
        x ^= x >> half
    return x


@numba.njit(cache=True, nogil=True)
def _cycle(nxt, mask, half, keys, mul, inverse):
    # nxt[perm(i)] = perm(i + 1) as the GPU's cycle, written in index order: nxt[x] =
    # perm(perm^-1(x) + 1), so making it is a sequential pass instead of n scattered stores
    one = np.uint64(1)
    for i in range(nxt.shape[0]):
        x = np.uint64(i)
        for r in range(keys.shape[0] - 1, -1, -1):
            x ^= x >> half
            x = ((x * inverse) & mask) ^ keys[r]
        nxt[i] = _perm((x + one) & mask, mask, half, keys, mul)


def make_cpu_cycle(entries: int, seed: int = CYCLE_SEED) -> np.ndarray:
    """An int32 table of ``entries`` (a power of two) made one random cycle: the GPU's cycle
    (``make_cycle``) for the same size and seed."""
    bits = entries.bit_length() - 1
    if entries != 1 << bits:
        raise ParameterError(f"the CPU cycle needs a power of two entries, got {entries}")
    table = np.empty(entries, dtype=np.int32)
    _cycle(table, *_perm_constants(bits, seed))
    return table


@numba.njit(cache=True, nogil=True)
def _chase(table, steps):
    x = 0
    for _ in range(steps):
        x = table[x]
    return x


@numba.njit(cache=True, nogil=True)
def _chase_store(table, records, steps):
    x = 0
    for s in range(steps):
        y = table[x]
        records[x] = s
        x = y
    return x


def _measure_cpu() -> dict:
    # Sized to take about half a second (every CPU worker pays it once, before its first task's
    # rows): 64 MB tables, beyond the L3 a core's copy or chase can use, each timing 20-100 ms.
    def best(fn):
        times = []
        for _ in range(3):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return min(times)

    table = make_cpu_cycle(CPU_TABLE)
    records4 = np.empty_like(table)             # the copy's target, then the 4-byte chase's records
    copy_s = best(lambda: np.copyto(records4, table))
    # 4M indices: with fewer, more of the table stays in the L3 beside them and the rate rises (1M: +30%)
    idx = np.random.default_rng(2).integers(0, CPU_TABLE, size=1 << 22, dtype=np.int32)
    out = np.empty(idx.size, dtype=np.int32)
    gather_s = best(lambda: np.take(table, idx, out=out, mode="clip"))
    steps = 1 << 19
    _chase(table, 16)
    chase_s = best(lambda: _chase(table, steps))

    def chase_store_gsteps(records) -> float:
        _chase_store(table, records, 16)
        return (steps >> 1) / best(lambda: _chase_store(table, records, steps >> 1)) / 1e9

    return {"backend": "cpu", "device": platform.processor() or platform.machine() or "cpu",
            "copy_gbps": 2 * table.nbytes / copy_s / 1e9, "gather_gelems": idx.size / gather_s / 1e9,
            "chase_gsteps": steps / chase_s / 1e9,
            "chase_store4_gsteps": chase_store_gsteps(records4),
            "chase_store8_gsteps": chase_store_gsteps(np.empty(CPU_TABLE, dtype=np.uint64)),
            "table_bytes": CPU_TABLE * 4}


LINK_BYTES = 1 << 30            # pinned host buffer of the link measurements: 1 GiB
NAIVE_BYTES = 1 << 26           # the naive shape is ~100x slower: it reads less


def _measure_link() -> dict:
    """The host-device link (pinned, device-mapped host memory): bulk copies each way, and kernels
    reading mapped memory sequentially, as random 128-byte lines a warp at a time, and as random
    lines a thread each (the naive shape).  GB/s of bytes moved over the link."""
    import cupy

    from . import pinned
    from .cuda import module, sm_count

    best = best_gpu_seconds
    host = pinned.empty(LINK_BYTES // 4, np.int32)
    host.host[:] = 1
    dev = cupy.empty(LINK_BYTES // 4, dtype=np.int32)
    h2d_s = best(lambda: pinned.copy_to_device(dev, host.host))
    d2h_s = best(lambda: pinned.copy_to_host(host.host, dev))
    mod, sink = module("ceilings.cu"), cupy.zeros(1, dtype=np.uint32)
    blocks = sm_count() * 8
    seq = mod.get_function("graphsweep_link_read_sequential")
    seq_s = best(lambda: seq((blocks,), (256,), (host.device, np.int64(LINK_BYTES // 16), sink)))
    lines, seed = LINK_BYTES // 128, np.uint64(0x5EED)
    warp = mod.get_function("graphsweep_link_read_lines")
    warp_s = best(lambda: warp((blocks,), (256,), (host.device, np.int64(lines), np.int64(lines), seed, sink)))
    naive_reads = NAIVE_BYTES // 128
    naive = mod.get_function("graphsweep_link_read_lines_naive")
    naive_s = best(lambda: naive((blocks,), (256,), (host.device, np.int64(lines), np.int64(naive_reads), seed, sink)),
                   reps=2)
    return {"h2d_gbps": LINK_BYTES / h2d_s / 1e9, "d2h_gbps": LINK_BYTES / d2h_s / 1e9,
            "mapped_sequential_gbps": LINK_BYTES / seq_s / 1e9, "mapped_lines_gbps": LINK_BYTES / warp_s / 1e9,
            "mapped_naive_gbps": NAIVE_BYTES / naive_s / 1e9}


def measure(backend: str = "gpu") -> dict:
    """Measure the ceilings of ``backend`` ('gpu' or 'cpu') now; see the module doc."""
    if backend == "gpu":
        from graphsweep.core import gpu
        if not gpu.available():
            raise ParameterError("ceilings of backend 'gpu' asked for, but no CUDA device is usable here")
        return _measure_gpu()
    if backend == "cpu":
        return _measure_cpu()
    raise ParameterError(f"backend must be 'gpu' or 'cpu', got {backend!r}")


@cache
def ceilings(backend: str) -> dict:
    """``measure(backend)``, once per process."""
    return measure(backend)
