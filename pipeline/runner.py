"""Sending a plan's tasks to a Dask cluster: ``run_plan`` / ``execute`` (wait, with progress) and
``submit_plan`` / ``submit``.

Datasets to generate become one task each (which fans out into one task per part; one the client
sees made already needs none); every kernel task waits for all of them, so no generation shares a
GPU with a timed kernel.  Kernel tasks hold
``GPU=1`` on a GPU cluster (one kernel at a time per GPU) and ``HOST=1`` on a CPU cluster (one
timed CPU twin per host, with every core), carry readable keys and a Dask span per sweep and
kernel, and are prioritised by their estimated time (``estimate.times``), longest first, a dataset's
tasks together.  Placement is Dask's, for ``run`` and ``submit`` alike: each task is restricted,
loosely, to one worker (``owners``: a run of the tasks, datasets longest first, so its
``WorkerState`` plugin loads each dataset once and a dataset is split over as few workers as balance
allows, each worker's loading and warm-ups counted); idle
workers steal from busy ones at the end: on a cluster graphsweep started, Dask's work stealing is
held back while every worker has tasks of its plan left (``_TailStealing``).  Tasks store their own results, so
``submit`` can hand them to the cluster with fire_and_forget and return (recording what it
launched, for ``status``).

Order of a run: check what can be checked without a cluster (the results folder, the room the
sweep needs, a GPU and the workers the sweep asks of a local cluster), lock the results folder
for the run's life (``status`` sees a run starting from then on), connect, check the workers
(resources, memory), and only then claim the folder: write plan.json and the log.  A run that
cannot reach its cluster leaves nothing behind, so a retry is not refused.

Exit codes (``run_plan``): 0 every task done, 1 a task failed or is pending (the run ended
early); a refusal before the claim is a ``GraphsweepError`` (2).  Trouble once the results are
stored — the report, the cluster's close — is a warning on stderr, never the run's failure.
"""

import dataclasses
import logging
import math
import time
import uuid
from collections import Counter
from contextlib import contextmanager, suppress
from datetime import datetime, timezone

import click
import dask
from distributed import as_completed, fire_and_forget, span

from graphsweep.core import capacity, gpu
from graphsweep.core.errors import GraphsweepError
from graphsweep.core.workers import live_workers
from graphsweep.generators.progress import Progress

from . import cluster, config, estimate, eta, launched, logs, paths, store, worker
from . import report as reporter
from .sweep import SweepPlan

log = logging.getLogger("graphsweep.run")


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def _log_path(plan: SweepPlan, run_id: str):
    return plan.results / store.LOGS / f"{run_id}.log"


def _placement(client, plan: SweepPlan) -> dict:
    """The resources every kernel task holds on this cluster, after checking that its workers
    offer them and have the memory the sweep needs.

    On GPU workers a kernel task holds a GPU (a CPU twin there too: it owns its worker); on CPU
    workers it holds the host, so a timed CPU twin never shares the cores it uses.
    """
    timeout = config.get("cluster.worker-timeout")
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise GraphsweepError(f"no worker joined the cluster within {timeout}") from None
    offers = client.run(estimate.worker_capacity)
    has_gpu = all(o["gpu"] for o in offers.values())
    check_served(plan, has_gpu=has_gpu, workers=len(offers), where="the cluster")
    use_gpu = has_gpu and plan.backend != "cpu"
    need = dict(config.get("worker.gpu-resources" if use_gpu else "worker.cpu-resources"))
    offered = [w.get("resources", {}) for w in live_workers(client).values()]
    if not any(all(r.get(k, 0) >= v for k, v in need.items()) for r in offered):
        flag = f"--resources {','.join(f'{k}={v}' for k, v in need.items())}"
        raise GraphsweepError(f"no worker offers the resources {need} that kernel tasks hold: start "
                              + (f"GPU workers with {flag}" if use_gpu else
                                 f"one CPU worker per host with {flag} (timed CPU kernels need the whole host)"))
    devices = [o["device"] for o in offers.values() if o["device"] is not None]
    estimate.check(plan, has_gpu=use_gpu, host_memory=min(o["memory"] for o in offers.values()),
                   device_memory=min(devices) if devices else None, where="the smallest worker")
    return need


def _dask_key(task, run_id: str) -> str:
    """The task's Dask key in this run: two sweeps sharing a long-lived cluster may hold the same
    task (same hash) for different results folders, and a key the scheduler still holds hands
    back the other sweep's outcome without running the task."""
    return f"{task.key}-{run_id}"


def _order(todo: list, seconds: dict) -> list:
    """``todo`` longest first: datasets by their tasks' estimated seconds, each dataset's tasks
    together (a worker reuses what it has loaded), its longest first; ties in plan order."""
    per_dataset = {}
    for t in todo:
        per_dataset[t.dataset.id] = per_dataset.get(t.dataset.id, 0.0) + seconds.get(t.hash, 0.0)
    first = {}
    for t in todo:
        first.setdefault(t.dataset.id, t.index)
    return sorted(todo, key=lambda t: (-per_dataset[t.dataset.id], first[t.dataset.id], -seconds.get(t.hash, 0.0),
                                       t.index))


def _priorities(todo: list, seconds: dict) -> dict:
    """Task key -> Dask priority (higher runs first), in ``_order``: the long tasks start early and
    short ones fill the gaps at the end, which keeps every worker busy to the last task."""
    ordered = _order(todo, seconds)
    return {t.key: len(ordered) - i for i, t in enumerate(ordered)}


def _compile_partitioned_twins(todo: list) -> None:
    """A partitioned task on CPU workers runs its kernel's Numba twins on K workers in step, which
    would each compile and write the same cache files at once (unsafe: numba/numba#4807): compiled
    here first (``dist.driver.compile_cpu_twins``), the workers of this host only load them."""
    from graphsweep.kernels import registry
    if any(registry.get(t.kernel).drives_workers for t in todo):
        from graphsweep.kernels.dist import driver
        driver.compile_cpu_twins()


