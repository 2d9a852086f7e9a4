"""cc.sampled-union-find — union-find over the CSR that links most of a sparse graph's edges without
a random access and skips the largest component once it is known: graphsweep's fastest CC
(``cc.best``).

Returns label[v] = the smallest vertex id of v's component (canonical: every hook puts the larger
root under the smaller, so parent[x] <= x and a root is its tree's smallest vertex).

Algorithm.  A forest ``parent`` is built over the CSR (rows sorted, so a vertex's smaller
neighbours are a prefix of its row):
  init      parent[v] = v's first neighbour if smaller than v, else v.  Links every edge (a, b),
            a < b, where a is b's smallest neighbour (about 2/3 of a random list's edges) with
            streaming reads only.
  link2     link(v, second neighbour) when smaller than v: now every edge whose smaller end is one
            of the larger end's two smallest neighbours is linked, once.  ``link``: "find" finds
            both roots with path halving and CASes the larger under the smaller (ECL-CC's
            union-find); "hook" is Sutton et al.'s Atomic-Hook (004 Fig. 3) from the two parents,
            with a plain read before the CAS and no compression; "auto" (the default) hooks on
            graphs of average degree below 4 and finds on denser ones (see below).
  largest   one block takes 1024 CSR slots at random (so vertices weighted by degree) and finds
            the most frequent root among their neighbours, L.  When L holds at least
            ``skip_share`` of the samples the final pass runs in skip mode, else in ECL mode.
  compress  (skip mode only) parent[v] = root, so the final pass tells L's vertices by one
            coalesced read.  Compress passes are read-only climbs in increasing vertex order:
            a vertex's parent (a smaller id) is usually final already.
  final     skip mode: a vertex that points at L has nothing left to do (any edge to a vertex
            outside L is linked from that vertex); every other vertex links all its neighbours
            but the two it linked already.  ECL mode: each vertex links its neighbours from the
            third on that are smaller than itself, so every remaining edge is linked once.  Rows
            with more than ``thread_max`` edges to link are cut in chunks of 1024 edges queued for
            a second launch, one warp per chunk (a hub's row is spread over the GPU).
  label     parent[v] = root, the label.

Where it comes from.  ECL-CC (Jaiganesh & Burtscher, HPDC'18): initialise each vertex to its
first smaller neighbour, lock-free union-find with intermediate pointer jumping, each edge
processed once from one end, long rows handed to wider thread groups.  Afforest (Sutton et al.,
IPDPS'18): link a few neighbours per vertex first, find the largest tree by sampling, skip its
vertices.  Sutton et al.'s adaptive CC (004): hook parents, not roots, and compress between
hooking passes.  Here init and link2 are both Afforest's sampling rounds and ECL's once-per-edge
rounds; the choice between skipping and once-per-edge is made on the device from the sample (the
tree of a random tree's first two neighbours is tiny, so skipping it would double the work);
sampling by CSR slot weights the choice by edges, not vertices (R-MAT's many isolated vertices
do not hide its giant component).

What the H200 rounds showed (benchmarks/components.py; link2's share of the time in brackets).
Hooking without compression wins on lists and trees, where the trees stay small and a hook climbs
little (32M list 3.07 ms [2.14] with hook, 3.71 ms [2.86] with find; 32M tree 3.67 against 4.07),
and loses badly on denser graphs, where many links meet the same trees and uncompressed paths grow
(uniform 10M/30M 3.71 ms [3.30] with hook, 1.18 ms [0.82] with find; R-MAT 24 4.63 against 1.85):
hence "auto", with average degree 2 on one side and 6 on the other.  Flattening init's chains
before link2 (a compress pass) paid on no graph (list 3.92 ms, tree 4.37 with find), and a compress
before an ECL-mode final pass costs more than the climbing it saves (tree 3.84 against 3.67).

Statistics: link (find or hook), mode (skip or ecl), the sampled share of L, edges linked by link2
and by final, chunks queued.
The CPU twin runs the same passes with Numba ``prange`` and a real CAS (cpu.cas); a CPU thread
takes whole rows (no chunking: a core is not held up by a long row the way a warp is).
"""

