"""What a sweep will cost before it starts, and the check that refuses one that cannot fit.

Per dataset: its size on disk (what is new, for datasets still to generate), the host memory to
generate it (``generators.estimate``: planning, parts in flight, bookkeeping) and the memory one
kernel task needs for it:

- a kernel task holds the dataset's arrays plus the problem's working arrays of one run (no
  more: the harness lets each rep's arrays go before the next one runs):
  ``LIST_BYTES_PER_NODE`` per list node on each backend (GPU: succ, rank, the packed 64-bit
  value/link pairs of the splitter and pointer-jumping kernels twice, splitter tables, the
  verifier's arrays; CPU: the twins' int64 records, weights and suffix sums, measured at 52 B per
  node at the peak of the recursive splitter and Helman-JaJa, the succ column included) and
  ``GRAPH_BYTES_PER_EDGE`` per stored edge plus ``GRAPH_BYTES_PER_VERTEX`` per vertex for graph
  problems (COO as loaded, a CSR holding both directions, distances/levels/parents, frontiers);
  on the GPU backend this is device memory, on the CPU backend host memory.

``times`` estimates how long each task and the whole run take, from the best source it has, and
says which (``TimeEstimate.says``):

- ``from N earlier runs on DEVICE``: the results folders beside the sweep's own (``history.earlier``:
  a nightly root, a folder ``run --default`` set aside, the sweep's own resumed one) ran this task
  on this device kind: the lower median of its workers' own seconds on it (a sweep's first run
  pays one-off costs that history cannot always tell from a task's own — a task alone with its
  kernel on its graph computed the references its verifier keeps for later runs —, so of two runs
  the faster counts); or ran its kernel on this
  device on another size or with fewer reps: that time, its runs scaled by elements and count, the
  rest of the task by elements;
- ``from the device's ceilings``: this device's ceilings are known (stamped on its rows, or measured
  by the connected workers) but not the kernel on it: the kernel's time on another device, its runs
  scaled by the ratio of the two devices' floors by its byte model (its bytes over the copy
  ceiling or its random accesses over the gather ceiling, the longer; the gather rates where rows
  have no byte model), or the rough time, its runs scaled the same way from the reference device's;
- ``no history: rough``: ``ROUGH``, per problem and element, typical of the published runs.

A task's own seconds leave out what a worker pays once and the tasks after it do not: loading a
dataset and building its representations (``loads``, per dataset: learned from the tasks that paid
it, else the dataset's bytes at ``LOAD_BYTES_PER_SECOND``), a kernel's first warm-up
(``warms``, per kernel: learned likewise; for a kernel never run on this device its warm-up runs
and ``ROUGH_COMPILE_SECONDS``), the references a kernel's first verification on a graph computes
and keeps for the others and the representations its first task there builds for them (``firsts``,
per dataset and kernel, learned from the first of each worker's tasks of the kernel there:
``history.with_first_refs``; each task's own checks stay its own), a kernel's warm-up with its
parameters on a small sample of its graph's generator, which a worker pays once for all of that
generator's graphs (``samples``, per warm-up key, ``samples.warm_up_key``: learned from the first of
each worker's tasks of the key), and compilations: Numba's, which its disk cache spares later
runs, and the GPU modules a task's first timed reps compiled before running again, which CuPy's
disk cache spares them (``history.TaskRecord.own_s``).  Connected workers say what they hold from earlier runs (``eta.forecast``): a dataset loaded,
kernels warmed up, paid for already.  A run takes its tasks with their shares of those
(``TimeEstimate.shared``) laid out on its workers, longest first (``makespan``), plus what earlier
runs on the device spent outside their tasks (a fresh worker's ceilings, the gaps between tasks,
and estimating, sending and the last result: their log's wall time less the tasks' span and
generation; ``ROUGH_START_SECONDS``, ``ROUGH_PER_TASK_SECONDS``, ``ROUGH_RUN_SECONDS`` without
them), plus the generation of new datasets (``generators.estimate``).  Estimates used to be
30-200x the runs they described (10 ns per element and run on a GPU, 0.5 s a task, generation at
1M rows/s whatever the backend).

``check`` compares the new datasets' total with the free disk under the sweep's ``data``
folder, and the largest generation and kernel task with the host's (and GPU's) memory: this
host's for a local cluster, the smallest worker's once connected to another.
"""

import json
import math
import statistics
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from graphsweep.core import capacity, gpu
from graphsweep.core.capacity import format_bytes
from graphsweep.core.errors import GraphsweepError
from graphsweep.datasets.format import index_dtype_for, is_dataset, read_manifest
from graphsweep.kernels import placement, registry

from . import history
from .samples import warm_up_key

