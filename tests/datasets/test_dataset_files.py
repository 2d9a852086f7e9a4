"""Writer atomicity, reader and validate, and every way a dataset on disk can be bad: each is one
DatasetError naming the file and the fault."""

import json
import os
import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphsweep.datasets import (DatasetError, ListStructureError, abort, begin, commit, read,
                                 validate, write_arrays, write_part)
from graphsweep.datasets import reader
from graphsweep.datasets.format import sha256_file


def _graph(path, m=10, n=5, weighted=True, part_rows=4):
    rng = np.random.default_rng(0)
    cols = {"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m)}
    if weighted:
        cols["weight"] = rng.integers(0, 9, m)
    return write_arrays(path, kind="graph", n=n, columns=cols, part_rows=part_rows,
                        weighted=weighted, generator={"name": "test"}), cols


def _list(path, succ, part_rows=3):
    return write_arrays(path, kind="list", n=len(succ), columns={"succ": np.asarray(succ)},
                        part_rows=part_rows, generator={"name": "test"})


def test_round_trip_graph_and_list(tmp_path, make_list):
    path, cols = _graph(tmp_path / "g")
    data = read(path, checksums=True)
    assert len(data.manifest["parts"]) == 3
    for name, values in cols.items():
        assert np.array_equal(data.columns[name], values)
    assert data.src.dtype == np.int32 and data.weight.dtype == np.int32
    succ = make_list(1000, seed=3)
    assert validate(_list(tmp_path / "l", succ, part_rows=64))["tail"] == succ[succ == np.arange(1000)][0]


def test_begin_abort_leaves_nothing(tmp_path):
    pending = begin(tmp_path / "d", kind="list", n=4)
    write_part(pending, 0, {"succ": np.array([1, 2, 3, 3])})
    abort(pending)
    assert list(tmp_path.iterdir()) == []


def test_uncommitted_parts_are_invisible_until_commit(tmp_path):
    pending = begin(tmp_path / "d", kind="list", n=4)
    parts = [write_part(pending, 0, {"succ": np.array([1, 2])}), write_part(pending, 1, {"succ": np.array([3, 3])})]
    assert not (tmp_path / "d").exists()
    with pytest.raises(DatasetError, match="no such dataset"):
        read(tmp_path / "d")
    commit(pending, parts, generator={"name": "test"})
    assert [p.name for p in tmp_path.iterdir()] == ["d"]
    assert np.array_equal(read(tmp_path / "d").succ, [1, 2, 3, 3])


def test_refuses_a_directory_that_is_not_a_dataset(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    with pytest.raises(DatasetError, match="exists and is not a graphsweep dataset"):
        _list(out, [0], part_rows=1)
    assert [p.name for p in out.iterdir()] == ["thesis.tex"] and (out / "thesis.tex").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def _rewrite_part(path, index, table):
    part = json.loads((path / "manifest.json").read_text())["parts"][index]["path"]
    pq.write_table(table, path / part)


@pytest.mark.parametrize("damage,message", [
    (lambda p: (p / "part-00001.parquet").write_bytes(b"PAR1 not really"), "part-00001.parquet: not a readable Parquet file"),
    (lambda p: (p / "part-00001.parquet").unlink(), "part-00001.parquet: part listed in the manifest is missing"),
    (lambda p: _rewrite_part(p, 0, pa.table({"src": pa.array([1], pa.int32()), "weight": pa.array([1], pa.int32())})),
     "part-00000.parquet: column 'dst' is missing"),
    (lambda p: _rewrite_part(p, 0, pa.table({"src": pa.array([1, 2, 3, 4], pa.int64()), "dst": pa.array([1, 2, 3, 4], pa.int32()),
                                             "weight": pa.array([1, 2, 3, 4], pa.int32())})),
     "part-00000.parquet: column 'src' is int64, the manifest needs int32"),
    (lambda p: _rewrite_part(p, 0, pa.table({"src": pa.array([1, 2, 3], pa.int32()), "dst": pa.array([1, 2, 3], pa.int32()),
                                             "weight": pa.array([1, 2, 3], pa.int32())})),
     "part-00000.parquet: holds 3 rows, the manifest says 4"),
    (lambda p: _rewrite_part(p, 2, pa.table({"src": pa.array([1, 7], pa.int32()), "dst": pa.array([1, 2], pa.int32()),
                                             "weight": pa.array([1, 2], pa.int32())})),
     "column 'src' row 9 is 7, outside [0, n=5)"),
    (lambda p: _rewrite_part(p, 1, pa.table({"src": pa.array([1, 2, 3, 4], pa.int32()), "dst": pa.array([1, -2, 3, 4], pa.int32()),
                                             "weight": pa.array([1, 2, 3, 4], pa.int32())})),
     "column 'dst' row 5 is -2, outside [0, n=5)"),
    (lambda p: _rewrite_part(p, 1, pa.table({"src": pa.array([1, 2, 3, 4], pa.int32()), "dst": pa.array([1, 2, 3, 4], pa.int32()),
                                             "weight": pa.array([1, -2, 3, 4], pa.int32())})),
     "column 'weight' row 5 (edge 2 - 2) is -2: weights must be >= 0"),
    (lambda p: _rewrite_part(p, 1, pa.table({"src": pa.array([1, 2, 3, 4], pa.int32()), "dst": pa.array([1, 2, 3, 4], pa.int32()),
                                             "weight": pa.array([1.5, 2, 3, 4], pa.float64())})),
     "column 'weight' is double, the manifest needs int32"),
    (lambda p: (p / "manifest.json").write_text((p / "manifest.json").read_text().replace('"m": 10', '"m": 11')),
     "graph parts hold 10 rows in all, 'm' is 11"),
    (lambda p: (p / "manifest.json").write_text("{not json"), "manifest.json: not readable JSON"),
])
def test_damaged_graph_is_one_clear_error(tmp_path, damage, message):
    path, _ = _graph(tmp_path / "g")
    damage(path)
    with pytest.raises(DatasetError) as err:
        read(path, checksums=False)  # reach the specific check
    assert message in str(err.value) and str(path) in str(err.value)
    with pytest.raises(DatasetError, match=str(path)):
        validate(path)  # validate also fails (possibly at the checksum first)


def test_replaced_part_fails_its_checksum(tmp_path):
    path, _ = _graph(tmp_path / "g")
    other, _ = _graph(tmp_path / "h", m=10, n=5)
    part = path / "part-00000.parquet"
    recorded = json.loads((path / "manifest.json").read_text())["parts"][0]["sha256"]
    # a valid Parquet part with the right schema, rows and value range, but other values
    pq.write_table(pa.table({c: pa.array(np.flip(read(other).columns[c][:4])) for c in ("src", "dst", "weight")}),
                   part)
    read(path, checksums=False)  # without checksums the values are still in range, so reading works
    for check in (lambda: read(path), lambda: validate(path)):
        with pytest.raises(DatasetError) as err:
            check()
        assert str(err.value) == (f"{part}: sha256 is {sha256_file(part)}, the manifest records {recorded} "
                                  "(the part is corrupt or was replaced)")


def test_a_part_is_hashed_once_per_process_until_it_is_written(tmp_path, monkeypatch):
    # Hashing costs more than the read (a 2^23-node list: 70 ms against 59): a worker reading a
    # dataset again, or graphsweep kernel's second look, pays once per part.
    path, _ = _graph(tmp_path / "g", part_rows=4)
    hashed = []
    monkeypatch.setattr(reader, "sha256_file", lambda file: hashed.append(file.name) or sha256_file(file))
    first = read(path)
    assert sorted(hashed) == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    read(path, backend="cpu", threads=1)
    assert len(hashed) == 3
    # the same bytes written anew (as a copy replaces a part) are hashed again, and still match
    part = path / "part-00001.parquet"
    (tmp_path / "copy").write_bytes(part.read_bytes())
    os.replace(tmp_path / "copy", part)
    again = read(path)
    assert hashed[3:] == ["part-00001.parquet"] and np.array_equal(again.columns["src"], first.columns["src"])
    # ... and other bytes in their place fail
    table = pq.read_table(part)
    src = table.schema.get_field_index("src")
    pq.write_table(table.set_column(src, "src", pa.array((table.column("src").to_numpy()[::-1] + 1) % 5)), tmp_path / "copy")
    os.replace(tmp_path / "copy", part)
    with pytest.raises(DatasetError, match=re.escape(f"{part}: sha256 is ")):
        read(path)


def test_another_process_trusts_the_parts_one_hashed_until_they_are_written(tmp_path, monkeypatch):
    # A sweep's four workers loaded its six graphs fifteen times, each hashing every part: the
    # stamps of the parts that matched are kept beside them for every process of the host.
    path, _ = _graph(tmp_path / "g", part_rows=4)
    hashed = []
    monkeypatch.setattr(reader, "sha256_file", lambda file: hashed.append(file.name) or sha256_file(file))
    read(path)
    assert len(hashed) == 3 and (path / reader.MATCHED_FILE).is_file()
    monkeypatch.setattr(reader, "_MATCHED", set())          # another process: nothing remembered in memory
    read(path)
    assert len(hashed) == 3
    # a part written since is hashed again (its stamp changed), and other bytes there fail
    part = path / "part-00002.parquet"
    table = pq.read_table(part)
    src = table.schema.get_field_index("src")
    pq.write_table(table.set_column(src, "src", pa.array((table.column("src").to_numpy()[::-1] + 1) % 5)),
                   tmp_path / "copy")
    os.replace(tmp_path / "copy", part)
    monkeypatch.setattr(reader, "_MATCHED", set())
    with pytest.raises(DatasetError, match=re.escape(f"{part}: sha256 is ")):
        read(path)
    assert hashed[3:] == ["part-00002.parquet"]


def test_validate_hashes_every_part_whatever_any_process_remembers(tmp_path, monkeypatch):
    path, _ = _graph(tmp_path / "g", part_rows=4)
    read(path)
    hashed = []
    monkeypatch.setattr(reader, "sha256_file", lambda file: hashed.append(file.name) or sha256_file(file))
    validate(path)
    assert len(hashed) == 3
    # a damaged file of stamps only means hashing again
    (path / reader.MATCHED_FILE).write_text("{not json")
    monkeypatch.setattr(reader, "_MATCHED", set())
    read(path)
    assert len(hashed) == 6 and json.loads((path / reader.MATCHED_FILE).read_text())


@pytest.mark.parametrize("succ,message", [
    ([1, 2, 0], "no tail"),
    ([2, 2, 2], "node 2 is the successor of more than one node"),
    ([1, 1, 3, 3], "2 tails"),
    ([3, 0, 1, 1, 4], "node 1 is the successor of more than one node"),
])
def test_bad_list_structure(tmp_path, succ, message):
    path = _list(tmp_path / "l", succ, part_rows=2)
    with pytest.raises(ListStructureError, match=message):
        validate(path)


def test_list_cycle_beside_the_tail_and_shared_successor(tmp_path):
    # 0 -> 1 -> 1 (tail) plus a cycle 2 -> 3 -> 2: one tail, one head, but not one list
    with pytest.raises(ListStructureError, match="cycle that never reaches the tail"):
        validate(_list(tmp_path / "a", [1, 1, 3, 2]))
    # 0 -> 1 -> 3 and 2 -> 3 (tail): a second path into the one tail shares a successor
    with pytest.raises(ListStructureError, match="node 3 is the successor of more than one node"):
        validate(_list(tmp_path / "b", [1, 3, 3, 3]))


def test_list_out_of_range(tmp_path):
    with pytest.raises(DatasetError, match="column 'succ' row 1 is 9, outside"):
        validate(_list(tmp_path / "l", [1, 9, 2]))
