"""What a sweep will cost before it starts, and the check that refuses one that cannot fit.

Per dataset: its size on disk (what is new, for datasets still to generate), the host memory to
generate it (``generators.estimate``: planning, parts in flight, bookkeeping), the memory one
kernel task needs for it, and a conservative time for its generation and its tasks.  The factors
are deliberately rough and err high:

- a kernel task holds the dataset's arrays plus the problem's working arrays of one run (no
  more: the harness lets each rep's arrays go before the next one runs):
  ``LIST_BYTES_PER_NODE`` per list node on each backend (GPU: succ, rank, the packed 64-bit
  value/link pairs of the splitter and pointer-jumping kernels twice, splitter tables, the
  verifier's arrays; CPU: the twins' int64 records, weights and suffix sums, measured at 52 B per
  node at the peak of the recursive splitter and Helman-JaJa, the succ column included) and
  ``GRAPH_BYTES_PER_EDGE`` per stored edge plus ``GRAPH_BYTES_PER_VERTEX`` per vertex for graph
  problems (COO as loaded, a CSR holding both directions, distances/levels/parents, frontiers);
  on the GPU backend this is device memory, on the CPU backend host memory;
- a task's time: loading at ``LOAD_BYTES_PER_SECOND``, ``warmup + reps`` runs at
  ``NS_PER_ELEMENT[backend]`` per element (list node or edge), verification at
  ``VERIFY_NS_PER_ELEMENT``, and ``TASK_OVERHEAD_SECONDS``; totals are for one task at a time,
  an upper bound for a cluster of several workers.

``check`` compares the new datasets' total with the free disk under the sweep's ``data``
folder, and the largest generation and kernel task with the host's (and GPU's) memory: this
host's for a local cluster, the smallest worker's once connected to another.
"""

from dataclasses import dataclass

import numpy as np

from graphsweep.datasets import capacity, gpu
from graphsweep.datasets.capacity import format_bytes
from graphsweep.datasets.errors import GraphsweepError
from graphsweep.datasets.format import index_dtype_for, is_dataset, read_manifest
from graphsweep.kernels import placement, registry

LIST_BYTES_PER_NODE = {"gpu": 48, "cpu": 56}
GRAPH_BYTES_PER_EDGE = 48
GRAPH_BYTES_PER_VERTEX = 32
LOAD_BYTES_PER_SECOND = 200e6
NS_PER_ELEMENT = {"cpu": 200.0, "gpu": 10.0}
VERIFY_NS_PER_ELEMENT = 50.0
TASK_OVERHEAD_SECONDS = 0.5


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
    task_seconds: float    # all its tasks, one at a time
    on_gpu: frozenset = frozenset()  # where its tasks run: True (GPU), False (CPU)
    placements: tuple = ()  # graph kernels on the GPU: where the graph lives ('device', 'host'; kernels.placement)
    host_bytes: int = 0     # host memory a GPU task holds for it (a host-placed CSR, an edge list loaded there)


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


def _placed(ref, size, tasks, memory) -> tuple[tuple, int, int]:
    """(placements, device bytes, host bytes) of a graph's GPU tasks, decided by the placement
    planner on ``memory`` (device bytes, host bytes); NoRoomError when no placement fits."""
    decisions = {placement.decide(size, backend="gpu", device_bytes=memory[0], host_bytes=memory[1],
                                  forced=t.placement, what=f"dataset {ref.id}") for t in tasks}
    needs = size.needs()
    ways = [("whole" if d.build == "whole" else "sliced") if d.placement == "device" else "host" for d in decisions]
    return (tuple(sorted({d.placement for d in decisions})), max(needs[w][0] for w in ways),
            max(needs[w][1] for w in ways))


