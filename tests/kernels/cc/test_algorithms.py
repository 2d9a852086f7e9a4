"""Every connected-components algorithm on both backends, through the harness: SciPy's components,
the shared verifier, every optimisation switched on and off, and small grids so tiny graphs take
the multi-block, grid-stride and chunked paths."""

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.reader import Dataset
from graphsweep.kernels import harness, output, registry
from graphsweep.kernels.cc import CC, canonical_labels

from .conftest import ALL_DEGREES, ALL_TREES, GRAPHS

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
SMALL = {"threads": 32, "blocks": 3}
VARIANTS = {
    "sequential": ("cc.sequential", {}),
    "sv": ("cc.shiloach-vishkin", {}),
    "sv-small": ("cc.shiloach-vishkin", SMALL),
    "hook-compress": ("cc.hook-compress", {}),
    "hook-compress-small": ("cc.hook-compress", {"threads": 64, "blocks": 2}),
    "adaptive": ("cc.adaptive", {}),
    "adaptive-small-7": ("cc.adaptive", {**SMALL, "segments": 7}),
    "adaptive-no-atomic": ("cc.adaptive", {**SMALL, "atomic_hook": False, "segments": 3}),
    "adaptive-no-multi-jump": ("cc.adaptive", {**SMALL, "multi_jump": False}),
    "adaptive-soman": ("cc.adaptive", {"atomic_hook": False, "multi_jump": False, "segments": 1}),
    "suf": ("cc.sampled-union-find", {}),
    "suf-small": ("cc.sampled-union-find", {**SMALL, "thread_max": 2}),
    "suf-hook": ("cc.sampled-union-find", {**SMALL, "thread_max": 2, "link": "hook"}),
    "suf-find": ("cc.sampled-union-find", {"threads": 64, "blocks": 5, "link": "find"}),
    "suf-skip": ("cc.sampled-union-find", {"threads": 64, "blocks": 2, "thread_max": 3, "skip_share": 0.0}),
    "suf-ecl": ("cc.sampled-union-find", {"threads": 96, "blocks": 4, "thread_max": 3, "skip_share": 2.0}),
    "suf-once": ("cc.sampled-union-find", {"threads": 64, "blocks": 3, "thread_max": 3, "sample": False}),
    "suf-once-hook": ("cc.sampled-union-find", {**SMALL, "thread_max": 2, "sample": False, "link": "hook"}),
    "suf-l2-unflattened": ("cc.sampled-union-find", {"threads": 64, "blocks": 3, "loads": "l2", "flatten": False}),
    "suf-once-l2": ("cc.sampled-union-find", {**SMALL, "sample": False, "loads": "l2"}),
    "suf-once-warp": ("cc.sampled-union-find", {"threads": 64, "blocks": 3, "thread_max": 3, "sample": False,
                                                "rows": "warp"}),
    "suf-skip-warp": ("cc.sampled-union-find", {"threads": 64, "blocks": 2, "thread_max": 3, "skip_share": 0.0,
                                                "rows": "warp"}),
    "suf-ecl-warp": ("cc.sampled-union-find", {**SMALL, "thread_max": 2, "skip_share": 2.0, "rows": "warp"}),
}
CANONICAL = {"cc.sequential", "cc.hook-compress", "cc.adaptive", "cc.sampled-union-find"}


GPU_ONLY = {"threads", "blocks", "thread_max", "loads"}     # launch shape and loads: the CPU twins ignore these


def cases(variants):
    """(variant, backend) pairs: every variant on the GPU; on the CPU, one per distinct CPU run."""
    out, cpu_runs = [], set()
    for v in variants:
        name, params = VARIANTS[v]
        cpu_run = (name, tuple(sorted((k, p) for k, p in params.items() if k not in GPU_ONLY)))
        if cpu_run not in cpu_runs:
            cpu_runs.add(cpu_run)
            out.append(pytest.param(v, "cpu", id=f"{v}-cpu"))
        if registry.get(name).gpu is not None:
            out.append(pytest.param(v, "gpu", id=f"{v}-gpu", marks=pytest.mark.gpu))
    return out


def run(name, data, backend, **params):
    res = harness.run(name, data, backend=backend, reps=1, warmup=0, **params)
    assert res.verified, res.verify_error
    return res