LIST_BYTES_PER_NODE = {"gpu": 48, "cpu": 56}
GRAPH_BYTES_PER_EDGE = 48
GRAPH_BYTES_PER_VERTEX = 32
# Loading a dataset (once per worker that runs its tasks): the published GPU loads ran at 3-6 GB/s
# (docs/results/fixed-costs), a CPU worker's on the test host at ~0.2-1 GB/s, checksums included.
LOAD_BYTES_PER_SECOND = {"gpu": 3e9, "cpu": 5e8}


@dataclass
class DatasetCost:
    id: str
    exists: bool
    elements: int          # list nodes or graph edges
    disk_bytes: int        # its size on disk
    generate_bytes: int    # peak host memory to generate it (0 when it exists)
    generate_seconds: float
    task_bytes: int        # memory one kernel task holds for it (device on GPU, host on CPU)
    tasks: int
    load_seconds: float    # loading it on a worker (or generating it there, for one in memory)
    on_gpu: frozenset = frozenset()  # where its tasks run: True (GPU), False (CPU)
    placements: tuple = ()  # graph kernels on the GPU: where the graph lives ('device', 'host'; kernels.placement)
    host_bytes: int = 0     # host memory a GPU task holds for it (a host-placed CSR, an edge list loaded there)
    sliced: tuple = ()      # partitioned GPU tasks: the worker counts K they slice it over (kernels/dist)


def _on_gpu(plan, kernel_name: str, has_gpu: bool) -> bool:
    if plan.backend == "cpu" or not has_gpu:
        return False
    try:
        return registry.get(kernel_name).gpu is not None
    except GraphsweepError:
        return False


def task_memory(kind: str, n: int, m: int, backend: str = "gpu") -> int:
    """Bytes one kernel task on ``backend`` holds for a dataset of ``kind`` with n nodes and m edges
    (see the module doc)."""
    if kind == "list":
        return n * LIST_BYTES_PER_NODE[backend]
    return m * GRAPH_BYTES_PER_EDGE + n * GRAPH_BYTES_PER_VERTEX


def partitions(task, kernel=None) -> int | None:
    """K of a task whose kernel (``kernel``, where the caller has looked it up) slices its graph over
    K workers (``partitions=K``), else None."""
    try:
        kernel = kernel or registry.get(task.runs)
    except GraphsweepError:
        return None
    return int(task.params["partitions"]) if kernel.drives_workers and task.params.get("partitions") else None


def _placed(ref, size, tasks, memory) -> tuple[tuple, int, int]:
    """(placements, device bytes, host bytes) of a graph's GPU tasks, decided by the placement
    planner on ``memory`` (device bytes, host bytes); NoRoomError when no placement fits."""
    decisions = {placement.decide(size, backend="gpu", device_bytes=memory[0], host_bytes=memory[1],
                                  forced=t.placement, what=f"dataset {ref.id}") for t in tasks}
    needs = size.needs()
    ways = [("whole" if d.build == "whole" else "sliced") if d.placement == "device" else "host" for d in decisions]
    return (tuple(sorted({d.placement for d in decisions})), max(needs[w][0] for w in ways),
            max(needs[w][1] for w in ways))


@dataclass
class Shape:
    """What a dataset of a plan is, before or after it is made."""
    exists: bool
    kind: str
    n: int
    m: int
    disk_bytes: int
    generate_bytes: int
    generate_seconds: float
    load_seconds: float
    size: object            # placement.GraphSize

    @property
    def elements(self) -> int:
        return self.n if self.kind == "list" else self.m


def shape(plan, ref, backend: str = "cpu") -> Shape:
    """``ref``'s shape: from its manifest, or from its generator's parameters when not made yet
    (generated on ``backend``, where its tasks run).  A dataset generated in memory (``store:
    memory``) takes no disk: each worker generates it."""
    from graphsweep import generators
    from graphsweep.generators.driver import parameters
    from graphsweep.generators.estimate import generation_cost, row_bytes

    exists = not ref.in_memory and is_dataset(ref.path)
    if exists or not ref.generated:
        manifest = read_manifest(ref.path)  # a path dataset was read when the plan was made
        kind, n, m = manifest["kind"], manifest["n"], manifest.get("m") or 0
        rows = n if kind == "list" else m
        disk = rows * row_bytes(kind, n, manifest.get("weighted", False))
        generate_bytes, generate_seconds = 0, 0.0
        size = placement.GraphSize.of(manifest)
    else:
        # every parameter, as its generation takes them (the identity leaves some defaults out)
        params = parameters(ref.generator, **ref.generator_params)
        cost = generation_cost(generators.GENERATORS[ref.generator], params, part_rows=plan.part_rows,
                               backend=backend, written=not ref.in_memory)
        kind, n, m = cost.kind, cost.n, (cost.rows if cost.kind == "graph" else 0)
        disk, generate_bytes, generate_seconds = cost.disk_bytes, cost.memory_bytes, cost.seconds
        size = placement.GraphSize(n, m, weighted=ref.params.get("weights", "none") != "none",
                                   index_bytes=np.dtype(index_dtype_for(n)).itemsize, in_memory=ref.in_memory)
    load_seconds = disk / LOAD_BYTES_PER_SECOND[backend]
    if ref.in_memory:  # never written: each worker generates it (on the GPU at least as fast)
        disk, generate_bytes, load_seconds, generate_seconds = 0, 0, generate_seconds, 0.0
    return Shape(exists, kind, n, m, disk, generate_bytes, generate_seconds, load_seconds, size)


