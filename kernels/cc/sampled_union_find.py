"""cc.sampled-union-find — union-find over the CSR that links most of a sparse graph's edges without
a random access and skips the largest component once it is known: what ``cc.best`` (cc.select)
runs, with or without its sample.

Returns label[v] = the smallest vertex id of v's component (canonical: every hook puts the larger
root under the smaller, so parent[x] <= x and a root is its tree's smallest vertex).

Algorithm.  A forest ``parent`` is built over the CSR (rows sorted, so a vertex's smaller
neighbours are a prefix of its row):
  init      parent[v] = v's first neighbour if smaller than v, else v.  Links every edge (a, b),
            a < b, where a is b's smallest neighbour (about 2/3 of a random list's edges) with
            streaming reads only.
  probe     one block: how far 1024 random vertices climb init's chains to a root (at most 64
            steps).  Random ids give descending runs of under two steps; ids with locality give
            long chains (a grid's row-major ids: each vertex's smallest neighbour is the one above
            it, so chains run the grid's height).  Long chains (over 4 steps on average) are
            flattened (a compress pass) before any link, and never linked by Atomic-Hook.
  link2     link(v, second neighbour) when smaller than v: now every edge whose smaller end is one
            of the larger end's two smallest neighbours is linked, once.  ``link``: "find" finds
            both roots with path halving and CASes the larger under the smaller (ECL-CC's
            union-find); "hook" is Sutton et al.'s Atomic-Hook (004 Fig. 3) from the two parents,
            with a plain read before the CAS and no compression; "auto" (the default) hooks on
            graphs of average degree below 4 whose init chains are short, finds otherwise.
            ``loads=l1`` (default) lets loads of the forest hit the SM's L1, as ECL-CC's do
            (components/common.cuh says why that is safe).
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
With ``sample=false`` only init, final (ECL mode, from each row's second slot) and label run: ECL-CC's
order of work, for graphs with no giant component to skip (many small components), where link2
and the sample buy nothing.  ``rows=warp`` runs the final pass with a warp per 32 consecutive
vertices, the lanes taking the 32 rows' remaining slots in turn (coalesced and edge-parallel on
short rows, where a thread per vertex leaves lanes idle behind a longer row); the links are the same.

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

Round 2 of issue #21 (benchmarks/cc_families.py, H200): L1 loads against L2-only, without the
sample: density sub-graphs 0.58 ms against 0.66, grid 1.44 / 1.58; the flatten on the grid 1.44 ms
against 2.10 without it (the probe: 22.6 steps per sample); hooks on the unflattened grid took
29.9 ms (round 1).

Statistics: link (find or hook), mode (skip, ecl or once), chain_steps (the probe's mean climb),
flattened, the sampled share of L, edges linked by link2
and by final, chunks queued.
The CPU twin runs the same passes with Numba ``prange`` and a real CAS (cpu.cas); a CPU thread
takes whole rows (no chunking: a core is not held up by a long row the way a warp is).
"""

import numba
import numpy as np

from ..contract import Kernel, Param
from ..cuda import c_type, check_threads, launch, module, resident_blocks
from . import CC, label_dtype
from .cpu import find, hook, link, load, root_of, sample_index, store
from .gpu import types

SAMPLES = 1024                # the largest kernel's block: one sample per thread
CHUNK = 1024                  # edges of a long row per queued chunk (one warp each)

PARAMS = {
    "link": Param("auto", str, choices=("auto", "find", "hook"),
                  help="how an edge is linked: find both roots with path halving, then CAS (ECL-CC), or "
                       "Atomic-Hook from the parents without compression (004); auto: hook below average "
                       "degree 4 unless the probe finds init's chains long, else find"),
    "loads": Param("l1", str, choices=("l1", "l2"),
                   help="loads of the forest while links run: l1 may hit the SM's L1 (as ECL-CC's); l2 "
                        "reads L2 only"),
    "flatten": Param(True, bool, help="flatten init's trees before any link when the probe finds their chains "
                                      "long (ids with locality, e.g. a grid's)"),
    "rows": Param("thread", str, choices=("thread", "warp"),
                  help="how the final pass takes the rows (GPU): a thread per vertex, or a warp per 32 vertices "
                       "whose remaining slots the lanes take in turn (edge-parallel on short rows)"),
    "thread_max": Param(32, minimum=1, help="longest row one thread links alone; longer rows are spread "
                                            "over warps in chunks of 1024 edges"),
    "sample": Param(True, bool, help="link each vertex's second neighbour and sample the largest tree before the "
                                     "final pass (Afforest); false: after init link every remaining edge once from "
                                     "its larger end (ECL-CC's order: no link2, no sample, no compress)"),
    "skip_share": Param(0.5, float, minimum=0, help="share of the 1024 sampled edge ends the largest tree "
                                                    "must hold for skip mode (above 1: never skip)"),
    "seed": Param(1, minimum=0, help="seed of the samples that probe init's chains and find the largest tree"),
    "threads": Param(256, minimum=32, help="threads per block (a multiple of 32)"),
    "blocks": Param(None, minimum=1, help="thread blocks (default: enough to cover the vertices; "
                                          "the chunk launch fills every SM once)"),
}


