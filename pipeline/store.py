"""The result store: one Parquet file per finished task under a sweep's results directory.

Layout::

    RESULTS/plan.json             the expanded plan (written once the run's cluster answered: it claims the directory)
    RESULTS/tasks/HASH.parquet    one file per finished task, tidy rows (see worker.py)
    RESULTS/logs/RUN_ID.log       one log per run or submit
    RESULTS/submitted/RUN_ID.json what a submit launched: scheduler, time, task hash -> Dask key
    RESULTS/generation/RUN_ID.parquet  the datasets a run generated: one row each (rows, bytes, parts,
                                  seconds, backend, workers; benchmarks/generate.py prints them)
    RESULTS/run.lock              locked (flock) by the run or submit using the directory: host, pid, since
                                  (from before its cluster starts: it marks the directory of a run starting)
    RESULTS/STOP                  written by the first failed task when on_failure is stop

A run holds an OS lock on ``run.lock`` for its whole life, so a second run or submit into the
same directory is refused in one line naming the holder; the kernel drops the lock when the
holder dies, so a crashed run never blocks the next one.

A task file is written to a temporary name and hard-linked to its final name, which fails if the
name exists: so a result is never overwritten, and a task run twice (its worker died after
writing, or two clients raced) still leaves exactly one file.  The file's Parquet metadata holds
the task's outcome, so ``status`` reads footers only.
"""

import errno
import fcntl
import json
import os
import shutil
import socket
import sys
import time
import uuid
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from graphsweep.core.errors import GraphsweepError
from graphsweep.datasets.writer import write_atomically

from .sweep import SweepPlan

PLAN = "plan.json"
TASKS = "tasks"
LOGS = "logs"
STOP = "STOP"
LOCK = "run.lock"
SUBMITTED = "submitted"
GENERATION = "generation"
LOCK_WAIT_S = 0.2   # how long a run waits for a lock held (shared) by a status reading its holder
STATUS_KEY = b"graphsweep.status"
ERROR_KEY = b"graphsweep.error"


def _write_atomic(path: Path, text: str) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text))


def read_plan(results) -> SweepPlan:
    path = Path(results) / PLAN
    try:
        return SweepPlan.from_json(json.loads(path.read_text()))
    except FileNotFoundError:
        raise GraphsweepError(f"{results}: not a graphsweep results directory (no {PLAN})") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GraphsweepError(f"{path}: unreadable ({exc})") from None


def check_claim(plan: SweepPlan, *, resume: bool) -> None:
    """Refuse (writing nothing) a results directory ``plan`` may not use: one holding another
    sweep, a used one without ``resume``, anything that is not a results directory, one in use."""
    _check_use(plan, resume=resume)
    holder = lock_holder(plan.results)
    if holder is not None:
        raise GraphsweepError(f"{plan.results}: {holder}; wait for it to finish or stop it")


def _check_use(plan: SweepPlan, *, resume: bool) -> None:
    results = plan.results
    if (results / PLAN).exists():
        if not resume:
            raise GraphsweepError(f"{results}: already holds sweep results; pass --resume to finish "
                                  "that sweep, or choose another results directory")
        if read_plan(results).fingerprint != plan.fingerprint:
            raise GraphsweepError(f"{results}: holds a different sweep (its tasks or on_failure differ "
                                  "from this spec); --resume needs the same spec")
    elif results.is_dir() and any(p.name != LOCK for p in results.iterdir()):
        raise GraphsweepError(f"{results}: exists and is not a graphsweep results directory; refusing to use it")
    elif results.exists() and not results.is_dir():
        raise GraphsweepError(f"{results}: is a file, not a results directory")


def init(plan: SweepPlan, *, resume: bool) -> None:
    """Claim ``plan.results`` for ``plan`` (call under ``hold``): the checks of ``check_claim``,
    then plan.json, tasks/ and logs/; resuming clears a STOP left by the last run."""
    results = plan.results
    _check_use(plan, resume=resume)
    if (results / PLAN).exists():
        (results / STOP).unlink(missing_ok=True)
        return
    (results / TASKS).mkdir(parents=True, exist_ok=True)
    (results / LOGS).mkdir(exist_ok=True)
    _write_atomic(results / PLAN, json.dumps(plan.to_json(), indent=1, default=str))