def costs(plan, *, has_gpu: bool, memory: tuple | None = None) -> list[DatasetCost]:
    """The cost of each of the plan's datasets (``has_gpu``: kernels with a GPU twin run there);
    generation memory counts the planner and one part in flight (``generate`` on the workers checks
    again with their thread count).  A graph's GPU tasks are placed by ``kernels.placement`` on
    ``memory`` (device bytes, host bytes: this machine's when not given)."""
    out = []
    for ref in plan.datasets:
        tasks = [t for t in plan.tasks if t.dataset.id == ref.id]
        placed = frozenset(_on_gpu(plan, t.kernel, has_gpu) for t in tasks)
        made = shape(plan, ref, "gpu" if True in placed else "cpu")
        kind, n, m = made.kind, made.n, made.m
        task_bytes = max((task_memory(kind, n, m, "gpu" if gpu else "cpu") for gpu in placed), default=0)
        placements, host_bytes = (), 0
        gpu_graph_tasks = [t for t in tasks if kind == "graph" and _on_gpu(plan, t.kernel, has_gpu)]
        whole = [t for t in gpu_graph_tasks if partitions(t) is None]
        sliced = sorted({partitions(t) for t in gpu_graph_tasks} - {None})
        memory = memory or (placement.machine_memory("gpu") if gpu_graph_tasks else (None, None))
        if whole:
            placements, task_bytes, host_bytes = _placed(ref, made.size, whole, memory)
        elif sliced:
            task_bytes = 0
        for k in sliced:   # each worker's share: the largest task a GPU holds
            task_bytes = max(task_bytes, placement.decide_partitioned(made.size, k, device_bytes=memory[0],
                                                                      what=f"dataset {ref.id}"))
        out.append(DatasetCost(ref.id, made.exists, made.elements, made.disk_bytes, made.generate_bytes,
                               made.generate_seconds, task_bytes, len(tasks), made.load_seconds, placed, placements,
                               host_bytes, tuple(sliced)))
    return out


# --- time --------------------------------------------------------------------------------------------

SOURCES = ("history", "ceilings", "rough")


@dataclass(frozen=True)
class Rough:
    """What a task of one problem costs where no earlier run says (the rough source), per element
    (list node, graph edge, vertex pair: what the problem counts) on a reference device: a timed
    run's nanoseconds and its byte model's bytes read and written and random accesses (which scale
    it to another device's ceilings), and the rest of the task's nanoseconds (input checks, graph
    builds, statistics, verification)."""
    run_ns: float
    bytes: float
    random: float
    rest_ns: float


# Per backend and problem ("*": any other), from the published runs (docs/results: the medians of
# 7,100 GPU rows on H100 and H200, those of list ranking and CC on a 16-core host) and a local CPU
# sweep of every other problem (docs/results/estimates); a run's time, its bytes' floor scaled.
ROUGH = {
    "gpu": {"listrank": Rough(0.25, 44, 4.3, 0.3), "cc": Rough(0.4, 44, 4.0, 4.0), "bfs": Rough(0.1, 12, 1.3, 6.0),
            "sssp": Rough(0.35, 72, 3.5, 8.0), "pagerank": Rough(0.4, 145, 16.5, 1.0),
            "tc": Rough(1.2, 413, 864, 2.5), "bc": Rough(0.15, 68, 7.8, 8.0), "apsp": Rough(2.0, 1053, 0.08, 16.0),
            "*": Rough(0.4, 44, 4.0, 4.0)},
    "cpu": {"listrank": Rough(10, 28, 2.5, 30), "cc": Rough(80, 24, 2.0, 360), "bfs": Rough(15, 8, 1.2, 750),
            "sssp": Rough(120, 54, 3.3, 450), "pagerank": Rough(100, 137, 15, 180),
            "tc": Rough(3000, 216, 346, 25000), "bc": Rough(65, 86, 0.5, 1070), "*": Rough(80, 24, 2.0, 360)},
}
# The ceilings of the devices the rough figures ran on (copy GB/s, random gather G/s): a device that
# measured its own scales them by the ratio of the floors.
REFERENCE_CEILINGS = {"gpu": {"copy_gbps": 3000.0, "gather_gelems": 35.0},
                      "cpu": {"copy_gbps": 15.0, "gather_gelems": 0.16}}