def _sender(plan: SweepPlan, client, run_id: str, todo: list, seconds: dict, wait: bool, resources: dict,
            progress: bool = False, store_later: bool = False):
    """Start the generation ``todo`` needs; return (its kernel tasks in sending order, send).

    With ``wait`` the generation finishes first (``progress``: with progress lines) and what it made
    is recorded (``store.write_generation``); otherwise kernel tasks depend on the generation
    futures.  ``send(task)`` submits one task, holding ``resources`` (see ``_placement``; a
    partitioned task holds them on its K workers from within itself: ``worker.run_task``), at its
    priority by ``seconds`` (task hash -> estimated seconds).
    ``store_later``: a task's rows are stored while its worker's next task starts (the run flushes
    the workers at its end: ``_flushed``).
    """
    use_gpu = "GPU" in resources
    if not use_gpu:
        _compile_partitioned_twins(todo)
    needed = {t.dataset.id for t in todo}
    generated = []
    with span(plan.name, "generate"):
        for ref in plan.datasets:
            if ref.generated and not ref.in_memory and ref.id in needed:
                # A dataset this client sees made already needs no task (a round trip each, 5-10 ms
                # before the first kernel task); one it cannot see is the workers' to check.
                made = worker.made_already(ref)
                generated.append(made if made is not None else client.submit(
                    worker.generate_dataset, ref, plan.part_rows, "gpu" if use_gpu else "cpu",
                    key=f"generate-{ref.id}-{run_id}", priority=len(plan.tasks) + 1, pure=False))
    if wait:
        generated = _wait_generated(plan, generated, progress)
        store.write_generation(plan.results, run_id, [g["generated"] for g in generated if g.get("generated")])
    priority = _priorities(todo, seconds)

    def send(task, to=None):
        # ``to``: the task's worker (``owners``); a preference only, so the task may be stolen by an
        # idle worker and still runs if that worker leaves.
        # A partitioned task holds its resources on the K workers it slices over, from its own
        # task (worker.run_task); holding one here too would wait on itself.
        drives = estimate.partitions(task) is not None
        with span(plan.name, task.kernel):
            return client.submit(worker.run_task, task, str(plan.results), run_id, plan.on_failure,
                                 generated, resources, store_later, key=_dask_key(task, run_id),
                                 priority=priority[task.key],
                                 resources=None if drives else resources, pure=False,
                                 **({"workers": [to], "allow_other_workers": True} if to else {}))

    return sorted(todo, key=lambda t: -priority[t.key]), send


def _completed(running: as_completed, tick, poll: float = 0.01):
    """The futures of ``running`` as they complete, calling ``tick`` while none does: progress
    lines go on between task ends (a task may run for minutes).  ``poll`` is short: the run's end
    waits for it after its last task (0.1 s was 3% of a 3.7 s sweep's wall)."""
    while not running.is_empty():
        if running.has_ready():
            yield next(running)
        else:
            tick()
            time.sleep(poll)


def _progress(label: str, total: int, unit: str, enabled: bool, extra: str = "") -> Progress:
    """A progress bar on stderr; without a terminal a line every ``run.progress-interval``."""
    interval = dask.utils.parse_timedelta(config.get("run.progress-interval"))
    return Progress(label, total, unit, enabled=enabled, interval=interval, extra=extra)


def _wait_generated(plan: SweepPlan, generated: list, progress: bool) -> list:
    """The outcomes of the generation tasks in ``generated`` (made-already answers pass through)."""
    futures = [g for g in generated if not isinstance(g, dict)]
    if not futures:
        return generated
    bar = _progress(f"{plan.name}: generate", len(futures), "datasets", progress)
    for _ in _completed(as_completed(futures), lambda: bar.step(0)):
        bar.step()
    return [g if isinstance(g, dict) else g.result() for g in generated]


@dataclasses.dataclass(frozen=True)
class Costs:
    """What a plan of ``owners`` counts, in estimated seconds: a worker's finish is its tasks'
    ``seconds`` (task hash -> seconds) plus what it pays once: loading each dataset it runs (``load``:
    dataset id -> seconds) unless it holds it from an earlier run (``held``: worker -> dataset id),
    each kernel's warm-up (``warm``: kernel -> seconds) and each kernel's first verification on each
    dataset, which computes the references the others check against (``first``: (dataset id, kernel)
    -> seconds; a kernel's tasks on a graph split over two workers compute them twice), and each
    warm-up on a small sample (``sample``: task hash -> (its warm-up key, seconds): a kernel's
    parameters on a generator's graphs, warmed up once per worker for all of them,
    ``samples.warm_up_key``)."""

    seconds: dict
    load: dict = dataclasses.field(default_factory=dict)
    held: dict = dataclasses.field(default_factory=dict)
    warm: dict = dataclasses.field(default_factory=dict)
    first: dict = dataclasses.field(default_factory=dict)
    sample: dict = dataclasses.field(default_factory=dict)


