"""cc.select's statistic — how many sampled vertices lie in small components — on the CPU and the
GPU alike, against SciPy's components and hop distances."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

from graphsweep.kernels.cc import select
from graphsweep.kernels.cc.cpu import sample_index
from graphsweep.kernels.graph import from_edges

from .conftest import GRAPHS

CASES = ["small-components", "local-components", "isolated", "grid", "random-list", "many-lists", "tree-k3", "reversed-path",
         "density-0.001", "n=1", "no-edges", "int64-tree"]


def expected_small(graph) -> int:
    """Samples whose component has at most LIMIT vertices, all fewer than LEVELS hops away."""
    n, src, dst = graph
    adjacency = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr()
    _, component = csgraph.connected_components(adjacency, directed=False)
    sizes = np.bincount(component)
    small = 0
    for t in range(select.SAMPLES):
        v = sample_index(t, np.uint64(select.SEED), select.SAMPLES, n)
        if sizes[component[v]] <= select.LIMIT:
            hops = csgraph.shortest_path(adjacency, directed=False, unweighted=True, indices=v)
            small += hops[np.isfinite(hops)].max() < select.LEVELS
    return small


@pytest.mark.parametrize("name", CASES)
def test_cpu_share_counts_small_components(name):
    g = GRAPHS[name]()
    share = select._cpu_small(from_edges(g[1], g[2], g[0]))[0] / select.SAMPLES
    assert share == expected_small(g) / select.SAMPLES


def test_share_separates_the_families():
    shares = {name: select._cpu_small(from_edges(*GRAPHS[name]()[1:], GRAPHS[name]()[0]))[0] / select.SAMPLES
              for name in ("local-components", "small-components", "random-list", "tree-k3", "grid")}
    # components of 1-64 vertices, ids nearby or permuted: small whatever the ids (issue #32)
    assert shares["local-components"] == 1.0 and shares["small-components"] >= select.SMALL_SHARE
    assert shares["random-list"] == shares["tree-k3"] == 0.0 and shares["grid"] < select.SMALL_SHARE


@pytest.mark.gpu
@pytest.mark.parametrize("narrow", [True, False])
@pytest.mark.parametrize("name", CASES)
def test_gpu_share_equals_cpu_share(name, narrow):
    """select.cu samples the same vertices and finds the same verdicts, reading the int32 offsets
    the union-find's setup makes or the CSR's int64 ones."""
    g = GRAPHS[name]()
    inp = from_edges(g[1], g[2], g[0], backend="gpu")
    if narrow:
        select.setup(inp, {})
    assert select._gpu_small(inp)[0] == select._cpu_small(from_edges(g[1], g[2], g[0]))[0]
