"""Every list-ranking algorithm on both backends: against the verifier and the sequential walk."""

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.kernels import registry

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
SIZES = [1, 2, 3, 31, 32, 33, 1000, 10**5, 2**20 + 7]
# Small grids and shallow limits so tiny lists reach the multi-block and recursive paths.
SMALL = {
    "listrank.sequential": {},
    "listrank.parallel-splitter": {"p": 7},
    "listrank.wyllie": {"threads": 32, "blocks": 3},
    "listrank.random-splitter": {"threads": 32, "blocks": 3, "p": 5},
    "listrank.helman-jaja": {"threads": 32, "blocks": 3, "limit": 16},
    "listrank.recursive-splitter": {"threads": 32, "blocks": 3, "limit": 16, "sublist": 4, "reduced_sublist": 4},
}
CASES = [pytest.param(name, "cpu", id=f"{name}-cpu") for name in SMALL] + \
    [pytest.param(name, "gpu", id=f"{name}-gpu", marks=pytest.mark.gpu)
     for name in SMALL if registry.get(name).gpu is not None]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name,backend", CASES)
def test_random_lists_small_grids(name, backend, n, make_list, rank_with, sequential_ranks):
    succ = make_list(n, seed=n)
    rank, _ = rank_with(name, succ, backend, **SMALL[name])
    np.testing.assert_array_equal(rank, sequential_ranks(succ))


@pytest.mark.parametrize("name,backend", CASES)
def test_default_params_large_list(name, backend, make_list, rank_with, sequential_ranks):
    succ = make_list(2**20 + 7, seed=7)
    rank, _ = rank_with(name, succ, backend)
    np.testing.assert_array_equal(rank, sequential_ranks(succ))


@pytest.mark.parametrize("order", ["ordered", "reversed"])
@pytest.mark.parametrize("name,backend", CASES)
def test_ordered_and_reversed(name, backend, order, rank_with):
    n = 5000
    idx = np.arange(n, dtype=np.int32)
    succ = np.minimum(idx + 1, n - 1) if order == "ordered" else np.maximum(idx - 1, 0)
    rank, _ = rank_with(name, succ.astype(np.int32), backend, **SMALL[name])
    expected = n - 1 - idx if order == "ordered" else idx
    np.testing.assert_array_equal(rank, expected)


@pytest.mark.parametrize("name,backend", CASES)
def test_int64_indices(name, backend, make_list, rank_with, sequential_ranks):
    succ = make_list(4099, seed=3, dtype=np.int64)
    rank, _ = rank_with(name, succ, backend, **SMALL[name])
    assert rank.dtype == np.int32          # ranks are int32 below 2^31 whatever the index type
    np.testing.assert_array_equal(rank, sequential_ranks(succ))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("packing", [48, 64])
@pytest.mark.parametrize("splitters", ["random", "even"])
def test_random_splitter_variants(backend, packing, splitters, make_list, rank_with, sequential_ranks):
    succ = make_list(20000, seed=11)
    rank, timer = rank_with("listrank.random-splitter", succ, backend, packing=packing, splitters=splitters,
                            p=100, threads=64, blocks=2)
    np.testing.assert_array_equal(rank, sequential_ranks(succ))
    stats = timer.stats()["sublists"]
    assert stats["sublists"] == 100 and stats["sublist_mean"] == pytest.approx(200)
    if splitters == "even":
        assert stats["sublist_min"] == stats["sublist_max"] == 200
    else:
        assert stats["sublist_max"] > stats["sublist_min"]
    assert {"RS1", "RS2", "RS3", "RS4", "RS5"} <= {r["phase"] for r in timer.rows()}


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_splitter_48_bit_limit(backend, make_list, rank_with):
    with pytest.raises(ParameterError, match="at most 32767"):
        rank_with("listrank.random-splitter", make_list(40000), backend, packing=48, p=40000)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rule", ["log", "2log2", "mixed"])
def test_helman_jaja_rules_and_depth(backend, rule, make_list, rank_with, sequential_ranks):
    succ = make_list(100000, seed=5)
    rank, timer = rank_with("listrank.helman-jaja", succ, backend, rule=rule, limit=64, threads=64)
    np.testing.assert_array_equal(rank, sequential_ranks(succ))
    stats = timer.stats()
    sizes = stats["level_sizes"]
    assert stats["depth"] == len(sizes) - 1 >= 1
    assert sizes[0] == 100000 and sizes[-1] <= 64 < sizes[-2]
    if rule == "log":
        assert sizes[1] == int(100000 / np.log2(100000))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("param", ["sublist", "reduced_sublist", "segment"])
def test_recursive_splitter_chunks_must_be_powers_of_two(backend, param, make_list, rank_with):
    with pytest.raises(ParameterError, match=f"'{param}': 24 is not a power of two"):
        rank_with("listrank.recursive-splitter", make_list(100), backend, limit=16, **{param: 24})


