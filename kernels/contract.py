"""The kernel contract: what a problem and an algorithm module declare, and what they are handed.

An algorithm module (``kernels/<problem>/<algorithm>.py``, its ``.cu`` beside it) ends with::

    KERNEL = Kernel(name="listrank.wyllie", problem=LISTRANK, summary="...",
                    gpu=run_gpu, cpu=run_cpu, params={"threads": Param(256, minimum=32)})

``gpu`` and ``cpu`` have the signature ``run(inp, params, timer) -> output``: ``inp`` is what the
problem's ``prepare`` made of the dataset (on the device the backend uses), ``params`` the
validated parameters (a dict, defaults filled in, plus the fields of the current instance, e.g.
``root``), ``timer`` a ``Timer``.  Only the work goes inside ``run``; every phase is wrapped in
``timer.phase(name, read=..., written=..., random=...)`` with its byte model (bytes read, bytes
written, random accesses); ``step=i`` keeps one row per iteration besides the phase's sum.  The
output is the problem's primary array, or a dict keyed by the problem's ``outputs``.
"""

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from graphsweep.core.errors import ParameterError
from graphsweep.core.params import Param, resolve  # noqa: F401  (Param is part of the contract)


def nearest_power_of_two(x: float) -> int:
    """``x`` rounded to the nearest power of two on a log scale, 1 for x <= 1: the form of the
    defaults kernels read from a graph's statistics (a bucket width, threads per edge)."""
    return 1 if x <= 1 else 1 << round(math.log2(x))


def _count_nodes(inp) -> int:
    return inp.n


@dataclass(frozen=True)
class Problem:
    """What every algorithm for one problem shares: its input, its outputs and how they are checked.

    - ``prepare(dataset) -> inp`` checks the dataset and builds the kernels' input on the dataset's
      device (untimed; cached on the dataset).  Graph problems share one ``GraphInput`` per dataset.
    - ``verify(inp, params, out) -> dict`` checks properties of ``out`` (a dict of named arrays)
      independently of any kernel, raising ``VerificationError``; it may return facts it learnt.
    - ``outputs``: the output's column names, primary first (``rank``; ``level``, ``parent``).
    - ``requires``: dataset capabilities every kernel of the problem needs (``undirected``,
      ``weighted``; see ``capabilities``); a sweep skips the datasets without them, with a note.
    - ``element``/``elements(inp)``: what a run's rate counts (list nodes, or input edges: GTEPS).
    - ``covers(instance) -> int``: how many of the problem's runs one run of ``instance`` does at once
      (BC's group of k roots: k traversals in one); its rows count ``covers`` times ``elements``, so
      rates stay per root.  None: one.
    - ``instances(inp, params, count, seed) -> [dict]``: per-run instances, e.g. BFS roots; each
      is timed ``reps`` times, merged into the params of the run and of the verifier, and recorded.
    - ``sample(inp) -> inp``: a small input of the same kind, index type and device that takes
      the code paths the kernels take on ``inp`` (None when ``inp`` is itself small): what a
      worker's first warm-up of a kernel runs on, paying compilation and module loading without a
      full run (``harness.warmup_input``).
    - ``columns(out) -> dict``: what ``--save-output`` writes (default: ``out``, primary first);
      ``save(out, path)`` replaces the column writer for outputs that are not columns.
    - ``unique``: every correct output of an instance is the same arrays (list ranking's ranks; not
      a BFS's parents or a labelling of components), so an output equal to one the verifier passed
      on the same input is correct (the harness then compares instead of verifying again).
    """
    name: str
    dataset_kind: str
    prepare: Callable
    verify: Callable
    outputs: tuple = ("output",)
    requires: frozenset = frozenset()
    element: str = "node"
    elements: Callable = _count_nodes
    instances: Callable | None = None
    covers: Callable | None = None
    sample: Callable | None = None
    columns: Callable | None = None
    save: Callable | None = None
    unique: bool = False
    # The kernel the others are compared with (speed-up figures): the papers' first algorithm.
    baseline: str | None = None

    def named(self, output) -> dict:
        """A kernel's output as a dict of named arrays, primary first (a bare array is the primary)."""
        if not isinstance(output, dict):
            return {self.outputs[0]: output}
        unknown = set(output) - set(self.outputs)
        if unknown or self.outputs[0] not in output:
            raise ValueError(f"{self.name} output must hold {self.outputs[0]!r} and only {self.outputs}; "
                             f"got {sorted(output)}")
        return {k: output[k] for k in self.outputs if k in output}

    def runs_in(self, instance: dict) -> int:
        """How many of the problem's runs one run of ``instance`` does (``covers``; 1 without it)."""
        return 1 if self.covers is None else int(self.covers(instance))