def owners(todo: list, workers: list, costs: Costs) -> dict:
    """Task hash -> the worker it is restricted to (loosely: ``allow_other_workers``).

    A worker's finish is its tasks' estimated seconds plus what it pays once (``Costs``): its
    datasets' loads, its kernels' warm-ups, first verifications and sample warm-ups.  Three plans
    (four with warm-up keys), the one that ends soonest kept:

    - filled: the tasks in order — datasets by estimated seconds, most first (a held dataset
      first), each dataset's kernels together, longest first — poured into the workers one after
      another up to the shortest finish ``T`` at which they all fit (found by bisection), as
      McNaughton's wrap-around rule does: each worker's tasks are a run of that order, so at most
      ``workers - 1`` datasets are split (each over as few workers as balance allows) and the
      loads and warm-ups paid beyond one each are the fewest;
    - whole datasets to the worker with the fewest seconds so far (LPT);
    - whole (dataset, kernel) groups, longest first, each to the worker it ends soonest on: a
      dataset split between kernels, each kernel's first verification there paid once;
    - where tasks have warm-up keys, the same with whole key groups: each of a kernel's parameter
      sets on few workers, its sample warm-up paid once.

    Each is then improved (all but the first only where they end within ``WHOLE_WITHIN`` of it)
    while moving one of the busiest worker's tasks, or a group of them, to another worker ends the
    run sooner (``_balanced``); ties go to the earlier plan.  The rest is Dask's: a worker that has
    run its share steals from a busy one (``_TailStealing``), and a task whose worker left runs
    elsewhere."""
    if not workers or not todo:       # nothing to place (a resumed run with every task stored)
        return {}
    workers = sorted(workers)

    def end(owner: dict) -> float:
        return max(finishes(owner, todo, costs).values())

    filled = _balanced(_filled(todo, workers, costs), todo, workers, costs)
    plans = [filled]
    others = [_whole(todo, workers, costs), _grouped(todo, workers, costs)]
    if costs.sample:
        others.append(_grouped(todo, workers, costs, by_key=True))
    for other in others:
        if end(other) < WHOLE_WITHIN * end(filled):   # near enough to be worth improving (a few moves, not thousands)
            other = _balanced(other, todo, workers, costs)
        plans.append(other)
    return min(plans, key=end)


# The plans of whole datasets and of whole (dataset, kernel) groups are improved only where they end
# within this factor of the filled one's best: further off, it is a few large datasets the filled
# plan splits already, and the moves that would even it out take seconds for thousands of tasks.
WHOLE_WITHIN = 1.25


def finishes(owner: dict, todo: list, costs: Costs) -> dict:
    """Worker -> its planned finish under ``owner``: its tasks' seconds, one load of each dataset it
    does not hold, one warm-up of each kernel it runs, one first verification of each kernel on
    each dataset and one sample warm-up of each warm-up key (see ``owners``)."""
    plan = _Plan(sorted(set(owner.values())), costs)
    for t in todo:
        plan.give(t, owner[t.hash])
    return plan.busy


def _in_order(todo: list, seconds: dict, held: dict) -> list:
    """``todo`` as ``owners`` pours it: held datasets first, then by estimated seconds, most first;
    within one, its kernels by their seconds, most first, each kernel's tasks longest first."""
    dataset_s, kernel_s = {}, {}
    for t in todo:
        s = seconds.get(t.hash, 0.0)
        dataset_s[t.dataset.id] = dataset_s.get(t.dataset.id, 0.0) + s
        kernel_s[t.dataset.id, t.kernel] = kernel_s.get((t.dataset.id, t.kernel), 0.0) + s
    holding = set(held.values())
    return sorted(todo, key=lambda t: (t.dataset.id not in holding, -dataset_s[t.dataset.id], t.dataset.id,
                                       -kernel_s[t.dataset.id, t.kernel], t.kernel, -seconds.get(t.hash, 0.0)))


def _filled(todo: list, workers: list, costs: Costs) -> dict:
    """The filled plan of ``owners``: the workers (those holding a dataset first, in the order of
    their datasets) each take a run of the tasks in ``_in_order`` up to ``T``, the last one the rest."""
    ordered = _in_order(todo, costs.seconds, costs.held)
    holder = {d: w for w, d in costs.held.items() if w in workers}
    holding = list(dict.fromkeys(holder[t.dataset.id] for t in ordered if t.dataset.id in holder))
    order = holding + [w for w in workers if w not in holding]

    def pour(limit: float) -> tuple[dict, float]:
        """(the plan poured up to ``limit``, its latest finish)."""
        owner, at = {}, 0
        plan = _Plan(order, costs)
        for t in ordered:
            cost = plan.cost_of(t, order[at])
            if at + 1 < len(order) and plan.busy[order[at]] and plan.busy[order[at]] + cost > limit:
                at += 1
                cost = plan.cost_of(t, order[at])
            plan.give(t, order[at], cost)
            owner[t.hash] = order[at]
        return owner, max(plan.busy.values())

    best, high = pour(math.inf)
    low = 0.0
    for _ in range(24):   # bisect T (to 1e-7 of the serial time): the shortest at which the pour ends by T
        mid = (low + high) / 2
        owner, end = pour(mid)
        if end <= mid:
            high, best = mid, owner
        else:
            low = mid
    return best


def _whole(todo: list, workers: list, costs: Costs) -> dict:
    """Whole datasets, most estimated seconds first, to the worker with the fewest seconds so far
    (LPT); a worker that holds a dataset takes it."""
    per_dataset: dict = {}
    for t in todo:
        per_dataset.setdefault(t.dataset.id, []).append(t)
    total = {d: sum(costs.seconds.get(t.hash, 0.0) for t in tasks) for d, tasks in per_dataset.items()}
    plan, owner = _Plan(workers, costs), {}
    for dataset in sorted(per_dataset, key=lambda d: -total[d]):
        w = next((w for w in workers if costs.held.get(w) == dataset), None) or min(workers, key=plan.busy.get)
        for t in per_dataset[dataset]:
            plan.give(t, w)
            owner[t.hash] = w
    return owner


def _grouped(todo: list, workers: list, costs: Costs, by_key: bool = False) -> dict:
    """Whole (dataset, kernel) groups, most estimated seconds first (their first verification
    counted), each to the worker whose finish it leaves soonest (its loading, warm-ups and first
    verification there counted); ``by_key``: whole warm-up key groups instead (``sample``: a
    kernel's parameters on the graphs of one generator, whose sample warm-up a worker pays once),
    a task without one in its (dataset, kernel) group."""
    groups: dict = {}
    for t in todo:
        group = costs.sample[t.hash][0] if by_key and t.hash in costs.sample else (t.dataset.id, t.kernel)
        groups.setdefault(group, []).append(t)
    total = {g: sum(costs.seconds.get(t.hash, 0.0) for t in tasks) + costs.first.get(g, 0.0)
             for g, tasks in groups.items()}
    plan, owner = _Plan(workers, costs), {}
    for g in sorted(groups, key=lambda g: -total[g]):
        w = min(workers, key=lambda w: (plan.busy[w] + plan.cost(groups[g], w), plan.busy[w]))
        for t in groups[g]:
            plan.give(t, w)
            owner[t.hash] = w
    return owner