def costs(plan, *, has_gpu: bool, memory: tuple | None = None) -> list[DatasetCost]:
    """The cost of each of the plan's datasets (``has_gpu``: kernels with a GPU twin run there);
    generation memory counts the planner and one part in flight (``generate`` on the workers checks
    again with their thread count).  A graph's GPU tasks are placed by ``kernels.placement`` on
    ``memory`` (device bytes, host bytes: this machine's when not given).  A dataset generated in
    memory (``store: memory``) takes no disk: each task generates it."""
    from graphsweep import generators
    from graphsweep.generators.estimate import generation_cost, row_bytes

    out = []
    for ref in plan.datasets:
        exists = not ref.in_memory and is_dataset(ref.path)
        if exists or not ref.generated:
            manifest = read_manifest(ref.path)  # a path dataset was read when the plan was made
            kind, n, m = manifest["kind"], manifest["n"], manifest.get("m") or 0
            rows = n if kind == "list" else m
            disk = rows * row_bytes(kind, n, manifest.get("weighted", False))
            generate_bytes, generate_seconds = 0, 0.0
            size = placement.GraphSize.of(manifest)
        else:
            cost = generation_cost(generators.GENERATORS[ref.generator], ref.params, part_rows=plan.part_rows)
            kind, n, m = cost.kind, cost.n, (cost.rows if cost.kind == "graph" else 0)
            disk, generate_bytes, generate_seconds = cost.disk_bytes, cost.memory_bytes, cost.seconds
            size = placement.GraphSize(n, m, weighted=ref.params.get("weights", "none") != "none",
                                       index_bytes=np.dtype(index_dtype_for(n)).itemsize, in_memory=ref.in_memory)
        load_seconds = disk / LOAD_BYTES_PER_SECOND
        if ref.in_memory:  # never written: each task generates it (on the GPU at least as fast)
            disk, generate_bytes, load_seconds, generate_seconds = 0, 0, generate_seconds, 0.0
        elements = n if kind == "list" else m
        tasks = [t for t in plan.tasks if t.dataset.id == ref.id]
        placed = frozenset(_on_gpu(plan, t.kernel, has_gpu) for t in tasks)
        seconds = 0.0
        for task in tasks:
            backend = "gpu" if _on_gpu(plan, task.kernel, has_gpu) else "cpu"
            runs = (task.warmup + task.reps) * (task.roots or 1)
            seconds += (load_seconds + runs * elements * NS_PER_ELEMENT[backend] * 1e-9
                        + (elements * VERIFY_NS_PER_ELEMENT * 1e-9 if task.verify else 0) + TASK_OVERHEAD_SECONDS)
        task_bytes = max((task_memory(kind, n, m, "gpu" if gpu else "cpu") for gpu in placed), default=0)
        placements, host_bytes = (), 0
        gpu_graph_tasks = [t for t in tasks if kind == "graph" and _on_gpu(plan, t.kernel, has_gpu)]
        if gpu_graph_tasks:
            placements, task_bytes, host_bytes = _placed(ref, size, gpu_graph_tasks,
                                                         memory or placement.machine_memory("gpu"))
        out.append(DatasetCost(ref.id, exists, elements, disk, generate_bytes, generate_seconds,
                               task_bytes, len(tasks), seconds, placed, placements, host_bytes))
    return out


def _duration(seconds: float) -> str:
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


def describe(plan, *, has_gpu: bool | None = None) -> tuple[list[str], str]:
    """For ``run --dry-run``: a line per dataset with its cost, and a line with the whole sweep's."""
    has_gpu = gpu.available() if has_gpu is None else has_gpu
    items = costs(plan, has_gpu=has_gpu)
    width = max(len(c.id) for c in items)
    lines = ["datasets (conservative estimates; see graphsweep.pipeline.estimate):"]
    for c in items:
        made = ("exists" if c.exists else "generated in memory by each task" if not c.disk_bytes and not c.generate_bytes
                else f"to generate: {format_bytes(c.generate_bytes)} memory, ~{_duration(c.generate_seconds)}")
        where = (f", graph in {' and '.join(c.placements)} memory"
                 + (f" ({format_bytes(c.host_bytes)} of host memory)" if c.host_bytes else "")) if c.placements else ""
        lines.append(f"  {c.id:<{width}}  {format_bytes(c.disk_bytes):>10} on disk ({made}); "
                     f"{c.tasks} tasks, {format_bytes(c.task_bytes)} each{where}, ~{_duration(c.task_seconds)}")
    new = sum(c.disk_bytes for c in items if not c.exists)
    seconds = sum(c.generate_seconds + c.task_seconds for c in items)
    total = (f"estimate: {format_bytes(sum(c.disk_bytes for c in items))} of datasets "
             f"({format_bytes(new)} new, {format_bytes(capacity.free_disk(plan.data))} free under "
             f"{capacity.nearest_existing(plan.data)}), {len(plan.tasks)} tasks, "
             f"~{_duration(seconds)} one task at a time")
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
                 forced: str | None = None) -> None:
    """The memory check a sweep makes for each of its kernel tasks (``check``), for one kernel run
    outside a sweep (``graphsweep kernel``): NoRoomError when the dataset of ``manifest`` would not
    fit the GPU's free memory (``on_gpu``) or the host's available memory; a graph kernel on the
    GPU asks the placement planner, which puts a graph the GPU cannot hold in host memory."""
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
