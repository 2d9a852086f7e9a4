"""``permute_ids`` (issue #32): every graph kind, its vertex ids relabelled by a keyed permutation π —
the same graph, the edge (u, v) of row e becoming (π(u), π(v)), whatever the part size."""

import numpy as np
import pytest

from graphsweep.datasets import read, read_manifest
from graphsweep.generators import GENERATORS, generate, memory
from graphsweep.generators.streams import STREAM_IDS, Feistel

SMALL = {"list-graph": {"n": 3000, "count": 4}, "tree": {"n": 3000, "count": 2, "k": 3},
         "recursive-tree": {"n": 3000}, "density": {"m": 5000, "density": 0.01, "count": 3},
         "uniform": {"n": 3000}, "scale-free": {"n": 3000}, "rmat": {"scale": 11, "edge_factor": 4},
         "grid": {"rows": 40, "cols": 70, "keep": 0.8}}


def degrees(data) -> np.ndarray:
    return np.bincount(data.src, minlength=data.n) + np.bincount(data.dst, minlength=data.n)


def test_every_graph_kind_takes_permute_ids_and_only_graph_kinds_do():
    graphs = {name for name, g in GENERATORS.items() if g.kind == "graph"}
    assert graphs == set(SMALL)
    assert {name for name, g in GENERATORS.items() if "permute_ids" in g.params} == graphs
    assert all(GENERATORS[name].params["permute_ids"].default is False for name in graphs)


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_permuted_graph_is_the_graph_relabelled_by_a_bijection(make, kind):
    plain = make(kind, seed=4, weights="1:1000", **SMALL[kind])
    permuted = make(kind, seed=4, weights="1:1000", permute_ids=True, part_rows=777, **SMALL[kind])
    assert (permuted.n, permuted.m, permuted.src.dtype) == (plain.n, plain.m, plain.src.dtype)
    pi = Feistel.for_seed(plain.n, 4, STREAM_IDS).forward(np.arange(plain.n, dtype=np.uint64))
    assert np.array_equal(np.sort(pi), np.arange(plain.n))          # a bijection of [0, n)
    assert not np.array_equal(pi, np.arange(plain.n))
    assert np.array_equal(permuted.src, pi[plain.src]) and np.array_equal(permuted.dst, pi[plain.dst])
    assert np.array_equal(permuted.weight, plain.weight)             # weights stay with their rows
    assert np.array_equal(degrees(permuted)[pi], degrees(plain))     # so the degree multiset is kept
    assert read_manifest(permuted.path)["generator"]["params"]["permute_ids"] is True
    assert "permute_ids" not in read_manifest(plain.path)["generator"]["params"]


@pytest.mark.parametrize("kind", ["grid", "rmat", "list-graph", "density"])
def test_permuted_bytes_do_not_depend_on_the_part_size_or_the_store(make, kind):
    a = make(kind, seed=2, permute_ids=True, part_rows=1 << 20, **SMALL[kind])
    b = make(kind, seed=2, permute_ids=True, part_rows=613, **SMALL[kind])
    c = memory.generate(kind, seed=2, params={**SMALL[kind], "permute_ids": True}, chunk_rows=1000)
    assert len(b.manifest["parts"]) > 1
    for name in a.columns:
        assert np.array_equal(a.columns[name], b.columns[name])
        assert np.array_equal(a.columns[name], c.columns[name])
    assert c.manifest["generator"] == a.manifest["generator"]


def test_permuted_ids_come_from_their_own_stream_of_the_seed(make):
    one, two = (make("uniform", seed=s, permute_ids=True, n=500) for s in (1, 2))
    assert not np.array_equal(one.src, two.src)
    # rmat permutes its ids already (Graph500): permute_ids relabels them again, by another key
    plain, permuted = make("rmat", scale=8), make("rmat", scale=8, permute_ids=True)
    assert not np.array_equal(plain.src, permuted.src)


def test_a_permuted_grid_loses_its_locality(make):
    plain = make("grid", rows=100, cols=100, keep=0.8)
    permuted = make("grid", rows=100, cols=100, keep=0.8, permute_ids=True)
    near = np.abs(plain.src.astype(np.int64) - plain.dst).mean()
    far = np.abs(permuted.src.astype(np.int64) - permuted.dst).mean()
    assert near < 100 and far > 2000          # row-major: |u - v| is 1 or cols; permuted: ~n/3


def test_permute_ids_false_is_the_dataset_made_without_it(tmp_path):
    a = generate("grid", tmp_path / "a", seed=1, params={"rows": 9, "cols": 9}, progress=False)
    b = generate("grid", tmp_path / "b", seed=1, params={"rows": 9, "cols": 9, "permute_ids": "false"},
                 progress=False)
    assert read_manifest(a)["generator"] == read_manifest(b)["generator"] == {
        "name": "grid", "seed": 1, "params": {"rows": 9, "cols": 9, "keep": 1.0, "weights": "none"}}
    assert all(np.array_equal(read(a).columns[c], read(b).columns[c]) for c in ("src", "dst"))