# What a task pays whatever its size (the harness's bookkeeping; GPU: the published runs' smallest
# tasks, 1-20 ms; CPU: 10-50 ms on test runs), and a kernel's compilation on a worker that never
# ran it on this device (NVRTC's modules, CuPy's disk cache warm: 20-100 ms; the CPU twins' Numba
# functions: 3-50 s a kernel on the 2-core test host, 1-4 s loaded from Numba's disk cache).
ROUGH_TASK_SECONDS = {"gpu": 0.02, "cpu": 0.05}
ROUGH_COMPILE_SECONDS = {"gpu": 0.1, "cpu": 2.0}
# A run's seconds outside its tasks, without earlier runs to learn them from: a fresh CPU worker
# measures its ceilings after its first task (0.6-4 s; a GPU worker as it starts, before the run);
# each task waits for the scheduler and stores its rows (10-50 ms, measured on CPU test runs); and
# the run estimates, sends its tasks and gathers the last result (0.1-0.3 s on CPU test runs, 70 ms
# on an H100: docs/results/fixed-costs).
ROUGH_START_SECONDS = {"gpu": 0.0, "cpu": 2.0}
ROUGH_PER_TASK_SECONDS = {"gpu": 0.02, "cpu": 0.05}
ROUGH_RUN_SECONDS = {"gpu": 0.1, "cpu": 0.2}
# A run whose workers spent longer than this measuring their ceilings started them fresh.
FRESH_START = 0.01


def makespan(seconds, workers: int, start: float = 0.0) -> float:
    """Seconds until ``workers``, each free after ``start``, running the tasks of ``seconds``,
    longest first, each on the worker free first, are done (LPT list scheduling)."""
    free = [start] * max(1, workers)
    for s in sorted(seconds, reverse=True):
        free[free.index(min(free))] += s
    return max(free)


@dataclass
class TimeEstimate:
    seconds: dict          # task hash -> its worker's seconds on it, less what a worker pays once (loads, warms)
    sources: dict          # task hash -> where that came from: one of SOURCES
    learned: dict          # task hash -> the earlier runs (ids) its history source learned from
    start: float           # seconds each worker spends before its first task (a fresh one's ceilings)
    generate: float        # seconds generating its new datasets
    devices: dict          # backend -> the device its tasks were estimated for
    loads: dict            # dataset id -> seconds a worker takes to load it and build its representations
    overhead: float = 0.0  # seconds of the run outside its tasks: estimating, sending, the last result
    warms: dict = field(default_factory=dict)   # kernel -> seconds a worker's first task of it compiles and warms up
    groups: dict = field(default_factory=dict)  # task hash -> (its dataset id, its kernel)
    # (dataset id, kernel) -> seconds a worker's first task of the kernel on the dataset verifies more
    # than the others: the references its verifier keeps for them
    firsts: dict = field(default_factory=dict)
    # task hash -> (its warm-up key, seconds): what a worker's first task of the key pays warming the
    # kernel up on a small sample for all the tasks of the key there (``samples.warm_up_key``)
    samples: dict = field(default_factory=dict)

    def shared(self) -> dict:
        """task hash -> its seconds with its share of its dataset's loading, its kernel's warm-up,
        its kernel's first references on the dataset and its warm-up key's sample warm-up, each paid
        once (on one worker): what the run's tasks cost one after another."""
        datasets = Counter(d for d, _ in self.groups.values())
        kernels = Counter(k for _, k in self.groups.values())
        pairs = Counter(self.groups.values())
        keys = Counter(key for key, _ in self.samples.values())
        out = {}
        for h, seconds in self.seconds.items():
            dataset, kernel = self.groups.get(h, (None, None))
            key, sample = self.samples.get(h, (None, 0.0))
            out[h] = (seconds + (self.loads.get(dataset, 0.0) / datasets[dataset] if dataset in datasets else 0.0)
                      + (self.warms.get(kernel, 0.0) / kernels[kernel] if kernel in kernels else 0.0)
                      + (self.firsts.get((dataset, kernel), 0.0) / pairs[dataset, kernel]
                         if (dataset, kernel) in pairs else 0.0)
                      + (sample / keys[key] if key in keys else 0.0))
        return out

    def wall(self, workers: int | None = None) -> float:
        """The run's seconds on ``workers`` (None: one task at a time)."""
        return self.overhead + self.generate + makespan(self.shared().values(), workers or 1, self.start)

    def part(self, hashes) -> "TimeEstimate":
        """The estimate of the tasks of ``hashes`` alone."""
        keep = [h for h in self.seconds if h in hashes]
        return TimeEstimate({h: self.seconds[h] for h in keep}, {h: self.sources[h] for h in keep},
                            {h: self.learned[h] for h in keep}, self.start, self.generate, self.devices,
                            self.loads, self.overhead, self.warms,
                            {h: self.groups[h] for h in keep if h in self.groups}, self.firsts,
                            {h: self.samples[h] for h in keep if h in self.samples})

    def says(self) -> str:
        """Which sources the estimate used ("from 12 earlier runs on NVIDIA H100", "from the device's
        ceilings", "no history: rough"), each with its number of tasks when several were used."""
        devices = " and ".join(sorted(set(self.devices.values())))
        runs = len(set().union(*self.learned.values())) if self.learned else 0
        names = {"history": f"from {runs} earlier run{'s' * (runs != 1)} on {devices}",
                 "ceilings": "from the device's ceilings", "rough": "no history: rough"}
        used = Counter(self.sources.values())
        if len(used) <= 1:
            return names[next(iter(used), "rough")]
        names["rough"] = "rough (no history)"
        return ", ".join(f"{used[s]} task{'s' * (used[s] != 1)} {names[s]}" for s in SOURCES if used[s])