class _Plan:
    """Each worker's planned seconds (``busy``) as tasks are given to it and taken away: its tasks'
    seconds, one load of each dataset it does not hold, one warm-up of each kernel it runs, one first
    verification of each kernel on each dataset it does not hold, one sample warm-up of each warm-up
    key of its tasks."""

    def __init__(self, workers, costs: Costs):
        self.costs = costs
        self.busy = dict.fromkeys(workers, 0.0)
        self.datasets = {w: Counter() for w in workers}
        self.kernels = {w: Counter() for w in workers}
        self.pairs = {w: Counter() for w in workers}      # (dataset, kernel) -> its tasks there
        self.keys = {w: Counter() for w in workers}       # warm-up key -> its tasks there

    def cost(self, group: list, worker) -> float:
        """What giving the tasks of ``group`` to ``worker`` adds to its seconds."""
        costs = self.costs
        return (sum(costs.seconds.get(t.hash, 0.0) for t in group)
                + sum(costs.load.get(d, 0.0) for d in {t.dataset.id for t in group}
                      if not self.datasets[worker][d] and costs.held.get(worker) != d)
                + sum(costs.warm.get(k, 0.0) for k in {t.kernel for t in group} if not self.kernels[worker][k])
                + sum(costs.first.get(p, 0.0) for p in {(t.dataset.id, t.kernel) for t in group}
                      if not self.pairs[worker][p] and costs.held.get(worker) != p[0])
                + sum(s for key, s in dict(costs.sample[t.hash] for t in group if t.hash in costs.sample).items()
                      if not self.keys[worker][key]))

    def cost_of(self, task, worker) -> float:
        """``cost([task], worker)``, the same sum in the same order without the sets (the filled
        plan's bisection asks it ~10,000 times for 156 tasks on four workers)."""
        costs, d, k = self.costs, task.dataset.id, task.kernel
        held = costs.held.get(worker)
        s = costs.seconds.get(task.hash, 0.0)
        s += costs.load.get(d, 0.0) if not self.datasets[worker][d] and held != d else 0.0
        s += costs.warm.get(k, 0.0) if not self.kernels[worker][k] else 0.0
        s += costs.first.get((d, k), 0.0) if not self.pairs[worker][d, k] and held != d else 0.0
        sample = costs.sample.get(task.hash)
        return s + (sample[1] if sample is not None and not self.keys[worker][sample[0]] else 0.0)

    def saving(self, group: list, worker) -> float:
        """What taking the tasks of ``group`` (all ``worker``'s) away from ``worker`` saves it."""
        costs = self.costs
        datasets, kernels = Counter(t.dataset.id for t in group), Counter(t.kernel for t in group)
        pairs = Counter((t.dataset.id, t.kernel) for t in group)
        keys = Counter(costs.sample[t.hash] for t in group if t.hash in costs.sample)
        return (sum(costs.seconds.get(t.hash, 0.0) for t in group)
                + sum(costs.load.get(d, 0.0) for d, c in datasets.items()
                      if self.datasets[worker][d] == c and costs.held.get(worker) != d)
                + sum(costs.warm.get(k, 0.0) for k, c in kernels.items() if self.kernels[worker][k] == c)
                + sum(costs.first.get(p, 0.0) for p, c in pairs.items()
                      if self.pairs[worker][p] == c and costs.held.get(worker) != p[0])
                + sum(s for (key, s), c in keys.items() if self.keys[worker][key] == c))

    def give(self, task, worker, cost: float | None = None) -> None:
        self.busy[worker] += self.cost_of(task, worker) if cost is None else cost
        self._count(task, worker, 1)

    def take(self, task, worker) -> None:
        self.busy[worker] -= self.saving([task], worker)
        self._count(task, worker, -1)

    def _count(self, task, worker, by: int) -> None:
        self.datasets[worker][task.dataset.id] += by
        self.kernels[worker][task.kernel] += by
        self.pairs[worker][task.dataset.id, task.kernel] += by
        if task.hash in self.costs.sample:
            self.keys[worker][self.costs.sample[task.hash][0]] += by


def _balanced(owner: dict, todo: list, workers: list, costs: Costs) -> dict:
    """``owner`` improved while moving one of the busiest worker's tasks, or all its tasks of one
    kernel (whose warm-up it then no longer pays), of one kernel on one dataset (whose first
    verification it then no longer pays) or of one warm-up key (whose sample warm-up it then no
    longer pays), to another worker (idle ones too) ends the run sooner, the receiver paying the
    dataset's loading, the kernel's warm-ups and its first verification there where it has not
    already: the move that leaves the two finishing soonest first."""
    owner, plan = dict(owner), _Plan(workers, costs)
    for t in todo:
        plan.give(t, owner[t.hash])
    while True:
        most = max(workers, key=plan.busy.get)
        mine = [t for t in todo if owner[t.hash] == most]
        kernels = sorted({t.kernel for t in mine})
        pairs = sorted({(t.dataset.id, t.kernel) for t in mine}) if costs.first else []
        keys = list(dict.fromkeys(costs.sample[t.hash][0] for t in mine if t.hash in costs.sample))
        best, best_end = None, plan.busy[most] - 1e-9
        for group in ([[t] for t in mine] + [[t for t in mine if t.kernel == k] for k in kernels]
                      + [[t for t in mine if (t.dataset.id, t.kernel) == pair] for pair in pairs]
                      + [[t for t in mine if t.hash in costs.sample and costs.sample[t.hash][0] == key]
                         for key in keys]):
            left = plan.busy[most] - plan.saving(group, most)
            for to in workers:
                end = max(left, plan.busy[to] + plan.cost(group, to))
                if to != most and end < best_end:
                    best, best_end = (group, to), end
        if best is None:
            return owner
        group, to = best
        for t in group:
            plan.take(t, most)
            plan.give(t, to)
            owner[t.hash] = to


