"""Writer helpers: part order past 99999 parts, atomic single files, n >= 1."""

import pytest

from graphsweep.core.errors import DatasetError
from graphsweep.datasets.format import part_name, part_order
from graphsweep.datasets.writer import begin, write_atomically


def test_parts_sort_by_index_also_past_five_digits():
    entries = [{"path": part_name(i)} for i in (100000, 9999, 10000, 99999, 0, 100001)]
    assert [e["path"] for e in sorted(entries, key=part_order)] == \
        [part_name(i) for i in (0, 9999, 10000, 99999, 100000, 100001)]


def test_write_atomically_replaces_whole_or_not_at_all(tmp_path):
    target = tmp_path / "report.html"
    write_atomically(target, lambda tmp: tmp.write_text("first"))

    def fail(tmp):
        tmp.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomically(target, fail)
    assert target.read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_a_dataset_needs_a_vertex(tmp_path):
    with pytest.raises(DatasetError, match="needs n >= 1"):
        begin(tmp_path / "d", kind="list", n=0)
    assert list(tmp_path.iterdir()) == []