def local_devices(has_gpu: bool) -> dict:
    """backend -> the device this host's tasks would run on (as rows name it)."""
    from graphsweep.kernels import harness
    devices = {"cpu": harness.device_name("cpu")}
    if has_gpu:
        try:
            devices["gpu"] = harness.device_name("gpu")
        except Exception:  # no usable CuPy here: an estimate without the device's name
            devices["gpu"] = "GPU"
    return devices


def _floor(rough: Rough, copy: float, gather: float) -> float:
    """Seconds per element of a run of ``rough``'s byte model at the ceilings ``copy`` (GB/s) and
    ``gather`` (G/s): its bytes over the one or its random accesses over the other, the longer."""
    return max(rough.bytes / (copy * 1e9), rough.random / (gather * 1e9))


def _scaled(record, elements: int, runs: int, backend: str, speed: float = 1.0) -> float:
    """``record``'s own seconds (``TaskRecord.own_s``) for ``elements`` and ``runs`` timed runs, each
    run ``speed`` times as long: its runs scaled by elements and count, the rest of its task by
    elements beyond what any task pays (``ROUGH_TASK_SECONDS``: a tiny task's bookkeeping does not
    grow with a large dataset)."""
    timed = 0.0 if math.isnan(record.timed_s) else record.timed_s
    per_run = timed / record.runs if record.runs else 0.0
    ratio = elements / max(1, record.elements)
    fixed = min(ROUGH_TASK_SECONDS[backend], record.own_s - timed)
    return fixed + (record.own_s - timed - fixed + per_run * runs * speed) * ratio


def _nearest(records, elements: int) -> list:
    """The records whose size is nearest ``elements`` (by ratio)."""
    gap = {r: abs(np.log(max(1, r.elements) / max(1, elements))) for r in records}
    least = min(gap.values())
    return [r for r in records if gap[r] == least]


def _slower(record, ceilings: dict | None) -> float | None:
    """How many times longer ``record``'s timed runs take on a device of ``ceilings`` (copy GB/s,
    gather G/s) than on its own: the ratio of their floors by its byte model, else of the gather
    rates; None where neither is known."""
    if not ceilings:
        return None
    there, here = record.floor(), record.floor(ceilings.get("copy_gbps"), ceilings.get("gather_gelems"))
    if there and here:
        return here / there
    if record.gather and ceilings.get("gather_gelems"):
        return record.gather / ceilings["gather_gelems"]
    return None


def _rough_runs(problem: str, backend: str, elements: int, runs: int, ceilings: dict | None) -> float:
    """The rough source's seconds for ``runs`` runs of a kernel of ``problem`` (see ``ROUGH``), at
    ``ceilings`` where known."""
    rough = ROUGH[backend].get(problem, ROUGH[backend]["*"])
    reference = REFERENCE_CEILINGS[backend]
    speed = 1.0
    if ceilings and ceilings.get("copy_gbps") and ceilings.get("gather_gelems"):
        speed = (_floor(rough, ceilings["copy_gbps"], ceilings["gather_gelems"])
                 / _floor(rough, reference["copy_gbps"], reference["gather_gelems"]))
    return elements * runs * rough.run_ns * speed * 1e-9


def _rough(problem: str, backend: str, elements: int, runs: int, ceilings: dict | None) -> float:
    """The rough source's seconds for a task of ``runs`` timed runs (see ``ROUGH``)."""
    rough = ROUGH[backend].get(problem, ROUGH[backend]["*"])
    return (ROUGH_TASK_SECONDS[backend] + elements * rough.rest_ns * 1e-9
            + _rough_runs(problem, backend, elements, runs, ceilings))