def check_labels(name, res, graph, reference):
    label, ref = res.output["label"], reference(graph)
    assert label.dtype == np.int32                      # n < 2^31, whatever the index type
    if name in CANONICAL:                               # these hook the larger root under the smaller
        np.testing.assert_array_equal(label, ref)
    else:
        np.testing.assert_array_equal(canonical_labels(label), ref)
    assert res.stats["components"] == len(np.unique(ref))


@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("variant,backend", cases(VARIANTS))
def test_components_match_scipy(graph, variant, backend, make_dataset, reference):
    name, params = VARIANTS[variant]
    g = GRAPHS[graph]()
    res = run(name, make_dataset(g), backend, **params)
    check_labels(name, res, g, reference)


@pytest.mark.parametrize("graph", list(ALL_TREES) + list(ALL_DEGREES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_tree_arity_and_degree(graph, backend, make_dataset, reference):
    g = {**ALL_TREES, **ALL_DEGREES}[graph]()
    data = make_dataset(g)
    for name in ("cc.shiloach-vishkin", "cc.hook-compress", "cc.adaptive", "cc.sampled-union-find"):
        check_labels(name, run(name, data, backend), g, reference)


@pytest.mark.parametrize("backend", BACKENDS)
def test_shiloach_vishkin_iterations_and_steps(backend, make_dataset):
    g = GRAPHS["tree-k2"]()
    res = run("cc.shiloach-vishkin", make_dataset(g), backend, **SMALL)
    iterations = res.stats["iterations"]
    assert 2 <= iterations <= 4 * 19 + 16          # log_3/2(2000) + 2 = 21: the PRAM bound, with GPU slack
    by_phase = {}
    for row in res.step_rows:
        by_phase.setdefault(row["phase"], []).append(row["step"])
    assert set(by_phase) == {"SV1a", "SV1b", "SV2", "SV3", "SV4", "SV5"}
    for steps in by_phase.values():
        assert steps == list(range(1, iterations + 1))
    sv2 = next(r for r in res.rows if r["phase"] == "SV2")
    assert sv2["calls"] == iterations and sv2["random_accesses"] == iterations * 2 * g[1].size


@pytest.mark.parametrize("backend", BACKENDS)
def test_hook_compress_rounds(backend, make_dataset):
    g = GRAPHS["random-list"]()
    res = run("cc.hook-compress", make_dataset(g), backend, **SMALL)
    rounds, jumps = res.stats["iterations"], res.stats["jumps"]
    assert rounds >= 2 and jumps >= rounds               # the last round hooks nothing; each compresses
    steps = [r["step"] for r in res.step_rows if r["phase"] == "hook"]
    assert steps == list(range(1, rounds + 1))
    assert sum(1 for r in res.step_rows if r["phase"] == "jump") == jumps


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("atomic_hook", [True, False])
@pytest.mark.parametrize("multi_jump", [True, False])
def test_adaptive_segments_and_ablation(atomic_hook, multi_jump, backend, make_dataset, reference):
    g = GRAPHS["uniform-d16"]()
    n, m = g[0], g[1].size
    res = run("cc.adaptive", make_dataset(g), backend, atomic_hook=atomic_hook, multi_jump=multi_jump, **SMALL)
    check_labels("cc.adaptive", res, g, reference)
    assert res.stats["segments"] == round(2 * m / n) == 16          # 004 Fig. 4: the average degree
    hook = "atomic-hook" if atomic_hook else "hook"
    jump = "multi-jump" if multi_jump else "jump"
    assert {r["phase"] for r in res.step_rows} == {hook, jump}
    assert {r["step"] for r in res.step_rows} == set(range(16))     # one step per segment
    if atomic_hook:
        assert res.stats["iterations"] == 16                         # one Atomic-Hook pass per segment
    if multi_jump:
        assert res.stats["jumps"] == res.stats["iterations"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_adaptive_segments_parameter(backend, make_dataset, reference):
    g = GRAPHS["rmat"]()
    for segments in (1, 2, 5, 64):
        res = run("cc.adaptive", make_dataset(g), backend, segments=segments)
        check_labels("cc.adaptive", res, g, reference)
        assert res.stats["segments"] == segments


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("graph,mode", [("uniform-d6", "skip"), ("rmat", "skip"), ("random-list", "skip"),
                                        ("tree-k2", "ecl"), ("many-lists", "ecl")])
def test_sampled_union_find_picks_its_mode(graph, mode, backend, make_dataset, reference):
    g = GRAPHS[graph]()
    res = run("cc.sampled-union-find", make_dataset(g), backend)
    check_labels("cc.sampled-union-find", res, g, reference)
    assert res.stats["mode"] == mode
    share = res.stats["largest_share"]
    assert share >= 0.5 if mode == "skip" else share < 0.5
    init_links = int(np.count_nonzero(_first_smaller(g)))
    # init, link2 and an ECL final pass link each edge once: n - components links and no more
    if mode == "ecl":
        assert init_links + res.stats["links_link2"] + res.stats["links_final"] >= g[0] - res.stats["components"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", ["thread", "warp"])
@pytest.mark.parametrize("graph", ["many-lists", "tree-k2", "uniform-d6", "two-hubs", "grid"])
def test_sampled_union_find_without_sample_links_each_edge_once(graph, rows, backend, make_dataset, reference):
    g = GRAPHS[graph]()
    res = run("cc.sampled-union-find", make_dataset(g), backend, sample=False, thread_max=4, rows=rows)
    check_labels("cc.sampled-union-find", res, g, reference)
    assert res.stats["mode"] == "once" and res.stats["links_link2"] == 0
    # init links each vertex's smallest smaller neighbour; the final pass every other smaller one
    n, src, dst = g
    keep = src != dst
    smaller = np.count_nonzero(src[keep] != dst[keep])     # each non-loop edge (with duplicates) once
    assert int(np.count_nonzero(_first_smaller(g))) + res.stats["links_final"] == smaller


def _first_smaller(graph):
    """For each vertex, whether its smallest neighbour is smaller than itself (init links it)."""
    n, src, dst = graph
    keep = src != dst
    a, b = np.r_[src[keep], dst[keep]], np.r_[dst[keep], src[keep]]
    smallest = np.full(n, n, np.int64)
    np.minimum.at(smallest, a, b)
    return smallest < np.arange(n)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("graph,link", [("random-list", "hook"), ("tree-k3", "hook"), ("uniform-d2", "hook"),
                                        ("uniform-d6", "find"), ("rmat", "find"), ("density-0.01", "find"),
                                        ("grid", "find")])
def test_sampled_union_find_auto_link(graph, link, backend, make_dataset):
    """Atomic-Hook below average degree 4 (lists, trees) unless init's chains are long (a grid's
    row-major ids: each vertex hangs from the one above it), ECL's finds above."""
    res = run("cc.sampled-union-find", make_dataset(GRAPHS[graph]()), backend)
    assert res.stats["link"] == link
    # the probe's samples climb long chains only on the grid, which is flattened before any link
    assert (res.stats["chain_steps"] > 4) == res.stats["flattened"] == (graph == "grid")
    other = "find" if link == "hook" else "hook"
    res = run("cc.sampled-union-find", make_dataset(GRAPHS[graph]()), backend, link=other)
    assert res.stats["link"] != link


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("link", ["find", "hook"])
@pytest.mark.parametrize("skip_share", [0.0, 2.0])
def test_sampled_union_find_long_rows_in_chunks(skip_share, link, backend, make_dataset, reference):
    g = GRAPHS["two-hubs"]()
    res = run("cc.sampled-union-find", make_dataset(g), backend, skip_share=skip_share, thread_max=4, link=link,
              **SMALL)
    check_labels("cc.sampled-union-find", res, g, reference)
    assert res.stats["mode"] == ("skip" if skip_share == 0 else "ecl")
    if backend == "gpu":
        assert res.stats["chunks"] >= 1          # a hub's row went to the warps, 1024 edges a chunk


@pytest.mark.parametrize("name", ["cc.shiloach-vishkin", "cc.hook-compress", "cc.adaptive", "cc.sampled-union-find",
                                  "cc.sequential", "cc.best"])
def test_refuses_lists_and_directed_graphs(name):
    succ = np.array([1, 2, 2], dtype=np.int32)
    with pytest.raises(ParameterError) as err:
        harness.run(name, Dataset.in_memory("list", 3, succ=succ), backend="cpu", reps=1, warmup=0)
    assert "needs an undirected graph" in str(err.value) and "this is a list" in str(err.value)
    assert "\n" not in str(err.value)
    src, dst = np.array([0, 1], np.int32), np.array([1, 2], np.int32)
    directed = Dataset.in_memory("graph", 3, directed=True, src=src, dst=dst)
    with pytest.raises(ParameterError) as err:
        harness.run(name, directed, backend="cpu", reps=1, warmup=0)
    assert "needs an undirected graph" in str(err.value) and "directed" in str(err.value)
    assert "\n" not in str(err.value)


def test_best_is_the_selecting_kernel():
    assert registry.get("cc.best").name == "cc.select"


ONCE, SKIP = "cc.sampled-union-find sample=false", "cc.sampled-union-find"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("graph,chose", [("random-list", "cc.adaptive"), ("many-lists", "cc.adaptive"),
                                         ("tree-k3", "cc.adaptive"),
                                         ("grid", ONCE), ("small-components", "cc.adaptive"),
                                         ("local-components", "cc.adaptive"),
                                         ("isolated", "cc.adaptive"), ("uniform-d6", SKIP), ("rmat", SKIP),
                                         ("n=1", "cc.adaptive"), ("no-edges", "cc.adaptive")])
def test_best_chooses_and_says_so(graph, chose, backend, make_dataset, reference):
    """Dense graphs: the sampled union-find; sparse ones by the share of sampled vertices in small
    components: cc.adaptive when most are or the graph has no more edges than a forest, else the
    union-find without its sample."""
    from graphsweep.kernels.cc.select import FOREST_DEGREE, SMALL_SHARE, SPARSE_BELOW
    g = GRAPHS[graph]()
    data = make_dataset(g)
    res = run("cc.best", data, backend)
    check_labels("cc.best", res, g, reference)
    assert res.kernel == "cc.select" and res.stats["chose"].split(" segments=")[0] == chose
    assert (res.stats["average_degree"] < SPARSE_BELOW) == (chose != SKIP)
    if chose != SKIP:
        forest = res.stats["average_degree"] <= FOREST_DEGREE
        assert (res.stats["small_share"] >= SMALL_SHARE or forest) == (chose == "cc.adaptive")
        assert res.stats["sample_ms"] >= 0
    if chose == "cc.adaptive":   # as many segments as the share outside small components needs
        share, default = res.stats["small_share"], max(1, round(2 * data.m / max(data.n, 1)))
        assert res.stats["segments"] == max(1, round(default * (1 - share)))
        assert res.stats["chose"] == f"cc.adaptive segments={res.stats['segments']}"
    else:
        assert res.stats["mode"] == ("once" if chose == ONCE else "skip")


@pytest.mark.parametrize("backend", BACKENDS)
def test_saved_labels_are_canonical(backend, tmp_path, make_dataset, reference):
    g = GRAPHS["many-lists"]()
    res = run("cc.shiloach-vishkin", make_dataset(g), backend)
    import pyarrow.parquet as pq
    path = output.save(CC, res.output, tmp_path / "labels.parquet")
    table = pq.read_table(path)
    assert table.column_names == ["label"]
    np.testing.assert_array_equal(table.column("label").to_numpy(), reference(g))


@pytest.mark.parametrize("backend", BACKENDS)
def test_edges_as_rate_elements(backend, make_dataset):
    g = GRAPHS["uniform-d6"]()
    res = run("cc.best", make_dataset(g), backend)
    assert res.elements == g[1].size
    assert [r["phase"] for r in res.input_rows] == ["csr"]


@pytest.mark.gpu
@pytest.mark.parametrize("narrow", [True, False])
def test_sampled_union_find_reads_int32_or_int64_offsets(narrow, reference):
    """The GPU passes read the int32 copy of the CSR offsets that setup makes below 2^31 entries, or
    the CSR's int64 offsets when there is none (larger graphs); both give the canonical labels."""
    from graphsweep.kernels.cc import sampled_union_find as suf
    from graphsweep.kernels.graph import from_edges
    from graphsweep.kernels.timing import timer_for
    g = GRAPHS["two-hubs"]()
    inp = from_edges(*g[1:], g[0], backend="gpu")
    params = registry.get("cc.sampled-union-find").resolve_params({"thread_max": 4})
    if narrow:
        suf.setup(inp, params)
    assert suf.offsets(inp).dtype == (np.int32 if narrow else np.int64)
    label = suf.run_gpu(inp, params, timer_for("gpu"))
    np.testing.assert_array_equal(label.get(), reference(g))
