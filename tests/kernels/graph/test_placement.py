"""Graphs larger than the GPU: the placement planner, graphs generated in memory (``store:
memory``), CSRs built by slices, and the link-aware kernels, on the CPU here and on the GPU
(``gpu`` tests) with the host placement forced on small graphs."""

import numpy as np
import pytest

from graphsweep.core.capacity import NoRoomError
from graphsweep.core.errors import ParameterError
from graphsweep.core.gpu import to_host
from graphsweep.datasets.reader import Dataset, read
from graphsweep.generators import generate, memory
from graphsweep.kernels import harness
from graphsweep.kernels.graph import GraphInput, graph_input, sliced
from graphsweep.kernels.placement import GraphSize, decide

GiB = 1 << 30

# --- the planner ----------------------------------------------------------------------------

RMAT29 = GraphSize(n=2**29, m=20 * 2**29, in_memory=True)      # 86 GB of CSR indices


def test_a_graph_that_fits_the_device_stays_there_built_whole():
    small = GraphSize(n=2**20, m=2**24)
    got = decide(small, backend="gpu", device_bytes=80 * GiB, host_bytes=128 * GiB)
    assert (got.placement, got.build, got.load) == ("device", "whole", "gpu")


def test_a_csr_that_fits_but_whose_whole_build_does_not_is_built_on_the_device_by_slices():
    rmat27 = GraphSize(n=2**27, m=16 * 2**27)   # CSR 17 GB, whole build ~100 GB
    got = decide(rmat27, backend="gpu", device_bytes=80 * GiB, host_bytes=128 * GiB)
    assert (got.placement, got.build, got.load) == ("device", "sliced", "cpu")


def test_a_graph_larger_than_the_gpu_goes_to_host_memory_and_is_never_loaded_when_generated():
    got = decide(RMAT29, backend="gpu", device_bytes=80 * GiB, host_bytes=120 * GiB)
    assert (got.placement, got.build, got.load) == ("host", "sliced", "none")
    on_disk = decide(GraphSize(n=2**29, m=20 * 2**29), backend="gpu", device_bytes=80 * GiB, host_bytes=240 * GiB)
    assert (on_disk.placement, on_disk.load) == ("host", "cpu")


def test_a_cpu_run_holds_the_edge_list_whole_even_when_generated_in_memory():
    got = decide(GraphSize(n=2**20, m=2**24, in_memory=True), backend="cpu", device_bytes=None, host_bytes=128 * GiB)
    assert (got.placement, got.build, got.load) == ("host", "cpu", "cpu")


def test_a_graph_larger_than_the_host_too_is_refused_in_one_line_naming_both_sizes():
    with pytest.raises(NoRoomError) as err:
        decide(RMAT29, backend="gpu", device_bytes=80 * GiB, host_bytes=64 * GiB, what="rmat-29")
    text = str(err.value)
    assert "\n" not in text and "rmat-29" in text and "80.00 GiB" in text and "64.00 GiB" in text


def test_a_forced_placement_is_kept_or_refused():
    small = GraphSize(n=2**20, m=2**24)
    assert decide(small, backend="gpu", device_bytes=80 * GiB, host_bytes=128 * GiB, forced="host").placement == "host"
    with pytest.raises(NoRoomError, match="placement device needs"):
        decide(RMAT29, backend="gpu", device_bytes=80 * GiB, host_bytes=128 * GiB, forced="device")
    with pytest.raises(ParameterError, match="GPU backend"):
        decide(small, backend="cpu", device_bytes=None, host_bytes=128 * GiB, forced="device")
    with pytest.raises(ParameterError, match="one of device, host"):
        decide(small, backend="gpu", device_bytes=80 * GiB, host_bytes=128 * GiB, forced="disk")
    assert decide(small, backend="cpu", device_bytes=None, host_bytes=128 * GiB).placement == "host"


def test_the_placement_is_the_same_for_the_same_sizes():
    a = decide(RMAT29, backend="gpu", device_bytes=80 * GiB, host_bytes=120 * GiB)
    assert all(decide(RMAT29, backend="gpu", device_bytes=80 * GiB, host_bytes=120 * GiB) == a for _ in range(3))


