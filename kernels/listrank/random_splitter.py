"""listrank.random-splitter — Reid-Miller's random-splitter list ranking, 000 Alg. 3 (RS1-RS5).

Returns rank[i] = links from i to the tail.  p splitters, one drawn at random in each of p
equal chunks of node indices (the head stands for its chunk's draw, so every node follows some
splitter); RS3 walks each sub-list from its splitter, marking each node with (owner, local
rank) until it meets a node another splitter owns; RS4 ranks the p-node splitter list by
pointer jumping (000 uses its one-block Wyllie kernel; here one launch per round, so p is not
bound by one block); RS5 adds each splitter's rank to its nodes' local ranks.

``packing``: 64 keeps (local rank, owner) in one 64-bit word (000's 64-bit version: 160 bits
moved per node in RS3); 48 keeps a 16-bit owner and a 32-bit local-rank array (96 bits per node,
at most 32767 splitters).  ``splitters=even`` puts splitter i at list position i*n/p, found by a
sequential walk outside the timed run (cached): 000 Table 3's "perfect" splitters, for study.
Sub-list length statistics (Table 3) come back in the stats.
"""

import numba
import numpy as np

from graphsweep.datasets.errors import ParameterError
from graphsweep.datasets.gpu import is_device, to_host

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS, check_threads, launch, module, resident_blocks
from . import LISTRANK
from .cpu import jump as jump_cpu
from .cpu import nodes_at, sublist_stats
from .gpu import check_gpu_size, jump, succ_type

