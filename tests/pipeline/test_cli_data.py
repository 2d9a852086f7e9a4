"""The data commands end to end through ``graphsweep.pipeline.cli.main``: good runs print a
summary; each bad input is one 'graphsweep: error: ...' line (or click's usage error), exit 2,
no traceback, and nothing written."""

import json

import numpy as np
import pytest

from graphsweep.datasets import read, read_manifest
from graphsweep.pipeline.cli import main
from graphsweep.pipeline.cli_data import parse_rows


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exit_:
        main(list(map(str, argv)))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return exit_.value.code, out, err


def test_generate_prints_summary_and_progress(tmp_path, capsys):
    code, out, err = run(capsys, "generate", "list", "--n", "5000", "--out", tmp_path / "l",
                         "--part-rows", "1K", "--seed", "4")
    assert code == 0
    assert "5,000 elements in" in out and "M elements/s" in out and "MB/s of Parquet" in out
    assert "generate list: 5/5 parts" in err
    manifest = read_manifest(tmp_path / "l")
    assert manifest["generator"] == {"name": "list", "params": {"n": 5000}, "seed": 4}
    assert len(manifest["parts"]) == 5


def test_generate_graph_with_params_and_workers(tmp_path, capsys):
    code, out, _ = run(capsys, "generate", "rmat", "--scale", "8", "--edge-factor", "4", "--weights", "1:10",
                       "--out", tmp_path / "r", "--workers", "2", "--part-rows", "300")
    assert code == 0 and "1,024 edges in" in out
    data = read(tmp_path / "r")
    assert data.m == 1024 and data.weight.max() <= 10
    # the same command in-process gives the same bytes
    assert run(capsys, "generate", "rmat", "--scale", "8", "--edge-factor", "4", "--weights", "1:10",
               "--out", tmp_path / "s")[0] == 0
    assert all(np.array_equal(data.columns[c], read(tmp_path / "s").columns[c]) for c in data.columns)


def test_generate_takes_permute_ids(tmp_path, capsys):
    from graphsweep.generators import memory
    assert run(capsys, "generate", "grid", "--rows", "30", "--cols", "20", "--permute-ids", "true",
               "--part-rows", "100", "--out", tmp_path / "g")[0] == 0
    data = read(tmp_path / "g")
    assert data.manifest["generator"]["params"]["permute_ids"] is True
    same = memory.generate("grid", seed=1, params={"rows": 30, "cols": 20, "permute_ids": True})
    assert all(np.array_equal(data.columns[c], same.columns[c]) for c in ("src", "dst"))
    assert "--permute-ids" in run(capsys, "generate", "grid", "--help")[1]


def test_datasets_show_validate(tmp_path, capsys):
    run(capsys, "generate", "tree", "--n", "100", "--count", "3", "--out", tmp_path / "t")
    code, out, _ = run(capsys, "datasets", "show", tmp_path / "t")
    assert code == 0 and "graph, n = 100, m = 97, undirected, unweighted" in out and '"trees": 3' in out
    code, out, _ = run(capsys, "datasets", "show", tmp_path / "t", "--json")
    assert json.loads(out)["generator"]["params"]["count"] == 3
    code, out, _ = run(capsys, "datasets", "validate", tmp_path / "t")
    assert code == 0 and out.startswith(f"OK {tmp_path / 't'}: graph") and "m = 97" in out


def test_datasets_import(tmp_path, capsys):
    (tmp_path / "r.gr").write_text("p sp 3 2\na 1 2 7\na 2 3 1\n")
    code, out, _ = run(capsys, "datasets", "import", "gr", tmp_path / "r.gr", "--out", tmp_path / "d")
    assert code == 0 and "n = 3, m = 2, directed, weighted" in out
    assert read(tmp_path / "d").directed


def _error_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphsweep: error: ")
    return lines[0]


@pytest.mark.parametrize("argv,message", [
    (["generate", "list", "--n", "0"], "parameter 'n': 0 is below the minimum 1"),
    (["generate", "list", "--n", "ten"], "parameter 'n': 'ten' is not an integer"),
    (["generate", "density", "--density", "0"], "parameter 'density': 0.0 is outside the allowed range (0 < density <= 1)"),
    (["generate", "density", "--density", "1.01"], "parameter 'density': 1.01"),
    (["generate", "tree", "--k", "0"], "parameter 'k': 0 is below the minimum 1"),
    (["generate", "list-graph", "--n", "4", "--count", "5"], "parameter 'count': 5"),
    (["generate", "uniform", "--weights", "1-10"], "parameter 'weights': '1-10'"),
    (["generate", "list", "--seed", "-3"], "parameter 'seed': -3 is below the minimum 0"),
    (["generate", "list", "--part-rows", "0"], "parameter 'part_rows': 0 is below the minimum 1"),
    (["generate", "list", "--part-rows", "lots"], "parameter 'part_rows'"),
    (["generate", "tree", "--backend", "gpu"], "runs on the CPU only"),
])
def test_bad_generate_is_one_line_exit_2_nothing_written(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, *argv, "--out", tmp_path / "out")
    assert code == 2 and message in _error_line(err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv,message", [
    (["generate", "lst"], "unknown KIND 'lst'; kinds: list, ordered-list, list-graph, tree"),
    (["generate", "list", "--count", "3"], "No such option '--count'"),
    (["datasets", "import", "csv", "x.csv"], "'csv' is not one of"),
])
def test_usage_errors_exit_2(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, *argv, "--out", tmp_path / "out")
    assert code == 2 and message in err
    assert list(tmp_path.iterdir()) == []


