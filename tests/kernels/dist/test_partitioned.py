"""One graph sliced over K Dask workers: the partition (edge-balanced bounds on word edges, slices
shuffled from Parquet parts, a generated source or shares handed over: test_shuffle.py), cc/bfs/pagerank.distributed
against the one-worker kernels on many shapes and K = 1..4, the ledger in the rows, and the
failures (K larger than the workers, a worker lost) as one clear error, never a hang — over the
Dask transport on CPU workers (CI) and on workers sharing one GPU, and over NCCL on workers of
their own GPU (``multi_gpu``)."""

import sys

import numpy as np
import pytest
from graphsweep.core.errors import ParameterError
from graphsweep.core.workers import live_workers
from graphsweep.generators import driver as generator_driver
from graphsweep.generators import memory
from graphsweep.kernels import harness
from graphsweep.kernels.dist import driver, slices
from graphsweep.kernels.graph import graph_input, pick_roots
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, shortest_path

from ..conftest import SHAPES, dataset, generated
from .conftest import by_value

by_value(sys.modules[__name__])

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
# Every shape at K = 3 (slices of unequal sizes, some empty), the larger ones at every K.
CASES = ([(shape, 3) for shape in SHAPES] +
         [(shape, k) for shape in ("components", "messy", "rmat", "star") for k in (1, 2, 4)])


WORKERS = {}


@pytest.fixture(autouse=True)
def _workers(workers4):
    """Runs slice over the session's 4 worker processes (on the GPU backend they share the device:
    the Dask transport), unless a test names another cluster."""
    WORKERS["address"] = workers4


def run(name, data, backend, **params):
    if name.endswith(".distributed"):
        params.setdefault("scheduler", WORKERS["address"])
    res = harness.run(name, data, backend=backend, reps=1, warmup=0, **params)
    assert res.verified, res.verify_error
    return res


def canonical(graph):
    n, src, dst = graph
    _, comp = connected_components(coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)
    _, first = np.unique(comp, return_index=True)
    return first[comp]


def levels(graph, root):
    n, src, dst = graph
    hops = shortest_path(coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr(), unweighted=True,
                         directed=False, indices=root)
    return np.where(np.isinf(hops), -1, hops).astype(np.int32)




