"""Properties of every generator kind (checked on the data read back), and its bad parameters."""

import math

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

from graphsweep.datasets import DatasetError, ParameterError, check_list, read_manifest
from graphsweep.generators import GENERATORS, generate


def degrees(data) -> np.ndarray:
    """Degree of every vertex of an undirected dataset (a self-loop counts twice)."""
    return np.bincount(data.src, minlength=data.n) + np.bincount(data.dst, minlength=data.n)


def components(data) -> tuple[int, np.ndarray]:
    """(count, label per vertex) of the connected components, by SciPy."""
    adj = scipy.sparse.coo_matrix((np.ones(data.m), (data.src, data.dst)), shape=(data.n, data.n))
    return scipy.sparse.csgraph.connected_components(adj, directed=False)


@pytest.mark.parametrize("n", [1, 2, 3, 10, 1000, 70_000])
def test_random_list_is_one_list_from_node_0(make, n):
    data = make("list", n=n, part_rows=333)
    head, tail = check_list(data.succ)
    assert head == 0  # genList starts at index 0
    assert data.manifest["stats"] == {"head": 0, "tail": tail}
    if n >= 10:
        assert np.count_nonzero(data.succ == np.arange(1, n + 1)) < n // 5  # not the ordered list


@pytest.mark.parametrize("n", [1, 2, 7, 1000])
def test_ordered_list(make, n):
    data = make("ordered-list", n=n, part_rows=3)
    assert np.array_equal(data.succ, np.minimum(np.arange(1, n + 1), n - 1))
    assert check_list(data.succ) == (0, n - 1)


@pytest.mark.parametrize("n,count", [(1, 1), (2, 1), (2, 2), (10, 3), (1000, 1), (1000, 7), (5000, 4999)])
def test_list_graph_is_count_paths_covering_n(make, n, count):
    data = make("list-graph", n=n, count=count, part_rows=97)
    assert data.m == n - count
    deg = degrees(data)
    assert deg.max(initial=0) <= 2 and np.count_nonzero(data.src == data.dst) == 0
    ncomp, labels = components(data)
    assert ncomp == count
    sizes = np.bincount(labels)
    assert sizes.max() - sizes.min() <= 1  # about n / count each
    # each component is a path: a tree (edges = vertices - 1) with degrees <= 2
    assert np.array_equal(np.bincount(labels[data.src], minlength=ncomp), sizes - 1)


@pytest.mark.parametrize("n,count,k", [(1, 1, 1), (5, 5, 3), (10, 2, 1), (1000, 1, 2), (20_000, 13, 3), (3000, 3, 100)])
def test_tree_is_forest_of_count_trees_at_most_k_children(make, n, count, k):
    data = make("tree", n=n, count=count, k=k, part_rows=1001)
    assert data.m == n - count
    ncomp, labels = components(data)
    assert ncomp == count  # n - count edges and count components: a forest
    children = np.bincount(data.src, minlength=n)  # src is the parent
    assert children.max(initial=0) <= k
    assert np.count_nonzero(np.bincount(data.dst, minlength=n) == 0) == count  # the roots
    assert np.bincount(data.dst, minlength=n).max(initial=0) <= 1
    assert data.manifest["stats"]["trees"] == count


@pytest.mark.parametrize("n", [1, 2, 3, 100, 70_000])
def test_recursive_tree_is_one_shallow_tree_with_permuted_ids(make, n):
    data = make("recursive-tree", n=n, part_rows=1000)
    assert data.m == n - 1 and np.count_nonzero(data.src == data.dst) == 0
    assert components(data)[0] == 1                    # n - 1 edges, connected: a tree
    assert np.bincount(data.src, minlength=n).max(initial=0) <= 1   # src is the child: one parent each
    if n >= 70_000:
        # vertex i hangs from a uniform earlier vertex: expected depth ~ ln n, about half the vertices leaves
        parent = np.full(n, -1)
        parent[data.src] = data.dst
        root = int(np.flatnonzero(parent < 0)[0])
        depth = np.zeros(n, dtype=np.int64)
        frontier, d = np.array([root]), 0
        children = scipy.sparse.csr_matrix((np.ones(n - 1), (data.dst, data.src)), shape=(n, n))
        while frontier.size:
            depth[frontier] = d
            frontier, d = children[frontier].indices, d + 1
        assert depth.max() < 4 * math.log(n) and abs(depth.mean() - math.log(n)) < 2
        assert 0.45 < np.count_nonzero(np.bincount(data.dst, minlength=n) == 0) / n < 0.55
        assert root != 0                                   # ids permuted: the first vertex is anywhere