def test_output_that_is_not_a_dataset_is_untouched(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "data.csv").write_text("precious")
    code, _, err = run(capsys, "generate", "list", "--n", "10", "--out", out)
    assert code == 2 and "exists and is not a graphsweep dataset" in _error_line(err)
    assert [p.name for p in out.iterdir()] == ["data.csv"] and (out / "data.csv").read_text() == "precious"
    code, _, err = run(capsys, "generate", "list", "--n", "10", "--out", out, "--overwrite")
    assert code == 2 and "not a graphsweep dataset" in _error_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_existing_dataset_needs_overwrite(tmp_path, capsys):
    assert run(capsys, "generate", "list", "--n", "10", "--out", tmp_path / "l")[0] == 0
    code, _, err = run(capsys, "generate", "list", "--n", "20", "--out", tmp_path / "l")
    assert code == 2 and "pass --overwrite" in _error_line(err)
    assert run(capsys, "generate", "list", "--n", "20", "--out", tmp_path / "l", "--overwrite")[0] == 0
    assert read_manifest(tmp_path / "l")["n"] == 20


def _corrupt(path):
    (path / "part-00001.parquet").write_bytes(b"garbage")


def _drop_part(path):
    (path / "part-00000.parquet").unlink()


@pytest.mark.parametrize("damage,message", [
    (_corrupt, "part-00001.parquet: sha256 is "),
    (_drop_part, "part-00000.parquet: part listed in the manifest is missing"),
])
def test_validate_bad_dataset(tmp_path, capsys, damage, message):
    run(capsys, "generate", "list", "--n", "10", "--part-rows", "3", "--out", tmp_path / "l")
    damage(tmp_path / "l")
    code, _, err = run(capsys, "datasets", "validate", tmp_path / "l")
    assert code == 2 and message in _error_line(err)


def test_validate_reports_list_without_tail(tmp_path, capsys):
    from graphsweep.datasets import write_arrays
    write_arrays(tmp_path / "c", kind="list", n=3, columns={"succ": np.array([1, 2, 0])}, generator={"name": "x"})
    code, _, err = run(capsys, "datasets", "validate", tmp_path / "c")
    assert code == 2 and "no tail" in _error_line(err)
    write_arrays(tmp_path / "h", kind="list", n=4, columns={"succ": np.array([2, 2, 3, 3])}, generator={"name": "x"})
    code, _, err = run(capsys, "datasets", "validate", tmp_path / "h")
    assert code == 2 and "successor of more than one node" in _error_line(err)


def test_show_dataset_with_missing_part(tmp_path, capsys):
    run(capsys, "generate", "list", "--n", "10", "--part-rows", "3", "--out", tmp_path / "l")
    _drop_part(tmp_path / "l")
    code, _, err = run(capsys, "datasets", "show", tmp_path / "l")
    assert code == 2
    assert _error_line(err) == (f"graphsweep: error: {tmp_path / 'l' / 'part-00000.parquet'}: "
                                f"part listed in the manifest is missing")


def test_show_and_import_errors(tmp_path, capsys):
    code, _, err = run(capsys, "datasets", "show", tmp_path / "nothing")
    assert code == 2 and "no such dataset directory" in _error_line(err)
    (tmp_path / "g.txt").write_text("0 1\n1 x\n")
    code, _, err = run(capsys, "datasets", "import", "edgelist", tmp_path / "g.txt", "--out", tmp_path / "d")
    assert code == 2 and "g.txt: line 2: 'x' is not an integer" in _error_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt"]


@pytest.mark.parametrize("text,rows", [("1", 1), ("1048576", 1 << 20), ("1M", 1 << 20), ("3m", 3 << 20),
                                       ("64K", 64 << 10), ("1G", 1 << 30), ("1e6", 10**6)])
def test_parse_rows(text, rows):
    assert parse_rows("part_rows", text) == rows
