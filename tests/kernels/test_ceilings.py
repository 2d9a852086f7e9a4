"""The device ceilings: one call measures copy, gather and chase rates."""

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.kernels import ceilings

KEYS = {"backend", "device", "copy_gbps", "gather_gelems", "chase_gsteps", "chase_store4_gsteps", "chase_store8_gsteps",
        "table_bytes"}
LINK = {"h2d_gbps", "d2h_gbps", "mapped_sequential_gbps", "mapped_lines_gbps", "mapped_naive_gbps"}


def _check(c, backend):
    device = {"sm_count", "l2_bytes", "clock_khz"} | LINK
    assert set(c) == KEYS | (device if backend == "gpu" else set()) and c["backend"] == backend
    assert c["copy_gbps"] > 0 and c["gather_gelems"] > 0 and c["chase_gsteps"] > 0
    # every chase step reads at least 4 bytes, so it cannot outrun the copy bandwidth; with a store
    # per step it moves 4 + 4 or 4 + 8 bytes
    assert 4 * c["chase_gsteps"] < c["copy_gbps"]
    assert 0 < 8 * c["chase_store4_gsteps"] < c["copy_gbps"] and 0 < 12 * c["chase_store8_gsteps"] < c["copy_gbps"]


def test_cpu():
    _check(ceilings.measure("cpu"), "cpu")


@pytest.mark.gpu
def test_gpu():
    c = ceilings.measure("gpu")
    _check(c, "gpu")
    assert c["table_bytes"] >= 256 * 2**20 and c["sm_count"] >= 1 and c["l2_bytes"] >= 2**20 and c["clock_khz"] > 0
    # a store per step (to the node just read, as a list walk writes its rank) costs the chase: the
    # lines it dirties are written back to DRAM
    assert c["chase_store8_gsteps"] < c["chase_gsteps"]
    # access shape is everything over the link: whole lines a warp at a time beat a line per thread,
    # and nothing read through mapped memory outruns the bulk copy engine by much
    assert c["mapped_lines_gbps"] > c["mapped_naive_gbps"] > 0
    assert 0 < c["mapped_sequential_gbps"] < 1.5 * c["h2d_gbps"] and c["d2h_gbps"] > 0


@pytest.mark.parametrize("bits", [1, 2, 5, 10, 16])
def test_the_cpu_cycle_is_the_gpu_cycle_and_one_cycle(bits):
    n = 1 << bits
    table = ceilings.make_cpu_cycle(n, seed=0x5EED)
    # ceilings.cu: next[perm(i)] = perm(i + 1 mod n), perm a bijection
    constants = ceilings._perm_constants(bits, 0x5EED)
    perm = np.array([ceilings._perm(np.uint64(i), *constants[:4]) for i in range(n)], dtype=np.int64)
    assert np.array_equal(np.sort(perm), np.arange(n))
    assert np.array_equal(table[perm], np.roll(perm, -1))
    # one cycle through every entry: the walk from 0 first comes back after n steps
    x, seen = 0, np.zeros(n, dtype=bool)
    for _ in range(n):
        assert not seen[x]
        seen[x], x = True, table[x]
    assert x == 0 and seen.all()


@pytest.mark.gpu
def test_the_gpu_makes_the_cpu_cycle():
    import cupy
    table = cupy.empty(1 << 16, dtype=np.int32)
    assert ceilings.make_cycle(table) == 16
    assert np.array_equal(table.get(), ceilings.make_cpu_cycle(1 << 16))


def test_the_cpu_cycle_wants_a_power_of_two():
    with pytest.raises(ParameterError, match="power of two entries, got 1000"):
        ceilings.make_cpu_cycle(1000)


def test_unknown_backend():
    with pytest.raises(ParameterError, match="backend must be"):
        ceilings.measure("tpu")
