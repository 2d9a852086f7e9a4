"""Atomic dataset writing.

Parts are written into a hidden sibling directory ``.NAME.partial-XXXX`` (by one process or by
many Dask tasks, each calling ``write_part`` with the picklable ``PendingDataset``); ``commit``
writes the manifest last and renames the directory into place, so a dataset directory with a
manifest is always whole, and an interrupted write leaves only a ``.partial`` directory behind.

A partial directory records its writer (host, pid and the process's start time) in
``.writer.json`` until it is committed; ``begin`` removes the partials beside it whose writer
ran on this host and is gone (killed, timed out), and never one whose writer lives or ran elsewhere.
"""

import hashlib
import json
import logging
import os
import shutil
import socket
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphsweep.core.errors import DatasetError
from .format import (FORMAT, MANIFEST, VERSION, column_dtype, columns_for, index_dtype_for,
                     is_dataset, part_name, part_order)

log = logging.getLogger("graphsweep.datasets.writer")
WRITER_RECORD = ".writer.json"

# Random indices do not compress and dictionary-encode badly; plain pages read at memory speed.
# Columns are declared non-null (no definition levels to encode) and encoded in batches of 64K
# values rather than 1K: together 4x faster to encode than the defaults, the same bytes of data.
PARQUET_OPTIONS = dict(compression="none", use_dictionary=False, write_statistics=False,
                       write_batch_size=1 << 16)


def _write_and_hash(path: Path, data) -> str:
    """Write ``data`` (bytes-like) to ``path`` and return its sha256, the two at once: both release
    the GIL, so the checksum costs no pass of its own over the file."""
    with ThreadPoolExecutor(1) as pool:
        digest = pool.submit(lambda: hashlib.sha256(data).hexdigest())
        with open(path, "wb") as f:
            f.write(data)
        return digest.result()


@dataclass(frozen=True)
class PendingDataset:
    """A dataset being written: where its parts go and what they must look like."""
    out: Path
    tmp: Path
    kind: str
    n: int
    index_dtype: str
    weighted: bool
    directed: bool
    overwrite: bool

    @property
    def columns(self) -> tuple[str, ...]:
        return columns_for(self.kind, self.weighted)


def check_output_dir(out: Path, overwrite: bool) -> None:
    """Refuse an output path that holds anything but (with ``overwrite``) a graphsweep dataset."""
    if not out.exists():
        return
    if out.is_dir() and not any(out.iterdir()):
        return
    if not is_dataset(out):
        raise DatasetError(f"{out}: exists and is not a graphsweep dataset; refusing to overwrite it")
    if not overwrite:
        raise DatasetError(f"{out}: a dataset already exists there (pass --overwrite to replace it)")


