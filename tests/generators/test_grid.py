"""The road-like ``grid`` generator: which edges it keeps, its sizes and its edge cases."""

import numpy as np
import pytest

from graphsweep.generators.grid import full_edges
from graphsweep.generators.streams import BLOCK_ROWS

from .test_kinds import components


def full_grid(rows: int, cols: int) -> set:
    ids = np.arange(rows * cols).reshape(rows, cols)
    pairs = list(zip(ids[:, :-1].ravel(), ids[:, 1:].ravel())) + list(zip(ids[:-1, :].ravel(), ids[1:, :].ravel()))
    return {(int(a), int(b)) for a, b in pairs}


@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 9), (9, 1), (2, 2), (17, 31), (300, 300)])
def test_keep_one_is_the_whole_grid_in_slot_order(make, rows, cols):
    data = make("grid", rows=rows, cols=cols, part_rows=1000)
    assert (data.n, data.m) == (rows * cols, full_edges(rows, cols))
    assert set(zip(data.src.tolist(), data.dst.tolist())) == full_grid(rows, cols)
    horizontal = data.dst - data.src == 1
    assert np.all(horizontal[:rows * (cols - 1)]) and not np.any(horizontal[rows * (cols - 1):]) or cols == 1
    if data.n > 1:
        assert components(data)[0] == 1


@pytest.mark.parametrize("rows,cols,keep", [(5, 7, 0.0), (1, 2, 0.5), (40, 60, 0.8), (300, 500, 0.8), (200, 1000, 0.3)])
def test_kept_edges_are_distinct_grid_edges_spread_over_the_blocks(make, rows, cols, keep):
    data = make("grid", rows=rows, cols=cols, keep=keep, part_rows=4099)
    full = full_edges(rows, cols)
    assert data.m == round(keep * full)
    edges = list(zip(data.src.tolist(), data.dst.tolist()))
    assert len(set(edges)) == data.m and set(edges) <= full_grid(rows, cols)  # no duplicates, no self-loops
    assert np.all(data.src < data.dst)
    # rows run in slot order; each block of slots keeps its even share of m
    horizontal = rows * (cols - 1)
    slot = np.where(data.dst - data.src == 1, data.src - data.src // cols, horizontal + data.src)
    assert np.all(np.diff(slot) > 0)
    per_block = np.bincount(slot // BLOCK_ROWS, minlength=-(-full // BLOCK_ROWS))
    ends = np.minimum(np.arange(1, len(per_block) + 1) * BLOCK_ROWS, full)
    assert np.array_equal(np.cumsum(per_block), ends * data.m // full)


def test_road_like_grid_has_a_giant_component_and_fragments(make):
    data = make("grid", rows=300, cols=300, keep=0.8, seed=3)
    count, labels = components(data)
    sizes = np.bincount(labels)
    assert sizes.max() > 0.9 * data.n  # above the percolation threshold (keep 0.5)
    assert count > 100 and np.count_nonzero(sizes == 1) > 50  # and isolated vertices cut off
    degree = np.bincount(data.src, minlength=data.n) + np.bincount(data.dst, minlength=data.n)
    assert degree.max() == 4 and abs(degree.mean() - 0.8 * 2 * full_edges(300, 300) / data.n) < 1e-9


def test_other_seed_keeps_other_edges(make):
    a = make("grid", rows=100, cols=100, keep=0.5, seed=1)
    b = make("grid", rows=100, cols=100, keep=0.5, seed=2)
    assert a.m == b.m and not np.array_equal(a.src, b.src)
