"""The randomness schemes: the Feistel permutation is a bijection with a working inverse and its
Numba twin equals the array-module code; Philox blocks do not depend on how rows are sliced."""

import numpy as np
import pytest

from graphsweep.generators.streams import BLOCK_ROWS, Feistel, block_rng, blockwise, stream_key


@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 17, 100, 1023, 1024, 1025, 4097])
def test_feistel_is_a_permutation_with_inverse(n):
    perm = Feistel.for_seed(n, seed=7)
    x = np.arange(n, dtype=np.uint64)
    y = perm.forward(x)
    assert np.array_equal(np.sort(y), x)
    assert np.array_equal(perm.inverse(y), x)


@pytest.mark.parametrize("n", [3, 1000, 5000])
def test_numba_twin_equals_array_code(n):
    perm = Feistel.for_seed(n, seed=11)
    x = np.arange(n, dtype=np.uint64)
    assert np.array_equal(perm.walk_xp(x, np), perm.forward(x))
    assert np.array_equal(perm.walk_xp(x, np, inverse=True), perm.inverse(x))


def test_feistel_depends_on_seed_and_scrambles():
    x = np.arange(10_000, dtype=np.uint64)
    a = Feistel.for_seed(10_000, 1).forward(x)
    b = Feistel.for_seed(10_000, 2).forward(x)
    assert np.count_nonzero(a == b) < 100
    assert np.count_nonzero(a == x) < 100


def test_blockwise_rows_do_not_depend_on_slicing():
    key = stream_key(3, 9)
    total = 3 * BLOCK_ROWS + 123

    def draw(block, rows):
        return (block_rng(key, block).integers(0, 1 << 40, len(rows)), rows)

    whole, rows = blockwise(0, total, total, draw, (np.int64, np.uint64))
    assert np.array_equal(rows, np.arange(total, dtype=np.uint64))
    for start, stop in [(0, 1), (5, BLOCK_ROWS + 7), (BLOCK_ROWS - 1, 3 * BLOCK_ROWS + 1), (total - 3, total)]:
        piece, _ = blockwise(start, stop, total, draw, (np.int64, np.uint64))
        assert np.array_equal(piece, whole[start:stop])
    # distinct blocks draw distinct numbers
    assert not np.array_equal(whole[:100], whole[BLOCK_ROWS:BLOCK_ROWS + 100])