def _held(client, todo: list) -> dict:
    """Worker -> the id of the dataset of ``todo`` it holds from an earlier run, where it holds one."""
    paths = {str(t.dataset.path): t.dataset.id for t in todo}
    return {w: paths.get(path) for w, path in client.run(worker.held_path).items() if paths.get(path)}


async def _stealing(dask_scheduler, on: bool) -> bool:
    """On the scheduler (``client.run_on_scheduler``): Dask's work stealing started (``on``) or
    stopped; False where the scheduler has none (``distributed.scheduler.work-stealing: false``)."""
    stealing = dask_scheduler.extensions.get("stealing")
    if stealing is None:
        return False
    await (stealing.start() if on else stealing.stop())
    return True


class _TailStealing:
    """Dask's work stealing held back while every worker has tasks of its plan (``owners``) left,
    and let go once one has run them all: from then on an idle worker takes queued tasks from busy
    ones (every ``cluster.steal-interval``), and none is left waiting while tasks remain.

    Before, stealing ran from the start, judging by Dask's estimates: one mean duration per kernel
    (its key's prefix), whatever the dataset or scale — a worker holding R-MAT 23's triangle counts
    looked idle beside one with uniform 21's, and took tasks of datasets it had not loaded; each
    such steal paid a load, a build and a warm-up that the plan had placed once.  Only on a cluster
    started for this run (``cluster.started_here``): a long-lived one may be serving others."""

    def __init__(self, client, enabled: bool):
        self.client, self.left, self.owner = client, Counter(), {}
        self.held = False
        if enabled:
            try:
                self.held = bool(client.run_on_scheduler(_stealing, on=False))
            except Exception:   # a scheduler that cannot: Dask's stealing as it is
                log.info("work stealing not held back", exc_info=True)

    def plan(self, owner: dict, workers) -> None:
        """The run's plan: task hash -> its worker; let go at once where a worker has no task in it."""
        self.owner, self.left = owner, Counter(owner.values())
        if any(not self.left[w] for w in workers):
            self.release()

    def done(self, task_hash: str) -> None:
        """A task ended (wherever it ran): its planned worker has one task fewer left."""
        if not self.held:
            return
        worker_address = self.owner.get(task_hash)
        if worker_address is None:
            return
        self.left[worker_address] -= 1
        if self.left[worker_address] <= 0:
            log.info("worker %s has run its share of the plan: idle workers steal from busy ones from now on",
                     worker_address)
            self.release()

    def release(self) -> None:
        if self.held:
            self.held = False
            with suppress(Exception):   # a cluster closing under the run
                self.client.run_on_scheduler(_stealing, on=True)


def _send_all(client, todo: list, send, estimated) -> tuple[list, dict]:
    """Submit every task of ``todo`` (in sending order) restricted, loosely, to its worker
    (``owners``); returns (the futures, task hash -> its worker)."""
    workers = list(live_workers(client))
    held = _held(client, todo)
    costs = Costs(estimated.seconds, estimated.loads, held, estimated.warms, estimated.firsts, estimated.samples)
    owner = owners(todo, workers, costs)
    planned = finishes(owner, todo, costs) if owner else {}
    for worker_address, seconds in sorted(planned.items()):   # in the run's log: what ran where, against the plan
        mine = [t for t in todo if owner[t.hash] == worker_address]
        log.info("plan: %s: %d tasks, ~%.2f s with loads and warm-ups, datasets %s", worker_address, len(mine),
                 seconds, ", ".join(sorted({t.dataset.id for t in mine})))
        for t in mine:                      # each task's estimate, for history.plan_against_run
            log.info("plan task %s: ~%.4f s on %s", t.hash, estimated.seconds.get(t.hash, 0.0), worker_address)
    return [send(task, owner.get(task.hash)) for task in todo], owner


def _flushed(client) -> list[tuple]:
    """Every worker's pending writes of task rows done (``worker.flush_stores``); the (task hash,
    label, error) of those that failed.  A worker that left takes its unwritten rows with it: those
    tasks have no result file, so the run's summary counts them pending."""
    try:
        return [failed for per_worker in client.run(worker.flush_stores).values() for failed in per_worker]
    except Exception:   # a cluster closing under the run: the summary reads what reached the folder
        log.warning("the workers' last task rows could not be confirmed stored", exc_info=True)
        return []


def _pending(plan: SweepPlan, client, run_id: str) -> list:
    done = store.finished(plan.results)
    todo = [t for t in plan.tasks if t.hash not in done]
    log.info("run %s of sweep %s: %d tasks, %d already finished, %d to run; dashboard %s",
             run_id, plan.name, len(plan.tasks), len(plan.tasks) - len(todo), len(todo),
             client.dashboard_link)
    return todo


class _Membership:
    """The cluster's workers as the run last saw them; who left or joined goes to the run's log."""

    def __init__(self):
        self.known = None

    def update(self, workers) -> None:
        now = set(workers)
        for address in sorted(self.known - now if self.known is not None else ()):
            log.warning("worker %s left the cluster (lost, or restarted by its nanny); the scheduler "
                        "retries the tasks it was running", address)
        for address in sorted(now - self.known if self.known is not None else ()):
            log.info("worker %s joined the cluster", address)
        self.known = now


