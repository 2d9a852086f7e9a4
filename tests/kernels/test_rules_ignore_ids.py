"""Issue #32: every rule that picks a kernel or a default parameter from the input keys on the
graph's structure (degrees, an estimate of the diameter, component sizes), never on the order its
ids happen to come in.

Each graph family the generators make is made twice in memory on the CPU, as a sweep's ``store:
memory`` dataset and read by the problems' ``prepare`` (``graph_input``): once in generation
order and once with ``permute_ids`` (the same graph, ids relabelled by a keyed permutation; lists,
trees and R-MAT number their vertices at random already, and are relabelled again).  Each rule
below must decide the same on both twins, and what the family's structure calls for:

- ``cc.select``'s choice (``select.choice``: the average degree, a seeded sample's component sizes);
- ``sssp.select``'s kernel (``select.choose``: a strip locality of the given or BFS-renamed ids);
- ``sssp.near-far``'s default delta (mean weight and degree, and whether the graph is deep:
  every degree small and a pseudo-peripheral search >= DEEP_FROM x log2 n levels) and
  ``sssp.strips``' own default delta;
- ``pagerank.blocked``'s renamed graph (by BFS where every degree is small, else by degree) and its
  default column blocks (from the degree distribution, here against an L2 scaled to the graph as
  an H200's 60 MiB is to 2^24 vertices), and PageRank's ``start: auto``;
- ``tc.search``'s default lanes (the oriented graph's edge-weighted mean out-degree);
- ``bfs.best``'s (``bfs.direction-optimizing``) default registers (CSR entries a vertex);
- ``cc.adaptive``'s default segments (2m / n).

Not here: ``bc.batched`` and ``bfs.best`` choose each level's direction from that level's
frontier while they run (no default read from the graph); ``cc.sampled-union-find``'s ``link:
auto`` and ``flatten`` key on purpose on how far init's chains climb, i.e. on the forest the
given ids make (a row-major grid's ids chain up the grid's height: the 512^2 grid below, probe
steps over 1024 samples 22348 in order, finds after a flatten; 1135 permuted, Atomic-Hook): the
cost it avoids is the ids' own.

The CPU stands for the GPU where a rule reads the device: ``sssp.select`` measures locality over
``strips.CPU_BLOCKS`` (264) strips, so a grid's row-major locality clears LOCAL_FROM only where a
strip holds a few of its rows (the 512^2 grid: 993 ids a strip, locality 0.75; a 256^2 grid's
strip is shorter than a row, locality ~0.49, at the threshold).
"""

import math
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

from graphsweep.generators import memory
from graphsweep.kernels import pagerank
from graphsweep.kernels.bfs import by_bfs, direction_optimizing
from graphsweep.kernels.cc import adaptive
from graphsweep.kernels.cc import select as cc_select
from graphsweep.kernels.graph import graph_input
from graphsweep.kernels.pagerank import blocked
from graphsweep.kernels.sssp import near_far, strips
from graphsweep.kernels.sssp import select as sssp_select
from graphsweep.kernels.tc import search

WEIGHTS = "1:100"                  # every family weighted: the SSSP rules read the weights
H200_L2, H200_SCALE = 60 << 20, 1 << 24
SUF, SUF_ONCE, ADAPTIVE = "cc.sampled-union-find", "cc.sampled-union-find sample=false", "cc.adaptive"
STRIPS, NEAR_FAR = "sssp.strips", "sssp.near-far"


@dataclass(frozen=True)
class Family:
    """A generator's graph and what its structure calls for from each rule."""
    generator: str
    params: dict
    seed: int
    cc: str                         # cc.select's choice, as its row names it
    sssp: str                       # the kernel sssp.select runs
    renamed: tuple = (False, False)  # whether sssp.select runs on the BFS-renamed ids (in order, permuted)
    deep: bool = False              # sssp.near-far's deep-graph rule
    renaming: str = "by-bfs"        # the renamed graph pagerank.blocked runs on
    lanes: int = 2                  # tc.search's default
    dense: bool = False             # 8+ entries a vertex: bfs.best's 64 registers, PageRank's degree start
    blocks: int | None = None       # pagerank.blocked's default float32 blocks, where the module doc names them