@pytest.mark.parametrize("backend", BACKENDS)
def test_recursive_splitter_base_fits_one_block(backend, make_list, rank_with):
    with pytest.raises(ParameterError, match="'limit': 8192 is above 6144"):
        rank_with("listrank.recursive-splitter", make_list(100), backend, limit=8192)


# Each record layout, with sub-lists cut into segments of 2 and 8 nodes (in-place goes on
# under new ids, past the spare tails the reduced list keeps for them), on random, ordered and
# reversed lists, int32 and int64 successors, and lists short enough for the one-block base.
RECORD_CASES = [("in-place", None), ("in-place", 2), ("in-place", 8), ("separate", None)]


@pytest.mark.parametrize("records,segment", RECORD_CASES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 2, 17, 1000, 20011])
def test_recursive_splitter_record_layouts(backend, records, segment, n, make_list, rank_with, sequential_ranks):
    small = {**SMALL["listrank.recursive-splitter"], "records": records, "segment": segment}
    idx = np.arange(n, dtype=np.int32)
    for succ in (make_list(n, seed=n), np.minimum(idx + 1, n - 1), make_list(n, seed=1, dtype=np.int64)):
        rank, timer = rank_with("listrank.recursive-splitter", succ, backend, **small)
        np.testing.assert_array_equal(rank, sequential_ranks(succ))
    if backend == "gpu" and n > 16:
        stats = timer.stats()
        if segment is not None:
            assert stats["offset_bits"] == segment.bit_length() - 1
            assert stats["continued"] > 0 or n < 20011      # sub-lists of mean 4: many pass 8 nodes
        assert stats["sublists"]["sublist_max"] <= (segment or n)
        assert stats["sublists"]["sublists"] == -(-n // 4) + stats["continued"]
        assert 0 <= stats["walk_exits_us"]["p50"] <= stats["walk_exits_us"]["last"]


def test_recursive_splitter_offset_bits_leave_room_for_owners():
    from graphsweep.kernels.listrank.recursive_splitter import offset_bits
    for n, c in [(17, 4), (2**20, 32), (2**26, 32), (2**28, 64), (2**30, 256), (2**31 - 1, 512)]:
        p = -(-n // c)
        b = offset_bits(n, p, None)
        assert p + -(-n >> b) <= 2 ** (32 - b)                    # every id fits beside the offset ...
        assert b == 31 or p + -(-n >> (b + 1)) > 2 ** (31 - b)     # ... and one more offset bit would not
    assert offset_bits(2**26, 2**21, None) == 10                  # 1024 = 32 C: no walk is cut in practice
    assert offset_bits(2**26, 2**21, 8) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_ordered_lists(backend, rank_with):
    for n in (1, 2, 33, 100000):
        succ = np.minimum(np.arange(n, dtype=np.int32) + 1, n - 1)
        rank, _ = rank_with("listrank.scan", succ, backend)
        np.testing.assert_array_equal(rank, n - 1 - np.arange(n))


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_refuses_unordered_list(backend, rank_with):
    succ = np.array([1, 2, 3, 5, 6, 4, 7, 8, 9, 9], dtype=np.int32)   # 0-1-2-3-5-4-6-7-8-9: a list, not ordered
    with pytest.raises(ParameterError, match=r"succ\[3\] is 5, expected 4"):
        rank_with("listrank.scan", succ, backend)


def test_gpu_refuses_lists_of_2_31_nodes():  # a fake input: no GPU needed
    from graphsweep.kernels.listrank import ListInput
    from graphsweep.kernels.listrank.gpu import check_gpu_size

    class Big:
        shape = (2**31,)
    with pytest.raises(ParameterError, match="below 2\\^31"):
        check_gpu_size(ListInput(Big(), 0, 1))


def test_recursive_splitter_default_sublist_keeps_ranks_in_l2():
    from graphsweep.kernels.listrank.recursive_splitter import L2_SUBLISTS, log_chunk
    for n, c in [(1000, 32), (2**26, 32), (2**28, 64), (2**30, 256), (2**31 - 1, 512)]:
        assert 1 << log_chunk({"sublist": None}, n) == c
        assert -(-n // c) <= max(L2_SUBLISTS, n // 32)
    assert log_chunk({"sublist": 8}, 2**30) == 3


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_warmup_sample_is_one_list_of_the_input_kind(backend, dtype, make_list, monkeypatch):
    from graphsweep.datasets.structure import check_list
    from graphsweep.kernels import listrank
    monkeypatch.setattr(listrank, "SAMPLE_NODES", 1000)
    succ = make_list(4001, seed=3).astype(dtype)
    if backend == "gpu":
        import cupy
        succ = cupy.asarray(succ)
    inp = listrank.ListInput(succ, *check_list(succ))
    sample = listrank.sample(inp)
    assert type(sample.succ) is type(succ) and sample.succ.dtype == dtype and sample.n == 1000
    assert (sample.head, sample.tail) == check_list(sample.succ)
    assert listrank.sample(listrank.ListInput(succ[:4000], 0, 0)) is None     # not much longer: warm up on it
