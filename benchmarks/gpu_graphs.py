"""Benchmark graphs made on the GPU with CuPy, as in-memory datasets (no Parquet round trip).

Each function returns a ``Dataset`` whose columns are CuPy arrays, so a benchmark can run many
graphs of hundreds of millions of edges within one device call.  These mirror graphsweep's
generators (same families and parameters) but draw from CuPy's generator, so they are not
byte-identical to the generated datasets: benchmarks need the shape, not the exact bytes.

    uniform(n, m, seed)               m random edges (Harish's random graphs; the CC issue's uniform)
    rmat(scale, edge_factor, seed)    Graph500 R-MAT (a, b, c = 0.57, 0.19, 0.19), ids permuted
    random_list(n, seed)              one random list as a graph (path through a random order)
    list_graph(n, lists, seed)        `lists` random lists (the thesis' list family)
    random_tree(n, seed)              parent of i a random earlier vertex, ids permuted
    kary_tree(n, k, seed)             k-ary random tree (the thesis' tree family), ids permuted
    density(m, delta, seed)           m random edges on n = sqrt(m / (2 delta)) vertices
    grid2d(rows, cols)                4-neighbour grid (a road network's long diameter), row-major ids
    scale_free(n, degree, seed)       0.1% hubs of degree up to 1000, the rest random (Harish)
Every function takes ``weights=(lo, hi)`` for uniform integer weights.
"""

import math

import cupy
import numpy as np

from graphsweep.datasets.reader import Dataset

CHUNK = 1 << 26  # edges drawn at a time, to bound the float temporaries


def _dataset(name: str, n: int, src, dst, seed, weights, params: dict) -> Dataset:
    weight = None
    if weights is not None:
        lo, hi = weights
        weight = cupy.random.RandomState(seed + 7).randint(lo, hi + 1, size=src.shape[0], dtype=np.int32)
    return Dataset.in_memory("graph", n, name=f"gpu-{name}", params=params, seed=seed,
                             src=src.astype(np.int32), dst=dst.astype(np.int32), weight=weight)


def uniform(n: int, m: int, seed: int = 1, weights=None) -> Dataset:
    rs = cupy.random.RandomState(seed)
    src = rs.randint(0, n, size=m, dtype=np.int32)
    dst = rs.randint(0, n, size=m, dtype=np.int32)
    return _dataset(f"uniform-{n}-{m}", n, src, dst, seed, weights, {"n": n, "m": m})


def rmat(scale: int, edge_factor: int = 16, seed: int = 1, weights=None, a=0.57, b=0.19, c=0.19) -> Dataset:
    n, m = 1 << scale, edge_factor << scale
    rs = cupy.random.RandomState(seed)
    src = cupy.empty(m, dtype=np.int32)
    dst = cupy.empty(m, dtype=np.int32)
    for start in range(0, m, CHUNK):
        rows = min(CHUNK, m - start)
        s = cupy.zeros(rows, dtype=np.int32)
        d = cupy.zeros(rows, dtype=np.int32)
        for _ in range(scale):
            u = rs.random_sample(rows, dtype=np.float32)
            s = (s << 1) | (u >= a + b)
            d = (d << 1) | (((u >= a) & (u < a + b)) | (u >= a + b + c))
        src[start:start + rows], dst[start:start + rows] = s, d
    perm = rs.permutation(n).astype(np.int32)  # Graph500 relabels vertices so degree is not id order
    return _dataset(f"rmat-{scale}-{edge_factor}", n, perm[src], perm[dst], seed, weights,
                    {"scale": scale, "edge_factor": edge_factor})