def begin(out, *, kind: str, n: int, weighted: bool = False, directed: bool = False,
          index_dtype: str | None = None, overwrite: bool = False) -> PendingDataset:
    """Start writing a dataset at ``out``: check the target, make the hidden partial directory."""
    out = Path(out).absolute()
    if n < 1:
        raise DatasetError(f"{out}: a dataset needs n >= 1 vertices, got n = {n}")
    check_output_dir(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(out.parent)
    tmp = out.parent / f".{out.name}.partial-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    (tmp / WRITER_RECORD).write_text(json.dumps(_this_writer()))
    return PendingDataset(out, tmp, kind, int(n), index_dtype or index_dtype_for(n),
                          bool(weighted), bool(directed), overwrite)


def write_part(pending: PendingDataset, index: int, columns: dict) -> dict:
    """Write part ``index`` from host arrays; returns its manifest entry ``{path, rows, sha256}``."""
    if set(columns) != set(pending.columns):
        raise DatasetError(f"{pending.out}: part {index} has columns {sorted(columns)}, "
                           f"the dataset needs {list(pending.columns)}")
    arrays, fields = [], []
    for name in pending.columns:
        values = np.asarray(columns[name])
        dtype = column_dtype(name, pending.index_dtype)
        if values.dtype != dtype:
            if values.size and (values.min() < np.iinfo(dtype).min or values.max() > np.iinfo(dtype).max):
                raise DatasetError(f"{pending.out}: part {index}, column '{name}': values "
                                   f"{values.min()}..{values.max()} do not fit {dtype}")
            values = values.astype(dtype)
        arrays.append(pa.array(values))
        fields.append(pa.field(name, arrays[-1].type, nullable=False))
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    rows, name = table.num_rows, part_name(index)
    encoded = pa.BufferOutputStream()
    pq.write_table(table, encoded, **PARQUET_OPTIONS)
    sha256 = _write_and_hash(pending.tmp / name, encoded.getvalue())
    return {"path": name, "rows": rows, "sha256": sha256}


def commit(pending: PendingDataset, parts: list[dict], *, generator: dict | None = None,
           source: dict | None = None, stats: dict | None = None) -> Path:
    """Write the manifest and move the finished dataset into place; returns its path."""
    parts = sorted(parts, key=part_order)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "kind": pending.kind,
        "n": pending.n,
        "index_dtype": pending.index_dtype,
        "weighted": pending.weighted,
        "directed": pending.directed,
        **({"m": sum(p["rows"] for p in parts)} if pending.kind == "graph" else {}),
        **({"generator": generator} if generator is not None else {"source": source or {}}),
        "parts": parts,
        "stats": stats or {},
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    with open(pending.tmp / MANIFEST, "w") as f:
        json.dump(manifest, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    out = pending.out
    check_output_dir(out, pending.overwrite)  # the world may have changed while parts were written
    (pending.tmp / WRITER_RECORD).unlink(missing_ok=True)
    trash = None
    if out.exists():
        trash = out.parent / f".{out.name}.replaced-{uuid.uuid4().hex[:8]}"
        out.rename(trash)
    pending.tmp.rename(out)
    if trash is not None:
        shutil.rmtree(trash, ignore_errors=True)
    return out


def write_atomically(path, write) -> Path:
    """Write one file by ``write(tmp)`` into a hidden sibling, sync it, then rename it to ``path``:
    readers see the old file or the whole new one, never a part; the sibling goes on failure."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _process_started(pid: int) -> float | None:
    """When process ``pid`` started (None when there is none, or only its zombie)."""
    import psutil
    try:
        process = psutil.Process(pid)
        return None if process.status() == psutil.STATUS_ZOMBIE else process.create_time()
    except psutil.Error:
        return None


def _this_writer() -> dict:
    return {"host": socket.gethostname(), "pid": os.getpid(), "started": _process_started(os.getpid())}


def stale_partials(folder) -> list[Path]:
    """The partial datasets in ``folder`` whose writer ran on this host and no longer runs (its
    pid is gone or now names a process started at another time)."""
    stale = []
    host = socket.gethostname()
    for tmp in Path(folder).glob(".*.partial-*"):
        try:
            writer = json.loads((tmp / WRITER_RECORD).read_text())
            if writer["host"] != host:
                continue
            started = _process_started(int(writer["pid"]))
            gone = started is None or abs(started - float(writer["started"])) > 1
        except (OSError, ValueError, KeyError, TypeError):
            continue  # no readable record (being committed, or not ours): not ours to judge
        if gone:
            stale.append(tmp)
    return stale


def remove_stale_partials(folder) -> list[Path]:
    """Remove what dead writers left in ``folder`` (see ``stale_partials``); returns what went."""
    removed = []
    for tmp in stale_partials(folder):
        shutil.rmtree(tmp, ignore_errors=True)
        log.info("removed %s, left by a writer that is gone", tmp)
        removed.append(tmp)
    return removed


def abort(pending: PendingDataset) -> None:
    """Remove what was written of ``pending``."""
    shutil.rmtree(pending.tmp, ignore_errors=True)


def write_arrays(out, *, kind: str, n: int, columns: dict, part_rows: int = 1 << 20,
                 weighted: bool = False, directed: bool = False, generator: dict | None = None,
                 source: dict | None = None, stats: dict | None = None,
                 overwrite: bool = False) -> Path:
    """Write whole in-memory columns as a dataset, split into parts of ``part_rows`` rows."""
    if part_rows < 1:
        raise DatasetError(f"part_rows must be >= 1, got {part_rows}")
    pending = begin(out, kind=kind, n=n, weighted=weighted, directed=directed, overwrite=overwrite)
    try:
        rows = len(next(iter(columns.values())))
        bounds = range(0, max(rows, 1), part_rows)
        parts = [write_part(pending, i, {c: v[a:a + part_rows] for c, v in columns.items()})
                 for i, a in enumerate(bounds)]
        return commit(pending, parts, generator=generator, source=source, stats=stats)
    except BaseException:
        abort(pending)
        raise
