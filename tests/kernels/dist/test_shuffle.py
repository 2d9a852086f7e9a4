"""The shuffle build of a partitioned graph (kernels/dist/shuffle.py, slices.build): each worker
builds its slice from its share of the edges, the entries sent to their owners through the
communicator; every slice must equal the whole graph's CSR rows [lo, hi) exactly — whatever K,
chunk, exchange buffer and sort piece — from arrays, Parquet parts or a generated source, over
one rank in this process and over the Dask transport on K = 2..4 CPU workers."""

import sys

import numpy as np
import pytest
from graphsweep.core.errors import DatasetError
from graphsweep.core.gpu import to_host
from graphsweep.datasets.reader import Dataset, read
from graphsweep.generators import driver as generator_driver
from graphsweep.generators import memory
from graphsweep.kernels import harness
from graphsweep.kernels.dist import driver, plugin, shuffle, slices
from graphsweep.kernels.dist.comm import SoloComm

from ..conftest import SHAPES, dataset, generated
from .conftest import by_value

by_value(sys.modules[__name__])

TINY = shuffle.Sizes(chunk=64, exchange=5, sort=40)     # many chunks, rounds and sort pieces on small graphs
SMALL = shuffle.Sizes(chunk=2000, exchange=300, sort=500)   # the same over Dask: a few of each a worker
EMPTY = (40, np.zeros(0, np.int32), np.zeros(0, np.int32))


def whole_csr(graph):
    """(offsets, indices) of the whole graph's CSR, by NumPy: both directions, self-loops dropped,
    duplicates kept, each row's neighbours ascending."""
    n, src, dst = graph
    keep = src != dst
    rows = np.concatenate([src[keep], dst[keep]]).astype(np.int64)
    cols = np.concatenate([dst[keep], src[keep]]).astype(np.int64)
    order = np.lexsort((cols, rows))
    return np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]), cols[order]


def assert_whole_rows(graph, pieces):
    """``pieces`` ((lo, hi, offsets, indices) of each slice, in slice order) cut the whole CSR."""
    offsets, indices = whole_csr(graph)
    assert pieces[0][0] == 0 and pieces[-1][1] == graph[0]
    for (lo, hi, off, ind), after in zip(pieces, pieces[1:] + [(graph[0],)]):
        assert hi == after[0] and (lo % slices.ALIGN == 0 or lo == graph[0])
        assert off.dtype == np.int64 and ind.dtype == np.int32
        np.testing.assert_array_equal(off, offsets[lo:hi + 1] - offsets[lo])
        np.testing.assert_array_equal(ind, indices[offsets[lo]:offsets[hi]])


def _slice_arrays(key) -> tuple:
    s = plugin.here().slices[key]
    return s.lo, s.hi, to_host(s.csr.offsets), to_host(s.csr.indices)


def shuffled(data, k: int, address: str, backend: str = "cpu"):
    """(the partition of ``data`` over the cluster's first K workers, each slice's arrays on the host)."""
    inp = harness.prepared(harness.registry.get("cc.distributed"), data)
    part = driver.partitioned(inp, {"partitions": k, "scheduler": address, "comms": "auto"}, backend)
    return part, part.each(_slice_arrays, name="test-slice")


@pytest.fixture
def small_sizes(monkeypatch):
    """The driver hands its workers SMALL's sizes."""
    monkeypatch.setattr(shuffle, "sizes", lambda: SMALL)


@pytest.mark.parametrize("sizes", [TINY, shuffle.Sizes(chunk=1 << 20, exchange=1 << 20, sort=1 << 20)],
                         ids=["tiny", "large"])
@pytest.mark.parametrize("shape", list(SHAPES) + ["empty"])
def test_one_rank_builds_the_whole_csr(shape, sizes):
    graph = EMPTY if shape == "empty" else SHAPES[shape]()
    n, src, dst = graph
    piece, facts = slices.build(SoloComm(np), ("arrays", (src, dst)), 0, 1, n, "cpu", 1, sizes)
    assert_whole_rows(graph, [(piece.lo, piece.hi, piece.csr.offsets, piece.csr.indices)])
    assert facts["edges"] == 2 * int(np.count_nonzero(src != dst)) and facts["passes"] == 2


def test_an_edge_id_outside_the_graph_is_refused_in_one_line():
    """Parquet parts are read without a range check (``read_chunks``): the build makes it."""
    src, dst = np.array([0, 1, 7], np.int32), np.array([1, 2, 3], np.int32)
    with pytest.raises(DatasetError, match=r"^the edge list: edge ids must be in \[0, 5\), found 7$"):
        slices.build(SoloComm(np), ("arrays", (src, dst)), 0, 1, 5, "cpu", 1, TINY)


def test_a_bad_edge_id_on_one_worker_fails_the_build_in_one_line_and_frees_its_peers(workers4):
    """The rank that finds the id fails; its peers, waiting in the bounds' all-reduce, are cancelled."""
    src, dst = np.arange(200, dtype=np.int32) % 50, (np.arange(200, dtype=np.int32) + 1) % 50
    good = dataset((50, src, dst))          # checked as loaded; its columns spoilt after (as a part read unchecked)
    dst[-1] = 50
    bad = Dataset(good.path, good.manifest, {"src": src, "dst": dst})
    with pytest.raises(driver.PartitionError, match=r"^the edge list: edge ids must be in \[0, 50\), found 50$"):
        shuffled(bad, 3, workers4)


