"""check_list: one head, one tail, no cycle — on lists whose sizes straddle the walk stride."""

import numpy as np
import pytest

from graphsweep.core.errors import ListStructureError
from graphsweep.datasets.structure import STRIDE_BITS, _cpu_walks, check_list

STRIDE = 1 << STRIDE_BITS


def _list(n, seed=0, dtype=np.int32):
    order = np.random.default_rng(seed).permutation(n).astype(dtype)
    succ = np.empty(n, dtype)
    succ[order[:-1]] = order[1:]
    succ[order[-1]] = order[-1]
    return succ, order


@pytest.mark.parametrize("n", [1, 2, 3, STRIDE - 1, STRIDE, STRIDE + 1, 2 * STRIDE + 1, 1000, 100_003])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_valid_lists_give_head_and_tail(n, dtype):
    succ, order = _list(n, seed=n, dtype=dtype)
    assert check_list(succ) == (order[0], order[-1])


def test_ordered_and_reversed():
    n = 3 * STRIDE + 5
    ordered = np.minimum(np.arange(1, n + 1), n - 1)
    assert check_list(ordered) == (0, n - 1)
    reversed_ = np.maximum(np.arange(-1, n - 1), 0)
    assert check_list(reversed_) == (n - 1, 0)


@pytest.mark.parametrize("cycle_len", [2, 3, 10, STRIDE, 5 * STRIDE])  # a 1-cycle is a second tail
def test_detached_cycle_is_found(cycle_len):
    n = 1000
    succ, order = _list(n, seed=cycle_len)
    cut = n - cycle_len - 1                      # order[cut] becomes the tail,
    succ[order[cut]] = order[cut]                # order[cut+1:] a cycle with no way out
    succ[order[-1]] = order[cut + 1]
    with pytest.raises(ListStructureError, match=f"{cycle_len} of {n} nodes lie on a cycle"):
        check_list(succ, where="data/l")


def test_faults_are_named():
    with pytest.raises(ListStructureError, match="no tail"):
        check_list(np.array([1, 2, 0]))
    with pytest.raises(ListStructureError, match=r"2 tails \(nodes 1 and 2 "):
        check_list(np.array([1, 1, 2]))
    with pytest.raises(ListStructureError, match=r"3 tails \(nodes 0 \.\.\. 3 "):
        check_list(np.array([0, 1, 3, 3]))
    with pytest.raises(ListStructureError, match="node 1 is the successor of more than one node"):
        check_list(np.array([2, 4, 1, 1, 4, 1]))
    with pytest.raises(ListStructureError, match="node 2 is the successor of more than one node"):
        check_list(np.array([2, 2, 2]))
    with pytest.raises(ListStructureError, match="empty"):
        check_list(np.array([], dtype=np.int32))
    with pytest.raises(ListStructureError, match="^x: "):
        check_list(np.array([1, 2, 0]), where="x")


def test_regular_orders_keep_walks_short():
    """Evens then odds: no index pattern of the list may leave a splitter-free stretch."""
    n = 1 << 16
    order = np.concatenate([np.arange(0, n, 2), np.arange(1, n, 2)])
    succ = np.empty(n, np.int64)
    succ[order[:-1]] = order[1:]
    succ[order[-1]] = order[-1]
    assert check_list(succ) == (0, n - 1)
    _, _, length = _cpu_walks(succ, 0)
    assert length.max() < 64 * STRIDE      # index-multiple splitters would leave one walk of n/2


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 2, 1000, 100_003, (1 << 20) + 7])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_gpu_check_matches_cpu(n, dtype):
    import cupy
    succ, order = _list(n, seed=n, dtype=dtype)
    assert check_list(cupy.asarray(succ)) == check_list(succ) == (order[0], order[-1])


@pytest.mark.gpu
def test_gpu_check_names_the_same_faults():
    import cupy
    n = 5000
    succ, order = _list(n, seed=3)
    cyc = succ.copy()
    cyc[order[4000]] = order[4000]
    cyc[order[-1]] = order[4001]
    two_tails = succ.copy()
    two_tails[order[10]] = order[10]
    dup = succ.copy()
    dup[order[5]] = order[7]
    three_tails = two_tails.copy()
    three_tails[order[20]] = order[20]
    two_dups = dup.copy()
    two_dups[order[30]] = order[40]
    for bad in (cyc, two_tails, three_tails, dup, two_dups, np.roll(np.arange(n), -1)):
        with pytest.raises(ListStructureError) as cpu_error:
            check_list(bad)
        with pytest.raises(ListStructureError) as gpu_error:
            check_list(cupy.asarray(bad))
        assert str(gpu_error.value) == str(cpu_error.value)


@pytest.mark.parametrize("n, cycle_len", [(1, 0), (5, 0), (100_003, 0), (1000, 3), (5000, 7 * STRIDE)])
def test_reached_by_jumping_agrees_with_the_hops(n, cycle_len):
    """The GPU's pointer-jumping sum over the walks (run here with NumPy) equals the host's hops."""
    from graphsweep.datasets.structure import _reached, _reached_by_jumping
    succ, order = _list(n, seed=n + cycle_len)
    head, tail = order[0], order[-1]
    if cycle_len:
        cut = n - cycle_len - 1
        succ[order[cut]] = order[cut]
        succ[order[-1]] = order[cut + 1]
        tail = order[cut]
    starts, stop, length = _cpu_walks(succ, head)
    assert _reached_by_jumping(np, tail, starts, stop, length) == _reached(tail, starts, stop, length) == n - cycle_len
