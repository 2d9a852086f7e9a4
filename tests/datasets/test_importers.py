"""Importers: each format from small files written here, the options, and bad lines."""

import hashlib

import numpy as np
import pytest

from graphsweep.datasets import DatasetError, ParameterError, read, validate
from graphsweep.datasets.importers import import_file


def _write(tmp_path, name, text):
    file = tmp_path / name
    file.write_text(text)
    return file


def test_snap_edgelist_with_comments_tabs_and_blank_lines(tmp_path):
    file = _write(tmp_path, "g.txt", "# Directed graph: g.txt\n% also a comment\n0\t1\n  1   2  \n\n5 3\n")
    data = read(import_file("edgelist", file, tmp_path / "d", part_rows=2), checksums=True)
    assert data.n == 6 and data.m == 3 and not data.weighted and not data.directed
    assert np.array_equal(data.src, [0, 1, 5]) and np.array_equal(data.dst, [1, 2, 3])
    assert data.manifest["source"] == {"format": "edgelist", "file": "g.txt", "relabel": False, "base": 0,
                                       "sha256": hashlib.sha256(file.read_bytes()).hexdigest()}
    assert len(data.manifest["parts"]) == 2


def test_edgelist_options_directed_one_based_relabel(tmp_path):
    file = _write(tmp_path, "g.el", "1 10\n10 1000\n")
    data = read(import_file("edgelist", file, tmp_path / "d", base=1, relabel=True, directed=True))
    assert data.n == 3 and data.directed
    assert np.array_equal(data.src, [0, 1]) and np.array_equal(data.dst, [1, 2])
    sparse = read(import_file("edgelist", file, tmp_path / "e"))
    assert sparse.n == 1001  # ids kept: n = max id + 1


def test_signed_and_zero_padded_ids(tmp_path):
    file = _write(tmp_path, "g.txt", "+0 +0001\n000000000000000000000002 1\n9223372036854775806 0\n")
    data = read(import_file("edgelist", file, tmp_path / "d", relabel=True))
    assert data.n == 4 and np.array_equal(data.src, [0, 2, 3]) and np.array_equal(data.dst, [1, 1, 0])
    assert data.manifest["stats"]["relabelled_from_max_id"] == 2**63 - 2


def test_weighted_edgelist(tmp_path):
    data = validate(import_file("wel", _write(tmp_path, "g.wel", "0 1 5\n1 2 0\n2 2 7\n"), tmp_path / "d"))
    assert (data["m"], data["weight_min"], data["weight_max"], data["self_loops"]) == (3, 0, 7, 1)


def test_dimacs_gr(tmp_path):
    text = "c 9th DIMACS\nc\np sp 4 3\na 1 2 7\na 2 1 7\na 4 3 100\n"
    data = read(import_file("gr", _write(tmp_path, "r.gr", text), tmp_path / "d"))
    assert data.n == 4 and data.directed and data.weighted
    assert np.array_equal(data.src, [0, 1, 3]) and np.array_equal(data.dst, [1, 0, 2])
    assert np.array_equal(data.weight, [7, 7, 100])


def test_matrix_market_symmetric_integer_and_general_pattern(tmp_path):
    sym = "%%MatrixMarket matrix coordinate integer symmetric\n% c\n4 4 3\n2 1 4\n3 2 5\n4 4 1\n"
    data = read(import_file("mtx", _write(tmp_path, "s.mtx", sym), tmp_path / "s"))
    assert data.n == 4 and not data.directed and data.m == 3  # each undirected edge once
    assert sorted(zip(data.src.tolist(), data.dst.tolist(), data.weight.tolist())) == [(1, 0, 4), (2, 1, 5), (3, 3, 1)]
    gen = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 1\n"
    data = read(import_file("mtx", _write(tmp_path, "g.mtx", gen), tmp_path / "g"))
    assert data.directed and not data.weighted and data.m == 2


def test_symmetric_matrix_market_read_as_directed_keeps_both_arcs(tmp_path):
    sym = "%%MatrixMarket matrix coordinate integer symmetric\n4 4 3\n2 1 4\n3 2 5\n4 4 1\n"
    data = read(import_file("mtx", _write(tmp_path, "s.mtx", sym), tmp_path / "s", directed=True))
    assert data.directed and data.m == 5  # each off-diagonal entry as two arcs, the diagonal once
    assert sorted(zip(data.src.tolist(), data.dst.tolist(), data.weight.tolist())) == [
        (0, 1, 4), (1, 0, 4), (1, 2, 5), (2, 1, 5), (3, 3, 1)]


def test_matrix_market_real_weights_refused_unless_rounded(tmp_path):
    file = _write(tmp_path, "r.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 4.4\n1 3 2.6\n")
    with pytest.raises(DatasetError, match="r.mtx: real \\(non-integer\\) weights"):
        import_file("mtx", file, tmp_path / "d")
    assert not (tmp_path / "d").exists()
    data = read(import_file("mtx", file, tmp_path / "d", round_weights=True))
    assert sorted(data.weight.tolist()) == [3, 4]