FAMILIES = {
    # one list: deep (8192 levels against 8 log2 n = 104), a BFS order is the list's order; the CPU
    # twin of the search costs ~50 us a level, hence the size
    "list": Family("list-graph", {"n": 1 << 13}, 1, ADAPTIVE, STRIPS, renamed=(True, True), deep=True),
    # many small components: lists of 32 and of 8 close within cc.select's 32-level searches
    "lists-of-32": Family("list-graph", {"n": 1 << 17, "count": 1 << 12}, 2, ADAPTIVE, NEAR_FAR),
    "lists-of-8": Family("list-graph", {"n": 1 << 17, "count": 1 << 14}, 2, ADAPTIVE, NEAR_FAR),
    # one binary tree: depth 73 against 136, not deep
    "tree": Family("tree", {"n": 1 << 17, "k": 2}, 3, ADAPTIVE, NEAR_FAR),
    # trees of 32: every sample closes within 32 levels (within 8, only ~0.2 did)
    "trees-of-32": Family("tree", {"n": 1 << 17, "k": 2, "count": 1 << 12}, 3, ADAPTIVE, NEAR_FAR),
    # largest degree 18 > NARROW_DEGREE (a property of the degrees, the same on both twins): by degree
    "recursive-tree": Family("recursive-tree", {"n": 1 << 17}, 10, ADAPTIVE, NEAR_FAR, renaming="by-degree"),
    "density": Family("density", {"m": 1 << 18, "density": 1e-4}, 5, SUF, NEAR_FAR, renaming="by-degree",
                      dense=True),
    # sub-graphs of 32 vertices, 64 edges: every sample closes (share 1.0 on both twins); largest degree 16
    # (sssp.select: strips hold 0.979 of the edges in order, 0.004 permuted, but no component holds
    # most vertices: near-far both ways)
    "density-of-32": Family("density", {"m": 1 << 18, "density": 2 ** -17, "count": 1 << 12}, 6, ADAPTIVE, NEAR_FAR),
    "uniform": Family("uniform", {"n": 1 << 17, "degree": 6.0}, 4, SUF, NEAR_FAR, renaming="by-degree", blocks=3),
    # below average degree 4: a giant component and ~7% of the samples in small ones
    "uniform-sparse": Family("uniform", {"n": 1 << 17, "degree": 3.0}, 4, SUF_ONCE, NEAR_FAR),
    "scale-free": Family("scale-free", {"n": 1 << 17}, 8, SUF, NEAR_FAR, renaming="by-degree"),
    # edge-weighted mean out-degree ~61: 8 lanes
    "rmat": Family("rmat", {"scale": 15, "edge_factor": 16}, 7, SUF, NEAR_FAR, renaming="by-degree", lanes=8,
                   dense=True, blocks=1),
    # road-like: deep (1023 levels against 144); row-major ids keep 0.75 of the edges in a strip, so
    # in order strips run on the given ids and permuted on the BFS-renamed ones (0.65)
    "grid": Family("grid", {"rows": 512, "cols": 512, "keep": 0.8}, 9, SUF_ONCE, STRIPS, renamed=(False, True),
                   deep=True),
}


def twin(family: Family, permute_ids: bool):
    data = memory.generate(family.generator, seed=family.seed,
                           params={**family.params, "weights": WEIGHTS, "permute_ids": permute_ids})
    return graph_input(data)


@pytest.fixture(scope="module", params=list(FAMILIES), ids=list(FAMILIES))
def case(request):
    """(family, (in order, permuted)): module-scoped, so pytest runs every rule on one family's twins
    before it makes the next family's (one family in memory at a time)."""
    family = FAMILIES[request.param]
    return family, (twin(family, False), twin(family, True))


def both(rule, twins) -> list:
    return [rule(inp) for inp in twins]


def test_twins_are_one_graph_in_two_orders(case):
    family, (plain, permuted) = case
    assert (plain.n, plain.m) == (permuted.n, permuted.m)
    assert np.array_equal(np.sort(plain.csr().degree()), np.sort(permuted.csr().degree()))
    assert not np.array_equal(plain.src, permuted.src)


def test_cc_select(case):
    family, twins = case
    chosen = both(cc_select.choice, twins)
    # cc.adaptive's segments follow the sampled share in small components (read apart from the kernel)
    names = [cc_select._named(c["module"], {k: v for k, v in c["overrides"].items() if k != "segments"})
             for c in chosen]
    stats = [c["stats"] for c in chosen]
    assert names == [family.cc] * 2, f"in order / permuted: {names}, statistics {stats}"


def test_sssp_select(case):
    family, twins = case
    chosen = both(sssp_select.choose, twins)
    kernels = [module.KERNEL.name for module, _, _ in chosen]
    facts = [(round(share, 3), renamed is not None) for _, share, renamed in chosen]
    assert kernels == [family.sssp] * 2, f"in order / permuted: {kernels}, (locality, renamed) {facts}"
    assert tuple(renamed for _, renamed in facts) == family.renamed, facts


