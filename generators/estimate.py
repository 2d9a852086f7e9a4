"""What generating a dataset will cost, known before any of it is planned or written.

``generation_cost(name, params, part_rows, parallel)`` returns the dataset's shape and:

- ``disk_bytes``: the raw column bytes (parts are plain, uncompressed Parquet, so the file is
  the values) plus ``PART_OVERHEAD`` per part for Parquet framing and its manifest entry;
- ``memory_bytes``: peak host memory of the run: the plan (a tree's planner holds open positions,
  child counts and parents: 12 B per vertex with int32 ids, 20 B with int64; the parent array,
  4 or 8 B per vertex, also goes to each worker process), the parts in flight
  (``PART_BYTES_PER_ROW`` each: uint64 draws and permutation temporaries, the columns, the Arrow
  copy being written) and the driver's bookkeeping (``BOOKKEEPING_PER_PART``: task, future,
  manifest entry — what made ``rmat --scale 40`` grow to 16 GB before writing a part);
- ``device_bytes``: with the GPU backend, the parts in flight on the device;
- ``seconds``: a conservative time: ``ROWS_PER_SECOND`` per part in flight on the backend that
  generates it, or ``IN_MEMORY_ROWS_PER_SECOND`` for a graph generated where its kernels run and
  never written (R-MAT scaled by its levels), trees plus their sequential planner at
  ``TREE_PLAN_VERTICES_PER_SECOND``.

The shapes below repeat each kind's size arithmetic without running its plan, which for a tree
is the expensive part; the tests hold them equal to the plans.  ``check_room`` compares a cost
with the free disk under ``out`` and the host's (or device's) memory and refuses in one line.
"""

import math
from dataclasses import dataclass

from graphsweep.core import capacity
from graphsweep.datasets.format import index_dtype_for

from .grid import kept_edges
from .registry import parse_weights

PART_OVERHEAD = 4096
PART_BYTES_PER_ROW = 96
DEVICE_BYTES_PER_ROW = 64
BOOKKEEPING_PER_PART = 1024
# Rows generated and written per second and part in flight (CPU: the 2-core test host, ~1M rows/s;
# GPU: 62M list rows/s per H200 worker, R-MAT 24 at 75-190M edges/s written by one worker or in
# process: docs/results.md section 12), and generated in memory, unwritten (R-MAT on an H200: 7G
# edges/s at scale 29-30, section 9); R-MAT's at 16 levels.
ROWS_PER_SECOND = {"cpu": 1e6, "gpu": 1e8}
IN_MEMORY_ROWS_PER_SECOND = {"cpu": 1e6, "gpu": 5e9}
RMAT_LEVELS_AT_RATE = 16
TREE_PLAN_VERTICES_PER_SECOND = 5e6


def _density_n(params) -> int:
    delta = params["density"]
    return max(1, round(math.sqrt(params["m"] / (2 * delta)))) if delta > 0 else 1


def _half_degree(params) -> int:
    return round(params["n"] * params["degree"] / 2)


# (n, rows) of each kind from its resolved parameters.
SHAPES = {
    "list": lambda p: (p["n"], p["n"]),
    "ordered-list": lambda p: (p["n"], p["n"]),
    "list-graph": lambda p: (p["n"], max(0, p["n"] - p["count"])),
    "tree": lambda p: (p["n"], max(0, p["n"] - p["count"])),
    "recursive-tree": lambda p: (p["n"], p["n"] - 1),
    "density": lambda p: (_density_n(p), p["m"]),
    "uniform": lambda p: (p["n"], _half_degree(p)),
    "scale-free": lambda p: (p["n"], _half_degree(p)),
    "rmat": lambda p: (1 << p["scale"], p["edge_factor"] << p["scale"]),
    "grid": lambda p: (p["rows"] * p["cols"], kept_edges(p["rows"], p["cols"], p["keep"])),
}


@dataclass(frozen=True)
class Cost:
    kind: str
    n: int
    rows: int
    parts: int
    disk_bytes: int
    memory_bytes: int
    device_bytes: int
    seconds: float


def row_bytes(kind: str, n: int, weighted: bool) -> int:
    """Bytes one stored row takes: succ for lists; src, dst (and an int32 weight) for graphs."""
    index = 4 if index_dtype_for(n) == "int32" else 8
    return index if kind == "list" else 2 * index + (4 if weighted else 0)


def generation_cost(generator, params: dict, *, part_rows: int, parallel: int = 1,
                    workers: int = 0, backend: str = "cpu", written: bool = True) -> Cost:
    """The cost of ``generator`` (a ``Generator``) with resolved ``params`` on ``backend`` (the CPU
    for a generator without a GPU path); ``parallel`` parts are in flight at once, ``workers``
    processes besides this one hold the plan; ``written``: to Parquet parts, else into memory."""
    n, rows = SHAPES[generator.name](params)
    weighted = generator.kind == "graph" and parse_weights(params.get("weights", "none")) is not None
    parts = max(1, -(-rows // part_rows))
    in_flight = min(parts, max(1, parallel))
    part_rows_in_flight = in_flight * min(part_rows, max(rows, 1))
    plan_bytes = 0
    if generator.name == "tree":
        wide = index_dtype_for(n) != "int32"
        plan_bytes = n * (20 if wide else 12) + workers * n * (8 if wide else 4)
    rates = ROWS_PER_SECOND if written else IN_MEMORY_ROWS_PER_SECOND
    rate = rates["gpu" if backend == "gpu" and generator.gpu else "cpu"] * in_flight
    if generator.name == "rmat":
        rate *= RMAT_LEVELS_AT_RATE / max(params["scale"], 1)
    seconds = rows / rate + (n / TREE_PLAN_VERTICES_PER_SECOND if generator.name == "tree" else 0)
    return Cost(kind=generator.kind, n=n, rows=rows, parts=parts,
                disk_bytes=rows * row_bytes(generator.kind, n, weighted) + parts * PART_OVERHEAD,
                memory_bytes=plan_bytes + part_rows_in_flight * PART_BYTES_PER_ROW + parts * BOOKKEEPING_PER_PART,
                device_bytes=part_rows_in_flight * DEVICE_BYTES_PER_ROW if backend == "gpu" else 0,
                seconds=seconds)


def check_room(subject: str, cost: Cost, out, *, backend: str = "cpu") -> None:
    """Refuse (one NoRoomError line) when ``cost`` does not fit the disk under ``out`` or the memory."""
    where = capacity.nearest_existing(out)
    capacity.check(subject, [
        (f"disk under {where}", cost.disk_bytes, capacity.free_disk(where)),
        ("host memory", cost.memory_bytes, capacity.available_memory()),
        ("GPU memory", cost.device_bytes, capacity.device_memory() if backend == "gpu" else None)])