# Shapes whose slices differ: R-MAT's skew, many components and isolated vertices, self-loops and
# duplicates, one hub row past every buffer, n = 1 and no edges, and a graph of one word (K > 1:
# slices with no rows)
SLICED = ["rmat", "components", "messy", "star", "single", "empty", "triangle"]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("shape", SLICED)
def test_the_workers_slices_are_the_whole_csrs_rows(workers4, small_sizes, shape, k):
    graph = EMPTY if shape == "empty" else SHAPES[shape]()
    part, pieces = shuffled(dataset(graph), k, workers4)
    try:
        assert_whole_rows(graph, pieces)
        np.testing.assert_array_equal(part.bounds, [p[0] for p in pieces] + [graph[0]])
        assert part.facts["partition_passes"] == 2
    finally:
        part.close()


def test_a_buffer_smaller_than_one_owners_share_of_a_chunk_takes_rounds(workers4, monkeypatch):
    """One chunk a worker, its entries for one owner many times the exchange buffer: every rank
    sends in the same rounds, as many as the largest piece (worker i's entries for owner j) needs,
    and the slices do not change."""
    n, src, dst = graph = SHAPES["rmat"]()
    monkeypatch.setattr(shuffle, "sizes", lambda: shuffle.Sizes(chunk=1 << 20, exchange=100, sort=1 << 20))
    part, pieces = shuffled(dataset(graph), 3, workers4)
    try:
        assert_whole_rows(graph, pieces)
        largest = 0
        for i in range(3):      # the share the driver hands worker i, its entries' owners
            a, b = src[i * src.size // 3:(i + 1) * src.size // 3], dst[i * dst.size // 3:(i + 1) * dst.size // 3]
            rows = np.concatenate([a[a != b], b[a != b]])
            largest = max(largest, np.bincount(np.searchsorted(part.bounds, rows, side="right") - 1).max())
        assert part.facts["partition_rounds"] == -(-largest // 100) > 1
    finally:
        part.close()


def test_slices_shuffled_from_parquet_parts(workers4, small_sizes, tmp_path):
    path = tmp_path / "rmat"
    generator_driver.generate("rmat", path, seed=3, params={"scale": 10, "edge_factor": 8}, part_rows=1500,
                              progress=False)
    data = read(path)
    assert driver._source(harness.prepared(harness.registry.get("cc.distributed"), data))[0] == "parts"
    for k in (2, 3):
        part, pieces = shuffled(data, k, workers4)
        try:
            assert_whole_rows((data.n, data.src, data.dst), pieces)
        finally:
            part.close()


def test_slices_shuffled_from_a_generated_source(workers4, small_sizes):
    params = {"scale": 10, "edge_factor": 8}
    graph = generated("rmat", 7, **params)
    for k in (2, 4):
        part, pieces = shuffled(memory.unmade("rmat", seed=7, params=params), k, workers4)
        try:
            assert_whole_rows(graph, pieces)
        finally:
            part.close()


@pytest.mark.gpu
def test_the_gpu_shuffle_builds_the_cpu_slices_within_its_memory_bound(workers4, monkeypatch):
    """The CuPy path: the CPU path's slices, and a worker's memory pool at most 1.5x its slice's
    bytes plus 24 B a vertex (the counts over every vertex, offsets and cursor) on a graph whose
    slice is large beside the fixed buffers (R-MAT 22 ef 16, about 270 MB a slice over 2 workers
    sharing the GPU; buffers of a few MB)."""
    monkeypatch.setattr(shuffle, "sizes", lambda: shuffle.Sizes(chunk=1 << 18, exchange=1 << 16, sort=1 << 20))
    small = memory.unmade("rmat", seed=8, params={"scale": 12, "edge_factor": 16})
    cpu_part, cpu = shuffled(small, 2, workers4, "cpu")
    gpu_part, gpu = shuffled(memory.unmade("rmat", seed=8, params={"scale": 12, "edge_factor": 16}), 2, workers4,
                             "gpu")
    try:
        for a, b in zip(cpu, gpu):
            assert a[:2] == b[:2]
            np.testing.assert_array_equal(a[2], b[2])
            np.testing.assert_array_equal(a[3], b[3])
    finally:
        cpu_part.close()
        gpu_part.close()
    big = memory.unmade("rmat", seed=8, params={"scale": 22, "edge_factor": 16})
    inp = harness.prepared(harness.registry.get("cc.distributed"), big)
    part = driver.partitioned(inp, {"partitions": 2, "scheduler": workers4, "comms": "auto"}, "gpu")
    try:
        facts = part.facts
        assert facts["slice_bytes_max"] > 200e6
        assert facts["build_peak_bytes_max"] <= 1.5 * facts["slice_bytes_max"] + 24 * inp.n
    finally:
        part.close()