MAX_SPLITTERS_48 = 32767        # the 16-bit owner of the 48-bit layout
PARAMS = {
    "p": Param(None, minimum=1, help="splitters (default: max(resident GPU threads, n/64), at most n)"),
    "packing": Param(64, choices=(48, 64), help="64: one (rank, owner) word; 48: 16-bit owner + 32-bit rank"),
    "splitters": Param("random", type=str, choices=("random", "even"), help="random, or evenly spaced (study)"),
    "seed": Param(1, minimum=0, help="seed of the splitter draw"),
    **GRID_PARAMS,
}
def splitter_count(params, n: int, threads_in_flight: int) -> int:
    p = params["p"]
    if p is None:
        p = max(threads_in_flight, n // 64)
        if params["packing"] == 48:
            p = min(p, MAX_SPLITTERS_48)
    p = min(p, n)
    if params["packing"] == 48 and p > MAX_SPLITTERS_48:
        raise ParameterError(f"parameter 'p': packing 48 keeps 16-bit owners, so p must be at most "
                             f"{MAX_SPLITTERS_48} (got {p})")
    return p


def _splitters_for(inp, params) -> int:
    """p for this input on the backend that holds it (GPU: enough to fill every resident thread)."""
    if is_device(inp.succ):
        threads = check_threads(params["threads"])
        return splitter_count(params, inp.n, resident_blocks(threads) * threads)
    return splitter_count(params, inp.n, numba.get_num_threads())


def choose_even_splitters(inp, params) -> None:
    """Setup of ``splitters: even``: splitter i at list position i*n/p, from one sequential walk
    (it needs the ranks: study only), kept in inp.cache on the list's device."""
    if params["splitters"] != "even":
        return
    p = _splitters_for(inp, params)
    if ("even", p) not in inp.cache:
        positions = np.arange(p, dtype=np.int64) * inp.n // p
        nodes = nodes_at(to_host(inp.succ), inp.head, positions)
        if is_device(inp.succ):
            import cupy
            inp.cache[("even", p)] = cupy.asarray(nodes.astype(np.int32))
        else:
            inp.cache[("even", p)] = nodes.astype(np.int64)


def _stats(timer, lengths):
    timer.stat("sublists", lambda: sublist_stats(to_host(lengths)))


def run_gpu(inp, params, timer):
    import cupy
    check_gpu_size(inp)
    n, threads, blocks = inp.n, check_threads(params["threads"]), params["blocks"]
    p = _splitters_for(inp, params)
    bits = params["packing"]
    st = succ_type(inp.succ)
    rs3 = f"graphsweep_listrank_rs3_{bits}<{st}>"
    mod = module("listrank/random_splitter.cu", name_expressions=(rs3,))
    fn = mod.get_function
    spl = cupy.empty(p, dtype=np.int32)
    node = cupy.empty(p, dtype=np.uint64)
    words = cupy.empty((2, p), dtype=np.uint64)
    incl = cupy.empty(p, dtype=np.uint32)
    use_even = params["splitters"] == "even"
    even = inp.cache[("even", p)] if use_even else spl
    head, seed = np.int32(inp.head), np.uint32(params["seed"])
    if bits == 64:
        rec = cupy.empty(n, dtype=np.uint64)
        rank = cupy.empty(n, dtype=np.int32)
        with timer.phase("RS1", written=8 * n):
            launch(fn("graphsweep_listrank_rs1_64"), n, threads, blocks, rec, np.int64(n))
        with timer.phase("RS2", read=4 * p * use_even, written=12 * p, random=p):
            launch(fn("graphsweep_listrank_rs2_64"), p, threads, blocks, rec, spl, np.int64(n), np.int64(p),
                   head, seed, even, np.int32(use_even))
        with timer.phase("RS3", read=n * (inp.succ.itemsize + 8) + 4 * p, written=8 * n + 8 * p, random=3 * n):
            launch(fn(rs3), p, threads, blocks, inp.succ, rec, spl, node, np.int64(p))
    else:
        owner = cupy.empty(n, dtype=np.int16)
        rank = cupy.empty(n, dtype=np.int32)          # local ranks, turned into ranks by RS5
        with timer.phase("RS1", written=2 * n):
            launch(fn("graphsweep_listrank_rs1_48"), n, threads, blocks, owner, np.int64(n))
        with timer.phase("RS2", read=4 * p * use_even, written=10 * p, random=2 * p):
            launch(fn("graphsweep_listrank_rs2_48"), p, threads, blocks, owner, rank, spl, np.int64(n),
                   np.int64(p), head, seed, even, np.int32(use_even))
        with timer.phase("RS3", read=n * (inp.succ.itemsize + 2) + 4 * p, written=6 * n + 8 * p, random=4 * n):
            launch(fn(rs3), p, threads, blocks, inp.succ, owner, rank, spl, node, np.int64(p))
    with timer.phase("RS4", read=16 * p, written=8 * p, random=p):
        launch(fn("graphsweep_listrank_jump_init_nodes"), p, threads, blocks, node, words[0], np.int64(p))
    ranked = jump(mod, timer, "RS4", words[0], words[1], p, threads, blocks)
    with timer.phase("RS4", read=16 * p, written=4 * p):
        launch(fn("graphsweep_listrank_jump_inclusive"), p, threads, blocks, ranked, node, incl, np.int64(p))
    if bits == 64:
        with timer.phase("RS5", read=12 * n, written=4 * n, random=n):
            launch(fn("graphsweep_listrank_rs5_64"), n, threads, blocks, rec, incl, rank, np.int64(n))
    else:
        with timer.phase("RS5", read=10 * n, written=4 * n, random=n):
            launch(fn("graphsweep_listrank_rs5_48"), n, threads, blocks, owner, incl, rank, np.int64(n))
    timer.stat("p", p)
    _stats(timer, node.view(np.uint32)[::2])
    return rank


# --- CPU twin: the same five steps, Numba-parallel over nodes and splitters.  A 64-bit record is
# (owner << 32) | local rank in an int64 (owner -1 = none yet).

@numba.njit(cache=True, parallel=True)
def _rs1(rec):
    for j in numba.prange(rec.shape[0]):
        rec[j] = -1 << 32


@numba.njit(cache=True, parallel=True)
def _rs2(rec, spl, n, head, seed, even, use_even):
    p = spl.shape[0]
    for i in numba.prange(p):
        if use_even:
            s = even[i]
        else:
            lo, hi = i * n // p, (i + 1) * n // p
            s = head if lo <= head < hi else lo + (((i * 0x5851F42D4C957F2D + seed) >> 11) & 0xFFFFFFFF) % (hi - lo)
        spl[i] = s
        rec[s] = i << 32


@numba.njit(cache=True, parallel=True)
def _rs3(succ, rec, spl, length, nxt):
    for i in numba.prange(spl.shape[0]):
        prev = spl[i]
        j = succ[prev]
        dist = 1
        while (rec[j] >> 32) == -1 and prev != j:
            rec[j] = (i << 32) | dist
            prev = j
            j = succ[j]
            dist += 1
        length[i] = dist
        nxt[i] = rec[j] >> 32


@numba.njit(cache=True, parallel=True)
def _rs4_init(length, nxt, value):
    for i in numba.prange(length.shape[0]):
        value[i] = 0 if nxt[i] == i else length[nxt[i]]


@numba.njit(cache=True, parallel=True)
def _rs5(rec, incl, rank):
    for j in numba.prange(rec.shape[0]):
        rank[j] = incl[rec[j] >> 32] - 1 - (rec[j] & 0xFFFFFFFF)


def run_cpu(inp, params, timer):
    n = inp.n
    p = _splitters_for(inp, params)
    succ = inp.succ
    use_even = params["splitters"] == "even"
    even = inp.cache[("even", p)] if use_even else np.zeros(1, np.int64)
    rec = np.empty(n, np.int64)
    spl, length, nxt = np.empty(p, np.int64), np.empty(p, np.int64), np.empty(p, np.int64)
    value = np.empty(p, np.int64)
    rank = np.empty(n, dtype=inp.rank_dtype)
    with timer.phase("RS1", written=8 * n):
        _rs1(rec)
    with timer.phase("RS2", read=8 * p * use_even, written=16 * p, random=p):
        _rs2(rec, spl, n, inp.head, params["seed"], even, use_even)
    with timer.phase("RS3", read=n * (succ.itemsize + 8), written=8 * n + 16 * p, random=3 * n):
        _rs3(succ, rec, spl, length, nxt)
    with timer.phase("RS4", read=16 * p, written=8 * p, random=p):
        _rs4_init(length, nxt, value)
    value = jump_cpu(value, nxt.copy(), timer, "RS4")
    with timer.phase("RS4", read=16 * p, written=8 * p):
        value += length
    with timer.phase("RS5", read=16 * n, written=n * rank.itemsize, random=n):
        _rs5(rec, value, rank)
    timer.stat("p", p)
    timer.stat("sublists", lambda: sublist_stats(length))
    return rank


KERNEL = Kernel(name="listrank.random-splitter", problem=LISTRANK,
                summary="Reid-Miller random splitters RS1-RS5, 48/64-bit packing, random/even splitters (000 Alg. 3)",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, setup=choose_even_splitters, walk_phase="RS3",
                walk_bytes=lambda params: 12 if params["packing"] == 64 else 10)   # succ + 8 or 6 B records
