"""Datasets that never touch disk (a sweep's ``store: memory``): generated straight into memory
when a task needs them, as Graph500 and GAPBS generate, and dropped after.

Every part of a generated dataset is a pure function of (plan, row range), so the arrays made
here are the Parquet dataset's, bit for bit, whatever the chunk size or backend:

- ``generate(name, seed=, params=, backend=)`` — the whole dataset as a ``Dataset`` whose columns
  are NumPy or CuPy arrays and whose manifest is the one ``driver.generate`` commits (no parts,
  ``store: memory``);
- ``unmade(name, seed=, params=)`` — a graph as its plan only, a ``Dataset`` with no columns;
- ``GeneratedEdges`` — a graph's edge list as an edge source: ``chunks(xp, rows)`` computes it
  again, a chunk at a time, on the backend asked for, so a representation larger than the GPU
  can be built by slices without the edge list ever being held anywhere whole.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.format import FORMAT, VERSION
from graphsweep.core.gpu import backend_module, backend_named
from graphsweep.core.params import identity
from graphsweep.datasets.reader import Dataset

from .driver import GENERATORS, parameters
from .registry import Plan, weight_column

# Rows generated per chunk: large enough to amortise a launch, small enough to keep the
# temporaries of a chunk (a few arrays of 8 bytes per row) well under a GiB.
CHUNK_ROWS = 1 << 25


def plan(name: str, *, seed: int, params: dict | None = None, resolved: dict | None = None) -> tuple[dict, Plan]:
    """(resolved parameters, plan) of generator ``name``: every parameter checked (or given
    ``resolved``: ``driver.parameters``), nothing generated."""
    if name not in GENERATORS:
        raise ParameterError(f"unknown generator {name!r} (kinds: {', '.join(GENERATORS)})")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ParameterError(f"seed: {seed!r} is not an integer >= 0")
    resolved = parameters(name, params, resolved)
    return resolved, GENERATORS[name].plan(resolved, seed)


def manifest(name: str, resolved: dict, seed: int, p: Plan) -> dict:
    """The manifest ``driver.generate`` would commit for this plan, without parts or date."""
    return {"format": FORMAT, "version": VERSION, "kind": p.kind, "n": p.n, "index_dtype": str(p.index_dtype),
            "weighted": p.weighted, "directed": False, **({"m": p.rows} if p.kind == "graph" else {}),
            "generator": {"name": name, "params": identity(GENERATORS[name].params, resolved), "seed": seed},
            "parts": [], "stats": p.stats, "store": "memory"}


def _rows(name: str, p: Plan, start: int, stop: int, xp) -> dict:
    """Columns of rows [start, stop) on ``xp``'s device (the GPU where the generator can, else copied)."""
    generator = GENERATORS[name]
    compute = xp if generator.gpu else np
    columns = dict(generator.part(p, start, stop, compute))
    if p.weighted:
        columns["weight"] = weight_column(p, start, stop)
    return {c: xp.asarray(a) for c, a in columns.items()}


def generate(name: str, *, seed: int, params: dict | None = None, resolved: dict | None = None,
             backend: str = "cpu", chunk_rows: int = CHUNK_ROWS, device: str | None = None) -> Dataset:
    """Dataset ``name`` generated into memory as arrays of ``backend`` ('cpu' or 'gpu'; ``device=``
    is its deprecated name); ``resolved``: its parameters resolved already (``driver.parameters``)."""
    backend = backend_named(backend, device, "generate")
    resolved, p = plan(name, seed=seed, params=params, resolved=resolved)
    xp = backend_module(backend)
    columns = None
    for start in range(0, max(p.rows, 1), chunk_rows):
        stop = min(start + chunk_rows, p.rows)
        chunk = _rows(name, p, start, stop, xp)
        if columns is None:
            columns = {c: xp.empty(p.rows, dtype=a.dtype) for c, a in chunk.items()}
        for c, a in chunk.items():
            columns[c][start:stop] = a
    data = Dataset(Path(f"<memory:{name} seed {seed}>"), manifest(name, resolved, seed, p), columns)
    if p.kind == "graph":
        data.cache["edges"] = GeneratedEdges(name, p)
    return data


def unmade(name: str, *, seed: int, params: dict | None = None) -> Dataset:
    """Graph ``name`` as its plan only: a ``Dataset`` with no columns whose edge source generates
    the edges again wherever they are needed (a graph sliced over workers, each generating its
    slice's; a sweep's ``store: memory`` dataset loaded as 'none'): never held anywhere whole."""
    resolved, p = plan(name, seed=seed, params=params)
    if p.kind != "graph":
        raise ParameterError(f"generator {name!r} makes {p.kind}s, not graphs: nothing to generate again by slices")
    data = Dataset(Path(f"<memory:{name} seed {seed}>"), manifest(name, resolved, seed, p), {})
    data.cache["edges"] = GeneratedEdges(name, p)
    return data


@dataclass(frozen=True)
class GeneratedEdges:
    """The edge list of a graph generator's plan, computed again a chunk at a time (an edge source)."""
    name: str
    plan: Plan

    @property
    def m(self) -> int:
        return self.plan.rows

    @property
    def weighted(self) -> bool:
        return self.plan.weighted

    def chunks(self, xp, rows: int = CHUNK_ROWS):
        """(start, {"src", "dst"[, "weight"]}) of each chunk of ``rows`` edges, on ``xp``'s device."""
        for start in range(0, self.m, rows):
            yield start, self.chunk(start, min(start + rows, self.m), xp)

    def chunk(self, start: int, stop: int, xp) -> dict:
        """{"src", "dst"[, "weight"]} of edges [start, stop), on ``xp``'s device."""
        return _rows(self.name, self.plan, start, stop, xp)


def edges(data: Dataset, resolved: dict | None = None) -> GeneratedEdges:
    """The edge source of a generated graph ``data`` (its manifest names generator, params and seed;
    ``resolved``: those params resolved already, ``driver.parameters``)."""
    g = data.manifest["generator"]
    params = g["params"] if resolved is None else None
    return GeneratedEdges(g["name"], plan(g["name"], seed=g["seed"], params=params, resolved=resolved)[1])
