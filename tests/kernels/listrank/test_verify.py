"""The shared verifier rejects wrong ranks; non-lists are refused before any kernel runs."""

import numpy as np
import pytest

from graphsweep.core.errors import DatasetError, ListStructureError, VerificationError
from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import harness, registry
from graphsweep.kernels.contract import Kernel
from graphsweep.kernels.listrank import LISTRANK
from graphsweep.kernels.listrank.verify import verify_ranks


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def ranked(request, make_list, sequential_ranks):
    succ = make_list(1000, seed=4)
    tail = int(np.flatnonzero(succ == np.arange(1000))[0])
    rank = sequential_ranks(succ).astype(np.int32)
    if request.param == "gpu":
        import cupy
        return cupy.asarray(succ), tail, cupy.asarray(rank)
    return succ, tail, rank


def test_accepts_correct_ranks(ranked):
    succ, tail, rank = ranked
    assert verify_ranks(succ, tail, rank) == {}


def test_rejects_swapped(ranked):
    succ, tail, rank = ranked
    i, j = int(np.argmax(rank == 500)), int(np.argmax(rank == 700))
    rank[[i, j]] = rank[[j, i]]
    with pytest.raises(VerificationError, match="a link must be one step"):
        verify_ranks(succ, tail, rank)


def test_rejects_off_by_one(ranked):
    succ, tail, rank = ranked
    with pytest.raises(VerificationError, match="rank\\[tail"):
        verify_ranks(succ, tail, rank + 1)


def test_rejects_wrong_tail(ranked):
    succ, tail, rank = ranked
    rank[tail] = 5
    with pytest.raises(VerificationError, match=f"rank\\[tail={tail}\\] is 5"):
        verify_ranks(succ, tail, rank)


def test_rejects_wrong_shape(ranked):
    succ, tail, rank = ranked
    with pytest.raises(VerificationError, match="shape"):
        verify_ranks(succ, tail, rank[:-1])


def _never_called(inp, params, timer):
    raise AssertionError("a kernel ran on a dataset that is not one list")


@pytest.fixture
def sentinel(monkeypatch):
    """A kernel that fails the test if it ever runs."""
    kernel = Kernel(name="listrank.sentinel", problem=LISTRANK, summary="test", cpu=_never_called)
    monkeypatch.setattr(registry, "get", lambda name: kernel)
    return kernel


@pytest.mark.parametrize("succ,fault", [
    ([1, 2, 0], "no tail"),                                # a cycle
    ([2, 2, 3, 3], "successor of more than one node"),     # two heads meeting
    ([1, 1, 3, 3], "2 tails"),                             # two lists
    ([1, 2, 3, 9], "outside \\[0, n=4\\)"),                # out of range
])
def test_non_lists_refused_before_any_kernel(tmp_path, sentinel, succ, fault):
    path = write_arrays(tmp_path / "bad", kind="list", n=len(succ), columns={"succ": np.array(succ, np.int32)},
                        generator={"name": "test", "params": {}, "seed": 0})
    with pytest.raises((ListStructureError, DatasetError), match=fault):
        harness.run("listrank.sentinel", path, backend="cpu", reps=1, warmup=0)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_rejects_ranks_of_two_lists_merging(backend):
    """Two chains into one tail satisfy the link rule; only the permutation check catches them."""
    succ, rank = np.array([2, 2, 2], np.int32), np.array([1, 1, 0], np.int32)
    if backend == "gpu":
        import cupy
        succ, rank = cupy.asarray(succ), cupy.asarray(rank)
    with pytest.raises(VerificationError, match="not a permutation"):
        verify_ranks(succ, 2, rank)
