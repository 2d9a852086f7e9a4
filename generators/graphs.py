"""Random graphs with independent edges: ``density`` (genRandomGraph), ``uniform`` and
``scale-free`` (Harish & Narayanan, HiPC'07, section 4) and ``rmat`` (Graph500 Kronecker).

Each edge row is drawn from the Philox block it falls in (see ``streams``), so any part is
computed on its own and the dataset does not depend on the part size.  Edges are stored once
(undirected); self-loops and duplicate edges occur, as they do in the papers' generators.

- ``density`` (Yogaratnam's thesis, Appendix A): n = round(sqrt(m / (2δ))) vertices; ``count``
  sub-graphs on consecutive vertex ranges of n // count (or one more) vertices, each with
  m // count (or one more) edges whose endpoints are uniform within the sub-graph.
- ``uniform``: m = round(n·d/2) edges with both endpoints uniform in [0, n): average degree d
  (Harish & Narayanan: d = 6, weights 1..10).
- ``scale-free``: Harish & Narayanan say only "maximum degree 1000, average degree 6, a small
  fraction (0.1%) of the vertices were given high degrees".  So: H = max(1, round(f·n)) hub
  vertices each get exactly D = min(max_degree, n - H, m // H) edges to uniform non-hub vertices
  (rows [0, H·D)); the other m - H·D edges join two uniform non-hub vertices (rows [H·D, m)),
  whose degrees are then Poisson-like around the average.  Hubs are list positions [0, H) of a
  keyed Feistel permutation, so they are spread over the ids.
- ``rmat``: Graph500's Kronecker generator: 2^scale vertices, edge_factor·2^scale edges; per
  edge and per level a uniform draw picks the quadrant with probabilities a, b, c, 1-a-b-c
  (Graph500: .57, .19, .19, .05); vertex ids are then scrambled by a keyed Feistel permutation
  (Graph500 permutes them too), so high-degree vertices are not the low ids.
"""

import math

import numpy as np

from graphsweep.core.params import Param

from .registry import WEIGHTS, Generator, Plan, n_param, need, parse_weights, permutable
from .streams import STREAM_EDGES, Feistel, block_rng, blockwise, cuda_kernel, stream_key

_EDGE_DTYPES = (np.uint64, np.uint64)


def _uniform_below(u, size):
    """floor(u * size) for u in [0, 1), clamped where rounding would reach ``size``."""
    return np.minimum((u * size).astype(np.uint64), np.asarray(size, dtype=np.uint64) - np.uint64(1))


def _edges(plan: Plan, start: int, stop: int, draw_block) -> tuple:
    key = stream_key(plan.seed, STREAM_EDGES)
    return blockwise(start, stop, plan.rows, lambda block, rows: draw_block(block_rng(key, block), rows),
                     _EDGE_DTYPES)


def _columns(plan: Plan, src, dst) -> dict:
    return {"src": src.astype(plan.index_dtype), "dst": dst.astype(plan.index_dtype)}


# --- density (genRandomGraph) -------------------------------------------------------------

def _plan_density(params: dict, seed: int) -> Plan:
    m, delta, count = params["m"], params["density"], params["count"]
    need(0 < delta <= 1, "density", delta, "0 < density <= 1")
    n = max(1, round(math.sqrt(m / (2 * delta))))
    need(count <= n, "count", count, f"1 <= count <= n = {n} (n = sqrt(m / (2 density)))")
    return Plan("graph", n, m, seed, weights=parse_weights(params["weights"]),
                stats={"subgraphs": count, "density": delta},
                state={"vertex_split": divmod(n, count), "edge_split": divmod(m, count)})