def execute(plan: SweepPlan, client, *, run_id: str, progress: bool = True, echo=click.echo,
            resources: dict | None = None, steal_at_end: bool = False) -> dict:
    """Run the plan's unfinished tasks (results directory claimed) and wait; returns outcome counts.
    ``steal_at_end``: the cluster was started for this run, and Dask's work stealing waits until a
    worker has run its share of the plan (``_TailStealing``).

    Progress and one line per failed task go to stderr; the details to the log."""
    worker.ensure_state(client)
    resources = resources or _placement(client, plan)
    todo = _pending(plan, client, run_id)
    echo(f"dashboard: {client.dashboard_link}")
    if len(todo) < len(plan.tasks):
        echo(f"resuming: {len(plan.tasks) - len(todo)} of {len(plan.tasks)} tasks already finished")
    counts = {"ok": 0, "failed": 0, "stopped": 0}
    started = time.perf_counter()
    members = _Membership()
    estimated = eta.forecast(plan, todo, has_gpu="GPU" in resources, client=client)
    clock = eta.Eta(estimated.shared(), workers=len(live_workers(client)),
                    start=estimated.start)

    def left() -> str:
        return f", ~{estimate._duration(clock.left())} left" if clock.expected else ""

    def after_count() -> str:
        return (f", {counts['failed']} failed" if counts["failed"] else "") + left()

    generating = time.perf_counter()
    ordered, send = _sender(plan, client, run_id, todo, estimated.shared(), wait=True, resources=resources,
                            progress=progress, store_later=True)
    # logged with the wall time: an estimate learns a run's seconds outside its tasks less this (history)
    counts["generate_s"] = time.perf_counter() - generating
    by_key = {_dask_key(t, run_id): t for t in todo}
    members.update(live_workers(client))
    tail = _TailStealing(client, steal_at_end)   # held back from here on, where asked
    bar = None
    try:
        futures, owner = _send_all(client, ordered, send, estimated)
        tail.plan(owner, live_workers(client))
        running = as_completed(futures)
        bar = _progress(plan.name, len(todo), "tasks", progress, extra=left())
        for future in _completed(running, lambda: bar.step(0, extra=after_count())):
            task = by_key[future.key]
            tail.done(task.hash)
            members.update(live_workers(client))
            try:
                outcome = future.result()
            except Exception as exc:  # the task never ran to storing (e.g. it killed every worker)
                log.warning("task %s ended without storing a result: %s: %s", task.label, type(exc).__name__, exc)
                outcome = worker.store_rows(str(plan.results), task, [worker.error_row(
                    task, run_id, f"{type(exc).__name__}: {exc}")])
                if not outcome["stored"]:  # it had stored its own result after all
                    state, error = store.outcome(store.task_file(plan.results, task.hash))
                    outcome.update(status=state, error=error)
                if outcome["status"] == "failed" and plan.on_failure == "stop":
                    store.stop(plan.results, f"task {task.hash} ({task.label}) failed: {outcome['error']}")
            counts[outcome["status"]] += 1
            if outcome["status"] == "failed":
                error = (outcome["error"] or "verification failed").strip()
                log.warning("failed: %s: %s", task.label, error)
                bar.note(f"failed: {task.label}: {error.splitlines()[0]}")
            else:
                log.info("%s: %s", outcome["status"], task.label)
            clock.done(task.hash)
            bar.step(extra=after_count())
    finally:
        tail.release()
        for task_hash, label, error in _flushed(client):
            # counted done when it ended; its rows never reached the results folder: pending there
            counts["ok"] -= 1
            counts["failed"] += 1
            log.warning("failed: %s: its rows were not stored: %s", label, error)
            if bar is not None:
                bar.note(f"failed: {label}: its rows were not stored: {error.splitlines()[0]}")
    counts["seconds"] = time.perf_counter() - started
    counts["ended_at"] = time.time()   # epoch seconds: the run's end beside its tasks' started_at (history.wall_shares)
    log.info("run %s finished in %.1f s: %s", run_id, counts["seconds"], counts)
    return counts


def uses_gpu(plan: SweepPlan, profile=None, cluster_file=None) -> bool:
    """Whether the sweep's kernels run on GPUs on the cluster ``profile`` names (assumed for a
    cluster elsewhere unless the sweep says ``backend: cpu``)."""
    _, chosen = cluster.resolve(profile, cluster_file, plan.backend)
    if chosen["kind"] in cluster.LOCAL_KINDS:
        return chosen["kind"] == "local-gpu" and plan.backend != "cpu"
    return plan.backend != "cpu"


def check_room(plan: SweepPlan, profile=None, cluster_file=None) -> None:
    """Refuse a sweep whose new datasets do not fit the disk, or (for a cluster on this host)
    whose largest generation or kernel task does not fit this host's or GPU's memory."""
    _, chosen = cluster.resolve(profile, cluster_file, plan.backend)
    local = chosen["kind"] in cluster.LOCAL_KINDS
    has_gpu = chosen["kind"] == "local-gpu" and plan.backend != "cpu"
    estimate.check(plan, has_gpu=has_gpu, host_memory=capacity.available_memory() if local else None,
                   device_memory=capacity.device_memory(total=True) if has_gpu else None)


def check_served(plan: SweepPlan, *, has_gpu: bool, workers: int, where: str) -> None:
    """Refuse, in one line, a sweep that ``workers`` workers (of the cluster ``where`` names) cannot
    serve: ``backend: gpu`` or a kernel's ``placement: device`` without a GPU, and a partitioned
    task's ``partitions`` beyond the workers that hold its slices (its own cluster's, unless it
    names a ``scheduler``)."""
    if not has_gpu:
        if plan.backend == "gpu":
            raise GraphsweepError("backend: gpu, but the cluster's workers have no usable CUDA device")
        for i, entry in enumerate(plan.spec.get("kernels") or []):
            if isinstance(entry, dict) and entry.get("placement") == "device":
                raise GraphsweepError(f"kernels[{i}].placement: 'device' needs a GPU, but the cluster's workers have "
                                      f"no usable CUDA device (backend {plan.backend} runs the CPU twins, whose graphs "
                                      "are in host memory)")
    sliced = [t for t in plan.tasks if t.params.get("partitions") and not t.params.get("scheduler")]
    widest = max(sliced, key=lambda t: t.params["partitions"], default=None)
    if widest is not None:
        cluster.check_partitions(widest.label, widest.params["partitions"], workers, where)