import numba
import numpy as np

from ..contract import Kernel, Param
from ..cuda import check_threads, launch, module, resident_blocks
from . import CC, label_dtype
from .cpu import find, hook, link, load, store
from .gpu import c_type, types

SAMPLES = 1024                # the largest kernel's block: one sample per thread
CHUNK = 1024                  # edges of a long row per queued chunk (one warp each)
DEFINES = (f"-DGS_SUF_SAMPLES={SAMPLES}", f"-DGS_SUF_CHUNK={CHUNK}")   # shared with the .cu

PARAMS = {
    "link": Param("auto", str, choices=("auto", "find", "hook"),
                  help="how an edge is linked: find both roots with path halving, then CAS (ECL-CC), or "
                       "Atomic-Hook from the parents without compression (004); auto: hook below average "
                       "degree 4, else find"),
    "thread_max": Param(32, minimum=1, help="longest row one thread links alone; longer rows are spread "
                                            "over warps in chunks of 1024 edges"),
    "skip_share": Param(0.5, float, minimum=0, help="share of the 1024 sampled edge ends the largest tree "
                                                    "must hold for skip mode (above 1: never skip)"),
    "seed": Param(1, minimum=0, help="seed of the sample that finds the largest tree"),
    "threads": Param(256, minimum=32, help="threads per block (a multiple of 32)"),
    "blocks": Param(None, minimum=1, help="thread blocks (default: enough to cover the vertices; "
                                          "the chunk launch fills every SM once)"),
}


HOOK_BELOW_DEGREE = 4         # link="auto": Atomic-Hook on sparser graphs (lists, trees), finds on denser


def uses_hook(params, n: int, nnz: int) -> bool:
    """Whether edges are linked by Atomic-Hook (else by ECL's finds): the ``link`` parameter, or for
    "auto" the CSR's average degree (both directions counted) below HOOK_BELOW_DEGREE."""
    if params["link"] == "auto":
        return nnz < HOOK_BELOW_DEGREE * n
    return params["link"] == "hook"


def _min_count(params) -> int:
    return int(np.ceil(params["skip_share"] * SAMPLES)) if params["skip_share"] > 0 else 1