def _task_time(task, problem: str, backend: str, device: str, elements: int, same: list,
               ceilings: dict | None) -> tuple[float, str, list]:
    """(seconds, source, the records it learned from) of one task's own work on ``device`` (whose
    measured ``ceilings`` are known, or None), from ``same``, the records of its kernel on
    ``backend`` (see the module doc); loading and compiling are the caller's."""
    runs = task.reps * (task.roots or 1)
    here = [r for r in same if r.device == device]
    exact = [r for r in here if r.task == task.hash]
    if exact:
        return statistics.median_low(r.own_s for r in exact), "history", exact
    params = json.dumps(task.params, sort_keys=True)
    if here:
        near = _nearest([r for r in here if r.params == params] or here, elements)
        return statistics.median(_scaled(r, elements, runs, backend) for r in near), "history", near
    if not ceilings:
        return _rough(problem, backend, elements, runs, None), "rough", []
    elsewhere = [r for r in same if _slower(r, ceilings) is not None]
    if not elsewhere:
        return _rough(problem, backend, elements, runs, ceilings), "ceilings", []
    near = _nearest([r for r in elsewhere if r.params == params] or elsewhere, elements)
    return (statistics.median(_scaled(r, elements, runs, backend, _slower(r, ceilings)) for r in near),
            "ceilings", near)


def _elements(kernel_name: str, made) -> tuple[str, int]:
    """(the kernel's problem, what it counts on a dataset of ``made``'s shape: nodes, edges, pairs)."""
    from types import SimpleNamespace
    try:
        problem = registry.get(kernel_name).problem
    except GraphsweepError:
        return "*", made.elements
    return problem.name, int(problem.elements(SimpleNamespace(n=made.n, m=made.m)))


def _learned(records: list, devices: dict, key, cost) -> dict:
    """``key(record)`` -> the seconds a worker spent on ``cost(record)`` (what a worker pays once:
    loading a dataset, warming up a kernel) in earlier runs on the same device: per run the worker
    that spent most, the lower median of the runs (a first run on a device computes what later runs
    read: references kept beside the dataset, parts' checksums, compiled modules)."""
    per_worker: dict = {}
    for r in records:
        if devices.get(r.backend) == r.device and key(r):
            at = (key(r), r.run_id, r.worker)
            per_worker[at] = per_worker.get(at, 0.0) + cost(r)
    per_run: dict = {}
    for (what, run_id, _), seconds in per_worker.items():
        runs = per_run.setdefault(what, {})
        runs[run_id] = max(runs.get(run_id, 0.0), seconds)
    return {what: statistics.median_low(runs.values()) for what, runs in per_run.items()}