def check_before_connecting(plan: SweepPlan, profile, cluster_file, *, resume: bool, claim: bool = True) -> None:
    """Everything that can be refused before a cluster starts (``run --dry-run`` too): the results
    directory (writable and, with ``claim``, free and the same sweep when resuming), what a local
    cluster cannot serve (``check_served``: a GPU, enough workers) and the room the sweep needs."""
    paths.check_writable(plan.results, "results directory")
    if any(d.generated and not d.in_memory for d in plan.datasets):
        paths.check_writable(plan.data, "data directory")
    if claim:
        store.check_claim(plan, resume=resume)
    name, chosen = cluster.resolve(profile, cluster_file, plan.backend)
    workers = cluster.local_workers(name, chosen)
    if workers is not None:
        check_served(plan, has_gpu=gpu.available(), workers=workers, where=f"the cluster of profile {name}")
    check_room(plan, profile, cluster_file)


def _described(plan: SweepPlan, profile, cluster_file) -> tuple[list[str], str]:
    """``estimate.describe`` of the sweep on the cluster ``profile`` names: on the workers a local
    profile starts (one task at a time where only the cluster knows how many)."""
    name, chosen = cluster.resolve(profile, cluster_file, plan.backend)
    try:
        workers = cluster.local_workers(name, chosen)
    except GraphsweepError:   # local-gpu without a GPU: check_before_connecting refuses it in its words
        workers = None
    has_gpu = gpu.available() and uses_gpu(plan, profile, cluster_file)
    return estimate.describe(plan, has_gpu=has_gpu, workers=workers)


def dry_run(plan: SweepPlan, profile=None, cluster_file=None, *, resume: bool, claim: bool = True,
            echo=click.echo) -> int:
    """``run --dry-run``: print the plan (with ``resume``, only its unfinished tasks) with its costs
    and what it needs, then refuse (GraphsweepError) whatever the run would refuse before starting,
    and a datasets pattern that names nothing; 0 when none."""
    done = store.finished(plan.results).keys() & {t.hash for t in plan.tasks} if resume else set()
    left = dataclasses.replace(plan, tasks=[t for t in plan.tasks if t.hash not in done])
    echo(left.describe(_described(left, profile, cluster_file)))
    if done:
        echo(f"resuming: {len(done)} of {len(plan.tasks)} tasks already finished (not estimated above)")
    echo(estimate.needs(plan, has_gpu=uses_gpu(plan, profile, cluster_file)))
    if plan.warnings:
        raise GraphsweepError(f"{len(plan.warnings)} datasets patterns name no dataset (see the warnings above)")
    check_before_connecting(plan, profile, cluster_file, resume=resume, claim=claim)
    return 0


def reuse(plan: SweepPlan, *, say_only: bool = False) -> tuple[bool, str | None]:
    """For a sweep run again and again into one folder (``run --default``): (resume, what was done).

    An unfinished run of the same sweep is resumed; a finished one, or another sweep's results,
    are set aside whole as ``NAME-RUN_ID`` beside the folder (``say_only``: only said), so every
    run starts afresh and earlier results are kept."""
    results = plan.results
    if not (results / store.PLAN).is_file() or store.lock_holder(results) is not None:
        return False, None  # a fresh folder; or one in use, which check_claim refuses
    earlier = store.read_plan(results)
    if earlier.fingerprint == plan.fingerprint:
        state = store.status(results)
        if state["pending"]:
            return True, f"finishing the unfinished run in {results} ({len(state['pending'])} tasks to go)"
    if say_only:
        return False, f"earlier results in {results} would be set aside as {results.name}-RUN_ID"
    return False, f"earlier results set aside: {store.set_aside(results)}"


def _claim(plan: SweepPlan, client, *, resume: bool, retry_failed: bool, echo) -> None:
    """Under the results directory's lock: write the plan, refuse while tasks a submit launched
    still run, and with ``retry_failed`` forget the failed tasks so they run again."""
    store.init(plan, resume=resume)
    if store.submissions(plan.results):
        active, _ = launched.classify(plan.results, store.status(plan.results)["pending"], client=client)
        busy = active["running"] + active["queued"]
        if busy:
            raise GraphsweepError(f"{plan.results}: {len(busy)} tasks an earlier submit launched are still "
                                  f"running or queued on their cluster; wait for them (graphsweep status "
                                  f"{plan.results}) before running this sweep again")
    if retry_failed:
        echo(f"retrying {store.forget_failed(plan.results)} failed tasks")


def _summary(plan: SweepPlan, report: bool, log_path) -> tuple[list[str], int]:
    state = store.status(plan.results)
    lines = [f"{len(plan.tasks)} tasks: {len(state['done'])} done, {len(state['failed'])} failed, "
             f"{len(state['pending'])} pending{' (stopped after a failure)' if state['stopped'] else ''}"]
    lines += [f"  failed: {task.label}: {(error or 'verification failed').strip().splitlines()[0]}"
              for task, error in state["failed"].values()]
    if report and (state["done"] or state["failed"]):
        try:
            lines.append(f"report: {reporter.report(plan.results)}")
        except Exception as exc:  # derived from the stored results: a warning, not the run's failure
            log.warning("no report", exc_info=True)
            click.echo(f"graphsweep: warning: no report ({type(exc).__name__}: {exc}); the results are stored "
                       f"(graphsweep report {plan.results} writes it)", err=True)
    lines.append(f"log: {log_path}")
    return lines, 0 if not state["failed"] and not state["pending"] else 1


@dataclasses.dataclass
class _Session:
    """A claimed results folder on a connected cluster: what ``run_plan`` and ``submit_plan`` share."""
    client: object
    resources: dict
    run_id: str
    log_path: object
    before: frozenset    # the tasks finished before this run
    started_here: bool = False   # the cluster was started for this command (cluster.started_here)


