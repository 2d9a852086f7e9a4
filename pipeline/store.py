"""The result store: one Parquet file per finished task under a sweep's results directory.

Layout::

    RESULTS/plan.json             the expanded plan (written when a sweep starts; marks the directory)
    RESULTS/tasks/HASH.parquet    one file per finished task, tidy rows (see worker.py)
    RESULTS/logs/RUN_ID.log       one log per run or submit
    RESULTS/STOP                  written by the first failed task when on_failure is stop

A task file is written to a temporary name and hard-linked to its final name, which fails if the
name exists: so a result is never overwritten, and a task run twice (its worker died after
writing, or two clients raced) still leaves exactly one file.  The file's Parquet metadata holds
the task's outcome, so ``status`` reads footers only.
"""

import errno
import json
import os
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from graphsweep.datasets.errors import GraphsweepError
from graphsweep.datasets.writer import write_atomically

from .sweep import Plan

PLAN = "plan.json"
TASKS = "tasks"
LOGS = "logs"
STOP = "STOP"
STATUS_KEY = b"graphsweep.status"
ERROR_KEY = b"graphsweep.error"


def _write_atomic(path: Path, text: str) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text))


def read_plan(results) -> Plan:
    path = Path(results) / PLAN
    try:
        return Plan.from_json(json.loads(path.read_text()))
    except FileNotFoundError:
        raise GraphsweepError(f"{results}: not a graphsweep results directory (no {PLAN})") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GraphsweepError(f"{path}: unreadable ({exc})") from None


def init(plan: Plan, *, resume: bool) -> None:
    """Claim ``plan.results`` for ``plan``: refuse a used directory unless resuming the same sweep."""
    results = plan.results
    if (results / PLAN).exists():
        if not resume:
            raise GraphsweepError(f"{results}: already holds sweep results; pass --resume to finish "
                                  "that sweep, or choose another results directory")
        if read_plan(results).fingerprint != plan.fingerprint:
            raise GraphsweepError(f"{results}: holds a different sweep (its tasks or on_failure differ "
                                  "from this spec); --resume needs the same spec")
        (results / STOP).unlink(missing_ok=True)
        return
    if results.exists() and any(results.iterdir()):
        raise GraphsweepError(f"{results}: exists and is not a graphsweep results directory; refusing to use it")
    (results / TASKS).mkdir(parents=True, exist_ok=True)
    (results / LOGS).mkdir(exist_ok=True)
    _write_atomic(results / PLAN, json.dumps(plan.to_json(), indent=1, default=str))


def task_file(results, task_hash: str) -> Path:
    return Path(results) / TASKS / f"{task_hash}.parquet"


def write_task(results, task_hash: str, table: pa.Table, *, failed: bool, error: str | None) -> bool:
    """Store one task's rows; False (and nothing written) when its result already exists."""
    final = task_file(results, task_hash)
    meta = dict(table.schema.metadata or {})
    meta[STATUS_KEY] = b"failed" if failed else b"ok"
    if error:
        meta[ERROR_KEY] = error.encode()
    table = table.replace_schema_metadata(meta)
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex[:8]}.tmp")
    pq.write_table(table, tmp)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())  # on disk before it is linked: a crash never leaves an empty result
    try:
        os.link(tmp, final)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
            raise
        # A file system without hard links: claim the name exclusively, then rename over the claim,
        # which never leaves a partial file.
        try:
            os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        os.replace(tmp, final)
        return True
    finally:
        tmp.unlink(missing_ok=True)


def outcome(path: Path) -> tuple[str, str | None]:
    """('ok' | 'failed', error) of a stored task file, from its footer."""
    try:
        meta = pq.read_schema(path).metadata or {}
    except (pa.ArrowException, OSError) as exc:
        raise GraphsweepError(f"{path}: unreadable task result ({str(exc).splitlines()[0]}); "
                              "delete it and run again with --resume") from None
    error = meta.get(ERROR_KEY)
    return meta.get(STATUS_KEY, b"failed").decode(), error.decode() if error else None


def finished(results) -> dict:
    """task hash -> path of every stored task file."""
    folder = Path(results) / TASKS
    return {p.stem: p for p in folder.glob("*.parquet")} if folder.is_dir() else {}


def status(results) -> dict:
    """The plan's tasks sorted into done, failed (hash -> error) and pending; and whether stopped."""
    plan = read_plan(results)
    files = finished(results)
    done, failed, pending = [], {}, []
    for task in plan.tasks:
        path = files.get(task.hash)
        if path is None:
            pending.append(task)
            continue
        state, error = outcome(path)
        if state == "ok":
            done.append(task)
        else:
            failed[task.hash] = (task, error)
    return {"plan": plan, "done": done, "failed": failed, "pending": pending,
            "stopped": (Path(results) / STOP).exists()}


def stop(results, reason: str) -> None:
    """Mark the sweep stopped (on_failure: stop); tasks that start later skip themselves."""
    path = Path(results) / STOP
    if not path.exists():
        _write_atomic(path, reason + "\n")


def stopped(results) -> bool:
    return (Path(results) / STOP).exists()
