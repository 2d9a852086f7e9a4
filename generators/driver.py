"""``generate``: make a dataset of any registered kind, its parts written in parallel, atomically.

The driver resolves and checks the parameters, plans the dataset (sizes, keys; a tree's whole
structure), splits its rows into parts of ``part_rows`` and writes them: on a distributed
``client`` a task per group of up to ``PARTS_PER_TASK`` parts, written side by side (each part
its own Parquet file, by ``writer.write_part``), or with ``client=None`` a part per thread of a
pool in this process.  It then commits the manifest with
``generator: {name, params, seed}`` and the plan's stats; on any failure it aborts, so nothing
half-written remains.  Every part is a pure function of (plan, row range), so the dataset is
byte-identical for any part size and worker count.

A caller that resolved the parameters already (a sweep, as it read its spec) hands them over as
``resolved``: none is coerced twice.
"""

import itertools
import os
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from graphsweep.core import gpu
from graphsweep.core.capacity import format_bytes
from graphsweep.core.errors import ParameterError
from graphsweep.core.params import identity, resolve
from graphsweep.datasets.writer import abort, begin, commit, write_part

from .estimate import check_room, generation_cost
from .graphs import DENSITY, RMAT, SCALE_FREE, UNIFORM
from .grid import GRID
from .lists import LIST, LIST_GRAPH, ORDERED_LIST
from .progress import Progress
from .recursive_tree import RECURSIVE_TREE
from .registry import Plan, weight_column
from .trees import TREE

GENERATORS = {g.name: g for g in (LIST, ORDERED_LIST, LIST_GRAPH, TREE, RECURSIVE_TREE, DENSITY, UNIFORM,
                                   SCALE_FREE, RMAT, GRID)}


def write_generated_part(name: str, plan: Plan, pending, index: int, start: int, stop: int,
                         backend: str) -> dict:
    """Compute rows [start, stop) of generator ``name`` and write them as part ``index``."""
    xp = gpu.backend_module(backend)
    columns = {c: gpu.to_host(a) for c, a in GENERATORS[name].part(plan, start, stop, xp).items()}
    if plan.weighted:
        columns["weight"] = weight_column(plan, start, stop)
    return write_part(pending, index, columns)


# Parts one distributed generation task writes side by side.  A Dask worker often runs one task at
# a time (a GPU worker has one thread), and a part spends most of its time where the GIL is
# released (the copy off the GPU, Parquet encoding, the write and its checksum).  R-MAT 24 from
# the H200 on one single-thread worker: 0.27-0.34 GB/s a part at a time, 0.59-0.65 four at once.
PARTS_PER_TASK = 4


def write_generated_parts(name: str, plan: Plan, pending, parts: list, backend: str) -> list[dict]:
    """``write_generated_part`` for each (index, start, stop) of ``parts``, side by side."""
    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        return list(pool.map(lambda part: write_generated_part(name, plan, pending, *part, backend), parts))


def part_bounds(rows: int, part_rows: int) -> list[tuple[int, int]]:
    """[start, stop) of each part; an empty dataset still gets one (empty) part."""
    return [(a, min(a + part_rows, rows)) for a in range(0, max(rows, 1), part_rows)]


def _check_call(name: str, seed, part_rows, backend: str) -> str:
    """The backend to run on ("auto" chosen), once the call's arguments are checked."""
    if name not in GENERATORS:
        raise ParameterError(f"unknown generator {name!r} (kinds: {', '.join(GENERATORS)})")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ParameterError(f"seed: {seed!r} is not an integer >= 0")
    if not isinstance(part_rows, int) or isinstance(part_rows, bool) or part_rows < 1:
        raise ParameterError(f"part_rows: {part_rows!r} is not an integer >= 1")
    if backend not in gpu.BACKENDS:
        raise ParameterError(f"backend: {backend!r} is not one of {', '.join(gpu.BACKENDS)}")
    backend = gpu.choose(backend, GENERATORS[name].gpu)
    if backend == "gpu":
        if not GENERATORS[name].gpu:
            kinds = ", ".join(g.name for g in GENERATORS.values() if g.gpu)
            raise ParameterError(f"backend gpu: generator {name!r} runs on the CPU only "
                                 f"(the GPU generates {kinds})")
        if not gpu.available():
            raise ParameterError("backend gpu: no CUDA device usable with CuPy here")
    return backend


def parameters(name: str, params: dict | None = None, resolved: dict | None = None) -> dict:
    """Generator ``name``'s parameters, every one coerced, defaults filled: ``params`` resolved here,
    or ``resolved`` as ``resolve`` gave them to a caller that checked them already (a sweep, as it
    read its spec), taken as they are: a parameter is coerced once."""
    if resolved is None:
        return resolve(f"generator '{name}'", GENERATORS[name].params, params or {})
    if params is not None:
        raise TypeError(f"generator '{name}': given its parameters resolved; got params too")
    return resolved