def times(plan, tasks: list | None = None, *, has_gpu: bool, devices: dict | None = None,
          ceilings: dict | None = None, held=frozenset(), warmed=frozenset()) -> TimeEstimate:
    """How long ``tasks`` (the plan's, by default) take on ``devices`` (backend -> device name:
    this host's when not given), learned from the results folders beside the plan's (see the
    module doc).  ``ceilings``: backend -> the ceilings the cluster's workers have measured, where
    rows have none; workers that have measured them are not fresh and pay no start.  ``held``: the
    paths of datasets a worker holds loaded (not loaded again), ``warmed``: kernels every worker
    has warmed up (not again)."""
    tasks = plan.tasks if tasks is None else tasks
    devices = devices or local_devices(has_gpu)
    ceilings = ceilings or {}
    records, run_records = history.earlier(plan.results.parent)
    backend_of = {t.hash: "gpu" if _on_gpu(plan, t.kernel, has_gpu) else "cpu" for t in tasks}
    refs, on = {}, {}
    for t in tasks:
        refs[t.dataset.id] = t.dataset
        on[t.dataset.id] = "gpu" if on.get(t.dataset.id) == "gpu" else backend_of[t.hash]
    by_id = {d: shape(plan, ref, on[d]) for d, ref in refs.items()}
    backends = Counter(backend_of.values())
    main = backends.most_common(1)[0][0] if backends else ("gpu" if has_gpu else "cpu")
    runs_here = [r for r in run_records if r.device == devices.get(main, main) and r.backend == main]
    per_task = statistics.median(r.per_task for r in runs_here) if runs_here else ROUGH_PER_TASK_SECONDS[main]
    overhead = statistics.median(r.outside for r in runs_here) if runs_here else ROUGH_RUN_SECONDS[main]
    fresh = [r.start for r in runs_here if r.start > FRESH_START]
    start = 0.0 if main in ceilings else statistics.median(fresh) if fresh else ROUGH_START_SECONDS[main]
    of_kernel, measured = {}, {}
    for r in records:
        of_kernel.setdefault((r.backend, r.kernel), []).append(r)
        mine = measured.setdefault((r.backend, r.device), {"copy_gbps": [], "gather_gelems": []})
        mine["copy_gbps"] += [r.copy] if r.copy else []
        mine["gather_gelems"] += [r.gather] if r.gather else []
    learned = _learned(records, devices, lambda r: r.dataset, lambda r: r.once_s)
    loads = {d: 0.0 if str(refs[d].path) in held else learned.get(d, made.load_seconds) for d, made in by_id.items()}
    warm_ups = _learned(records, devices, lambda r: r.kernel, lambda r: r.kernel_once_s)
    references = _learned(records, devices, lambda r: (r.dataset, r.kernel), lambda r: r.first_s)
    sampled = _learned(records, devices, lambda r: r.warm_key, lambda r: r.sample_s)
    firsts = {(t.dataset.id, t.kernel): references[t.dataset.id, t.kernel] for t in tasks
              if references.get((t.dataset.id, t.kernel), 0.0) > 0 and str(t.dataset.path) not in held}
    seconds, sources, used_runs, warms, samples = {}, {}, {}, {}, {}
    for task in tasks:
        backend = backend_of[task.hash]
        device = devices.get(backend, backend)
        rows = {k: statistics.median(v) for k, v in measured.get((backend, device), {}).items() if v}
        here = {**ceilings.get(backend, {}), **rows} or None
        made = by_id[task.dataset.id]
        problem, elements = _elements(task.kernel, made)
        same = of_kernel.get((backend, task.kernel), [])
        took, sources[task.hash], used = _task_time(task, problem, backend, device, elements, same, here)
        if task.kernel in warmed:
            warms[task.kernel] = 0.0
        elif task.kernel not in warms:   # its first task here: learned, or a kernel never run on this device
            warms[task.kernel] = warm_ups.get(task.kernel, 0.0) if any(r.device == device for r in same) else (
                ROUGH_COMPILE_SECONDS[backend] + _rough_runs(problem, backend, elements, task.warmup, here))
        seconds[task.hash] = took + per_task
        key = _warm_up_key(task, refs[task.dataset.id], made, backend)
        if sampled.get(key, 0.0) > 0:
            samples[task.hash] = (key, sampled[key])
        used_runs[task.hash] = frozenset(r.run_id for r in used) if sources[task.hash] == "history" else frozenset()
    generate = sum(made.generate_seconds for made in by_id.values() if not made.exists)
    used_devices = {b: d for b, d in devices.items() if b in backends}
    return TimeEstimate(seconds, sources, used_runs, start, generate, used_devices or devices, loads, overhead, warms,
                        {t.hash: (t.dataset.id, t.kernel) for t in tasks}, firsts, samples)


def _warm_up_key(task, ref, made: Shape, backend: str) -> tuple | None:
    """The key ``task``'s worker warms its kernel up once under on a small sample of its graph's
    generator (``samples.warm_up_key``: the worker's, less the task's roots and placement, which one
    sweep's tasks of a kernel share; by the kernel its rows name); None where no sample stands for
    its warm-up (no warm-up asked, a kernel that drives other workers, a graph not generated)."""
    if not task.warmup or made.kind != "graph" or not ref.generated or partitions(task) is not None:
        return None
    return warm_up_key(task.kernel, task.params, {"name": ref.generator, "params": ref.params, "seed": ref.seed},
                       made.m, backend)


def _duration(seconds: float) -> str:
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


def describe(plan, *, has_gpu: bool | None = None, workers: int | None = None) -> tuple[list[str], str]:
    """For ``run --dry-run``: a line per dataset with its cost, and a line with the whole sweep's
    (its time on ``workers``, one task at a time when not known), each naming its time's source."""
    has_gpu = gpu.available() if has_gpu is None else has_gpu
    items = costs(plan, has_gpu=has_gpu)
    estimated = times(plan, has_gpu=has_gpu)
    width = max(len(c.id) for c in items)
    lines = ["datasets (estimates; see graphsweep.pipeline.estimate):"]
    for c in items:
        made = ("exists" if c.exists else "generated in memory by each task" if not c.disk_bytes and not c.generate_bytes
                else f"to generate: {format_bytes(c.generate_bytes)} memory, ~{_duration(c.generate_seconds)}")
        where = (f", graph in {' and '.join(c.placements)} memory"
                 + (f" ({format_bytes(c.host_bytes)} of host memory)" if c.host_bytes else "")) if c.placements else ""
        where += f", sliced over {' or '.join(map(str, c.sliced))} GPUs" if c.sliced else ""
        mine = estimated.part({t.hash for t in plan.tasks if t.dataset.id == c.id})
        lines.append(f"  {c.id:<{width}}  {format_bytes(c.disk_bytes):>10} on disk ({made}); "
                     f"{c.tasks} tasks, {format_bytes(c.task_bytes)} each{where}, "
                     f"~{_duration(sum(mine.shared().values()))} ({mine.says()})")
    new = sum(c.disk_bytes for c in items if not c.exists)
    on = f"on {workers} worker{'s' * (workers != 1)}" if workers else "one task at a time"
    total = (f"estimate: {format_bytes(sum(c.disk_bytes for c in items))} of datasets "
             f"({format_bytes(new)} new, {format_bytes(capacity.free_disk(plan.data))} free under "
             f"{capacity.nearest_existing(plan.data)}), {len(plan.tasks)} tasks, "
             f"~{_duration(estimated.wall(workers))} {on} ({estimated.says()})")
    return lines, total


