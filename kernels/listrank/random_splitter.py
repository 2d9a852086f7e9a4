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
Sub-list length statistics (Table 3) come back in the stats.  Both backends run the steps through
one host loop (``_run`` over ``GpuRS`` or ``CpuRS``).
"""

from functools import partial

import numba
import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import is_device, to_host

from ..contract import Kernel, Param
from ..cuda import GRID_PARAMS, c_type, check_threads, launch, module, resident_blocks
from . import LISTRANK
from .cpu import jump as jump_cpu
from .cpu import nodes_at, sublist_stats
from .gpu import check_gpu_size, jump

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


def _run(passes, inp, params, timer):
    """RS1-RS5 over either backend's ``passes``; RS4 ranks the splitter list by Wyllie's rounds, one
    RS4 phase each.  Each backend gives its byte model (packed words and plain records differ)."""
    rs = passes(inp, params)
    model = rs.traffic()
    with timer.phase("RS1", **model["RS1"]):
        rs.rs1()
    with timer.phase("RS2", **model["RS2"]):
        rs.rs2()
    with timer.phase("RS3", **model["RS3"]):
        rs.rs3()
    with timer.phase("RS4", **model["RS4 init"]):
        rs.rs4_init()
    rs.rs4_jump(timer, "RS4")
    with timer.phase("RS4", **model["RS4 sum"]):
        rs.rs4_sum()
    with timer.phase("RS5", **model["RS5"]):
        rs.rs5()
    timer.stat("p", rs.p)
    timer.stat("sublists", lambda: sublist_stats(rs.sublist_lengths()))
    return rs.rank


class GpuRS:
    """The steps as launches of random_splitter.cu, records packed in one 64-bit word or in a
    16-bit owner and a 32-bit local rank (``packing``); the splitter list as packed (weight, next)
    nodes ranked by gpu.jump."""

    def __init__(self, inp, params):
        import cupy
        check_gpu_size(inp)
        self.n, self.threads, self.blocks = inp.n, check_threads(params["threads"]), params["blocks"]
        self.p = p = _splitters_for(inp, params)
        self.bits, self.succ = params["packing"], inp.succ
        self.rs3_name = f"graphsweep_listrank_rs3_{self.bits}<{c_type(inp.succ.dtype)}>"
        self.mod = module("listrank/random_splitter.cu", name_expressions=(self.rs3_name,))
        self.spl = cupy.empty(p, dtype=np.int32)
        self.node = cupy.empty(p, dtype=np.uint64)
        self.words = cupy.empty((2, p), dtype=np.uint64)
        self.incl = cupy.empty(p, dtype=np.uint32)
        self.use_even = params["splitters"] == "even"
        self.even = inp.cache[("even", p)] if self.use_even else self.spl
        self.head, self.seed = np.int32(inp.head), np.uint32(params["seed"])
        if self.bits == 64:
            self.rec = cupy.empty(self.n, dtype=np.uint64)
        else:
            self.owner = cupy.empty(self.n, dtype=np.int16)
        self.rank = cupy.empty(self.n, dtype=np.int32)      # with packing 48 the local ranks first (RS2, RS3)

    def traffic(self) -> dict:
        n, p, even, sb = self.n, self.p, self.use_even, self.succ.itemsize
        if self.bits == 64:
            own = {"RS1": {"written": 8 * n},
                   "RS2": {"read": 4 * p * even, "written": 12 * p, "random": p},
                   "RS3": {"read": n * (sb + 8) + 4 * p, "written": 8 * n + 8 * p, "random": 3 * n},
                   "RS5": {"read": 12 * n, "written": 4 * n, "random": n}}
        else:
            own = {"RS1": {"written": 2 * n},
                   "RS2": {"read": 4 * p * even, "written": 10 * p, "random": 2 * p},
                   "RS3": {"read": n * (sb + 2) + 4 * p, "written": 6 * n + 8 * p, "random": 4 * n},
                   "RS5": {"read": 10 * n, "written": 4 * n, "random": n}}
        return {**own, "RS4 init": {"read": 16 * p, "written": 8 * p, "random": p},
                "RS4 sum": {"read": 16 * p, "written": 4 * p}}

    def _launch(self, name, count, *args):
        launch(self.mod.get_function(name), count, self.threads, self.blocks, *args)

    def _records(self):
        """The arrays a node's record takes: one packed word, or owner and local rank."""
        return (self.rec,) if self.bits == 64 else (self.owner, self.rank)

    def rs1(self):
        self._launch(f"graphsweep_listrank_rs1_{self.bits}", self.n, self._records()[0], np.int64(self.n))

    def rs2(self):
        self._launch(f"graphsweep_listrank_rs2_{self.bits}", self.p, *self._records(), self.spl, np.int64(self.n),
                     np.int64(self.p), self.head, self.seed, self.even, np.int32(self.use_even))

    def rs3(self):
        self._launch(self.rs3_name, self.p, self.succ, *self._records(), self.spl, self.node, np.int64(self.p))

    def rs4_init(self):
        self._launch("graphsweep_listrank_jump_init_nodes", self.p, self.node, self.words[0], np.int64(self.p))

    def rs4_jump(self, timer, phase: str):
        self.ranked = jump(self.mod, timer, phase, self.words[0], self.words[1], self.p, self.threads, self.blocks)

    def rs4_sum(self):
        self._launch("graphsweep_listrank_jump_inclusive", self.p, self.ranked, self.node, self.incl,
                     np.int64(self.p))

    def rs5(self):
        self._launch(f"graphsweep_listrank_rs5_{self.bits}", self.n, self._records()[0], self.incl, self.rank,
                     np.int64(self.n))

    def sublist_lengths(self):
        return self.node.view(np.uint32)[::2]


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