HOOK_BELOW_DEGREE = 4         # link="auto": Atomic-Hook on sparser graphs (lists, trees), finds on denser
PROBE_STEPS = 64              # the probe stops a climb after this many steps (GS_SUF_PROBE_STEPS)
DEFINES = (f"-DGS_SUF_SAMPLES={SAMPLES}", f"-DGS_SUF_CHUNK={CHUNK}",        # shared with the .cu
           f"-DGS_SUF_PROBE_STEPS={PROBE_STEPS}")
LONG_CHAIN = 4                # init's chains are long when the probe's samples climb more on average
LINK_CODES = {"find": 0, "hook": 1, "auto": 2}


def sparse(n: int, nnz: int) -> bool:
    """Average degree (CSR entries per vertex, both directions) below HOOK_BELOW_DEGREE."""
    return nnz < HOOK_BELOW_DEGREE * n


def uses_hook(params, n: int, nnz: int, chain_steps: int) -> bool:
    """Whether edges are linked by Atomic-Hook (else by finds): the ``link`` parameter, or for "auto"
    a sparse graph whose init chains are short (``chain_steps``: what the probe's samples climbed)."""
    if params["link"] == "auto":
        return sparse(n, nnz) and not long_chains(chain_steps)
    return params["link"] == "hook"


def long_chains(chain_steps: int) -> bool:
    return chain_steps > LONG_CHAIN * SAMPLES


def min_count(params) -> int:
    return int(np.ceil(params["skip_share"] * SAMPLES)) if params["skip_share"] > 0 else 1