@contextmanager
def _claimed(plan: SweepPlan, how: str, *, profile, cluster_file, resume: bool, retry_failed: bool, echo):
    """Check what can be checked without a cluster, say the estimate, lock the results folder
    (``how``: the run or the submit holding it), connect, place, claim the folder and open the
    run's log: the order the module doc gives, for ``run`` and ``submit`` alike.  An interrupt is
    logged into the run's log (with the tasks this run stored) before the log is let go."""
    check_before_connecting(plan, profile, cluster_file, resume=resume)
    echo(_described(plan, profile, cluster_file)[1])
    held = logs.attach()  # records from here on wait in memory for the run's log file
    session = None
    try:
        # Locked before the cluster starts: a status polling the folder sees the run from its start.
        with store.hold(plan.results, how), cluster.connect(profile, cluster_file, plan.backend) as client:
            resources = _placement(client, plan)
            _claim(plan, client, resume=resume, retry_failed=retry_failed, echo=echo)
            before = frozenset(store.finished(plan.results).keys())
            run_id = new_run_id()
            path = _log_path(plan, run_id)
            held = logs.open_file(held, path)
            session = _Session(client, resources, run_id, path, before,
                               cluster.started_here(cluster.resolve(profile, cluster_file, plan.backend)[1]))
            yield session
    except KeyboardInterrupt:
        if session is not None:
            # Counted once the cluster is left: a task executing at the interrupt may still store its result.
            stored = len(store.finished(plan.results).keys() - session.before)
            log.warning("interrupted with %d of the %d tasks of this run stored", stored,
                        len(plan.tasks) - len(session.before))
        raise
    finally:
        logs.detach(held)


def run_plan(plan: SweepPlan, *, profile=None, cluster_file=None, resume: bool = False, retry_failed: bool = False,
             progress: bool = True, report: bool = True, echo=click.echo) -> int:
    """Run a whole sweep: mark its results directory (locked to the end), connect, claim it, run,
    reduce and report.  A refusal before the claim leaves nothing in the directory.

    Returns the exit code for batch use: 0 only when every task succeeded (and verified, unless
    the spec says ``verify: false``), else 1 — also when the run ended early, once it had started.
    What goes wrong after the results are stored (the report, the cluster's close) is a warning.
    """
    with _claimed(plan, "run", profile=profile, cluster_file=cluster_file, resume=resume,
                  retry_failed=retry_failed, echo=echo) as session:
        with logs.forwarded(session.client):
            try:
                execute(plan, session.client, run_id=session.run_id, progress=progress, echo=echo,
                        resources=session.resources, steal_at_end=session.started_here)
            except Exception as exc:  # the cluster failed under the run: what is stored stays, the rest pending
                log.error("the run ended early", exc_info=True)
                click.echo(f"graphsweep: error: the run ended early ({type(exc).__name__}: {exc}); "
                           f"finish it with --resume", err=True)
        lines, code = _summary(plan, report, session.log_path)
        for line in lines:
            log.info(line)
            echo(line)
        return code


def submit_plan(plan: SweepPlan, *, profile=None, cluster_file=None, resume: bool = False,
                retry_failed: bool = False, echo=click.echo) -> int:
    """Send a sweep to a long-lived cluster and return at once; the tasks store their own results.
    Returns 0 once every task was sent (trouble leaving the cluster after that is a warning)."""
    name, chosen = cluster.resolve(profile, cluster_file, plan.backend)
    if not cluster.is_long_lived(chosen):
        raise GraphsweepError(f"--cluster {name}: submit needs a cluster that outlives this command "
                              "(a scheduler-file or address profile); use `graphsweep run` for this one")
    with _claimed(plan, "submit", profile=profile, cluster_file=cluster_file, resume=resume,
                  retry_failed=retry_failed, echo=echo) as session:
        echo(f"dashboard: {session.client.dashboard_link}")
        sent = submit(plan, session.client, run_id=session.run_id, resources=session.resources)
    echo(f"submitted {sent} tasks of sweep {plan.name}; watch with: graphsweep status {plan.results}")
    return 0


def submit(plan: SweepPlan, client, *, run_id: str, resources: dict | None = None) -> int:
    """Hand the plan's unfinished tasks to the cluster, record what was launched (for ``status``)
    and return how many were sent."""
    worker.ensure_state(client)
    resources = resources or _placement(client, plan)
    todo = _pending(plan, client, run_id)
    estimated = eta.forecast(plan, todo, has_gpu="GPU" in resources, client=client)
    ordered, send = _sender(plan, client, run_id, todo, estimated.shared(), wait=False, resources=resources)
    store.record_submission(plan.results, run_id, client.scheduler.address,
                            {t.hash: _dask_key(t, run_id) for t in ordered})
    futures, _ = _send_all(client, ordered, send, estimated)
    fire_and_forget(futures)
    _taken(plan, client, ordered, run_id)
    log.info("submitted %d tasks (fire and forget)", len(futures))
    return len(futures)


def _taken(plan: SweepPlan, client, tasks: list, run_id: str, poll: float = 0.05) -> None:
    """Wait until the scheduler knows every task just sent (or it already stored its result), so
    that a ``status`` right after ``submit`` never calls a task in flight to the scheduler lost."""
    timeout = config.get("cluster.worker-timeout")
    deadline = time.monotonic() + dask.utils.parse_timedelta(timeout)
    waiting = {_dask_key(t, run_id): t for t in tasks}
    while True:
        states = launched.task_states(client, list(waiting))
        waiting = {k: t for k, t in waiting.items()
                   if states.get(k) is None and not store.task_file(plan.results, t.hash).exists()}
        if not waiting:
            return
        if time.monotonic() > deadline:
            raise GraphsweepError(f"the scheduler did not take {len(waiting)} of the {len(tasks)} tasks sent "
                                  f"within {timeout}")
        time.sleep(poll)