def _holder_text(text: str) -> str:
    try:
        who = json.loads(text)
        return f"in use by `graphsweep {who['command']}` on {who['host']} (pid {who['pid']}) since {who['since']}"
    except (ValueError, KeyError, TypeError):
        return "in use by another graphsweep run"


def lock_holder(results) -> str | None:
    """Who holds the results directory's lock ('in use by ... since ...'), or None when free."""
    path = Path(results) / LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        return _holder_text(path.read_text())
    finally:
        os.close(fd)  # also drops the shared lock just taken


def _holder_record(command: str) -> bytes:
    return json.dumps({"command": command, "host": socket.gethostname(), "pid": os.getpid(),
                       "since": datetime.now().astimezone().isoformat(timespec="seconds"),
                       "argv": sys.argv[1:]}).encode()


def _lock(results: Path) -> int:
    """A descriptor of ``results``/run.lock, locked; refuses naming the holder.  A status reading the
    holder locks it shared for an instant: a lock busy that long only is waited for."""
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        fd = os.open(results / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            raise GraphsweepError(f"{results}: {_holder_text((results / LOCK).read_text())}; "
                                  "wait for it to finish or stop it") from None
        try:
            if os.fstat(fd).st_ino == os.stat(results / LOCK).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # locked a file a run that never started had just removed: lock the one there now


def _made_locked(results: Path, record: bytes) -> int | None:
    """Make the folder ``results`` with its lock held and naming its holder, in one step (a hidden
    folder, renamed into place), so that it is never seen unmarked; None when it appeared meanwhile."""
    staging = results.with_name(f".{results.name}.starting-{uuid.uuid4().hex[:8]}")
    staging.mkdir(parents=True)   # the mode a plain mkdir gives (the umask's), as the folder's own
    fd = os.open(staging / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, record)
    try:
        os.rename(staging, results)
        return fd
    except OSError as exc:
        os.close(fd)
        shutil.rmtree(staging, ignore_errors=True)
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            return None
        raise


@contextmanager
def hold(results, command: str):
    """Hold the results directory's lock while the block runs (see the module doc); refuses in
    one line naming the holder when another process holds it.

    A run takes it first, before its cluster starts, so that ``status`` finds the folder marked
    from the start: a folder that does not exist yet appears with its lock held.  A block that
    ends before the run claimed the folder (no plan.json: its cluster could not be reached, or it
    was interrupted while starting) removes the lock again, and the folder if it made it, so that
    nothing is left behind."""
    results = Path(results)
    record = _holder_record(command)
    fd = None if results.exists() else _made_locked(results, record)
    made = fd is not None
    if fd is None:
        fd = _lock(results)
        os.ftruncate(fd, 0)
        os.pwrite(fd, record, 0)
    try:
        yield
    finally:
        try:
            if not (results / PLAN).exists():
                (results / LOCK).unlink(missing_ok=True)  # while still held: no one locks it meanwhile
                if made:
                    with suppress(OSError):
                        results.rmdir()
        finally:
            os.close(fd)  # releases the lock; the file stays, read only while locked


def record_submission(results, run_id: str, scheduler: str, keys: dict) -> Path:
    """Note what a submit launched (task hash -> Dask key) on ``scheduler``, for ``status``."""
    folder = Path(results) / SUBMITTED
    folder.mkdir(exist_ok=True)
    record = {"run_id": run_id, "scheduler": scheduler, "keys": keys,
              "submitted": datetime.now().astimezone().isoformat(timespec="seconds")}
    path = folder / f"{run_id}.json"
    _write_atomic(path, json.dumps(record, indent=1))
    return path


def submissions(results) -> list[dict]:
    """Every submission recorded in ``results``, oldest first."""
    records = []
    for path in sorted((Path(results) / SUBMITTED).glob("*.json")):
        try:
            records.append(json.loads(path.read_text()))
        except (OSError, ValueError) as exc:
            raise GraphsweepError(f"{path}: unreadable submission record ({exc})") from None
    return records


def forget_failed(results) -> int:
    """Delete the result files of failed tasks so that a resumed run runs them again; returns how many."""
    count = 0
    for path in finished(results).values():
        if outcome(path)[0] == "failed":
            path.unlink(missing_ok=True)
            count += 1
    return count


def write_generation(results, run_id: str, records: list[dict]) -> Path | None:
    """The datasets run ``run_id`` generated, one row each, as generation/RUN_ID.parquet (written
    atomically); None where it generated none."""
    if not records:
        return None
    path = Path(results) / GENERATION / f"{run_id}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(records)
    return write_atomically(path, lambda tmp: pq.write_table(table, tmp))


def generation(results) -> list[dict]:
    """Every run's generation rows in ``results`` (oldest run first)."""
    folder = Path(results) / GENERATION
    return [row for path in sorted(folder.glob("*.parquet")) for row in pq.read_table(path).to_pylist()]


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


def _published(results) -> dict:
    """task hash -> (state, error) from ``results.parquet`` of a results folder without task files
    (a published sweep: plan.json and results.parquet only); empty when there is none."""
    path = Path(results) / "results.parquet"
    if (Path(results) / TASKS).is_dir() or not path.is_file():
        return {}
    try:
        rows = pq.read_table(path, columns=["task", "verified", "error"]).to_pylist()
    except (pa.ArrowException, OSError, KeyError) as exc:
        raise GraphsweepError(f"{path}: unreadable ({str(exc).splitlines()[0]})") from None
    out = {}
    for row in rows:  # as store_rows decides: an error, or any row not verified, fails the task
        state, error = out.get(row["task"], ("ok", None))
        if row["error"] or row["verified"] is False:
            state, error = "failed", error or row["error"]
        out[row["task"]] = (state, error)
    return out


def status(results) -> dict:
    """The plan's tasks sorted into done, failed (hash -> error) and pending; and whether stopped.
    A published sweep (no task files) is read from its results.parquet."""
    plan = read_plan(results)
    files = finished(results)
    published = _published(results)
    done, failed, pending = [], {}, []
    for task in plan.tasks:
        path = files.get(task.hash)
        if path is None and task.hash not in published:
            pending.append(task)
            continue
        state, error = outcome(path) if path is not None else published[task.hash]
        if state == "ok":
            done.append(task)
        else:
            failed[task.hash] = (task, error)
    return {"plan": plan, "done": done, "failed": failed, "pending": pending,
            "stopped": (Path(results) / STOP).exists()}


def last_run_id(results) -> str | None:
    """The id of the latest run or submit that wrote a log into ``results`` (ids sort by time)."""
    ids = sorted(p.stem for p in (Path(results) / LOGS).glob("*.log"))
    return ids[-1] if ids else None


def set_aside(results) -> Path:
    """Rename the results folder ``results`` to ``NAME-RUN_ID`` beside it (its latest run's id, or
    plan.json's time), keeping it whole; returns the new path."""
    results = Path(results)
    stamp = last_run_id(results) or datetime.fromtimestamp((results / PLAN).stat().st_mtime).strftime("%Y%m%dT%H%M%S")
    target = results.with_name(f"{results.name}-{stamp}")
    suffix = 1
    while target.exists():
        target, suffix = results.with_name(f"{results.name}-{stamp}.{suffix}"), suffix + 1
    results.rename(target)
    return target


def stop(results, reason: str) -> None:
    """Mark the sweep stopped (on_failure: stop); tasks that start later skip themselves."""
    path = Path(results) / STOP
    if not path.exists():
        _write_atomic(path, reason + "\n")


def stopped(results) -> bool:
    return (Path(results) / STOP).exists()
