"""Bad input to the GAP kernels through ``graphsweep kernel``: PageRank on a graph without
vertices, betweenness from a root outside the graph, triangles of a directed dataset — each one
'graphsweep: error:' line naming the dataset and the fault, exit 2, no traceback."""

import json

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.reader import Dataset
from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import harness
from graphsweep.pipeline.cli import main


def _graph(path, n, src, dst, directed=False):
    return write_arrays(path, kind="graph", n=n, directed=directed,
                        columns={"src": np.asarray(src, np.int32), "dst": np.asarray(dst, np.int32)},
                        generator={"name": "by-hand", "params": {}, "seed": 0})


def _error_line(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(["kernel", *map(str, argv), "--backend", "cpu", "--reps", "1", "--warmup", "0"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphsweep: error: ")
    return lines[0]


@pytest.mark.parametrize("name", ["pagerank.pull", "pagerank.spmv", "pagerank.best"])
def test_pagerank_on_a_graph_without_vertices(name, tmp_path, capsys):
    # On disk, the dataset layer already refuses n = 0 (a manifest edited by hand) ...
    data = _graph(tmp_path / "empty", 1, [], [])
    manifest = json.loads((data / "manifest.json").read_text())
    (data / "manifest.json").write_text(json.dumps({**manifest, "n": 0}))
    assert f"{data / 'manifest.json'}: 'n' is 0, expected an integer >= 1" in _error_line(capsys, name, data)
    # ... and PageRank refuses a graph held in memory (a benchmark's, a library caller's).
    empty = Dataset.in_memory("graph", 0, name="empty", src=np.zeros(0, np.int32), dst=np.zeros(0, np.int32))
    with pytest.raises(ParameterError, match=r"^<memory:empty>: PageRank needs a graph with at least one vertex "
                                             r"\(n = 0\)$") as refused:
        harness.run(name, empty, backend="cpu", reps=1, warmup=0)
    assert refused.value.exit_code == 2


@pytest.mark.parametrize("name", ["pagerank.pull", "pagerank.pull-warp", "pagerank.best"])
def test_pagerank_tolerance_below_float32s_reach(name, tmp_path, capsys):
    n = 1000
    ring = np.arange(n)
    data = _graph(tmp_path / "ring", n, ring, (ring + 1) % n)        # every degree 2: the floor 2^-24 sqrt(2)
    line = _error_line(capsys, name, data, "--param", "tolerance=1e-9")
    assert line.endswith("parameter 'tolerance': 1e-09 is below what float32 scores reach on this graph; "
                         "the smallest reachable is 8.5e-08 (dtype=float64 reaches down to 1.6e-16)")
    line = _error_line(capsys, name, data, "--param", "tolerance=1e-17", "--param", "dtype=float64")
    assert line.endswith("parameter 'tolerance': 1e-17 is below what float64 scores reach on this graph; "
                         "the smallest reachable is 1.6e-16")
    with pytest.raises(SystemExit) as exit_:
        main(["kernel", name, str(data), "--backend", "cpu", "--reps", "1", "--warmup", "0",
              "--param", "tolerance=1e-9", "--param", "dtype=float64"])
    assert exit_.value.code == 0 and "verification: passed" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["bc.brandes", "bc.best"])
def test_betweenness_root_out_of_range(name, tmp_path, capsys):
    data = _graph(tmp_path / "g", 4, [0, 1, 2], [1, 2, 3])
    line = _error_line(capsys, name, data, "--param", "root=4")
    assert f"parameter 'root': 4 is not a vertex of {data} (n = 4)" in line


@pytest.mark.parametrize("name", ["tc.search", "tc.best"])
def test_triangles_of_a_directed_dataset(name, tmp_path, capsys):
    data = _graph(tmp_path / "d", 3, [0, 1, 2], [1, 2, 0], directed=True)
    line = _error_line(capsys, name, data)
    assert f"{data}: tc.search needs an undirected graph, and this is a directed, unweighted graph" in line