def list_graph(n: int, lists: int = 1, seed: int = 1, weights=None) -> Dataset:
    """``lists`` paths through a random order of the n vertices (the list family; one list when 1)."""
    order = cupy.random.RandomState(seed).permutation(n).astype(np.int32)
    src, dst = order[:-1], order[1:]
    if lists > 1:  # cut the order into `lists` pieces: drop every (n / lists)-th link
        keep = (cupy.arange(n - 1) + 1) % max(1, n // lists) != 0
        src, dst = src[keep], dst[keep]
    return _dataset(f"lists-{n}-{lists}", n, src, dst, seed, weights, {"n": n, "lists": lists})


def random_list(n: int, seed: int = 1, weights=None) -> Dataset:
    return list_graph(n, 1, seed, weights)


def _relabelled_tree(name: str, n: int, parent, seed: int, weights, params: dict) -> Dataset:
    perm = cupy.random.RandomState(seed + 1).permutation(n).astype(np.int32)
    child = cupy.arange(1, n, dtype=np.int32)
    return _dataset(name, n, perm[child], perm[parent], seed, weights, params)


def random_tree(n: int, seed: int = 1, weights=None) -> Dataset:
    """Parent of vertex i (i >= 1) a uniformly random earlier vertex; ids then permuted."""
    u = cupy.random.RandomState(seed).random_sample(n - 1, dtype=np.float64)
    parent = cupy.floor(u * cupy.arange(1, n, dtype=np.float64)).astype(np.int32)
    return _relabelled_tree(f"tree-{n}", n, parent, seed, weights, {"n": n})


def kary_tree(n: int, k: int, seed: int = 1, weights=None) -> Dataset:
    """The complete k-ary tree on n vertices (parent of i is (i - 1) // k), ids permuted."""
    parent = ((cupy.arange(1, n, dtype=np.int64) - 1) // k).astype(np.int32)
    return _relabelled_tree(f"kary-{k}-{n}", n, parent, seed, weights, {"n": n, "k": k})


def density(m: int, delta: float, seed: int = 1, weights=None) -> Dataset:
    n = max(2, int(math.sqrt(m / (2 * delta))))
    return uniform(n, m, seed, weights)


def grid2d(rows: int, cols: int, seed: int = 1, weights=None) -> Dataset:
    ids = cupy.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    right = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    down = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    src = cupy.concatenate([right[0], down[0]])
    dst = cupy.concatenate([right[1], down[1]])
    return _dataset(f"grid-{rows}x{cols}", rows * cols, src, dst, seed, weights, {"rows": rows, "cols": cols})


def scale_free(n: int, degree: float = 6.0, seed: int = 1, weights=None, hub_fraction=0.001,
               max_degree=1000) -> Dataset:
    """Harish's scale-free graphs: a fraction of hub vertices with ``max_degree`` edges each, the
    remaining edges (to average ``degree``) between uniformly random vertices."""
    rs = cupy.random.RandomState(seed)
    m = int(n * degree / 2)
    hubs = max(1, int(n * hub_fraction))
    hub_edges = min(m, hubs * max_degree)
    hub_src = cupy.repeat(rs.randint(0, n, size=hubs, dtype=np.int32), max_degree)[:hub_edges]
    src = cupy.concatenate([hub_src, rs.randint(0, n, size=m - hub_edges, dtype=np.int32)])
    dst = rs.randint(0, n, size=m, dtype=np.int32)
    return _dataset(f"scale-free-{n}", n, src, dst, seed, weights, {"n": n, "degree": degree})


# --- components (issue #7): graphs the CC benchmark needs that are not above -----------------

def thesis_tree(n: int, k: int, count: int = 1, seed: int = 1, weights=None) -> Dataset:
    """genTreeGraph (002 Appendix A): ``count`` random trees, each vertex with at most ``k``
    children, attached in a random order; graphsweep's ``tree`` generator, planned on the CPU
    (its attachment process is sequential) and copied to the GPU."""
    from graphsweep.datasets.params import resolve
    from graphsweep.generators import GENERATORS
    gen = GENERATORS["tree"]
    plan = gen.plan(resolve("tree", gen.params, {"n": n, "k": k, "count": count}), seed)
    cols = gen.part(plan, 0, plan.rows, np)
    return _dataset(f"thesis-tree-{k}-{n}", n, cupy.asarray(cols["src"]), cupy.asarray(cols["dst"]), seed, weights,
                    {"n": n, "k": k, "count": count})
