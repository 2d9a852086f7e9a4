"""Size estimates agree with the plans they stand in for, and the check refuses what cannot fit."""

import pytest

from graphsweep.core import capacity
from graphsweep.core.errors import GraphsweepError
from graphsweep.core.params import resolve
from graphsweep.generators import GENERATORS, generate
from graphsweep.generators.estimate import SHAPES, check_room, generation_cost

SMALL = {"list": {"n": 1000}, "ordered-list": {"n": 1000}, "list-graph": {"n": 1000, "count": 7},
         "tree": {"n": 1000, "count": 3}, "recursive-tree": {"n": 1000},
         "density": {"m": 5000, "density": 0.01, "count": 2},
         "uniform": {"n": 1000, "degree": 5.0}, "scale-free": {"n": 1000}, "rmat": {"scale": 9, "edge_factor": 3},
         "grid": {"rows": 30, "cols": 41, "keep": 0.8}}


def test_every_generator_has_a_shape_equal_to_its_plan():
    assert set(SHAPES) == set(GENERATORS) == set(SMALL)
    for name, given in SMALL.items():
        params = resolve(name, GENERATORS[name].params, given)
        plan = GENERATORS[name].plan(params, 1)
        assert SHAPES[name](params) == (plan.n, plan.rows), name


def test_disk_is_the_column_bytes_and_memory_counts_plan_and_parts():
    gen = GENERATORS["tree"]
    cost = generation_cost(gen, resolve("tree", gen.params, {"n": 2**20}), part_rows=2**18, parallel=2)
    assert cost.parts == 4 and cost.disk_bytes == (2**20 - 1) * 8 + 4 * 4096  # src, dst int32
    assert cost.memory_bytes == 12 * 2**20 + 2 * 2**18 * 96 + 4 * 1024
    wide = generation_cost(GENERATORS["list"], {"n": 2**32}, part_rows=2**20)
    assert wide.disk_bytes == 2**32 * 8 + 4096 * 2**12  # int64 ids past 2^31


def test_the_check_refuses_before_any_file(tmp_path, monkeypatch):
    monkeypatch.setattr(capacity, "free_disk", lambda path: 10_000)
    # 4000 int32 ids in 4 parts: 16,000 B + 4 x 4 KiB of framing
    refusal = r"^generate list \(n = 4000\): need 31.62 kiB of disk under .*, have 9.77 kiB$"
    with pytest.raises(GraphsweepError, match=refusal):
        generate("list", tmp_path / "l", seed=1, params={"n": 4000}, part_rows=1000)
    assert list(tmp_path.iterdir()) == []
    cost = generation_cost(GENERATORS["list"], {"n": 100}, part_rows=1000)
    check_room("small", cost, tmp_path / "x")  # fits
