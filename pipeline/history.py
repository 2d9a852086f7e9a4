"""The runs of a sweep over time: the results folders under one root (as a nightly cron job makes
them, ``results/nightly-DATE``), and the results folders there are at all.

``runs(root)``: every results folder under ``root`` (``root`` itself when it holds a plan.json,
else its subfolders that do), oldest first, each with when it ran (its first run's id, else plan.json's
time), its sweep, how many tasks are done, failed and pending, and a headline figure: the
geometric mean of its tasks' median kernel times (one number that moves when kernels slow down
or speed up; compare runs of the same sweep).  ``page(root)`` writes ``root/history.html``:
that table, and for each kernel its median time per (dataset, params) across the runs.

``earlier(root)`` is what estimates learn from (``pipeline.estimate``): per task of the newest
results folders there, what it ran on, the seconds its worker spent on it and what of them a later
task or run may not pay again (loading and checking the dataset, the worker's first warm-up of the
kernel and of its parameters on a generator's sample, the references the first verification of a
kernel's output on a graph computes and keeps, Numba's compilations), and its runs' byte model; per
run, its wall time (its log's closing line, with the seconds it spent generating) and the seconds
it spent outside its tasks.
"""

import dataclasses
import html
import json
import math
import re
import statistics
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from matplotlib.figure import Figure

from graphsweep.core.errors import GraphsweepError
from graphsweep.datasets.writer import write_atomically

from . import compare, store
from .reduce import rows_of
from .samples import warm_up_key
from .figures import phase_colours
from .report import STYLE, _png, _table, compact_params

HISTORY = "history.html"
# Lines per kernel's plot: beyond this many (dataset, params) series, the slowest are kept.
MAX_SERIES = 12


@dataclass
class Run:
    path: Path
    when: datetime
    sweep: str
    tasks: int
    done: int
    failed: int
    pending: int
    in_use: str | None
    times: dict              # (kernel, dataset, params) -> median kernel ms (failed tasks left out)

    @property
    def state(self) -> str:
        if self.in_use:
            return "running"
        return "failed" if self.failed else "pending" if self.pending else "done"

    @property
    def headline_ms(self) -> float:
        """Geometric mean of the median kernel times of its tasks (nan without any)."""
        values = np.array(list(self.times.values()), dtype=float)
        return float(np.exp(np.log(values).mean())) if values.size else float("nan")


def folders(root, depth: int = 1) -> list[Path]:
    """The results folders at ``root`` or up to ``depth`` levels below it (not inside another)."""
    root = Path(root)
    if not root.is_dir():
        raise GraphsweepError(f"{root}: not a folder")
    if (root / store.PLAN).is_file():
        return [root]
    if depth == 0:
        return []
    return [found for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
            for found in folders(sub, depth - 1)]


def when(results: Path) -> datetime:
    """When the sweep in ``results`` first ran: its first run's id, else plan.json's time."""
    ids = sorted(p.stem for p in (results / store.LOGS).glob("*.log"))
    if ids:
        try:
            return datetime.strptime(ids[0].split("-")[0], "%Y%m%dT%H%M%S")
        except ValueError:
            pass  # a log not named by run id: fall back to the plan's time
    return datetime.fromtimestamp((results / store.PLAN).stat().st_mtime)


def read_run(results: Path, *, times: bool = True) -> Run:
    state = store.status(results)
    medians = {}
    if times and (state["done"] or state["failed"]):
        medians = {k: float(np.median(v)) for k, v in compare.kernel_times(results).items() if v is not None}
    return Run(results, when(results), state["plan"].name, len(state["plan"].tasks), len(state["done"]),
               len(state["failed"]), len(state["pending"]), store.lock_holder(results), medians)


def runs(root, *, depth: int = 1, times: bool = True) -> list[Run]:
    """The runs at or under ``root`` (``depth`` levels), oldest first (``times``: read each one's
    kernel times too)."""
    return sorted((read_run(p, times=times) for p in folders(root, depth)), key=lambda r: (r.when, str(r.path)))