# --- store: memory --------------------------------------------------------------------------

GENERATED = [("rmat", {"scale": 10, "edge_factor": 8}), ("uniform", {"n": 3000, "degree": 5, "weights": "1:9"}),
             ("scale-free", {"n": 2000}), ("density", {"m": 3000, "density": 0.01, "count": 3}), ("tree", {"n": 4000, "count": 3}),
             ("list", {"n": 5000}), ("list-graph", {"n": 3000}),
             ("grid", {"rows": 70, "cols": 90, "keep": 0.8, "weights": "1:300"})]


@pytest.mark.parametrize("name,params", GENERATED, ids=[g for g, _ in GENERATED])
def test_a_dataset_generated_in_memory_is_the_parquet_dataset_bit_for_bit(tmp_path, name, params):
    path = generate(name, tmp_path / name, seed=7, params=params, part_rows=777, progress=False)
    on_disk = read(path)
    in_memory = memory.generate(name, seed=7, params=params, chunk_rows=1000)
    for key in ("kind", "n", "m", "index_dtype", "weighted", "directed", "generator", "stats"):
        assert in_memory.manifest.get(key) == on_disk.manifest.get(key), key
    assert set(in_memory.columns) == set(on_disk.columns)
    for column, values in on_disk.columns.items():
        assert in_memory.columns[column].dtype == values.dtype
        assert np.array_equal(in_memory.columns[column], values), column


def test_the_old_keyword_device_still_names_the_backend_with_a_future_warning(tmp_path):
    path = generate("rmat", tmp_path / "g", seed=7, params={"scale": 6}, progress=False)
    with pytest.warns(FutureWarning, match=r"read\(device=...\) is deprecated; write backend='cpu'"):
        old = read(path, device="cpu")
    assert np.array_equal(old.src, read(path, backend="cpu").src)
    with pytest.warns(FutureWarning, match=r"generate\(device=...\) is deprecated; write backend='cpu'"):
        old = memory.generate("rmat", seed=7, params={"scale": 6}, device="cpu")
    assert old.backend == "cpu" and np.array_equal(old.src, memory.generate("rmat", seed=7, params={"scale": 6}).src)


def test_a_generated_edge_source_gives_the_same_edges_in_any_chunk_size():
    data = memory.generate("rmat", seed=3, params={"scale": 9, "edge_factor": 4})
    edges = memory.edges(data)
    for rows in (1, 1000, 1 << 20):
        chunks = [c for _, c in edges.chunks(np, rows)]
        assert np.array_equal(np.concatenate([c["src"] for c in chunks]), data.src)
        assert np.array_equal(np.concatenate([c["dst"] for c in chunks]), data.dst)


def test_memory_store_refuses_unknown_generators_and_bad_parameters():
    with pytest.raises(ParameterError, match="unknown generator"):
        memory.generate("nope", seed=1)
    with pytest.raises(ParameterError, match="scale"):
        memory.generate("rmat", seed=1, params={"scale": -3})


# --- CSR by slices ---------------------------------------------------------------------------