@pytest.mark.parametrize("shape,k", CASES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_components_are_the_canonical_labels(shape, k, backend):
    graph = SHAPES[shape]()
    res = run("cc.distributed", dataset(graph), backend, partitions=k)
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert res.stats["partitions"] == k
    assert res.stats["slice_edges_total"] == 2 * int(np.count_nonzero(graph[1] != graph[2]))
    if k == 1:
        assert res.stats["merge_pairs"] == 0 and res.stats["merge_rounds"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [2, 4])
def test_rmat_merges_in_one_step(backend, k):
    """Every rank finds a tree to skip in R-MAT's slices (at scale 14: at 10, the slices of K = 4 are
    too small), the giants overlap: one exchange of bitmaps and pairs answers, no round follows."""
    graph = generated("rmat", 4, scale=14, edge_factor=16)
    res = run("cc.distributed", dataset(graph), backend, partitions=k)
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert res.stats["merge_rounds"] == 0 and 0 < res.stats["merge_pairs"] < graph[0]
    assert res.stats["bytes_exchanged"] > 0


def _core_before_triangles(core=4000, degree=64, triangles=6000, seed=3):
    """A dense core on the first ids (every rank's giant), then many triangles (the last slice's
    rows): that rank's forest has thousands of non-root vertices outside its giant, more than a
    first run's room for pairs."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, core, core * degree // 2)
    dst = rng.integers(0, core, core * degree // 2)
    t = core + 3 * np.arange(triangles)
    src = np.concatenate([src, t, t + 1, t]).astype(np.int32)
    dst = np.concatenate([dst, t + 1, t + 2, t + 2]).astype(np.int32)
    return core + 3 * triangles, src, dst


@pytest.mark.parametrize("backend", BACKENDS)
def test_pairs_past_the_room_merge_again_with_room(backend):
    """The one-step merge sends each rank's pairs in blocks of a room fixed before the run: a rank
    with more leaves every forest as it was, the merge runs again with room, and the partition's next
    run keeps it."""
    graph = _core_before_triangles()
    data = dataset(graph)
    # a quarter of the samples makes a giant of the core on both ranks (link2 links two of a row's edges)
    first = run("cc.distributed", data, backend, partitions=2, skip_share=0.25)
    np.testing.assert_array_equal(first.output["label"], canonical(graph))
    assert first.stats["merge_rounds"] == 0 and first.stats["merge_pairs"] > 2 * 1024
    assert first.stats["merge_retries"] == 1
    # a measured run after a warm-up one (the same partition) finds the room fitted
    again = harness.run("cc.distributed", data, backend=backend, reps=1, warmup=1, partitions=2, skip_share=0.25,
                        scheduler=WORKERS["address"])
    assert again.verified, again.verify_error
    np.testing.assert_array_equal(again.output["label"], canonical(graph))
    assert again.stats["merge_retries"] == 0 and again.stats["merge_pairs"] == first.stats["merge_pairs"]


def _two_clusters_joined_between_their_giants(a_last=64, b_size=30):
    """Clusters A (0 and 3..a_last: slice 0's rows, but a_last's) and B (1, 2 and the b_size ids
    after a_last) joined by one edge (a_last - 1, a_last + b_size): past the two smallest
    neighbours in both rows, and both ends in their rank's skipped tree — the one edge the one-step
    merge cannot see."""
    a = [0] + list(range(3, a_last + 1))
    b = [1, 2] + list(range(a_last + 1, a_last + b_size + 1))
    edges = [(x, y) for part in (a, b) for i, x in enumerate(part) for y in part[i + 1:]]
    edges.append((a_last - 1, a_last + b_size))
    return (a_last + b_size + 1, *_pairs(edges))


def _pairs(edges):
    e = np.array(edges, dtype=np.int32).reshape(-1, 2)
    return e[:, 0].copy(), e[:, 1].copy()


def _triangles_across_slices(count=300):
    """Triangles (i, i + count, i + 2 count): every triangle has a vertex in each of three slices, and
    no rank has a tree worth skipping (average degree 2: no sample)."""
    i = np.arange(count, dtype=np.int32)
    src = np.concatenate([i, i + count, i])
    dst = np.concatenate([i + count, i + 2 * count, i + 2 * count])
    return 3 * count, src, dst


@pytest.mark.parametrize("backend", BACKENDS)
def test_giants_joined_only_through_skipped_rows_take_the_exact_rounds(backend):
    graph = _two_clusters_joined_between_their_giants()
    res = run("cc.distributed", dataset(graph), backend, partitions=2)
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert (res.output["label"] == 0).all()
    assert res.stats["merge_rounds"] >= 1 and res.stats["sparse_merges"] == 1   # B's vertices moved: few


def _clique_beside_small_cliques(big=64, small=5, count=60):
    """A clique on the first ``big`` ids (the rows of slices 0 and 1 at K = 3) and ``count`` disjoint
    cliques of ``small`` after it (slice 2: no tree holds half its samples)."""
    edges = [(x, y) for x in range(big) for y in range(x + 1, big)]
    for c in range(count):
        ids = range(big + small * c, big + small * (c + 1))
        edges += [(x, y) for x in ids for y in ids if x < y]
    return (big + small * count, *_pairs(edges))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_slice_without_a_tree_beside_slices_with_one_skips_nothing(backend):
    """Skip mode on some ranks and ECL mode on another would leave edges unlinked by either (ECL
    mode links an edge from one end only): a rank whose sample found no tree runs in skip mode
    skipping nothing, and the forests merge in one step."""
    graph = _clique_beside_small_cliques()
    res = run("cc.distributed", dataset(graph), backend, partitions=3)
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert res.stats["merge_pairs"] > 0 and res.stats["merge_rounds"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_slices_without_a_tree_to_skip_merge_by_the_rounds(backend):
    graph = _triangles_across_slices()
    res = run("cc.distributed", dataset(graph), backend, partitions=3)
    np.testing.assert_array_equal(res.output["label"], canonical(graph))
    assert res.stats["merge_pairs"] == 0 and res.stats["merge_rounds"] >= 1


@pytest.mark.parametrize("shape,k", CASES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_bfs_levels_are_the_one_worker_levels(shape, k, backend):
    graph = SHAPES[shape]()
    res = run("bfs.distributed", dataset(graph), backend, partitions=k, instances=2)
    for stats in res.instance_stats:
        assert stats["levels"] >= 1
    np.testing.assert_array_equal(res.output["level"], levels(graph, res.instances[-1]["root"]))


def test_bfs_ranks_get_every_parameter_their_gpu_search_reads(monkeypatch):
    """The ranks' search takes a dict of the run's parameters built by the driver; every key its
    GPU side reads must be in it (a parameter added to the kernel but not to that dict failed every
    GPU run with a KeyError, which no CPU run reaches)."""
    import inspect
    import re

    from graphsweep.kernels.bfs import distributed as bfs_distributed
    read = set(re.findall(r'params\["(\w+)"\]', inspect.getsource(bfs_distributed._GpuSearch)))
    assert {"threads", "outbox", "registers", "exchange", "graphs"} <= read
    given = []
    ledger_run = bfs_distributed.Ledger.run

    def recorded(self, fn, *args, **kwargs):
        if fn is bfs_distributed._search:
            given.append(args[-1])
        return ledger_run(self, fn, *args, **kwargs)
    monkeypatch.setattr(bfs_distributed.Ledger, "run", recorded)
    run("bfs.distributed", dataset(SHAPES["rmat"]()), "cpu", partitions=2, root=5)
    assert given and read <= set(given[0]), read - set(given[0])


@pytest.mark.parametrize("direction", ["top-down", "bottom-up"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_bfs_either_direction_at_every_level(direction, backend):
    graph = SHAPES["rmat"]()
    res = run("bfs.distributed", dataset(graph), backend, partitions=3, root=5, direction=direction)
    np.testing.assert_array_equal(res.output["level"], levels(graph, 5))
    bottom = res.stats["bottom_up_levels"]
    assert bottom == (res.stats["levels"] if direction == "bottom-up" else 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bfs_switches_direction_on_a_scale_free_graph(backend):
    graph = SHAPES["rmat"]()
    res = run("bfs.distributed", dataset(graph), backend, partitions=2, root=0)
    assert 0 < res.stats["bottom_up_levels"] < res.stats["levels"]
    steps = [r for r in res.step_rows if r["phase"] == "level"]
    assert len(steps) == res.stats["levels"]
    assert {r["step_direction"] for r in steps} == {"top-down", "bottom-up"}
    assert all(r["step_bytes_exchanged"] > 0 for r in steps)
    # every level: the outboxes' and the claims' all-to-alls, the frontier's and the counts'
    # all-gathers (over the Dask transport each a round; over NCCL two groups of two)
    assert all(r["step_rounds"] == 4 for r in steps)


def _directions(res) -> list:
    return [(r["step_direction"], r["step_frontier"]) for r in res.step_rows if r["phase"] == "level"]


def _hub(graph) -> int:
    """The vertex of most edges (a root whose search switches direction on R-MAT)."""
    n, src, dst = graph
    return int(np.bincount(np.concatenate([src, dst]), minlength=n).argmax())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("outbox", [1, 1 << 16])
def test_bfs_claims_past_the_outbox_go_as_bits_whose_owner_finds_the_parent(backend, outbox):
    """A top-down claim of another slice's vertex goes to its owner as a (vertex, parent) pair, or,
    past the outbox's capacity, as a bit; either way the same levels and valid parents (verified)."""
    graph = SHAPES["rmat"]()
    res = run("bfs.distributed", dataset(graph), backend, partitions=3, root=_hub(graph), outbox=outbox,
              direction="top-down")
    np.testing.assert_array_equal(res.output["level"], levels(graph, _hub(graph)))


def test_bfs_outbox_grows_with_the_slices_past_65536_pairs():
    from graphsweep.kernels.bfs.distributed import outbox_pairs
    assert outbox_pairs(2**26, 4) == outbox_pairs(1000, 2) == 1 << 16     # R-MAT 26 on 4: as before
    assert outbox_pairs(2**28, 4) == 1 << 18 and outbox_pairs(2**30, 4) == 1 << 20
    assert outbox_pairs(3 * 2**28, 4) == 1 << 19                          # rounded down to a power of two
    graph = SHAPES["rmat"]()
    assert run("bfs.distributed", dataset(graph), "cpu", partitions=2, root=0).stats["outbox"] == 1 << 16


@pytest.mark.gpu
@pytest.mark.parametrize("direction", ["auto", "top-down", "bottom-up"])
def test_bfs_on_the_gpu_takes_the_cpu_twins_direction_at_every_level(direction):
    """The device decides each level's direction (graphsweep_bfs_slice_decide), the CPU twin on
    the host (_Switch): the same rule, so the same directions and frontiers."""
    data = generated("rmat", 5, scale=12, edge_factor=16)
    cpu, gpu = (run("bfs.distributed", dataset(data), backend, partitions=2, root=_hub(data), direction=direction)
                for backend in ("cpu", "gpu"))
    assert _directions(gpu) == _directions(cpu) and len(_directions(cpu)) == cpu.stats["levels"]
    assert gpu.stats["bottom_up_levels"] == cpu.stats["bottom_up_levels"]
    np.testing.assert_array_equal(gpu.output["level"], cpu.output["level"])


@pytest.mark.parametrize("shape,k", CASES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_pagerank_is_the_one_worker_pagerank(shape, k, backend):
    graph = SHAPES[shape]()
    res = run("pagerank.distributed", dataset(graph), backend, partitions=k)
    ref = run("pagerank.spmv", dataset(graph), backend, start="uniform")
    assert res.stats["iterations"] == ref.stats["iterations"]
    np.testing.assert_allclose(res.output["score"], ref.output["score"], rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_kernels_taking_turns_on_one_partition_each_give_their_answer(backend):
    """A slice keeps one kernel's scratch at a time (Slice.claim): each kernel finds its own again
    after another ran on the same slices."""
    graph = SHAPES["messy"]()
    data = dataset(graph)
    scores = run("pagerank.spmv", dataset(graph), backend, start="uniform").output["score"]
    for _ in range(2):
        for name in ("cc.distributed", "bfs.distributed", "pagerank.distributed"):
            res = run(name, data, backend, partitions=3)
            if name == "cc.distributed":
                np.testing.assert_array_equal(res.output["label"], canonical(graph))
            elif name == "bfs.distributed":
                np.testing.assert_array_equal(res.output["level"], levels(graph, res.instances[-1]["root"]))
            else:
                np.testing.assert_allclose(res.output["score"], scores, rtol=1e-5, atol=1e-9)


def _hub_of_triple_edges(leaves=1500):
    """A hub whose 4,500-entry row (each leaf three times) is summed in chunks of 1024 entries, a
    leaf's copies across a chunk's edge; leaves paired by edges."""
    leaf = np.arange(1, leaves + 1, dtype=np.int32)
    return leaves + 1, np.r_[np.zeros(3 * leaves, np.int32), leaf[0::2]], np.r_[np.repeat(leaf, 3), leaf[1::2]]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["messy", "rmat", "star", "hub"])
def test_pagerank_warp_rows_is_cusparses_product(shape):
    """The product that takes a slice past cuSPARSE's 32-bit offsets (lanes a row, a warp a chunk
    of a long row, duplicates skipped in the sorted rows) gives cuSPARSE's scores on the simple rows."""
    graph = _hub_of_triple_edges() if shape == "hub" else SHAPES[shape]()
    rows = run("pagerank.distributed", dataset(graph), "gpu", partitions=3, product="warp-rows")
    ref = run("pagerank.distributed", dataset(graph), "gpu", partitions=3, product="cusparse")
    assert rows.stats["iterations"] == ref.stats["iterations"]
    np.testing.assert_allclose(rows.output["score"], ref.output["score"], rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("shape,k", [("messy", 3), ("rmat", 1), ("rmat", 4), ("star", 3), ("components", 2),
                                     ("hub", 3), ("clique", 3), ("loop-only", 2), ("single", 1)])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("hot", [0.5, 1e-5])
def test_pagerank_over_renamed_neighbours_gives_the_slices_scores(shape, k, backend, hot):
    """The renamed product (each slice's contributions placed by falling degree, its rows' neighbour
    ids renamed to match) sums the same rows: the default product's scores and iterations — also
    with a hot front of a few dozen places a range (on the GPU the ids past it are flagged, their
    gathers read evict-first)."""
    graph = _hub_of_triple_edges() if shape == "hub" else SHAPES[shape]()
    renamed = run("pagerank.distributed", dataset(graph), backend, partitions=k, product="renamed", hot=hot)
    ref = run("pagerank.distributed", dataset(graph), backend, partitions=k)
    assert renamed.stats["iterations"] == ref.stats["iterations"]
    assert renamed.stats["product"] == "renamed" and ref.stats["product"] == ("scipy" if backend == "cpu" else "cusparse")
    np.testing.assert_allclose(renamed.output["score"], ref.output["score"], rtol=1e-5, atol=1e-9)


def test_renamed_without_room_for_its_copy_is_refused_in_one_line(monkeypatch):
    """Every rank asks whether its GPU has room for the renamed copy (an all-reduce: all decide
    alike); asked for by name and refused, it says so and what to use instead."""
    from graphsweep.core.capacity import NoRoomError
    from graphsweep.kernels.dist.comm import SoloComm
    from graphsweep.kernels.pagerank import distributed
    n, src, dst = _hub_of_triple_edges(leaves=40)
    piece, _ = slices.build(SoloComm(np), ("arrays", (src, dst)), 0, 1, n, "cpu", 1, slices.shuffle.sizes())
    monkeypatch.setattr(distributed, "_room_for_copy", lambda s: False)
    with pytest.raises(NoRoomError, match=r"product=renamed: a GPU has no room for its copy .* use product=warp-rows"):
        distributed._slice_matrix(piece, SoloComm(np), "renamed", 0.0)
    monkeypatch.setattr(distributed, "_room_for_copy", lambda s: True)
    assert distributed._slice_matrix(piece, SoloComm(np), "renamed", 0.0) == 2 * 40 + 40     # simple entries


def test_auto_renames_where_the_contributions_outgrow_the_l2():
    from graphsweep.kernels.pagerank.distributed import choose
    l2 = 60 << 20
    assert choose("auto", "gpu", (l2 >> 2) + 1, l2) == "renamed"
    assert choose("auto", "gpu", l2 >> 2, l2) == "auto"          # cuSPARSE, or warp-rows past 32-bit offsets
    assert choose("warp-rows", "gpu", 1 << 30, l2) == "warp-rows"
    assert choose("auto", "cpu", 1 << 30, 0) == "scipy" and choose("renamed", "cpu", 4, 0) == "renamed"


def test_renaming_places_a_slices_vertices_by_falling_degree_and_renames_every_neighbour():
    """Each vertex with neighbours gets a place, the hub first, degrees falling, ties by id; the
    vertices without any (five isolated ones here) get none, so the contributions' vector holds
    only the others; every neighbour id is renamed to its place and each row sorted again."""
    from graphsweep.kernels.dist.comm import SoloComm
    from graphsweep.kernels.pagerank import distributed
    n, src, dst = _hub_of_triple_edges(leaves=40)
    n += 5
    piece, _ = slices.build(SoloComm(np), ("arrays", (src, dst)), 0, 1, n, "cpu", 1, slices.shuffle.sizes())
    _, inverse = distributed._simple_rows(piece, piece.csr.indices)
    placed, bounds, indices = distributed._renamed(piece, SoloComm(np), inverse)
    live = int((inverse > 0).sum())
    assert live == n - 5 and bounds == (0, live) and sorted(placed.tolist()) == list(range(live))
    place = np.full(n, -1)
    place[placed] = np.arange(live)
    degree = np.where(inverse > 0, np.rint(1 / np.maximum(inverse, 1e-30)), 0)
    by_place = degree[placed]
    assert place[0] == 0 and np.all(np.diff(by_place) <= 0)              # the hub (degree 40) first, degrees falling
    ties = by_place[1:] == by_place[:-1]
    assert np.all(placed[1:][ties] > placed[:-1][ties])                  # ties by id
    offsets = piece.csr.offsets
    for row in range(n):        # each row's neighbours renamed, sorted again
        a, b = offsets[row], offsets[row + 1]
        np.testing.assert_array_equal(indices[a:b], np.sort(place[piece.csr.indices[a:b]]))
    assert indices.min() >= 0 and indices.max() < live
    _, _, flagged = distributed._renamed(piece, SoloComm(np), inverse, front=3)     # past the first 3 places
    np.testing.assert_array_equal(flagged & 0x7FFFFFFF, indices)
    np.testing.assert_array_equal(flagged < 0, indices >= 3)


def test_rows_carry_the_run_the_dispatch_and_the_ledger():
    graph = SHAPES["rmat"]()
    one = run("pagerank.distributed", dataset(graph), "cpu", partitions=1)
    three = run("pagerank.distributed", dataset(graph), "cpu", partitions=3)
    for res in (one, three):
        phases = {r["phase"]: r["ms"] for r in res.rows}
        assert {"total", "dispatch"} <= set(phases)
        assert 0 < phases["total"] <= phases["dispatch"]      # the workers' run, inside the driver's call
        assert "collect" in res.seconds
        for stat in ("local_ms", "comm_ms", "bytes_exchanged", "rounds", "transport", "cut_entries"):
            assert stat in res.stats
    assert three.stats["transport"] == "dask" and one.stats["transport"] == "none"
    assert three.stats["bytes_exchanged"] > 0 == one.stats["bytes_exchanged"]
    assert three.stats["cut_entries"] > 0 == one.stats["cut_entries"]
    steps = [r for r in three.step_rows if r["phase"] == "iteration"]
    assert len(steps) == three.stats["iterations"] and all(r["step_rounds"] == 2 for r in steps)


def test_each_phase_is_given_on_every_rank_beside_the_slowest():
    res = harness.run("cc.distributed", dataset(SHAPES["rmat"]()), backend="cpu", reps=1, warmup=0, partitions=3,
                      scheduler=WORKERS["address"])
    slowest = {r["phase"]: r["ms"] for r in res.rows}
    by_rank = dict(part.split(" ", 1) for part in res.stats["phases_by_rank"].split("; "))
    assert {"link", "encode", "merge"} <= set(by_rank)
    for phase, times in by_rank.items():
        times = [float(t) for t in times.split()]
        assert len(times) == 3 and max(times) == pytest.approx(slowest[phase], abs=1e-3)


def test_the_ledger_counts_each_run_alone():
    """A run's statistics are its own, not the sum over reps."""
    data = dataset(SHAPES["rmat"]())
    res = harness.run("cc.distributed", data, backend="cpu", reps=4, warmup=2, partitions=2,
                      scheduler=WORKERS["address"])
    once = run("cc.distributed", data, "cpu", partitions=2)
    assert res.stats["rounds"] == once.stats["rounds"]
    assert res.stats["bytes_exchanged"] == once.stats["bytes_exchanged"]


def test_bounds_balance_edges_and_fall_on_word_edges():
    hist = np.zeros(slices.BUCKETS, dtype=np.int64)
    hist[:10] = 100_000        # a few heavy buckets, then a long light tail
    hist[10:] = 1
    n = slices.BUCKETS * 32
    bucket = slices.bucket_width(n)
    bounds = slices.edge_balanced_bounds(hist, bucket, n, 4)
    assert bounds[0] == 0 and bounds[-1] == n and np.all(np.diff(bounds) >= 0)
    assert np.all(bounds % 32 == 0)
    shares = [hist[a // bucket:b // bucket].sum() for a, b in zip(bounds[:-1], bounds[1:])]
    assert max(shares) - min(shares) <= 100_000    # within one bucket of equal
    assert bounds[1] < 10 * bucket                 # the first slice is a few heavy buckets
    assert slices.bucket_width(1000) == 32 and slices.bucket_width(5_000_000) % 32 == 0


def test_slices_are_read_from_the_parquet_parts(tmp_path):
    path = tmp_path / "rmat"
    generator_driver.generate("rmat", path, seed=3, params={"scale": 10, "edge_factor": 8}, part_rows=3000)
    res = run("cc.distributed", str(path), "cpu", partitions=2)
    assert res.stats["partition_passes"] == 2          # a count pass, then the shuffle's
    ref = run("cc.best", str(path), "cpu")
    np.testing.assert_array_equal(res.output["label"], ref.output["label"])


def test_the_workers_may_be_named_by_a_scheduler_file(tmp_path):
    """As a multi-host batch job names its cluster (docs/slurm.md): ``scheduler`` takes the file
    ``dask scheduler --scheduler-file`` writes."""
    import json

    from distributed import LocalCluster
    data = memory.generate("rmat", seed=6, params={"scale": 9, "edge_factor": 8})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        path = tmp_path / "scheduler.json"
        path.write_text(json.dumps({"address": cluster.scheduler_address}))
        res = run("cc.distributed", data, "cpu", partitions=2, scheduler=str(path))
    np.testing.assert_array_equal(res.output["label"], run("cc.best", data, "cpu").output["label"])


def test_a_graph_generated_in_memory_is_generated_again_by_each_worker():
    data = memory.generate("rmat", seed=4, params={"scale": 10, "edge_factor": 8})
    assert driver._source(harness.prepared(harness.registry.get("cc.distributed"), data))[0] == "generated"
    res = run("bfs.distributed", data, "cpu", partitions=2, root=0)
    ref = run("bfs.best", data, "cpu", root=0)
    np.testing.assert_array_equal(res.output["level"], ref.output["level"])


def test_a_graph_never_made_whole_is_sliced_and_rooted_from_its_slices():
    """Graph500's way: the edges exist only as each worker's slice; the roots are the ones drawn
    from the whole graph, found through the slices' counts, and no CSR is built in the driver."""
    params = {"scale": 11, "edge_factor": 8}
    unmade = memory.unmade("rmat", seed=5, params=params)
    res = run("bfs.distributed", unmade, "cpu", partitions=3, instances=5, instance_seed=2)
    whole = memory.generate("rmat", seed=5, params=params)
    assert [i["root"] for i in res.instances] == pick_roots(graph_input(whole), 5, 2)
    inp = next(v for v in unmade.cache.values() if hasattr(v, "builds"))
    assert not inp._reps and unmade.columns == {}     # no representation built here
    root = res.instances[-1]["root"]
    np.testing.assert_array_equal(res.output["level"], levels(generated("rmat", 5, **params), root))


def test_more_slices_than_workers_is_refused_before_any_work():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with pytest.raises(ParameterError, match="parameter 'partitions': 3 slices, but the cluster at .* has 2 "
                                                 "workers"):
            harness.run("cc.distributed", dataset(SHAPES["rmat"]()), backend="cpu", reps=1, warmup=0,
                        partitions=3, scheduler=cluster.scheduler_address)


def test_more_local_workers_than_cores_is_refused_before_any_start(monkeypatch):
    """partitions=64 on a 2-core machine once started 64 worker processes and never finished:
    local workers beyond the cores are refused in one line, before any is started."""
    import os
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    started = []
    monkeypatch.setattr(driver, "_LOCAL", {})
    import distributed
    monkeypatch.setattr(distributed, "LocalCluster", lambda *a, **k: started.append(1))
    with pytest.raises(ParameterError, match="parameter 'partitions': 64 slices, but this machine can start at "
                                             "most 2 local workers"):
        harness.run("cc.distributed", dataset(SHAPES["rmat"]()), backend="cpu", reps=1, warmup=0, partitions=64)
    assert not started


def _until_gone(client, worker, timeout=30.0):
    """Wait until the scheduler has seen ``worker`` go (a run started before that may still see it)."""
    import time
    deadline = time.monotonic() + timeout
    while worker in live_workers(client):
        assert time.monotonic() < deadline, f"{worker} still listed after {timeout} s"
        time.sleep(0.1)


@pytest.mark.parametrize("name", ["cc.distributed", "bfs.distributed"])
def test_a_lost_worker_fails_the_run_in_one_line_and_the_next_run_works(name):
    """A worker process dies between runs: the run fails in one line naming it and its slice, the
    survivors are not left waiting, and the next run on the same cluster (its nanny restarted the
    worker) builds the partition again and gives the answer."""
    from distributed import LocalCluster
    graph = SHAPES["rmat"]()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        data = dataset(graph)
        params = {"partitions": 2, "scheduler": cluster.scheduler_address, "root": 0}
        if name.startswith("cc"):
            del params["root"]
        run(name, data, "cpu", **params)              # slices built on both workers
        client = driver._CLIENTS[cluster.scheduler_address]
        victim = sorted(live_workers(client))[1]
        with pytest.raises(Exception):                                # the worker process dies under the call
            client.run(lambda: __import__("os")._exit(1), workers=[victim])
        _until_gone(client, victim)
        with pytest.raises(driver.PartitionError, match=rf"worker {victim} holding slice 1 of 2, vertices "
                                                        rf"\[\d+, \d+\) was lost during \S+; the run fails"):
            harness.run(name, data, backend="cpu", reps=1, warmup=0, **params)
        client.wait_for_workers(2, timeout=60)
        res = run(name, data, "cpu", **params)
        if name.startswith("cc"):
            np.testing.assert_array_equal(res.output["label"], canonical(graph))
        else:
            np.testing.assert_array_equal(res.output["level"], levels(graph, 0))


def test_peer_exchange_on_cpu_workers_is_refused_in_one_line():
    with pytest.raises(ParameterError, match="exchange.*peer needs GPU workers"):
        harness.run("bfs.distributed", dataset(SHAPES["rmat"]()), backend="cpu", reps=1, warmup=0, partitions=2,
                    scheduler=WORKERS["address"], exchange="peer")


def test_directed_graphs_are_refused_in_one_line():
    n, src, dst = SHAPES["path"]()
    with pytest.raises(ParameterError, match="undirected"):
        harness.run("bfs.distributed", dataset((n, src, dst), directed=True), backend="cpu", reps=1, warmup=0,
                    partitions=2, scheduler=WORKERS["address"])


def test_two_runs_crossed_on_workers_of_one_thread_both_finish():
    """Run A's rank 0 and run B's rank 1 start first; A's rank 1 and B's rank 0 queue behind them
    on workers of one thread.  A rank leaves its worker's thread slot while it runs, so the queued
    ones start and both runs finish (they used to wait each other out, then fail)."""
    import threading

    from distributed import LocalCluster
    graph = SHAPES["rmat"]()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        a, b = dataset(graph), dataset(graph)
        params = {"partitions": 2, "scheduler": cluster.scheduler_address, "root": 0}
        results = {}

        def search(label, data):
            results[label] = run("bfs.distributed", data, "cpu", **params)
        for data in (a, b):                     # partitions built, one after the other
            run("bfs.distributed", data, "cpu", **params)
        threads = [threading.Thread(target=search, args=(label, data)) for label, data in (("a", a), ("b", b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    for label in ("a", "b"):
        np.testing.assert_array_equal(results[label].output["level"], levels(graph, 0))


def _numba_signatures() -> dict:
    """{module.function: signatures} of each of graphsweep's Numba functions this process holds
    (compiled here or loaded from the cache)."""
    from numba.core.dispatcher import Dispatcher
    return {f"{fn.py_func.__module__}.{fn.py_func.__qualname__}": sorted(map(str, fn.signatures))
            for name, module in list(sys.modules.items()) if name.startswith("graphsweep.")
            for fn in vars(module).values() if isinstance(fn, Dispatcher) and fn.signatures}


def test_cpu_ranks_run_only_numba_functions_compiled_before_their_workers_started():
    """No worker process compiles a Numba function (it would write Numba's cache while its peers
    may write the same files: ``driver.compile_cpu_twins``): every function the CPU ranks hold, for
    every signature, is one a fresh process holds after what the driver compiles before its
    workers run any — ``compile_cpu_twins``, and a generated graph's first edge.  The ranks' paths
    run first: BFS claims past the outbox and bottom-up levels, CC's one-step merge and its
    rounds, a graph generated again by each worker."""
    from distributed import Client, LocalCluster
    rmat, generated_in_memory = SHAPES["rmat"](), memory.generate("rmat", seed=4, params={"scale": 10})
    run("bfs.distributed", dataset(rmat), "cpu", partitions=3, root=_hub(rmat), outbox=1, direction="top-down")
    run("bfs.distributed", dataset(rmat), "cpu", partitions=3, direction="bottom-up")
    run("cc.distributed", dataset(generated("rmat", 4, scale=14, edge_factor=16)), "cpu", partitions=2)
    run("cc.distributed", dataset(_triangles_across_slices()), "cpu", partitions=3)
    run("cc.distributed", generated_in_memory, "cpu", partitions=2)
    ranks = driver._CLIENTS[WORKERS["address"]].run(_numba_signatures)
    edges = generated_in_memory.cache["edges"]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.run(driver.compile_cpu_twins)
        client.run(edges.chunk, 0, 1, np)
        (compiled,) = client.run(_numba_signatures).values()
    for worker, functions in ranks.items():
        for name, signatures in functions.items():
            extra = sorted(set(signatures) - set(compiled.get(name, ())))
            assert not extra, f"{worker} ran {name} for {extra}, compiled by no process before the workers ran"


# --- NCCL: one worker per GPU

@pytest.mark.gpu
@pytest.mark.multi_gpu
@pytest.mark.parametrize("shape", ["components", "messy", "rmat", "star", "grid", "single"])
@pytest.mark.parametrize("name", ["cc.distributed", "bfs.distributed", "pagerank.distributed"])
def test_every_kernel_over_nccl_gives_the_one_gpu_answer(cuda_workers, shape, name):
    import cupy
    graph = SHAPES[shape]()
    for k in sorted({2, cupy.cuda.runtime.getDeviceCount()}):
        res = run(name, dataset(graph), "gpu", partitions=k, scheduler=cuda_workers, comms="nccl",
                  **({"instances": 2} if name.startswith("bfs") else {}))
        assert res.stats["transport"] == "nccl"
        if name.startswith("cc"):
            np.testing.assert_array_equal(res.output["label"], canonical(graph))
        elif name.startswith("bfs"):
            np.testing.assert_array_equal(res.output["level"], levels(graph, res.instances[-1]["root"]))
        else:
            ref = run("pagerank.spmv", dataset(graph), "gpu", start="uniform")
            np.testing.assert_allclose(res.output["score"], ref.output["score"], rtol=1e-5, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.multi_gpu
@pytest.mark.parametrize("shape", ["messy", "rmat", "hub", "components"])
@pytest.mark.parametrize("hot", [0.0, 1e-5])
def test_pagerank_renamed_over_nccl_gives_the_one_gpu_scores(cuda_workers, shape, hot):
    """Over NCCL (the places all-gathered as int32 in setup, the contributions every iteration) the
    renamed product gives the one-GPU scores, at K = 2 and every GPU."""
    import cupy
    graph = _hub_of_triple_edges() if shape == "hub" else SHAPES[shape]()
    ref = run("pagerank.spmv", dataset(graph), "gpu", start="uniform")
    for k in sorted({2, cupy.cuda.runtime.getDeviceCount()}):
        res = run("pagerank.distributed", dataset(graph), "gpu", partitions=k, scheduler=cuda_workers, comms="nccl",
                  product="renamed", hot=hot)
        assert res.stats["transport"] == "nccl" and res.stats["product"] == "renamed"
        np.testing.assert_allclose(res.output["score"], ref.output["score"], rtol=1e-5, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.multi_gpu
def test_auto_takes_nccl_on_workers_of_their_own_gpu(cuda_workers):
    res = run("bfs.distributed", dataset(SHAPES["rmat"]()), "gpu", partitions=2, scheduler=cuda_workers, root=0)
    assert res.stats["transport"] == "nccl" and res.stats["bytes_exchanged"] > 0


@pytest.mark.gpu
@pytest.mark.multi_gpu
def test_bfs_over_nccl_takes_the_cpu_twins_directions_in_two_rounds_a_level(cuda_workers):
    data = generated("rmat", 5, scale=12, edge_factor=16)
    cpu = run("bfs.distributed", dataset(data), "cpu", partitions=2, root=_hub(data))
    gpu = run("bfs.distributed", dataset(data), "gpu", partitions=2, root=_hub(data), scheduler=cuda_workers,
              comms="nccl", exchange="collectives")
    assert _directions(gpu) == _directions(cpu)
    assert 0 < gpu.stats["bottom_up_levels"] < gpu.stats["levels"]
    # the claims' all-to-all, then the frontier's and the counts' all-gathers in one group
    assert all(r["step_rounds"] == 2 for r in gpu.step_rows if r["phase"] == "level")
    np.testing.assert_array_equal(gpu.output["level"], levels(data, _hub(data)))


@pytest.mark.gpu
@pytest.mark.multi_gpu
def test_bfs_levels_captured_as_cuda_graphs_are_the_levels_queued_one_by_one(cuda_workers):
    import math
    data = generated("rmat", 6, scale=12, edge_factor=16)
    results = {mode: run("bfs.distributed", dataset(data), "gpu", partitions=2, root=_hub(data), instances=3,
                         scheduler=cuda_workers, comms="nccl", graphs=mode, exchange="collectives")
               for mode in ("auto", "off")}
    graphs, eager = results["auto"], results["off"]
    assert graphs.stats["level_graphs"] in ("cooperative", "plain") and eager.stats["level_graphs"] == "none"
    assert _directions(graphs) == _directions(eager)
    for res in results.values():
        np.testing.assert_array_equal(res.output["level"], levels(data, res.instances[-1]["root"]))
        # a replayed graph counts its two rounds and its bytes as the queued level does
        assert all(r["step_rounds"] == 2 for r in res.step_rows if r["phase"] == "level")
    assert graphs.stats["bytes_exchanged"] == eager.stats["bytes_exchanged"]
    assert math.isnan(graphs.stats["comm_ms"]) and eager.stats["comm_ms"] > 0


@pytest.mark.gpu
@pytest.mark.multi_gpu
@pytest.mark.parametrize("direction", ["auto", "top-down", "bottom-up"])
def test_bfs_over_peer_memory_in_one_launch_takes_the_collectives_levels(cuda_workers, direction):
    """The whole search one launch a rank, pairs, counts and frontier words stored into the other
    GPUs' memory: the same directions and levels as the collectives' exchange, on every rank of
    the machine, no NCCL round a level — on a hub-rooted R-MAT, a sparse one, many small
    components, self-loops and duplicate edges, and a grid (many small top-down levels)."""
    import cupy
    k = cupy.cuda.runtime.getDeviceCount()
    graphs = [(generated("rmat", 7, scale=12, edge_factor=16), None),
              (generated("rmat", 8, scale=11, edge_factor=2), None), (SHAPES["components"](), 0),
              (SHAPES["messy"](), 0), (SHAPES["grid"](), 0)]
    for data, root in graphs:
        root = _hub(data) if root is None else root
        results = {exchange: run("bfs.distributed", dataset(data), "gpu", partitions=k, root=root, instances=3,
                                 direction=direction, scheduler=cuda_workers, comms="nccl", exchange=exchange)
                   for exchange in ("peer", "collectives")}
        peer, collectives = results["peer"], results["collectives"]
        assert peer.stats["exchange"] == "peer" and collectives.stats["exchange"] == "collectives"
        assert _directions(peer) == _directions(collectives)
        assert all(r["step_rounds"] == 0 for r in peer.step_rows if r["phase"] == "level")
        for res in results.values():
            np.testing.assert_array_equal(res.output["level"], levels(data, res.instances[-1]["root"]))


def _slices_over_two(name: str, hold_s: float = 0.0):
    """A sweep task's shape: it leaves the thread pool, holds GPU=1 on two workers, waits."""
    import time

    from distributed import Event
    with driver.driving(), driver.reserving(2, {"GPU": 1}) as held:
        Event(f"{name}-in").set()
        Event(f"{name}-out").wait(timeout=30) if not hold_s else time.sleep(hold_s)
        return held


def test_a_sweep_task_holds_the_workers_it_slices_over():
    """No other timed kernel runs on the workers a partitioned task slices over: one that wants a
    held worker's GPU waits for the release, and two partitioned tasks that each want both of two
    workers at once both finish (workers are taken in address order)."""
    import time

    from distributed import Client, Event, LocalCluster
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=False, resources={"GPU": 1},
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        workers = sorted(live_workers(client))
        task = client.submit(_slices_over_two, "a", pure=False)
        assert Event("a-in", client=client).wait(timeout=30)
        other = client.submit(time.time, resources={"GPU": 1}, workers=[workers[0]], allow_other_workers=False,
                              pure=False)
        free = client.submit(time.time, resources={"GPU": 1}, workers=[workers[2]], allow_other_workers=False,
                             pure=False)
        free.result(timeout=30)                     # the third worker was never held
        time.sleep(0.5)
        assert not other.done()
        released = time.time()
        Event("a-out", client=client).set()
        assert task.result(timeout=30) == workers[:2]
        assert other.result(timeout=30) >= released
        both = [client.submit(_slices_over_two, name, 0.3, pure=False) for name in ("b", "c")]
        assert [f.result(timeout=60) for f in both] == [workers[:2]] * 2


def test_a_hold_whose_task_is_gone_lets_its_worker_go():
    """A partitioned task's worker died while it held others: their holds end on their own, and
    the GPU they held serves the next task."""
    import time

    from distributed import Client, Event, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, resources={"GPU": 1},
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        hold = client.submit(driver._hold, "orphan", 0, "a-task-no-longer-running", resources={"GPU": 1},
                             pure=False)
        assert Event("orphan-held-0", client=client).wait(timeout=30)
        assert hold.result(timeout=30) is None
        assert client.submit(time.time, resources={"GPU": 1}, pure=False).result(timeout=30)