def test_near_far_default_delta(case):
    family, twins = case
    deep = both(near_far.deep, twins)
    depth = [by_bfs.depth(inp) if by_bfs.narrow(inp.csr()) else None for inp in twins]
    bound = near_far.DEEP_FROM * math.log2(twins[0].n)
    assert deep == [family.deep] * 2, f"depth in order / permuted {depth} against DEEP_FROM log2 n = {bound:.0f}"
    deltas = both(near_far.default_delta, twins)
    assert deltas[0] == deltas[1] and deltas[0] >= 1, deltas


def test_strips_default_delta(case):
    _, twins = case
    deltas = [strips.default_delta(inp.csr()) for inp in twins]
    assert deltas[0] == deltas[1] and deltas[0] >= 1, deltas


def test_pagerank_blocked_defaults(case):
    family, twins = case
    kinds = ["by-bfs" if blocked._narrow(inp) else "by-degree" for inp in twins]
    assert kinds == [family.renaming] * 2
    l2 = H200_L2 * twins[0].n // H200_SCALE
    for itemsize in (4, 8):
        counts = [blocked.default_blocks(blocked.renamed(inp), itemsize, l2) for inp in twins]
        assert counts[0] == counts[1] and 1 <= counts[0] <= blocked.MAX_BLOCKS, (itemsize, counts)
        if itemsize == 4 and family.blocks is not None:   # the module doc's H200 figures: R-MAT 1, uniform 3
            assert counts[0] == family.blocks


def test_pagerank_start(case):
    family, twins = case
    if not hasattr(pagerank, "start_of") or "start" not in pagerank.PARAMS:
        pytest.skip("PageRank has no 'start' parameter")
    params = {"start": "auto", "dangling": "spread"}
    starts = [pagerank.start_of(inp, params) for inp in twins]
    assert starts[0] == starts[1]
    assert (starts[0][1] > 0) == family.dense      # degree-proportional where dense, else uniform


def test_tc_search_lanes(case):
    family, twins = case
    stats = [search.lanes_statistics(inp.representation("oriented")) for inp in twins]
    lanes = [search.lanes_rule(s) for s in stats]
    # the oriented graph breaks degree ties by id (GAPBS's order), so the statistic itself moves a
    # little between the twins (the grid: 2.05 in order, 2.22 permuted); the lanes must not
    assert lanes == [family.lanes] * 2, f"edge-weighted mean out-degree in order / permuted: {stats}"


def test_bfs_best_registers(case):
    family, twins = case
    registers = [direction_optimizing._registers(inp.csr(), {"registers": None}) for inp in twins]
    assert registers == [64 if family.dense else 128] * 2


def test_cc_adaptive_segments(case):
    _, twins = case
    segments = [adaptive.segment_count({"segments": None}, inp.n, inp.m) for inp in twins]
    assert segments[0] == segments[1] == max(1, round(2 * twins[0].m / twins[0].n))


def test_a_grid_whose_corner_is_cut_off_is_deep_in_either_order():
    """The road-like grid of seed 7 has its corner, the lowest id with an edge, in a fragment of 7 vertices.  The
    pseudo-peripheral search once started at the lowest id with an edge: in row order that corner,
    so depth 6 and no deep graph (delta 64), against depth 253 (deep, delta 1024) with the ids
    permuted.  It starts at a vertex of the largest degree now, in the grid's bulk either way.
    (sssp.select is left out: on the CPU's 264 strips a 128^2 grid's row-major locality, 0.485, is
    at LOCAL_FROM.)"""
    family = Family("grid", {"rows": 128, "cols": 128, "keep": 0.8}, 7, SUF_ONCE, NEAR_FAR, deep=True)
    plain, permuted = twin(family, False), twin(family, True)
    _, component = csgraph.connected_components(
        sp.coo_matrix((np.ones(plain.m), (plain.src, plain.dst)), shape=(plain.n, plain.n)), directed=False)
    first = np.flatnonzero(plain.degree_nonzero())[0]              # the lowest id with an edge ...
    assert np.count_nonzero(component == component[first]) < 10   # ... is cut off: the case this test is about
    depth = [by_bfs.depth(inp) for inp in (plain, permuted)]
    assert min(depth) > 2 * 127 * 0.9, depth                       # about the grid's diameter, 2 x 127
    assert both(near_far.deep, (plain, permuted)) == [True, True], depth
    deltas = both(near_far.default_delta, (plain, permuted))
    assert deltas[0] == deltas[1], deltas