def _graphs():
    rng = np.random.default_rng(11)
    out = [(1, [], [], None, False), (4, [0, 1, 1], [0, 1, 2], None, False),    # n = 1; self-loops only
           (6, [0, 0, 0, 2], [1, 1, 1, 2], [3, 1, 2, 9], False)]                 # duplicates with weights
    for n, m, directed, weighted in ((200, 3000, False, False), (300, 2000, True, False),
                                     (100, 800, False, True), (400, 1500, True, True), (5000, 900, False, False)):
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        src[: m // 8] = dst[: m // 8]
        out.append((n, src, dst, rng.integers(0, 20, m) if weighted else None, directed))
    return out


@pytest.mark.parametrize("n,src,dst,weight,directed", _graphs())
@pytest.mark.parametrize("entries", [1, 7, 1 << 40])
def test_a_csr_built_by_slices_equals_the_whole_build(n, src, dst, weight, directed, entries):
    src, dst = np.asarray(src, dtype=np.int32), np.asarray(dst, dtype=np.int32)
    weight = None if weight is None else np.asarray(weight, dtype=np.int32)
    whole = GraphInput(n, src, dst, weight, directed=directed)
    for name in ("csr", "rcsr"):
        ref = getattr(whole, name)()
        edges = sliced.Reversed(whole.edges) if name == "rcsr" and directed else whole.edges
        budget = entries * (sliced.SLICE_BYTES_PER_WEIGHTED_ENTRY if weight is not None else sliced.SLICE_BYTES_PER_ENTRY)
        got, slices = sliced.build(np, edges, n, directed=directed, index_dtype=np.dtype(np.int32),
                                   destination="host", budget=budget)
        assert slices >= 1 and (entries > 1 or ref.nnz <= 1 or slices > 1)
        assert np.array_equal(got.offsets, ref.offsets) and np.array_equal(got.indices, ref.indices)
        if weight is not None:  # duplicates' weights may come in another order: compare per (row, column)
            rows = np.repeat(np.arange(n), np.diff(ref.offsets))
            a, b = np.lexsort((ref.weights, ref.indices, rows)), np.lexsort((got.weights, got.indices, rows))
            assert np.array_equal(ref.weights[a], got.weights[b])


def test_a_graph_generated_by_slices_runs_and_verifies_on_the_cpu():
    data = memory.generate("rmat", seed=5, params={"scale": 11, "edge_factor": 8})
    source_only = Dataset(data.path, data.manifest, {})
    source_only.cache["edges"] = memory.edges(data)
    for name in ("cc.streaming", "bfs.emogi", "cc.best", "bfs.best"):
        result = harness.run(name, source_only, backend="cpu", reps=1, warmup=0, instances=2)
        assert result.verified, (name, result.verify_error)
        assert result.placement == "host"
    full = harness.run("cc.streaming", data, backend="cpu", reps=1, warmup=0)
    sliced_run = harness.run("cc.streaming", source_only, backend="cpu", reps=1, warmup=0)
    assert np.array_equal(full.output["label"], sliced_run.output["label"])


# --- the link-aware kernels on the GPU -------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("name", ["cc.best", "bfs.best", "sssp.best", "cc.streaming", "bfs.emogi"])
@pytest.mark.parametrize("store", ["parquet", "memory"])
def test_host_placement_on_the_gpu_verifies_and_counts_link_bytes(tmp_path, name, store):
    params = {"scale": 12, "edge_factor": 8, "weights": "1:50"}
    if store == "memory":
        data = memory.generate("rmat", seed=2, params=params)
        data = Dataset(data.path, data.manifest, {})
        data.cache["edges"] = memory.edges(data)
    else:
        data = generate("rmat", tmp_path / "g", seed=2, params=params, progress=False)
    # small blocks: many streamed blocks even on a small graph
    extra = {"block_entries": 5000} if name in ("cc.streaming", "bfs.emogi") else {}
    host = harness.run(name, data, backend="gpu", reps=2, warmup=1, instances=3, placement="host", **extra)
    assert host.verified, host.verify_error
    assert host.placement == "host"
    assert sum(r["bytes_link"] for r in host.rows if r["phase"] == "total") > 0
    device = harness.run(name, data, backend="gpu", reps=1, warmup=0, instances=3, placement="device", **extra)
    assert device.verified and device.placement == "device"
    if name.startswith("cc"):
        from graphsweep.kernels.cc import canonical_labels
        assert np.array_equal(canonical_labels(host.output["label"]), canonical_labels(device.output["label"]))
    if name.startswith("bfs"):
        assert np.array_equal(host.output["level"], device.output["level"])


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["auto", "lines", "stream", "bottom-up"])
def test_emogi_levels_by_either_read_agree(mode):
    data = memory.generate("uniform", seed=4, params={"n": 20000, "degree": 6})
    ref = harness.run("bfs.best", data, backend="gpu", reps=1, warmup=0, root=17)
    got = harness.run("bfs.emogi", data, backend="gpu", reps=1, warmup=0, root=17, mode=mode,
                      placement="host", block_entries=4096)
    assert got.verified, got.verify_error
    assert np.array_equal(ref.output["level"], got.output["level"])


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["lines", "bottom-up", "auto"])
def test_emogi_counts_a_line_over_the_link_once(mode):
    # Rows sharing a 128-byte line were each counted: 162 GB/s over a link measured at 55 GB/s.
    data = memory.generate("rmat", seed=3, params={"scale": 12, "edge_factor": 8})
    got = harness.run("bfs.emogi", data, backend="gpu", reps=2, warmup=0, root=5, mode=mode, placement="host")
    assert got.verified, got.verify_error
    csr = graph_input(data).csr()
    offsets = to_host(csr.offsets)
    lines = np.zeros(-(-csr.nnz // 32), dtype=bool)
    for v in np.flatnonzero(got.output["level"] >= 0):       # every reached row is read, up to a line of it at least
        if offsets[v + 1] > offsets[v]:
            lines[offsets[v] // 32:-(-offsets[v + 1] // 32)] = True
    link = [r["bytes_link"] for r in got.rows if r["phase"] == "total"]
    # each line of the CSR once at most over the levels that read lines, and the whole CSR for each
    # level auto streamed (its blocks crossed, whatever crossed before)
    streamed = got.stats["stream_levels"] * csr.indices.nbytes
    assert link[0] == link[1] > 0 and link[0] <= 128 * lines.size + streamed
    if mode == "lines":                                       # top-down reads every reached row whole
        assert link[0] == 128 * lines.sum() < got.stats["line_bytes"]


@pytest.mark.gpu
def test_gpu_memory_store_equals_the_cpu_one():
    for name, params in GENERATED:
        cpu = memory.generate(name, seed=9, params=params)
        dev = memory.generate(name, seed=9, params=params, backend="gpu", chunk_rows=1234)
        for column, values in cpu.columns.items():
            assert np.array_equal(dev.columns[column].get(), values), (name, column)


def test_the_wide_id_sort_of_a_slice_orders_as_the_packed_one():
    # Graphs of 2^31 vertices or more cannot pack (row, column) in a word: their slices lexsort.
    rng = np.random.default_rng(8)
    rows, cols = rng.integers(0, 50, 4000), rng.integers(0, 3000, 4000)
    weights = rng.integers(0, 9, 4000).astype(np.int32)
    for w in (None, weights):
        wide_cols, wide_w = sliced._sorted_slice(np, (rows.copy(), cols.copy(), w), packed=False)
        keys = (rows << 32) | cols
        packed_cols, packed_w = sliced._sorted_slice(np, (keys, w), packed=True)
        assert np.array_equal(wide_cols, packed_cols)
        if w is not None:   # the same multiset of weights per (row, column), here in the same order too
            assert np.array_equal(wide_w[np.lexsort((wide_w, wide_cols, np.sort(rows)))],
                                  packed_w[np.lexsort((packed_w, packed_cols, np.sort(rows)))])


@pytest.mark.parametrize("mode", ["auto", "lines", "stream", "bottom-up"])
def test_every_way_of_expanding_an_emogi_level_verifies_on_the_cpu(mode):
    for name, params in (("rmat", {"scale": 11, "edge_factor": 8}), ("uniform", {"n": 3000, "degree": 3}),
                         ("tree", {"n": 2000, "count": 4}), ("list-graph", {"n": 1500, "count": 2})):
        data = memory.generate(name, seed=6, params=params)
        ref = harness.run("bfs.best", data, backend="cpu", reps=1, warmup=0, instances=2)
        got = harness.run("bfs.emogi", data, backend="cpu", reps=1, warmup=0, instances=2, mode=mode)
        assert got.verified, (name, got.verify_error)
        assert np.array_equal(ref.output["level"], got.output["level"]), name


@pytest.mark.parametrize("name", ["pagerank.best", "tc.best", "bc.best"])
def test_kernels_of_the_simple_graph_refuse_a_graph_not_whole_on_the_device_in_one_line(name):
    data = memory.generate("rmat", seed=5, params={"scale": 8})
    source_only = Dataset(data.path, data.manifest, {})
    source_only.cache["edges"] = memory.edges(data)
    with pytest.raises(ParameterError, match="built from the whole edge list") as err:
        harness.run(name, source_only, backend="cpu", reps=1, warmup=0)
    assert "\n" not in str(err.value)
    assert harness.run(name, data, backend="cpu", reps=1, warmup=0).verified