def _capacity(n: int, nnz: int, thread_max: int) -> int:
    """Chunks the final pass may queue: one per started 1024 edges of each row longer than
    thread_max, so at most (rows that long) + nnz / 1024 + 1."""
    return min(n, nnz // (thread_max + 1)) + nnz // CHUNK + 1


def _traffic(n: int, index_bytes: int, label_bytes: int) -> dict:
    """Byte model per launch: streaming bytes exact; random accesses counted as two per linked edge
    (the other end's parent and the CAS, or the test of the larger parent; climbing adds more, not
    counted) and one per vertex a compress visits (its parent's parent)."""
    offsets = 8 * (n + 1)
    return {"init": {"read": offsets + n * index_bytes, "written": n * label_bytes},
            "link2": {"read": offsets + n * (index_bytes + label_bytes)},
            "largest": {"read": SAMPLES * (8 + index_bytes + label_bytes), "random": SAMPLES},
            "compress": {},                          # skip mode only: added when it ran
            "final": {"read": n * label_bytes},      # + the offsets of the vertices outside L (all,
                                                      # in ECL mode: added), their rows not counted
            "label": {"read": 2 * n * label_bytes, "random": n}}


def run_gpu(inp, params, timer):
    import cupy
    csr = inp.csr()
    n, nnz = csr.n, csr.nnz
    threads, blocks, thread_max = check_threads(params["threads"]), params["blocks"], params["thread_max"]
    st = types(csr.indices.dtype, n)
    lt = c_type(label_dtype(n))
    names = {k: f"graphsweep_cc_suf_{k}<{st}>" for k in ("init", "link2", "largest", "final", "spread")}
    names["compress"] = f"graphsweep_cc_suf_compress<{lt}>"
    mod = module("components/sampled_union_find.cu", options=DEFINES, name_expressions=tuple(names.values()))
    fn = {k: mod.get_function(v) for k, v in names.items()}
    dtype = label_dtype(n)
    parent = cupy.empty(n, dtype=dtype)
    state = cupy.empty(5, dtype=np.int64)
    capacity = _capacity(n, nnz, thread_max)
    chunk_vertex, chunk_index = cupy.empty(capacity, dtype=dtype), cupy.empty(capacity, dtype=np.int32)
    model = _traffic(n, csr.indices.itemsize, dtype.itemsize)
    off, idx, nn = csr.offsets, csr.indices, np.int64(n)

    hook, no_state = np.int32(uses_hook(params, n, nnz)), np.int32(0)

    def skip_mode() -> bool:                  # read after timing, for the byte model
        return int(state[0]) >= 0

    with timer.phase("init", **model["init"]):
        launch(fn["init"], n, threads, blocks, off, idx, parent, state, nn)
    with timer.phase("link2", **model["link2"]) as traffic:
        launch(fn["link2"], n, threads, blocks, off, idx, parent, state, nn, hook)
        traffic.add(random=lambda: 2 * int(state[3]))
    with timer.phase("largest", **model["largest"]):
        fn["largest"]((1,), (SAMPLES,), (idx, parent, np.int64(nnz), np.uint32(params["seed"]),
                                         np.int32(_min_count(params)), state))
    with timer.phase("compress", **model["compress"]) as traffic:
        launch(fn["compress"], n, threads, blocks, parent, nn, state, np.int32(1))
        traffic.add(read=lambda: 2 * n * dtype.itemsize if skip_mode() else 0, random=lambda: n if skip_mode() else 0)
    with timer.phase("final", **model["final"]) as traffic:
        launch(fn["final"], n, threads, blocks, off, idx, parent, state, chunk_vertex, chunk_index, nn,
               np.int32(thread_max), hook)
        fn["spread"]((blocks or resident_blocks(threads),), (threads,),
                     (off, idx, parent, state, chunk_vertex, chunk_index, hook))
        traffic.add(read=lambda: 0 if skip_mode() else 8 * (n + 1), random=lambda: 2 * int(state[4]))
    with timer.phase("label", **model["label"]):
        launch(fn["compress"], n, threads, blocks, parent, nn, state, no_state)
    _stats(timer, lambda: state.get(), bool(hook))
    return parent


def _stats(timer, state, hooked: bool):
    """Statistics from the device state [L or -1, samples in L, chunks, links2, links final]."""
    cached = {}
    timer.stat("link", "hook" if hooked else "find")

    def get(i):
        if "s" not in cached:
            cached["s"] = [int(x) for x in state()]
        return cached["s"][i]

    timer.stat("mode", lambda: "skip" if get(0) >= 0 else "ecl")
    timer.stat("largest_share", lambda: get(1) / SAMPLES)
    timer.stat("links_link2", lambda: get(3))
    timer.stat("links_final", lambda: get(4))
    timer.stat("chunks", lambda: get(2))


# --- CPU twin: the same passes over whole rows, Numba prange and cpu.cas.

@numba.njit(cache=True, parallel=True)
def _init(off, idx, parent):
    for v in numba.prange(parent.shape[0]):
        p = v
        if off[v] < off[v + 1] and idx[off[v]] < v:
            p = idx[off[v]]
        parent[v] = p


@numba.njit(cache=True, parallel=True)
def _link2(off, idx, parent, use_hook):
    links = 0
    for v in numba.prange(parent.shape[0]):
        b = off[v]
        if off[v + 1] - b >= 2 and idx[b + 1] < v:
            if use_hook:
                hook(parent, v, idx[b + 1])
            else:
                link(parent, v, idx[b + 1])
            links += 1
    return links


@numba.njit(cache=True, parallel=True)
def _compress(parent):
    for v in numba.prange(parent.shape[0]):
        p = load(parent, v)
        if p == v:
            continue
        g = load(parent, p)
        if g == p:
            continue
        q = load(parent, g)
        while q != g:
            g = q
            q = load(parent, g)
        store(parent, v, g)


_U32 = np.uint64(0xFFFFFFFF)


@numba.njit(cache=True)
def _mix32(h):
    """gs_suf_mix of the .cu (MurmurHash3's 32-bit finaliser) on a uint64 holding 32 bits."""
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & _U32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & _U32
    return h ^ (h >> np.uint64(16))


@numba.njit(cache=True)
def sample_slot(t, seed, nnz):
    """The CSR slot sample t draws: the GPU's ``largest`` kernel hashes (t, seed) the same way."""
    golden, seed = np.uint64(0x9E3779B9), np.uint64(seed) & _U32
    hi = _mix32(((np.uint64(t) * golden) & _U32) ^ seed)
    lo = _mix32(((np.uint64(t + SAMPLES) * golden) & _U32) ^ seed)
    return np.int64(((hi << np.uint64(32)) | lo) % np.uint64(nnz))


@numba.njit(cache=True)
def _largest(idx, parent, seed, min_count):
    """(L or -1, samples in L): the most frequent root among the neighbours of SAMPLES random slots."""
    nnz = idx.shape[0]
    if nnz == 0:
        return -1, 0
    roots = np.empty(SAMPLES, dtype=np.int64)
    for t in range(SAMPLES):
        roots[t] = find(parent, idx[sample_slot(t, seed, nnz)])
    roots.sort()
    best, best_count, run = roots[0], 0, 0
    for t in range(SAMPLES):
        run = run + 1 if t > 0 and roots[t] == roots[t - 1] else 1
        if run > best_count:
            best, best_count = roots[t], run
    return (best if best_count >= min_count else -1), best_count


@numba.njit(cache=True, parallel=True)
def _final(off, idx, parent, big, use_hook):
    links = 0
    for v in numba.prange(parent.shape[0]):
        if big >= 0 and load(parent, v) == big:
            continue
        b, e = off[v], off[v + 1]
        if b == e:
            continue
        if big >= 0:
            s = b
            if s < e and idx[s] < v:
                s += 1
                if s < e and idx[s] < v:
                    s += 1
        else:
            s = b + 2
        for i in range(s, e):
            u = idx[i]
            if big < 0 and u >= v:
                break
            if use_hook:
                hook(parent, v, u)
            else:
                link(parent, v, u)
            links += 1
    return links


def run_cpu(inp, params, timer):
    csr = inp.csr()
    n = csr.n
    dtype = label_dtype(n)
    parent = np.empty(n, dtype=dtype)
    model = _traffic(n, csr.indices.itemsize, dtype.itemsize)
    off, idx = csr.offsets, csr.indices
    use_hook = uses_hook(params, n, csr.nnz)
    with timer.phase("init", **model["init"]):
        _init(off, idx, parent)
    with timer.phase("link2", **model["link2"]) as traffic:
        links2 = _link2(off, idx, parent, use_hook)
        traffic.add(random=2 * links2)
    with timer.phase("largest", **model["largest"]):
        big, count = _largest(idx, parent, params["seed"], _min_count(params))
    with timer.phase("compress", **model["compress"]) as traffic:
        if big >= 0:
            _compress(parent)
            traffic.add(read=2 * n * dtype.itemsize, random=n)
    with timer.phase("final", **model["final"]) as traffic:
        links = _final(off, idx, parent, big, use_hook)
        traffic.add(read=8 * (n + 1) if big < 0 else 0, random=2 * links)
    with timer.phase("label", **model["label"]):
        _compress(parent)
    _stats(timer, lambda: [big, count, 0, links2, links], use_hook)
    return parent


KERNEL = Kernel(name="cc.sampled-union-find", problem=CC,
                summary="CSR union-find: first two neighbours linked up front, then the sampled largest tree "
                        "skipped or each remaining edge linked once; ECL-CC and Afforest ideas",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, needs=("csr",))