# The closing line of a run's log (runner.execute):
# "run ID finished in 4.6 s: {..., 'generate_s': 0.01..., 'seconds': 4.5720...}".
FINISHED = re.compile(r"run (\S+) finished in ([0-9.]+) s"
                      r"(?:.*'generate_s': ([-+0-9.e]+))?(?:.*'seconds': ([-+0-9.e]+))?")
# What a task's rows say of its cost (columns a task file may lack are read as missing).
RECORD_COLUMNS = ("task", "run_id", "dataset", "kernel", "params", "backend", "device", "worker", "n", "m", "elements",
                  "covers",
                  "stage", "phase", "step", "ms", "bytes_read", "bytes_written", "random_accesses", "task_s", "timed_s",
                  "load_s", "prepare_s", "warmup_s", "first_warmup", "first_run_s", "compile_s", "ceilings_s", "started_at",
                  "ceiling_gather_gelems", "ceiling_copy_gbps", "verify_s", "generator", "dataset_params", "seed")
# Results folders read for an estimate: the newest this many (a nightly root holds years of them).
EARLIER_FOLDERS = 20
READERS = 8             # threads reading a folder's task files


def run_walls(results, *, generation: bool = False) -> dict:
    """run id -> the wall time of each finished run into ``results``, as its log recorded it (with
    ``generation``: (wall, the seconds of it spent generating datasets, 0 where the log does not say))."""
    walls = {}
    for log in sorted((Path(results) / store.LOGS).glob("*.log")):
        for run_id, rounded, generating, exact in FINISHED.findall(log.read_text(errors="replace")):
            wall = float(exact or rounded)
            walls[run_id] = (wall, float(generating or 0.0)) if generation else wall
    return walls


ENDED = re.compile(r"run (\S+) finished in .*'ended_at': ([-+0-9.e]+)")
# Where a run's worker-seconds went (``wall_shares``), in the order they are printed.
SHARES = ("timed reps", "harness outside reps", "start", "load", "task outside harness", "gaps", "end")


def wall_shares(results) -> dict:
    """Where the last run into ``results`` spent its wall time on each of its workers (those that
    ran a task), summed over them: seconds per ``SHARES`` item, adding up to the wall times the
    workers.  Timed reps: the reps' own time (CUDA events on a GPU); harness outside reps: the rest
    of the harness (warm-ups, checks and builds, statistics, verification); outside the harness:
    start (the run's start to the worker's first task), load (datasets), task outside harness (the
    rest of its tasks: the worker's ceilings, the rows), gaps (between its tasks: scheduling,
    storing), end (its last task to the run's end).  A GraphsweepError where the log does not say
    when the run ended (runs before ``ended_at`` was logged)."""
    results = Path(results)
    ended = {}
    for log in sorted((results / store.LOGS).glob("*.log")):
        ended.update(dict(ENDED.findall(log.read_text(errors="replace"))))
    walls = run_walls(results)
    run_id = max((r for r in walls if r in ended), default=None)
    if run_id is None:
        raise GraphsweepError(f"{results}: no run's log says when it ended (its closing line's 'ended_at')")
    rows = rows_of(results)
    rows = rows[rows["run_id"] == run_id]
    tasks = rows.drop_duplicates("task").fillna({"load_s": 0.0, "ceilings_s": 0.0, "kernel_s": 0.0})
    timed = timed_reps(rows)
    end = float(ended[run_id])
    start = end - walls[run_id]
    out = dict.fromkeys(SHARES, 0.0)
    out["timed reps"] = timed["ms"].sum() / 1e3
    out["harness outside reps"] = tasks["kernel_s"].sum() - out["timed reps"]
    out["load"] = tasks["load_s"].sum()
    out["task outside harness"] = (tasks["task_s"] - tasks["kernel_s"] - tasks["load_s"] + tasks["ceilings_s"]).sum()
    for _, mine in tasks.groupby("worker"):
        first, last = mine["started_at"].min(), (mine["started_at"] + mine["task_s"] + mine["ceilings_s"]).max()
        out["start"] += first - start
        out["gaps"] += (last - first) - (mine["task_s"] + mine["ceilings_s"]).sum()
        out["end"] += end - last
    out["wall"], out["workers"] = walls[run_id], tasks["worker"].nunique()
    return out