def capacity(n: int, nnz: int, thread_max: int) -> int:
    """Chunks the final pass may queue: one per started 1024 edges of each row longer than
    thread_max, so at most (rows that long) + nnz / 1024 + 1."""
    return min(n, nnz // (thread_max + 1)) + nnz // CHUNK + 1


def setup(inp, params) -> None:
    """On the GPU, the CSR offsets narrowed to int32 when the CSR has fewer than 2^31 entries (as
    ECL-CC's input format): every pass reads them, and half the bytes is a few percent of a sparse
    graph's run.  Made once per input, untimed, like the CSR itself."""
    csr = inp.csr()
    if inp.backend == "gpu" and "csr.offsets32" not in inp.cache and csr.nnz < 2**31:
        inp.cache["csr.offsets32"] = csr.offsets.astype(np.int32)


def offsets(inp):
    """The CSR offsets the GPU passes read: the int32 copy when setup made one, else the CSR's own."""
    return inp.cache.get("csr.offsets32", inp.csr().offsets)


def _traffic(n: int, index_bytes: int, label_bytes: int, offset_bytes: int = 8) -> dict:
    """Byte model per launch: streaming bytes exact; random accesses counted as two per linked edge
    (the other end's parent and the CAS, or the test of the larger parent; climbing adds more, not
    counted) and one per vertex a compress visits (its parent's parent)."""
    offsets = offset_bytes * (n + 1)
    return {"init": {"read": offsets + n * index_bytes, "written": n * label_bytes},
            "link2": {"read": offsets + n * (index_bytes + label_bytes)},
            "largest": {"read": SAMPLES * (8 + index_bytes + label_bytes), "random": SAMPLES},
            "probe": {"read": SAMPLES * label_bytes * 2, "random": SAMPLES * 2},
            "compress": {"read": 2 * n * label_bytes, "random": n},   # counted when it runs
            "final": {"read": n * label_bytes},      # + the offsets of the vertices outside L (all,
                                                      # in ECL mode: added), their rows not counted
            "label": {"read": 2 * n * label_bytes, "random": n}}


def gpu_functions(offset_dtype, index_dtype, n: int, params) -> dict:
    """The passes' kernels for a CSR of these offset and index types over n vertices (a
    partitioned graph's slices run them too: kernels/cc/distributed.py)."""
    st = types(index_dtype, n)
    lt = c_type(label_dtype(n))
    names = {k: f"graphsweep_cc_suf_{k}<{c_type(offset_dtype)}, {st}>" for k in ("init", "link2", "spread")}
    final = "graphsweep_cc_suf_final" + ("_warp" if params["rows"] == "warp" else "")
    names["final"] = f"{final}<{c_type(offset_dtype)}, {st}>"
    names["largest"] = f"graphsweep_cc_suf_largest<{st}>"
    names["compress"] = f"graphsweep_cc_suf_compress<{lt}>"
    names["probe"] = f"graphsweep_cc_suf_probe<{lt}>"
    options = DEFINES + (("-DGS_CC_LOAD_CACHED",) if params["loads"] == "l1" else ())
    mod = module("cc/sampled_union_find.cu", options, name_expressions=tuple(names.values()))
    return {k: mod.get_function(v) for k, v in names.items()}


def run_gpu(inp, params, timer):
    import cupy
    csr = inp.csr()
    n, nnz = csr.n, csr.nnz
    threads, blocks, thread_max = check_threads(params["threads"]), params["blocks"], params["thread_max"]
    off = offsets(inp)
    fn = gpu_functions(off.dtype, csr.indices.dtype, n, params)
    dtype = label_dtype(n)
    parent = cupy.empty(n, dtype=dtype)
    state = cupy.empty(8, dtype=np.int64)
    chunks = capacity(n, nnz, thread_max)
    chunk_vertex, chunk_index = cupy.empty(chunks, dtype=dtype), cupy.empty(chunks, dtype=np.int32)
    model = _traffic(n, csr.indices.itemsize, dtype.itemsize, off.itemsize)
    idx, nn, seed = csr.indices, np.int64(n), np.uint32(params["seed"])
    # The compress passes that run only when the device state says so (flatten, skip mode) take one
    # resident wave of grid-stride blocks: skipped, n / threads empty blocks cost up to 0.08 ms.
    resident = min(resident_blocks(threads), -(-n // threads)) or 1
    cached = {}

    def word(i) -> int:                       # the device state, read once after timing
        if "state" not in cached:
            cached["state"] = [int(x) for x in state.get()]
        return cached["state"][i]

    with timer.phase("init", **model["init"]):
        launch(fn["init"], n, threads, blocks, off, idx, parent, state, nn, np.int64(0))
    with timer.phase("probe", **model["probe"]):
        fn["probe"]((1,), (SAMPLES,), (parent, nn, seed, np.int32(LINK_CODES[params["link"]]),
                                       np.int32(sparse(n, nnz)), np.int64(LONG_CHAIN * SAMPLES), state))
    if params["flatten"]:
        with timer.phase("flatten") as traffic:
            launch(fn["compress"], n, threads, blocks or resident, parent, nn, state, np.int32(2))
            traffic.add(**{k: (lambda v=v: v if word(7) else 0) for k, v in model["compress"].items()})
    if params["sample"]:
        with timer.phase("link2", **model["link2"]) as traffic:
            launch(fn["link2"], n, threads, blocks, off, idx, parent, state, nn, np.int64(0), np.int32(0))
            traffic.add(random=lambda: 2 * word(3))
        with timer.phase("largest", **model["largest"]):
            fn["largest"]((1,), (SAMPLES,), (idx, parent, np.int64(nnz), seed, np.int32(min_count(params)), state))
        with timer.phase("compress") as traffic:
            launch(fn["compress"], n, threads, blocks or resident, parent, nn, state, np.int32(1))
            traffic.add(**{k: (lambda v=v: v if word(0) >= 0 else 0) for k, v in model["compress"].items()})
    first = 2 if params["sample"] else 1      # the row slot an ECL-mode final pass starts at
    with timer.phase("final", **model["final"]) as traffic:
        launch(fn["final"], n, threads, blocks, off, idx, parent, state, chunk_vertex, chunk_index, nn,
               np.int32(thread_max), np.int32(first), np.int64(0))
        fn["spread"]((blocks or resident_blocks(threads),), (threads,),
                     (off, idx, parent, state, chunk_vertex, chunk_index, np.int32(first)))
        traffic.add(read=lambda: 0 if word(0) >= 0 else off.itemsize * (n + 1), random=lambda: 2 * word(4))
    with timer.phase("label", **model["label"]):
        launch(fn["compress"], n, threads, blocks, parent, nn, state, np.int32(0))
    _stats(timer, word, params)
    return parent


def _stats(timer, word, params):
    """Statistics from the device state (``word(i)``: [L or -1, samples in L, chunks, links2, links
    final, hook, probe steps, long chains])."""
    timer.stat("link", lambda: "hook" if word(5) else "find")
    timer.stat("mode", (lambda: "skip" if word(0) >= 0 else "ecl") if params["sample"] else "once")
    timer.stat("chain_steps", lambda: word(6) / SAMPLES)
    timer.stat("flattened", lambda: bool(params["flatten"] and word(7)))
    timer.stat("largest_share", lambda: word(1) / SAMPLES)
    timer.stat("links_link2", lambda: word(3))
    timer.stat("links_final", lambda: word(4))
    timer.stat("chunks", lambda: word(2))


# --- CPU twin: the same passes over whole rows, Numba prange and cpu.cas.

# The passes over rows take the rows of ``off`` (len(off) - 1 of them) as vertices lo, lo + 1, ...:
# the whole CSR (lo = 0), or one slice of a partitioned graph (ids global, the forest over every
# vertex: kernels/cc/distributed.py).

@numba.njit(cache=True, parallel=True)
def init(off, idx, parent, lo):
    for i in numba.prange(off.shape[0] - 1):
        v = lo + i
        p = v
        if off[i] < off[i + 1] and idx[off[i]] < v:
            p = idx[off[i]]
        parent[v] = p


@numba.njit(cache=True, parallel=True)
def link2(off, idx, parent, use_hook, lo, both=False):
    links = 0
    for i in numba.prange(off.shape[0] - 1):
        v = lo + i
        b, e = off[i], off[i + 1]
        if both and e > b and idx[b] > v:
            if use_hook:
                hook(parent, v, idx[b])
            else:
                link(parent, v, idx[b])
            links += 1
        if e - b >= 2 and (both or idx[b + 1] < v):
            if use_hook:
                hook(parent, v, idx[b + 1])
            else:
                link(parent, v, idx[b + 1])
            links += 1
    return links


@numba.njit(cache=True, parallel=True)
def compress(parent):
    for v in numba.prange(parent.shape[0]):
        p = load(parent, v)
        if p == v:
            continue
        g = load(parent, p)
        if g == p:
            continue
        store(parent, v, root_of(parent, g))


@numba.njit(cache=True)
def sample_slot(t, seed, nnz):
    """The CSR slot sample t draws: the GPU's ``largest`` kernel hashes (t, seed) the same way."""
    return sample_index(t, seed, SAMPLES, nnz)


@numba.njit(cache=True)
def largest(idx, parent, seed, min_count):
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


@numba.njit(cache=True)
def probe(parent, seed):
    """Steps SAMPLES random vertices climb init's trees to their roots (at most PROBE_STEPS each)."""
    n = parent.shape[0]
    if n == 0:
        return 0
    rng_state = np.uint64(seed) * np.uint64(0xD1B54A32D192ED03) + np.uint64(7)
    total = 0
    for _ in range(SAMPLES):
        rng_state = rng_state * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        v = np.int64(rng_state >> np.uint64(16)) % n
        steps = 0
        while parent[v] != v and steps < PROBE_STEPS:
            v = parent[v]
            steps += 1
        total += steps
    return total


@numba.njit(cache=True, parallel=True)
def final(off, idx, parent, big, use_hook, first, lo):
    """first = 0: every slot in either mode (see sampled_union_find.cu's gs_suf_start)."""
    links = 0
    for i in numba.prange(off.shape[0] - 1):
        v = lo + i
        if big >= 0 and load(parent, v) == big:
            continue
        b, e = off[i], off[i + 1]
        if b == e:
            continue
        if big >= 0 and first > 0:
            s = b
            if s < e and idx[s] < v:
                s += 1
                if s < e and idx[s] < v:
                    s += 1
        else:
            s = b + first
        for x in range(s, e):
            u = idx[x]
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
    with timer.phase("init", **model["init"]):
        init(off, idx, parent, 0)
    with timer.phase("probe", **model["probe"]):
        steps = probe(parent, params["seed"])
        use_hook = uses_hook(params, n, csr.nnz, steps)
    if params["flatten"]:
        with timer.phase("flatten") as traffic:
            if long_chains(steps):
                compress(parent)
                traffic.add(**model["compress"])
    big, count, links2 = -1, 0, 0
    if params["sample"]:
        with timer.phase("link2", **model["link2"]) as traffic:
            links2 = link2(off, idx, parent, use_hook, 0)
            traffic.add(random=2 * links2)
        with timer.phase("largest", **model["largest"]):
            big, count = largest(idx, parent, params["seed"], min_count(params))
        with timer.phase("compress") as traffic:
            if big >= 0:
                compress(parent)
                traffic.add(**model["compress"])
    with timer.phase("final", **model["final"]) as traffic:
        links = final(off, idx, parent, big, use_hook, 2 if params["sample"] else 1, 0)
        traffic.add(read=8 * (n + 1) if big < 0 else 0, random=2 * links)
    with timer.phase("label", **model["label"]):
        compress(parent)
    state = [big, count, 0, links2, links, int(use_hook), steps, int(long_chains(steps))]
    _stats(timer, lambda i: state[i], params)
    return parent


KERNEL = Kernel(name="cc.sampled-union-find", problem=CC,
                summary="CSR union-find: first two neighbours linked up front, then the sampled largest tree "
                        "skipped or each remaining edge linked once; ECL-CC and Afforest ideas",
                gpu=run_gpu, cpu=run_cpu, params=PARAMS, needs=("csr",), setup=setup)