def check(plan, *, has_gpu: bool, host_memory: int | None, device_memory: int | None,
          where: str = "this host") -> None:
    """NoRoomError (one line, need vs have) when the sweep's new datasets do not fit the disk,
    or its largest generation or kernel task the memory (``None``: not known, not checked); a
    graph that fits neither the GPU nor the host is refused by the placement planner."""
    items = costs(plan, has_gpu=has_gpu, memory=(device_memory, host_memory))
    data = capacity.nearest_existing(plan.data)

    def largest_task(on_gpu: bool) -> int:  # of the datasets with tasks placed there
        return max((c.task_bytes for c in items if on_gpu in c.on_gpu), default=0)

    capacity.check(f"sweep {plan.name}", [
        (f"disk for new datasets under {data}", sum(c.disk_bytes for c in items if not c.exists),
         capacity.free_disk(data)),
        (f"memory to generate a dataset on {where}", max((c.generate_bytes for c in items), default=0), host_memory),
        (f"memory for a CPU kernel task on {where}", largest_task(False), host_memory),
        (f"GPU memory for a kernel task on {where}", largest_task(True), device_memory),
        (f"host memory for a GPU task's graph on {where}", max((c.host_bytes for c in items), default=0),
         host_memory)])


def worker_capacity() -> dict:
    """What a worker offers (run on each worker): a usable GPU, available host memory and its
    device's memory (the total: the worker's pool hands cached blocks back for a larger dataset)."""
    return {"gpu": gpu.available(), "memory": capacity.available_memory(),
            "device": capacity.device_memory(total=True)}


def check_kernel(manifest: dict, *, on_gpu: bool, subject: str, graph: bool = False,
                 forced: str | None = None, sliced: int | None = None) -> None:
    """The memory check a sweep makes for each of its kernel tasks (``check``), for one kernel run
    outside a sweep (``graphsweep kernel``): NoRoomError when the dataset of ``manifest`` would not
    fit the GPU's free memory (``on_gpu``) or the host's available memory; a graph kernel on the
    GPU asks the placement planner, which puts a graph the GPU cannot hold in host memory — or,
    sliced over ``sliced`` GPU workers, checks each worker's share and the GPUs' together."""
    if graph and on_gpu and sliced:
        placement.decide_partitioned(placement.GraphSize.of(manifest), sliced,
                                     device_bytes=placement.machine_memory("gpu")[0], what=subject)
        return
    if graph and on_gpu:
        device, host = placement.machine_memory("gpu")
        placement.decide(placement.GraphSize.of(manifest), backend="gpu", device_bytes=device, host_bytes=host,
                         forced=forced, what=subject)
        return
    need = task_memory(manifest["kind"], manifest["n"], manifest.get("m") or 0, "gpu" if on_gpu else "cpu")
    have = capacity.device_memory() if on_gpu else capacity.available_memory()
    capacity.check(subject, [("GPU memory for a kernel task" if on_gpu else "memory for a CPU kernel task",
                              need, have)])


def needs(plan, *, has_gpu: bool) -> str:
    """One line saying what the sweep needs of the machine that runs it (for ``--dry-run``, before
    a sweep is scheduled): a GPU or not, memory for its largest kernel task and generation, disk."""
    items = costs(plan, has_gpu=has_gpu)
    on_gpu = max((c.task_bytes for c in items if True in c.on_gpu), default=0)
    on_host = max((c.task_bytes for c in items if False in c.on_gpu), default=0)
    pinned = max((c.host_bytes for c in items), default=0)
    generate = max((c.generate_bytes for c in items), default=0)
    parts = []
    if plan.backend == "gpu" or on_gpu:
        parts.append(f"a CUDA GPU{' (backend: gpu)' if plan.backend == 'gpu' else ''} with "
                     f"{format_bytes(on_gpu)} of memory for its largest kernel task")
    if pinned:
        parts.append(f"{format_bytes(pinned)} of host memory for a graph placed there (kernels.placement)")
    if on_host:
        parts.append(f"{format_bytes(on_host)} of host memory for its largest CPU kernel task")
    if generate:
        parts.append(f"{format_bytes(generate)} of host memory to generate a dataset")
    parts.append(f"{format_bytes(sum(c.disk_bytes for c in items if not c.exists))} of disk for new datasets "
                 f"under {plan.data}")
    return "needs: " + "; ".join(parts)