class CpuRS:
    """The same steps as Numba loops on int64 records (the twin has one packing); the splitter list
    as (value, next) arrays ranked by cpu.jump."""

    def __init__(self, inp, params):
        n = self.n = inp.n
        self.p = p = _splitters_for(inp, params)
        self.succ, self.head, self.seed = inp.succ, inp.head, params["seed"]
        self.use_even = params["splitters"] == "even"
        self.even = inp.cache[("even", p)] if self.use_even else np.zeros(1, np.int64)
        self.rec = np.empty(n, np.int64)
        self.spl, self.length, self.nxt = np.empty(p, np.int64), np.empty(p, np.int64), np.empty(p, np.int64)
        self.value = np.empty(p, np.int64)
        self.rank = np.empty(n, dtype=inp.rank_dtype)

    def traffic(self) -> dict:
        n, p = self.n, self.p
        return {"RS1": {"written": 8 * n},
                "RS2": {"read": 8 * p * self.use_even, "written": 16 * p, "random": p},
                "RS3": {"read": n * (self.succ.itemsize + 8), "written": 8 * n + 16 * p, "random": 3 * n},
                "RS4 init": {"read": 16 * p, "written": 8 * p, "random": p},
                "RS4 sum": {"read": 16 * p, "written": 8 * p},
                "RS5": {"read": 16 * n, "written": n * self.rank.itemsize, "random": n}}

    def rs1(self):
        _rs1(self.rec)

    def rs2(self):
        _rs2(self.rec, self.spl, self.n, self.head, self.seed, self.even, self.use_even)

    def rs3(self):
        _rs3(self.succ, self.rec, self.spl, self.length, self.nxt)

    def rs4_init(self):
        _rs4_init(self.length, self.nxt, self.value)

    def rs4_jump(self, timer, phase: str):
        self.value = jump_cpu(self.value, self.nxt.copy(), timer, phase)

    def rs4_sum(self):
        self.value += self.length

    def rs5(self):
        _rs5(self.rec, self.value, self.rank)

    def sublist_lengths(self):
        return self.length


KERNEL = Kernel(name="listrank.random-splitter", problem=LISTRANK,
                summary="Reid-Miller random splitters RS1-RS5, 48/64-bit packing, random/even splitters (000 Alg. 3)",
                gpu=partial(_run, GpuRS), cpu=partial(_run, CpuRS), params=PARAMS, setup=choose_even_splitters,
                walk_phase="RS3", walk_bytes=lambda params: 12 if params["packing"] == 64 else 10)   # succ + 8 or 6 B records