@dataclass(frozen=True)
class Kernel:
    name: str
    problem: Problem
    summary: str
    gpu: Callable | None = None
    cpu: Callable | None = None
    params: Mapping[str, Param] = field(default_factory=dict)
    # setup(inp, params): untimed work the kernel needs per input and parameters, run once before
    # warm-up (check a list is ordered, choose even splitters); it keeps its results in inp.cache,
    # and may return the rows of graph representations it chose to build (inp.build: timed inputs).
    setup: Callable | None = None
    # Capabilities this kernel needs beyond its problem's (listrank.scan: an ordered list).
    requires: frozenset = frozenset()
    # Graph representations built, timed apart (stage "input"), before warm-up: "csr", "rcsr".
    needs: tuple = ()
    # For figures, declared here so the report need not know kernels: the phase that walks a list
    # (ranking: RS3, HJ2, ...), and walk_bytes(params) -> bytes per node it touches at random
    # (where n times that passes the L2, the walk leaves the cache).
    walk_phase: str | None = None
    walk_bytes: Callable | None = None
    # A kernel that drives other workers (a partitioned kernel: ``kernels/dist``): a task running
    # it leaves its worker's thread pool while it waits for them (``dist.driving``).
    drives_workers: bool = False
    # collect(output) -> output: an output left where it was computed while the runs were timed
    # (a partitioned run's slices, on their workers) brought to the caller, after timing.
    collect: Callable | None = None
    # check(output, params) -> facts: such an output verified where it lies (each worker its
    # slice's rows: kernels/dist/verify.py), instead of the problem's verifier on the whole graph;
    # raises VerificationError.
    check: Callable | None = None
    # compile_cpu_twins(): a partitioned kernel's CPU twins compiled for the types its ranks pass
    # them, by the driver before worker processes run any (``dist.driver.compile_cpu_twins``).
    compile_cpu_twins: Callable | None = None

    def resolve_params(self, given: Mapping[str, Any]) -> dict:
        return resolve(self.name, self.params, dict(given))

    @property
    def all_requires(self) -> frozenset:
        return self.problem.requires | self.requires


# What each capability means, for messages: "<kernel> needs <this>".
CAPABILITIES = {"undirected": "an undirected graph", "directed": "a directed graph",
                "weighted": "a weighted graph", "ordered": "an ordered list"}


def capabilities(manifest: dict) -> frozenset:
    """What a dataset offers kernels, from its manifest: kind, (un)directed, weighted, ordered."""
    return capabilities_of(manifest["kind"], directed=bool(manifest.get("directed")),
                           weighted=bool(manifest.get("weighted")),
                           generator=(manifest.get("generator") or {}).get("name"),
                           ordered=bool((manifest.get("stats") or {}).get("ordered")))


def capabilities_of(kind: str, *, directed: bool = False, weighted: bool = False, generator: str | None = None,
                    ordered: bool = False) -> frozenset:
    """What a dataset of ``kind`` offers kernels (a sweep asks before its generator has written a
    manifest): graphs are directed or undirected and maybe weighted; an ordered-list generator's
    list, or one whose statistics say so, is ordered."""
    caps = {kind}
    if kind == "graph":
        caps.add("directed" if directed else "undirected")
        if weighted:
            caps.add("weighted")
    if generator == "ordered-list" or ordered:
        caps.add("ordered")
    return frozenset(caps)


# Capabilities a manifest may not record although the data has them (an ordered list written by
# hand): a sweep pairs kernels only with datasets known to have them, but a run given such a
# dataset goes ahead and the kernel's setup checks the data itself.
CHECKED_ON_DATA = frozenset({"ordered"})


def _described(caps: frozenset) -> str:
    if "list" in caps:
        return "a list"
    direction = "a directed" if "directed" in caps else "an undirected"
    return f"{direction}, {'weighted' if 'weighted' in caps else 'unweighted'} graph"


def mismatch(kernel: Kernel, caps: frozenset, *, strict: bool = True) -> str | None:
    """Why ``kernel`` cannot run on a dataset offering ``caps`` (``capabilities``; None when it can);
    not ``strict``: leave the capabilities in ``CHECKED_ON_DATA`` to the kernel."""
    kind = kernel.problem.dataset_kind
    needed = kernel.all_requires if strict else kernel.all_requires - CHECKED_ON_DATA
    missing = sorted(needed - caps)
    if kind not in caps or missing:
        # Each capability names its kind too ("an undirected graph"); without any, name the kind.
        wants = [CAPABILITIES.get(c, c) for c in missing] or [f"a {kind} dataset"]
        return f"{kernel.name} needs {' and '.join(wants)}, and this is {_described(caps)}"
    return None


def check_runs_on(kernel: Kernel, manifest: dict, where) -> None:
    """Refuse, in one line naming the dataset, a dataset ``kernel`` cannot run on."""
    why = mismatch(kernel, capabilities(manifest), strict=False)
    if why is not None:
        raise ParameterError(f"{where}: {why}")