@pytest.mark.parametrize("value,message", [
    ("nan", "weight nan is not a finite number"),
    ("-inf", "weight -inf is not a finite number"),
    ("2147483647.6", "weight 2147483648.0 is outside [0, 2147483647]"),
])
def test_rounded_weights_must_be_finite_and_fit_32_bits(tmp_path, value, message):
    file = _write(tmp_path, "r.mtx", f"%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 4.4\n1 3 {value}\n")
    with pytest.raises(DatasetError) as err:
        import_file("mtx", file, tmp_path / "d", round_weights=True)
    assert str(err.value) == f"{file}: entry (1, 3): {message}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.mtx"]


def test_no_vertices_is_refused(tmp_path):
    empty = _write(tmp_path, "e.mtx", "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n")
    with pytest.raises(DatasetError, match="e.mtx: a 0 x 0 matrix has no vertices"):
        import_file("mtx", empty, tmp_path / "f")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.mtx"]


@pytest.mark.parametrize("fmt,text", [
    ("gr", "p sp 3 0\n"),
    ("mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n"),
    ("edgelist", "# nothing but a comment\n"),
    ("wel", ""),
])
@pytest.mark.parametrize("relabel", [False, True])
def test_an_empty_graph_is_refused_alike_in_every_format(tmp_path, fmt, text, relabel):
    file = _write(tmp_path, f"g.{fmt}", text)
    with pytest.raises(DatasetError, match=f"g.{fmt}: holds no edges; an empty graph is not imported"):
        import_file(fmt, file, tmp_path / "d", relabel=relabel)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"g.{fmt}"]


@pytest.mark.parametrize("fmt,text,message", [
    ("edgelist", "0 1\n1 2 3\n", "line 2: expected 2 columns (source, target), found 3"),
    ("edgelist", "# c\n0 1\n1\n", "line 3: expected 2 columns"),
    ("edgelist", "0 1\n1 x\n", "line 2: 'x' is not an integer"),
    ("edgelist", "0 1\n1 2.5\n", "line 2: '2.5' is not an integer"),
    ("edgelist", "0 1\n\n-3 2\n", "line 3: source id -3 is below 0"),
    ("edgelist", "# only comments\n", "holds no edges"),
    ("edgelist", "0 99999999999999999999999\n", "line 1: integer 99999999999999999999999 does not fit 64 bits"),
    ("edgelist", "9223372036854775807 1\n0 9223372036854775808\n", "line 2: integer 9223372036854775808 does not fit"),
    ("edgelist", "1 -9223372036854775808\n2 -9223372036854775809\n", "line 2: integer -9223372036854775809 does not"),
    ("wel", "0 1 5\n1 2 -1\n", "line 2: weight -1 is outside [0, 2147483647]"),
    ("wel", "0 1 5\n1 2\n", "line 2: expected 3 columns"),
    ("gr", "p sp 3 2\na 1 2 1\n", "promises 2 arcs, the file holds 1"),
    ("gr", "a 1 2 1\np sp 3 1\n", "line 1: an arc comes before"),
    ("gr", "p sp 3 1\na 1 4 1\n", "line 2: target id 4 is outside [1, 3]"),
    ("gr", "p sp 3 1\na 0 2 1\n", "line 2: source id 0 is outside [1, 3]"),
    ("gr", "p sp 3 1\na 1 2 -5\n", "line 2: weight -5 is outside"),
    ("gr", "p sp 3 1\np sp 3 1\na 1 2 1\n", "exactly one 'p sp N M' line, found 2"),
    ("gr", "p sp 3 1\nx 1 2 1\n", "line 2: expected a 'c', 'p' or 'a' line"),
    ("gr", "p max 3 1\na 1 2 1\n", "line 1: expected 'p sp N M'"),
    ("mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n", "symmetry 'skew-symmetric'"),
    ("mtx", "%%MatrixMarket matrix array integer general\n1 1\n3\n", "dense ('array') matrix"),
    ("mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 -3\n", "weight -3 is outside"),
    ("mtx", "garbage\n", "not a readable Matrix Market file"),
    ("mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 99999999999999999999\n",
     "not a readable Matrix Market file"),
])
def test_bad_files_name_file_and_line_and_write_nothing(tmp_path, fmt, text, message):
    file = _write(tmp_path, f"bad.{fmt}", text)
    with pytest.raises(DatasetError) as err:
        import_file(fmt, file, tmp_path / "out")
    assert str(file) in str(err.value) and message in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [file.name]


def test_bad_calls(tmp_path):
    with pytest.raises(DatasetError, match="no such file"):
        import_file("edgelist", tmp_path / "missing.txt", tmp_path / "d")
    with pytest.raises(ParameterError, match="format 'csv' is not one of"):
        import_file("csv", tmp_path / "x", tmp_path / "d")
    with pytest.raises(ParameterError, match="base: 2"):
        import_file("edgelist", tmp_path / "x", tmp_path / "d", base=2)


def test_refuses_output_that_is_not_a_dataset(tmp_path):
    file = _write(tmp_path, "g.txt", "0 1\n")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes").write_text("keep")
    with pytest.raises(DatasetError, match="not a graphsweep dataset"):
        import_file("edgelist", file, tmp_path / "busy")
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["notes"]