# The plan's lines in a run's log (runner._send_all): each worker's planned finish, each task's estimate.
PLANNED_WORKER = re.compile(r"plan: (\S+): \d+ tasks, ~([0-9.]+) s with loads and warm-ups")
PLANNED_TASK = re.compile(r"plan task (\S+): ~([0-9.]+) s on (\S+)")


def timed_reps(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``rows`` that are timed reps: a kernel's total, not one of its steps."""
    return rows[(rows["stage"] == "kernel") & (rows["phase"] == "total") & rows["step"].isna()]


def plan_against_run(results) -> tuple:
    """The last finished run into ``results`` against its plan: (per worker: its planned finish and
    what it ran — its tasks' seconds, the number of tasks, of them those the plan gave another
    worker (``taken``: stolen at the end, or a lost worker's), the datasets it loaded (``loads``,
    tasks that paid a load), its first warm-ups of a kernel and its other first warm-ups of a
    warm-up key on a sample (``samples``: ``TaskRecord.sample_s``); per task: the plan's estimate (its
    own seconds, without the load and warm-up the plan charges its worker once), its planned and
    actual worker, what it took of what the estimate counts (``TaskRecord.own_s``: without its load,
    builds, first warm-ups and first references), and the difference), both DataFrames; (None,
    None) where the run's log has no plan lines (runs before the plan was logged)."""
    results = Path(results)
    walls = run_walls(results)
    if not walls:
        return None, None
    run_id = max(walls)
    logs = (log.read_text(errors="replace") for log in sorted((results / store.LOGS).glob("*.log")))
    text = "".join(log for log in logs if f"run {run_id} finished" in log)
    planned = {w: float(s) for w, s in PLANNED_WORKER.findall(text)}
    estimates = pd.DataFrame(PLANNED_TASK.findall(text), columns=["task", "estimate_s", "planned_worker"])
    if not planned or estimates.empty:
        return None, None
    estimates["estimate_s"] = estimates["estimate_s"].astype(float)
    rows = rows_of(results)
    tasks = rows[rows["run_id"] == run_id].drop_duplicates("task").reindex(
        columns=["task", "kernel", "dataset", "worker", "task_s", "load_s", "first_warmup"])
    tasks = tasks.fillna({"load_s": 0.0}).merge(estimates, on="task")
    # what it took of what its estimate counts: its own seconds, less what the plan charged its worker
    # once (its loading and builds, its first warm-up of the kernel, its kernel's first references on
    # the graph); before, only its load: a first BC task on a graph "missed" by its references (1.1 s)
    records = [r for r in _folder_records(results)[0] if r.run_id == run_id]
    own = {r.task: r.own_s for r in records}
    tasks["took_s"] = [own.get(h, s - load) for h, s, load in zip(tasks["task"], tasks["task_s"], tasks["load_s"])]
    tasks["off_s"] = tasks["took_s"] - tasks["estimate_s"]
    tasks["taken"] = tasks["worker"] != tasks["planned_worker"]
    tasks["loaded"] = tasks["load_s"] > 0
    tasks["warmed"] = tasks["first_warmup"].map(_flag)
    sampled = {r.task for r in records if r.sample_s > 0}
    tasks["sampled"] = tasks["task"].isin(sampled)
    busy = tasks.groupby("worker").agg(ran_s=("task_s", "sum"), tasks=("task", "count"), taken=("taken", "sum"),
                                       loads=("loaded", "sum"), warm_ups=("warmed", "sum"),
                                       samples=("sampled", "sum"))
    workers = pd.DataFrame({"planned_s": pd.Series(planned)}).join(busy, how="outer").fillna(0.0)
    tasks = tasks.drop(columns=["first_warmup", "loaded", "warmed", "sampled"])
    return workers, tasks.sort_values("off_s", key=abs, ascending=False).reset_index(drop=True)


@dataclass(frozen=True)
class TaskRecord:
    """One finished task of an earlier run: what ran where, and what it cost."""
    task: str               # its hash: the same task in another run has the same one
    run_id: str
    kernel: str             # the kernel that ran
    params: str             # its parameters, JSON
    backend: str
    device: str
    worker: str
    elements: int           # what its problem counts (list nodes, graph edges, vertex pairs)
    runs: int               # timed runs (reps x instances; one covering k of its problem's runs: k)
    task_s: float           # its worker's seconds on it, loading and warm-up included
    timed_s: float          # of which the timed runs
    gather: float | None    # the device's random-gather ceiling (G/s), as its worker measured it
    ceilings_s: float = 0.0  # its worker's seconds measuring its ceilings after it (a worker's first task)
    started_at: float | None = None  # when it started (epoch seconds)
    dataset: str = ""
    prepared_s: float = 0.0  # of task_s, loading the dataset, checking it and building its representations
    compile_s: float = 0.0  # of task_s, Numba's and NVRTC's compilations (disk-cached: later runs load them)
    first_warmup_s: float = 0.0  # of task_s, its worker's first warm-up of the kernel (later tasks had none)
    moved: float = 0.0      # bytes a timed run reads and writes, by its byte model
    random: float = 0.0     # random accesses of a timed run, by its byte model
    copy: float | None = None  # the device's copy ceiling (GB/s)
    # of its warm-up, first timed reps run again because they compiled a GPU module (less Numba's
    # compilations): paid once per module and process, loaded from CuPy's disk cache by later ones
    first_run_s: float = 0.0
    verify_s: float = 0.0   # of task_s, verifying its output
    # of verify_s, what the first task of its kernel on its graph and worker paid beyond the others:
    # the references its verifier computed from the graph and kept for them (kernels.checks.reference:
    # Brandes from each root, a triangle count), paid again by each worker that runs the kernel there
    first_refs_s: float = 0.0
    load_s: float = 0.0     # of prepared_s, reading the dataset (0 where its worker held it already)
    # of prepared_s less load_s (``with_first_refs``, where its run says when its tasks started): what
    # every task of its kernel on the graph pays again (its input's checks: its own seconds), and what
    # the first of them on a worker paid beyond (the representations its kernel builds and keeps, paid
    # again by each worker that runs the kernel there, like ``first_refs_s``); the rest of its
    # preparing (a worker's first task on the graph: the builds any kernel there uses) is ``once_s``
    each_prepare_s: float = 0.0
    first_build_s: float = 0.0
    warmup_s: float = 0.0   # of task_s, its warm-up (on the input, or on a small sample: ``warm_key``)
    # what its worker warms its kernel up once for on a small sample of its graph's generator and
    # shape, shared with its tasks of the kernel's parameters on graphs of that generator
    # (``samples.warm_up_key``; None: its graph has no sample), and of ``warmup_s`` what it paid as the
    # first of them on its worker (``with_first_refs``): paid again by each worker that runs one
    warm_key: tuple | None = None
    sample_s: float = 0.0

    @property
    def once_s(self) -> float:
        """Its seconds loading, checking and building the dataset's input, which the first task of a
        dataset on a worker pays for all of them (less what each task of its kernel pays again, and
        its kernel's own builds: ``each_prepare_s``, ``first_build_s``), less compilations (counted
        there first: the input's checks and builds are the first Numba code a task runs)."""
        return max(0.0, self.prepared_s - self.each_prepare_s - self.first_build_s - self.compile_s)

    @property
    def first_s(self) -> float:
        """Its seconds that the first task of its kernel on its graph pays on each worker, the others
        there not: the references its verification keeps and the representations its kernel builds."""
        return self.first_refs_s + self.first_build_s

    @property
    def kernel_once_s(self) -> float:
        """Its seconds of its worker's first warm-up of its kernel, which a later task of the kernel
        there does not pay, less the compilations in it (those beyond the input's, and the modules
        its first timed reps compiled: ``first_run_s``)."""
        return _warm(self, self.first_warmup_s) if self.first_warmup_s else 0.0

    @property
    def own_s(self) -> float:
        """Its seconds that are its own: less ``once_s``, ``kernel_once_s``, ``first_s`` (paid by a
        worker's first task of its kernel on the graph, whichever it is), ``sample_s`` (by its first
        of the kernel's tasks with its parameters on the generator) and compilations (Numba's,
        which its disk cache spares later runs, and the GPU modules of ``first_run_s``, which CuPy's
        does): a later run on the device pays none of them again."""
        timed = self.timed_s if not math.isnan(self.timed_s) else 0.0
        return max(timed, self.task_s - self.once_s - self.kernel_once_s - self.first_s - self.sample_s
                   - self.compile_s - self.first_run_s)

    def floor(self, copy: float | None = None, gather: float | None = None) -> float | None:
        """Seconds a timed run takes at the ceilings (its device's, or the ``copy`` GB/s and ``gather``
        G/s given): its byte model's bytes over the copy rate or its random accesses over the gather
        rate, whichever is longer; None where a term it needs is unknown."""
        copy, gather = copy or self.copy, gather or self.gather
        if not (self.moved and copy) and not (self.random and gather):
            return None
        return max(self.moved / (copy * 1e9) if self.moved and copy else 0.0,
                   self.random / (gather * 1e9) if self.random and gather else 0.0)


@dataclass(frozen=True)
class RunRecord:
    """One finished run: its wall time and what of it its tasks do not explain."""
    run_id: str
    device: str
    backend: str
    wall: float             # as its log recorded it
    start: float            # seconds a fresh worker spent before its tasks could run (its ceilings)
    per_task: float         # seconds of scheduling and storing per task, outside the tasks' own
    outside: float = 0.0    # seconds before its first task and after its last, less generation: sending, estimating


def _number(value) -> float | None:
    return float(value) if pd.notna(value) else None


def _seconds(value) -> float:
    return float(value) if pd.notna(value) else 0.0


def _float(value) -> float:
    return float(value) if pd.notna(value) else math.nan


def _flag(value) -> bool:
    return bool(value) if pd.notna(value) else False


def _task_records(path: Path) -> list[TaskRecord]:
    """The records of the tasks in one task file (or a published results.parquet).  Read with Arrow
    alone, its timed rows picked before any row is made a Python object: through pandas, a task file
    cost ~10 ms, and an estimate beside 5 folders of gap-scales' 156 tasks took 5-8 s."""
    try:
        with pq.ParquetFile(path) as part:
            names = set(part.schema_arrow.names)
            if not {"task", "task_s", "device", "phase", "ms"} <= names:
                return []       # results stored before their tasks were timed
            table = part.read(columns=[c for c in RECORD_COLUMNS if c in names], use_threads=False)
    except (pa.ArrowException, OSError):
        return []           # unreadable: an estimate does without it (status and reduce say why)
    timed = pc.equal(table["phase"], "total")
    if "step" in names:
        timed = pc.and_kleene(timed, pc.is_null(table["step"]))
    if "stage" in names:
        timed = pc.and_kleene(timed, pc.or_kleene(pc.is_null(table["stage"]), pc.equal(table["stage"], "kernel")))
    by_task: dict = {}
    for row in table.filter(pc.fill_null(timed, False)).to_pylist():
        by_task.setdefault(row["task"], []).append(row)
    out = []
    for task, mine in by_task.items():
        first = {c: mine[0].get(c) for c in RECORD_COLUMNS}
        made = {"name": first["generator"], "params": json.loads(first["dataset_params"]), "seed": first["seed"]} \
            if isinstance(first["generator"], str) and isinstance(first["dataset_params"], str) else None
        # a run of several of the problem's runs at once (BC's group of roots) counts as that many,
        # each of the elements an estimate counts per run (harness: ``covers``)
        covers = [r.get("covers") if pd.notna(r.get("covers")) else 1 for r in mine]
        elements = next((v for v in (first["elements"], first["m"], first["n"]) if pd.notna(v) and v), 0)
        elements = int(elements) // int(covers[0])

        def mean(column):
            return sum(_seconds(r.get(column)) for r in mine) / len(mine)
        out.append(TaskRecord(task, str(first["run_id"]), first["kernel"], str(first["params"]), first["backend"],
                              first["device"], str(first["worker"]), elements, int(sum(covers)),
                              float(first["task_s"]), _float(first["timed_s"]), _number(first["ceiling_gather_gelems"]),
                              _seconds(first["ceilings_s"]), _number(first["started_at"]), str(first["dataset"]),
                              _seconds(first["load_s"]) + _seconds(first["prepare_s"]), _seconds(first["compile_s"]),
                              _seconds(first["warmup_s"]) if _flag(first["first_warmup"]) else 0.0,
                              float(mean("bytes_read") + mean("bytes_written")),
                              float(mean("random_accesses")), _number(first["ceiling_copy_gbps"]),
                              _seconds(first["first_run_s"]), _seconds(first["verify_s"]),
                              load_s=_seconds(first["load_s"]), warmup_s=_seconds(first["warmup_s"]),
                              warm_key=warm_up_key(first["kernel"], str(first["params"]), made,
                                                   _number(first["m"]), first["backend"])))
    return out


def with_first_refs(tasks: list[TaskRecord]) -> list[TaskRecord]:
    """``tasks`` with what the first task (by start) of each kernel on each graph and worker in each
    run paid for the others there: ``first_refs_s``, its verification beyond the median of the
    others' in that group (the references its verifier computed and kept for them); and its
    preparing split (``each_prepare_s``, ``first_build_s``): every task pays the median of its
    group's later tasks' preparing (checks) itself, the group's first what it prepared beyond that
    (its kernel's builds) for the group, and a worker's first task on the graph (or one that read it
    again) the rest for every kernel there (``once_s``).  A group of one has nothing to tell its
    references from, and its preparing, unless it opened the graph, is its own; a group whose tasks
    do not say when they started is left as it is.

    Likewise ``sample_s``: the first task (by start) of each warm-up key (``warm_key``: a kernel's
    parameters on a generator's sample) on each worker, unless it was the kernel's first warm-up
    there (``kernel_once_s``), paid its warm-up beyond the median of the others' (none: they found
    it done) for all of them, whatever their graph.  Before, it was that task's own, paid again
    wherever the task ran and by none of the others: a plan splitting a kernel's tasks over workers
    charged none of the warm-ups each paid (0.70 s on the 4-GPU gap-scales sweep, 0.27 s on one).

    Before, every task's preparing was the graph's, paid once per worker: the graph's ``load`` held
    the checks of all its tasks in the run learned from, and a plan that split the graph over
    workers charged them to each (0.1-0.25 s a graph on the 4-GPU gap-scales sweep)."""
    groups: dict = {}
    opened: dict = {}   # (run, worker, graph) -> the index of the worker's first task there, None: unknown
    for i, t in enumerate(tasks):
        groups.setdefault((t.run_id, t.worker, t.dataset, t.kernel), []).append(i)
        at = (t.run_id, t.worker, t.dataset)
        if t.started_at is None or opened.get(at, -1) is None:
            opened[at] = None
        elif at not in opened or t.started_at < tasks[opened[at]].started_at:
            opened[at] = i
    out = list(tasks)
    for (run_id, worker, dataset, _), members in groups.items():
        if any(tasks[i].started_at is None for i in members):
            continue
        members.sort(key=lambda i: tasks[i].started_at)
        first, rest = members[0], members[1:]
        change = {i: {} for i in members}
        typical = None
        if rest:
            extra = tasks[first].verify_s - statistics.median(tasks[i].verify_s for i in rest)
            if extra > 0:
                change[first]["first_refs_s"] = extra
            typical = statistics.median(_prepare(tasks[i]) for i in rest)
        if opened.get((run_id, worker, dataset)) is not None:
            for i in members:
                prepare = _prepare(tasks[i])
                if i == opened[run_id, worker, dataset] or tasks[i].load_s > 0:   # opened the graph
                    change[i]["each_prepare_s"] = min(prepare, typical or 0.0)
                elif i == first and typical is not None:
                    change[i]["each_prepare_s"] = min(prepare, typical)
                    change[i]["first_build_s"] = prepare - change[i]["each_prepare_s"]
                else:
                    change[i]["each_prepare_s"] = prepare
        for i, fields in change.items():
            if any(fields.values()):
                out[i] = dataclasses.replace(tasks[i], **fields)
    warmed: dict = {}
    for i, t in enumerate(tasks):
        if t.warm_key is not None:
            warmed.setdefault((t.run_id, t.worker, t.warm_key), []).append(i)
    for members in warmed.values():
        if any(tasks[i].started_at is None for i in members):
            continue
        first, *rest = sorted(members, key=lambda i: tasks[i].started_at)
        if tasks[first].first_warmup_s:
            continue
        extra = _warm(tasks[first], tasks[first].warmup_s) - (
            statistics.median(_warm(tasks[i], tasks[i].warmup_s) for i in rest) if rest else 0.0)
        if extra > 0:
            out[first] = dataclasses.replace(out[first], sample_s=extra)
    return out


def _warm(task: TaskRecord, seconds: float) -> float:
    """``seconds`` of ``task``'s warming up, less the compilations in it (those beyond its input's,
    and the modules its first timed reps compiled: ``first_run_s``)."""
    return max(0.0, seconds - task.first_run_s - max(0.0, task.compile_s - task.prepared_s))


def _prepare(task: TaskRecord) -> float:
    """Its seconds checking and building its input, less reading it."""
    return max(0.0, task.prepared_s - task.load_s)


def _run_record(run_id: str, wall: float, generating: float, tasks: list[TaskRecord]) -> RunRecord:
    """What of ``wall`` the run's ``tasks`` do not explain: the fresh workers' start (their ceilings);
    the gaps between tasks — the span from the first task's start to the last one's end, less the
    busiest worker's seconds, per task of its; and the rest of the wall, less ``generating``
    (results that do not say when their tasks started: the whole wall time, generation included,
    counts as gaps)."""
    per_worker: dict = {}
    for t in tasks:
        per_worker.setdefault(t.worker, []).append(t)
    busiest = max(per_worker.values(), key=lambda mine: sum(t.task_s + t.ceilings_s for t in mine))
    busy = sum(t.task_s + t.ceilings_s for t in busiest)
    span = wall
    if all(t.started_at is not None for t in tasks):
        span = max(t.started_at + t.task_s + t.ceilings_s for t in tasks) - min(t.started_at for t in tasks)
    return RunRecord(run_id, tasks[0].device, tasks[0].backend, wall, max(t.ceilings_s for t in tasks),
                     max(0.0, span - busy) / len(busiest), max(0.0, wall - span - generating))


_read: dict = {}     # folder -> (the mtimes of its tasks, logs and reduced results, its records)


def _mtime(path: Path) -> int:
    return path.stat().st_mtime_ns if path.exists() else 0


def _folder_records(folder: Path) -> tuple[list[TaskRecord], list[RunRecord]]:
    """A results folder's records, read once per process while it does not change: from its
    results.parquet when reduce wrote it after the last task (one file, where a large sweep has
    thousands of task files), else from its task files."""
    reduced = folder / "results.parquet"
    stamp = tuple(_mtime(p) for p in (folder / store.TASKS, folder / store.LOGS, reduced))
    if folder in _read and _read[folder][0] == stamp:
        return _read[folder][1]
    files = [reduced] if stamp[2] > stamp[0] else list(store.finished(folder).values())
    # a file each: Arrow's reads let go of the GIL, so a few threads read a folder of thousands at once
    with ThreadPoolExecutor(max_workers=READERS) as readers:
        tasks = with_first_refs([r for records in readers.map(_task_records, files) for r in records])
    runs = []
    for run_id, (wall, generating) in run_walls(folder, generation=True).items():
        mine = [t for t in tasks if t.run_id == run_id]
        if mine:
            runs.append(_run_record(run_id, wall, generating, mine))
    _read[folder] = (stamp, (tasks, runs))
    return tasks, runs


def earlier(root, limit: int = EARLIER_FOLDERS) -> tuple[list[TaskRecord], list[RunRecord]]:
    """The task and run records of the newest ``limit`` results folders at or under ``root`` (none
    when ``root`` is not a folder)."""
    try:
        found = folders(root)
    except GraphsweepError:
        return [], []
    tasks, runs = [], []
    for folder in sorted(found, key=when)[-limit:]:
        t, r = _folder_records(folder)
        tasks += t
        runs += r
    return tasks, runs


def _figure(kernel: str, history: list[Run]) -> Figure | None:
    series = {}
    for index, run in enumerate(history):
        for (name, dataset, params), ms in run.times.items():
            if name == kernel:
                series.setdefault((dataset, params), []).append((index, ms))
    if not any(len(points) > 1 for points in series.values()):
        return None
    kept = sorted(series.items(), key=lambda item: -max(ms for _, ms in item[1]))[:MAX_SERIES]
    fig = Figure(figsize=(9, 4.2))
    ax = fig.add_subplot()
    labels = [f"{dataset} {compact_params(params)}".strip() for (dataset, params), _ in kept]
    colours = phase_colours(labels)  # never the same colour twice
    for label, (_, points) in zip(labels, kept):
        x, y = zip(*points)
        ax.plot(x, y, marker="o", label=label, color=colours[label])
    ax.set_yscale("log")
    ax.set_xticks(range(len(history)), [f"{r.path.name}\n{r.when:%Y-%m-%d %H:%M}" for r in history],
                  rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("median kernel time (ms)")
    ax.set_title(f"{kernel}: median kernel time per run"
                 + (f" ({MAX_SERIES} slowest of {len(series)} series)" if len(series) > MAX_SERIES else ""),
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def table(history: list[Run]) -> pd.DataFrame:
    return pd.DataFrame([{"when": f"{r.when:%Y-%m-%d %H:%M}", "results": r.path.name, "sweep": r.sweep,
                          "tasks": r.tasks, "done": r.done, "failed": r.failed, "pending": r.pending,
                          "geomean kernel ms": r.headline_ms} for r in history])


def page(root, history: list[Run]) -> Path:
    """Write ``root/history.html`` for ``history``; returns its path."""
    root = Path(root)
    title = f"graphsweep history: {root.resolve().name}"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p>{len(history)} runs under {html.escape(str(root))}; 'geomean kernel ms' is the geometric mean "
             "of each run's median kernel times (compare runs of the same sweep).</p>", _table(table(history))]
    kernels = sorted({key[0] for run in history for key in run.times})
    for kernel in kernels:
        fig = _figure(kernel, history)
        if fig is not None:
            caption = f"{kernel}: median kernel time of each (dataset, params) across the runs"
            parts.append(f"<figure class='plot'><img alt='{html.escape(caption)}' src='data:image/png;base64,"
                         f"{_png(fig)}'><figcaption>{html.escape(caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return write_atomically(root / HISTORY, lambda tmp: tmp.write_text("\n".join(parts)))