def _part_density(plan: Plan, start: int, stop: int, xp) -> dict:
    (qn, rn), (qm, rm) = plan.state["vertex_split"], plan.state["edge_split"]

    def draw(rng, rows):
        e = rows.astype(np.int64)
        # Sub-graphs 0..rm-1 hold qm+1 edges, the others qm; sub-graph j owns vertices
        # [j*qn + min(j, rn), ...) of which there are qn+1 for j < rn, else qn.
        long_edges = rm * (qm + 1)
        j = np.where(e < long_edges, e // (qm + 1), rm + (e - long_edges) // max(qm, 1))
        base = (j * qn + np.minimum(j, rn)).astype(np.uint64)
        size = (qn + (j < rn)).astype(np.uint64)
        u = rng.random((2, len(rows)))
        return base + _uniform_below(u[0], size), base + _uniform_below(u[1], size)

    return _columns(plan, *_edges(plan, start, stop, draw))


# --- uniform (Harish & Narayanan random graphs) -------------------------------------------------

def _plan_uniform(params: dict, seed: int) -> Plan:
    n, degree = params["n"], params["degree"]
    m = round(n * degree / 2)
    return Plan("graph", n, m, seed, weights=parse_weights(params["weights"]),
                stats={"average_degree": 2 * m / n})


def _part_uniform(plan: Plan, start: int, stop: int, xp) -> dict:
    def draw(rng, rows):
        ends = rng.integers(0, plan.n, (2, len(rows)), dtype=np.uint64)
        return ends[0], ends[1]

    return _columns(plan, *_edges(plan, start, stop, draw))


# --- scale-free (Harish & Narayanan) ----------------------------------------------------------

def _plan_scale_free(params: dict, seed: int) -> Plan:
    n, degree, fraction, max_degree = (params[k] for k in ("n", "degree", "hub_fraction", "max_degree"))
    need(0 < fraction < 1, "hub_fraction", fraction, "0 < hub_fraction < 1")
    m = round(n * degree / 2)
    hubs = min(max(1, round(fraction * n)), n - 1)
    hub_degree = min(max_degree, n - hubs, m // hubs)
    return Plan("graph", n, m, seed, weights=parse_weights(params["weights"]),
                stats={"hubs": hubs, "hub_degree": hub_degree, "average_degree": 2 * m / n},
                state={"perm": Feistel.for_seed(n, seed), "hubs": hubs, "hub_degree": hub_degree})


def _part_scale_free(plan: Plan, start: int, stop: int, xp) -> dict:
    hubs, hub_degree = plan.state["hubs"], plan.state["hub_degree"]
    others = plan.n - hubs
    hub_edges = hubs * hub_degree

    def draw(rng, rows):
        u = rng.random((2, len(rows)))
        # Positions [0, hubs) are the hubs; every other endpoint is a uniform non-hub.
        far = hubs + _uniform_below(u[1], others)
        near = np.where(rows < hub_edges, rows // max(hub_degree, 1), hubs + _uniform_below(u[0], others))
        return near, far

    near, far = _edges(plan, start, stop, draw)
    perm = plan.state["perm"]
    return _columns(plan, perm.forward(near), perm.forward(far))


# --- rmat (Graph500 Kronecker) ------------------------------------------------------------

def _plan_rmat(params: dict, seed: int) -> Plan:
    scale, factor, a, b, c = (params[k] for k in ("scale", "edge_factor", "a", "b", "c"))
    need(scale <= 40, "scale", scale, "1 <= scale <= 40")
    for name, p in (("a", a), ("b", b), ("c", c)):
        need(0 <= p <= 1, name, p, "0 <= p <= 1")
    need(a + b + c <= 1, "c", c, f"a + b + c <= 1 (a = {a}, b = {b})")
    n = 1 << scale
    return Plan("graph", n, factor * n, seed, weights=parse_weights(params["weights"]),
                stats={"scale": scale, "edge_factor": factor},
                state={"perm": Feistel.for_seed(n, seed), "scale": scale, "abc": (a, a + b, a + b + c)})


def _part_rmat(plan: Plan, start: int, stop: int, xp) -> dict:
    if xp is not np:
        return _part_rmat_gpu(plan, start, stop)
    a, ab, abc = plan.state["abc"]

    def draw(rng, rows):
        src = np.zeros(len(rows), dtype=np.uint64)
        dst = np.zeros(len(rows), dtype=np.uint64)
        for u in rng.random((plan.state["scale"], len(rows))):
            # One level of the recursion: quadrant a = (0,0), b = (0,1), c = (1,0), d = (1,1).
            src <<= np.uint64(1)
            dst <<= np.uint64(1)
            src |= u >= ab
            dst |= ((u >= a) & (u < ab)) | (u >= abc)
        return src, dst

    src, dst = _edges(plan, start, stop, draw)
    perm = plan.state["perm"]
    return _columns(plan, perm.forward(src), perm.forward(dst))


DENSITY = permutable(Generator(
    "density", "graph", "COUNT random sub-graphs, m edges, n = sqrt(m / (2 density)) (genRandomGraph)",
    {"m": Param(1 << 20, int, minimum=1, help="number of edges"),
     "density": Param(0.001, float, help="edge density δ in (0, 1]; n = sqrt(m / (2δ))"),
     "count": Param(1, int, minimum=1, help="number of sub-graphs"), "weights": WEIGHTS},
    _plan_density, _part_density))

UNIFORM = permutable(Generator(
    "uniform", "graph", "random graph of average degree DEGREE (Harish & Narayanan)",
    {"n": n_param(), "degree": Param(6.0, float, minimum=0, help="average degree (m = n·degree/2)"),
     "weights": WEIGHTS},
    _plan_uniform, _part_uniform))

SCALE_FREE = permutable(Generator(
    "scale-free", "graph", "0.1% hub vertices of degree up to 1000, average degree 6 (Harish & Narayanan)",
    {"n": Param(1 << 20, int, minimum=2, help="number of vertices"),
     "degree": Param(6.0, float, minimum=0, help="average degree (m = n·degree/2)"),
     "hub_fraction": Param(0.001, float, help="fraction of vertices that are hubs, in (0, 1)"),
     "max_degree": Param(1000, int, minimum=1, help="degree of each hub (the maximum degree)"),
     "weights": WEIGHTS},
    _plan_scale_free, _part_scale_free))

def _part_rmat_gpu(plan: Plan, start: int, stop: int) -> dict:
    """``_part_rmat`` on the GPU (``rmat.cu``): the same Philox draws and Feistel permutation, one
    thread per four rows, so a slice of a graph larger than the GPU is generated where it is used."""
    import cupy

    index = plan.index_dtype
    src, dst = cupy.empty(stop - start, dtype=index), cupy.empty(stop - start, dtype=index)
    if stop > start:
        perm = plan.state["perm"]
        kernel = cuda_kernel("rmat.cu", "graphsweep_rmat_edges", index)
        key = stream_key(plan.seed, STREAM_EDGES)
        a, ab, abc = plan.state["abc"]
        quads = -(-(stop - start) // 4) + 1
        kernel((min(-(-quads // 256), 1 << 16),), (256,),
               (src, dst, np.int64(start), np.int64(stop), np.int64(plan.rows), np.uint64(key[0]), np.uint64(key[1]),
                np.int32(plan.state["scale"]), np.float64(a), np.float64(ab), np.float64(abc),
                *perm.device_args(cupy)))
    return {"src": src, "dst": dst}


RMAT = permutable(Generator(
    "rmat", "graph", "Graph500 Kronecker (R-MAT) graph, 2^SCALE vertices, EDGE_FACTOR·2^SCALE edges",
    {"scale": Param(16, int, minimum=1, help="log2 of the number of vertices"),
     "edge_factor": Param(16, int, minimum=1, help="edges per vertex"),
     "a": Param(0.57, float, help="probability of quadrant a"),
     "b": Param(0.19, float, help="probability of quadrant b"),
     "c": Param(0.19, float, help="probability of quadrant c (d = 1 - a - b - c)"),
     "weights": WEIGHTS},
    _plan_rmat, _part_rmat, gpu=True))