def test_tree_k1_is_a_path(make):
    data = make("tree", n=500, count=1, k=1)
    assert degrees(data).max() == 2 and components(data)[0] == 1


@pytest.mark.parametrize("m,density,count", [(1, 1.0, 1), (1000, 0.01, 1), (64_000, 0.001, 5), (10_000, 0.5, 7)])
def test_density_graph(make, m, density, count):
    data = make("density", m=m, density=density, count=count, part_rows=4096)
    n = max(1, round(math.sqrt(m / (2 * density))))
    assert (data.n, data.m) == (n, m)
    # every edge stays inside its sub-graph's vertex range; sub-graph j has m // count (+1) edges
    bounds = np.array([j * (n // count) + min(j, n % count) for j in range(count + 1)])
    block = np.searchsorted(bounds, data.src, side="right") - 1
    assert np.array_equal(block, np.searchsorted(bounds, data.dst, side="right") - 1)
    sizes = np.bincount(block, minlength=count)
    assert sizes.sum() == m and sizes.max() - sizes.min() <= 1
    assert data.manifest["stats"]["subgraphs"] == count


def test_uniform_graph_degree_and_weights(make):
    data = make("uniform", n=10_000, degree=6, weights="1:10", part_rows=7000)
    assert data.m == 30_000
    assert data.weighted and data.weight.min() == 1 and data.weight.max() == 10
    assert set(np.unique(data.weight)) == set(range(1, 11))
    assert degrees(data).mean() == 6
    assert degrees(data).max() < 30  # Poisson(6): no hubs


def test_scale_free_hubs_and_max_degree(make):
    n = 20_000
    data = make("scale-free", n=n, part_rows=5000)
    assert data.m == 3 * n
    deg = degrees(data)
    hubs = np.flatnonzero(deg >= 100)
    assert len(hubs) == round(0.001 * n)  # 0.1% of the vertices
    assert np.all(deg[hubs] == 1000) and deg.max() == 1000
    assert not np.array_equal(hubs, np.arange(len(hubs)))  # spread over the ids
    assert data.manifest["stats"]["hubs"] == len(hubs)


def test_scale_free_small_n_caps_hub_degree(make):
    data = make("scale-free", n=50, max_degree=1000)
    assert degrees(data).max() <= 1000 and data.manifest["stats"]["hub_degree"] == 49


def test_rmat_sizes_and_skew(make):
    data = make("rmat", scale=12, edge_factor=16, weights="0:3", part_rows=10_000)
    assert (data.n, data.m) == (4096, 16 * 4096)
    deg = np.sort(degrees(data))[::-1]
    assert deg[0] > 20 * deg.mean()  # a Kronecker graph has heavy hubs
    assert np.count_nonzero(deg == 0) > 0.05 * data.n  # and many isolated vertices
    assert np.argmax(degrees(data)) != 0  # ids permuted: the hub is not vertex 0
    assert data.weight.min() == 0 and data.weight.max() == 3


@pytest.mark.parametrize("kind", [k for k, g in GENERATORS.items() if g.kind == "graph"])
def test_every_graph_kind_is_weighted_on_request(make, kind):
    small = {"list-graph": {"n": 100}, "tree": {"n": 100}, "recursive-tree": {"n": 100}, "density": {"m": 100},
             "uniform": {"n": 100}, "scale-free": {"n": 100}, "rmat": {"scale": 5},
             "grid": {"rows": 10, "cols": 10}}[kind]
    data = make(kind, weights="5:5", **small)
    assert data.weighted and np.all(data.weight == 5)


@pytest.mark.parametrize("kind,params", [
    ("list", {"n": 100_000}), ("list-graph", {"n": 50_000, "count": 3, "weights": "1:9"}),
    ("tree", {"n": 50_000, "count": 2, "k": 3}), ("recursive-tree", {"n": 50_000}),
    ("density", {"m": 50_000, "count": 3}),
    ("uniform", {"n": 20_000, "weights": "1:10"}), ("scale-free", {"n": 20_000}), ("rmat", {"scale": 12}),
    ("grid", {"rows": 150, "cols": 400, "keep": 0.8, "weights": "1:300"}),
])
def test_same_seed_same_bytes_any_part_size_other_seed_differs(make, kind, params):
    a = make(kind, seed=5, part_rows=1 << 20, **params)
    b = make(kind, seed=5, part_rows=7919, **params)
    c = make(kind, seed=6, part_rows=7919, **params)
    assert len(b.manifest["parts"]) > 1
    for name in a.columns:
        assert np.array_equal(a.columns[name], b.columns[name])
    assert any(not np.array_equal(a.columns[x], c.columns[x]) for x in a.columns)


def test_index_dtype_int64_beyond_int32():
    from graphsweep.generators.lists import LIST
    plan = LIST.plan({"n": 2**31 + 5}, 1)
    assert plan.index_dtype == np.int64
    succ = LIST.part(plan, 2**31, 2**31 + 5, np)["succ"]
    assert succ.dtype == np.int64 and succ.min() >= 0 and succ.max() < 2**31 + 5


@pytest.mark.parametrize("kind,params,message", [
    ("list", {"n": 0}, "parameter 'n': 0 is below the minimum 1"),
    ("list", {"n": "many"}, "parameter 'n': 'many' is not an integer"),
    ("list", {"m": 5}, "unknown parameter 'm'"),
    ("list-graph", {"n": 3, "count": 4}, "parameter 'count': 4 is outside the allowed range (1 <= count <= n = 3)"),
    ("tree", {"n": 10, "k": 0}, "parameter 'k': 0 is below the minimum 1"),
    ("tree", {"n": 10, "count": 11}, "parameter 'count'"),
    ("density", {"density": 0.0}, "parameter 'density': 0.0 is outside the allowed range (0 < density <= 1)"),
    ("density", {"density": 1.5}, "parameter 'density': 1.5"),
    ("density", {"m": 10, "density": 1.0, "count": 5}, "parameter 'count': 5"),
    ("uniform", {"weights": "10:1"}, "parameter 'weights': '10:1'"),
    ("uniform", {"weights": "-1:4"}, "parameter 'weights'"),
    ("scale-free", {"n": 1}, "parameter 'n': 1 is below the minimum 2"),
    ("scale-free", {"hub_fraction": 1.0}, "parameter 'hub_fraction'"),
    ("rmat", {"a": 0.9, "b": 0.1, "c": 0.1}, "a + b + c <= 1"),
    ("rmat", {"scale": 0}, "parameter 'scale': 0 is below the minimum 1"),
    ("grid", {"keep": 1.5}, "parameter 'keep': 1.5 is outside the allowed range (0 <= keep <= 1)"),
    ("grid", {"rows": 0}, "parameter 'rows': 0 is below the minimum 1"),
])
def test_bad_parameters_name_the_parameter_and_write_nothing(tmp_path, kind, params, message):
    with pytest.raises(ParameterError) as err:
        generate(kind, tmp_path / "out", seed=1, params=params, progress=False)
    assert message in str(err.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("call,message", [
    ({"name": "nope"}, "unknown generator 'nope'"),
    ({"seed": -1}, "seed: -1"),
    ({"part_rows": 0}, "part_rows: 0"),
    ({"backend": "tpu"}, "backend: 'tpu'"),
    ({"name": "tree", "backend": "gpu"}, "runs on the CPU only"),
])
def test_bad_driver_arguments(tmp_path, call, message):
    args = {"name": "list", "seed": 1, "part_rows": 10, "backend": "cpu", **call}
    with pytest.raises(ParameterError, match=message):
        generate(args.pop("name"), tmp_path / "out", params={"n": 10}, progress=False, **args)
    assert list(tmp_path.iterdir()) == []


def test_failure_in_a_part_leaves_nothing_behind(tmp_path, monkeypatch):
    from graphsweep.generators import driver

    def broken(plan, start, stop, xp):
        if start > 0:
            raise RuntimeError("disk on fire")
        return {"succ": np.arange(start, stop)}

    monkeypatch.setitem(driver.GENERATORS, "list", driver.GENERATORS["list"].__class__(
        **{**driver.GENERATORS["list"].__dict__, "part": broken}))
    with pytest.raises(RuntimeError, match="disk on fire"):
        generate("list", tmp_path / "out", seed=1, params={"n": 100}, part_rows=10, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_manifest_records_generator_resolved_params_and_seed(tmp_path):
    path = generate("tree", tmp_path / "t", seed=42, params={"n": "100", "k": 3}, progress=False)
    manifest = read_manifest(path)
    assert manifest["generator"] == {"name": "tree", "seed": 42,
                                     "params": {"n": 100, "count": 1, "k": 3, "weights": "none"}}


def test_overwrite_replaces_only_a_dataset(tmp_path):
    out = tmp_path / "d"
    generate("list", out, seed=1, params={"n": 10}, progress=False)
    with pytest.raises(DatasetError, match="already exists"):
        generate("list", out, seed=2, params={"n": 10}, progress=False)
    generate("list", out, seed=2, params={"n": 20}, progress=False, overwrite=True)
    assert read_manifest(out)["n"] == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]
