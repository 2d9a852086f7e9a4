"""Partial datasets left by killed writers go; a live writer's, or one written elsewhere, stays."""

import json
import socket
import subprocess
import sys

from graphsweep.datasets.writer import WRITER_RECORD, abort, begin, commit, remove_stale_partials, write_part


def _partial(folder, name, writer):
    tmp = folder / f".{name}.partial-0000abcd"
    tmp.mkdir()
    (tmp / "part-00000.parquet").write_bytes(b"x" * 100)
    if writer is not None:
        (tmp / WRITER_RECORD).write_text(json.dumps(writer))
    return tmp


def test_only_partials_of_dead_writers_on_this_host_are_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = socket.gethostname()
    live = begin(tmp_path / "live", kind="list", n=4)  # this process: a live writer
    gone = _partial(tmp_path, "gone", {"host": host, "pid": int(dead.stdout), "started": 1.0})
    reused = _partial(tmp_path, "reused", {**json.loads((live.tmp / WRITER_RECORD).read_text()), "started": 2.0})
    elsewhere = _partial(tmp_path, "elsewhere", {"host": host + "-other", "pid": 1, "started": 1.0})
    unknown = _partial(tmp_path, "unknown", None)
    assert sorted(remove_stale_partials(tmp_path)) == sorted([gone, reused])  # reused: the pid lives, another process
    assert live.tmp.is_dir() and elsewhere.is_dir() and unknown.is_dir()
    assert not gone.exists() and not reused.exists()
    abort(live)


def test_a_committed_dataset_keeps_no_writer_record(tmp_path):
    pending = begin(tmp_path / "d", kind="list", n=2)
    out = commit(pending, [write_part(pending, 0, {"succ": [1, 1]})])
    assert not (out / WRITER_RECORD).exists() and sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_generate_says_what_it_removed(tmp_path, capsys):
    from graphsweep.pipeline.cli import main
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = _partial(tmp_path, "l", {"host": socket.gethostname(), "pid": int(dead.stdout), "started": 1.0})
    try:
        main(["generate", "list", "--n", "10", "--out", str(tmp_path / "l"), "--no-progress"])
    except SystemExit as exc:
        assert exc.code == 0
    assert f"removed {gone}, left by a writer that is gone" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l"]