def _run_local(tasks: list, progress: Progress) -> list[dict]:
    with ThreadPoolExecutor(max_workers=min(len(tasks), os.cpu_count() or 1)) as pool:
        futures = [pool.submit(write_generated_part, *args) for args in tasks]
        try:
            parts = []
            for future in as_completed(futures):
                parts.append(future.result())
                progress.step()
            return parts
        except BaseException:
            for f in futures:
                f.cancel()  # the pool's exit then waits for running tasks before abort cleans up
            raise


def _run_distributed(client, tasks: list, plan: Plan, progress: Progress) -> list[dict]:
    from distributed import as_completed as distributed_as_completed, wait

    # The plan goes to each worker once (a tree's plan holds its parent array).
    [plan_future] = client.scatter([plan], hash=False, broadcast=True)
    name, _, pending, _, _, _, backend = tasks[0]
    # Several parts a task, but never so many that a worker thread goes without a task.
    per_task = max(1, min(PARTS_PER_TASK, len(tasks) // max(1, sum(client.nthreads().values()))))
    groups = [[(index, start, stop) for _, _, _, index, start, stop, _ in tasks[i:i + per_task]]
              for i in range(0, len(tasks), per_task)]
    # Dealt to the workers' threads in turn (loosely: a worker that leaves or falls behind loses them
    # to the others): left to the scheduler, a few short tasks could all go to the first worker.
    nthreads = client.nthreads()
    threads = [w for slot in range(max(nthreads.values(), default=0)) for w in sorted(nthreads)
               if nthreads[w] > slot] or [None]
    futures = [client.submit(write_generated_parts, name, plan_future, pending, group, backend, pure=False,
                             key=f"graphsweep-generate-{name}-{group[0][0]}-{pending.tmp.name}",
                             **({"workers": [at], "allow_other_workers": True} if at else {}))
               for group, at in zip(groups, itertools.cycle(threads))]
    try:
        parts = []
        for future in distributed_as_completed(futures):
            written = future.result()
            parts.extend(written)
            progress.step(len(written))
        return parts
    except BaseException:
        # Cancelling does not stop a task already running on a worker, which may still be writing
        # its part: wait until every task has finished (wait() does not raise their errors), so
        # that the caller's abort removes a directory that no task writes into any more.
        wait(futures)
        client.cancel(futures)
        raise


def generate(name: str, out, *, seed: int, params: dict | None = None, resolved: dict | None = None,
             part_rows: int = 1 << 20, client=None, backend: str = "cpu", overwrite: bool = False,
             progress: bool = True) -> Path:
    """Generate dataset ``name`` with ``params`` (or ``resolved``, see ``parameters``) into
    directory ``out``; returns its path.

    Raises ``ParameterError`` naming the parameter for bad parameters, ``DatasetError`` when
    ``out`` exists and is not a dataset (or is one and ``overwrite`` is false), and
    ``NoRoomError`` (need vs have) when the estimated disk or memory is not there.
    """
    backend = _check_call(name, seed, part_rows, backend)
    generator = GENERATORS[name]
    resolved = parameters(name, params, resolved)
    # Before planning: a tree's plan alone can outgrow the memory, and a huge part count the disk.
    threads = client.nthreads() if client is not None else {}
    cost = generation_cost(generator, resolved, part_rows=part_rows, backend=backend, workers=len(threads),
                           parallel=sum(threads.values()) * PARTS_PER_TASK if threads else (os.cpu_count() or 1))
    shown = ", ".join(f"{k} = {v}" for k, v in resolved.items() if v != generator.params[k].default)
    check_room(f"generate {name}{f' ({shown})' if shown else ''}", cost, out, backend=backend)
    plan = generator.plan(resolved, seed)
    pending = begin(out, kind=plan.kind, n=plan.n, weighted=plan.weighted, overwrite=overwrite)
    try:
        tasks = [(name, plan, pending, index, start, stop, backend)
                 for index, (start, stop) in enumerate(part_bounds(plan.rows, part_rows))]
        if progress:
            sys.stderr.write(f"generate {name}: {plan.rows:,} rows in {len(tasks)} parts, about "
                             f"{format_bytes(cost.disk_bytes)} on disk, ~{cost.seconds:,.0f} s "
                             "(a conservative estimate)\n")
        bar = Progress(f"generate {name}", len(tasks), "parts", enabled=progress)
        parts = (_run_local(tasks, bar) if client is None else _run_distributed(client, tasks, plan, bar))
        return commit(pending, parts, stats=plan.stats,
                      generator={"name": name, "params": identity(generator.params, resolved), "seed": seed})
    except BaseException:
        abort(pending)
        raise
