"""A kernel's warm-up on a small sample of its graph's generator: the sample's parameters and the
key a worker warms up once under (``worker.WorkerState.warm_up_on_sample``), which the plan
(``estimate.times``) and what it learns from (``history.with_first_refs``) use too."""

import json
import math

from graphsweep.core.params import identity, resolve
from graphsweep.generators import GENERATORS

from . import config

# A graph warms its kernels up on a sample (``warm_up_on_sample``) when it has at least this many
# times the sample's edges (``worker.warm-up-sample-edges``).
SAMPLE_RATIO = 4


def warm_up_key(kernel: str, params, made: dict | None, m: int | None, backend: str) -> tuple | None:
    """What a worker warms ``kernel`` up once for on a small sample (``WorkerState.warm_up_on_sample``)
    when it runs it with ``params`` (a dict, or JSON as rows hold it) on a graph of ``m`` edges that
    ``made`` generated (its manifest's ``generator``: name, params, seed) on ``backend``: (kernel,
    parameters as JSON, backend, the sample: generator, its parameters as JSON, seed, where it lives).
    Graphs of one generator and shape share their sample, so a worker warms up once for all of
    them (R-MAT at scales 21-23 of one edge factor).  None where no sample stands for the warm-up (a
    graph not generated, a generator not known here, one within ``SAMPLE_RATIO`` samples' size).
    The worker adds the task's roots and placement, which one sweep's tasks of a kernel share; the
    plan (``estimate.times``) and what it learns from (``history.with_first_refs``) use this one."""
    if not made or not made.get("name"):
        return None
    edges = int(config.get("worker.warm-up-sample-edges"))
    sample = sample_params(made["name"], made.get("params") or {}, edges)
    if sample is None or (m or 0) < SAMPLE_RATIO * edges:
        return None
    return (kernel, params if isinstance(params, str) else json.dumps(params, sort_keys=True, default=str), backend,
            (made["name"], json.dumps(sample, sort_keys=True), made.get("seed"), "gpu" if backend == "gpu" else "cpu"))


def sample_params(generator: str, params: dict, edges: int) -> dict | None:
    """The parameters of ``generator``'s graph of about ``edges`` edges with the shape of the one
    ``params`` make — the same degree, skew, weights, sub-graph share and id order; fewer vertices
    (R-MAT's scale, a grid's sides), as a manifest holds them — or None for a generator not known
    here or a graph no larger."""
    if generator not in GENERATORS:
        return None
    try:
        p = resolve(f"generator '{generator}'", GENERATORS[generator].params, params)
    except Exception:   # parameters its generator no longer takes: no sample, the input's warm-up
        return None
    if generator == "rmat":
        out = {**p, "scale": max(4, min(p["scale"], round(math.log2(max(2.0, edges / p["edge_factor"])))))}
    elif generator in ("uniform", "scale-free"):
        out = {**p, "n": max(64, min(p["n"], int(2 * edges / max(p["degree"], 1.0))))}
    elif generator == "density":
        m = min(p["m"], edges)
        out = {**p, "m": m, "count": max(1, p["count"] * m // p["m"])}
    elif generator == "grid":
        side = math.sqrt(max(1.0, 2 * p["rows"] * p["cols"] * max(p["keep"], 1e-3) / edges))
        out = {**p, "rows": max(2, int(p["rows"] / side)), "cols": max(2, int(p["cols"] / side))}
    elif generator in ("list-graph", "tree", "recursive-tree"):
        n = min(p["n"], edges)
        out = {**p, "n": n, **({"count": max(1, p["count"] * n // p["n"])} if "count" in p else {})}
    else:
        return None
    return None if out == p else identity(GENERATORS[generator].params, out)
