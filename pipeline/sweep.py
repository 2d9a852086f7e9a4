"""Sweep specs: a YAML file that names datasets and kernels, expanded into a plan of tasks.

A spec (see sweeps/*.yaml and pipeline/sweeps/default.yaml)::

    name: listrank-time-vs-n
    results: results/listrank-time-vs-n   # relative paths are relative to the working directory
    data: data                            # where generated datasets are written (and reused)
    backend: auto                         # auto | gpu | cpu
    reps: 20
    warmup: 2
    verify: true
    checksums: true                       # check each part's sha256 as a task loads a dataset
    on_failure: continue                  # continue | stop
    datasets:
      - generator: list                   # generated once, on the cluster, part-parallel
        params: {n: {pow2: [20, 28]}}
        seed: 1
      - path: data/my-list                # or an existing dataset
      - generator: rmat                   # store: memory — generated into the worker's memory when
        params: {scale: 29, edge_factor: 20}  # its tasks run, never written (default: parquet)
        store: memory
    kernels:
      - name: listrank.wyllie
        params: {threads: [128, 256, 512]}
      - name: listrank.scan
        datasets: [ordered-list*]         # only these datasets (ids or generator names, globs)
      - name: cc.best
        placement: host                   # force the graph into host memory (default: the planner's)

For single-source problems (BFS, SSSP) ``roots: N`` draws N roots of non-zero degree per task
from ``roots_seed`` (top level; a kernel's ``root`` parameter fixes one instead; ``seed`` always
means a generated dataset's seed, and the old top-level ``seed`` is still read, with a
FutureWarning); each root is timed ``reps`` times and GTEPS are reduced as the harmonic mean over
roots.

A parameter value is a scalar, a list (one grid axis), ``{pow2: [lo, hi]}`` (2^lo … 2^hi, every
exponent, or every ``step``-th with a third entry) or ``{range: [start, stop, step]}`` (stop
included).  The plan is datasets × kernels × each kernel's grid, ordered dataset by dataset so a
worker's consecutive tasks reuse the dataset it has loaded.  A kernel meets only the datasets
it can run on (kind and capabilities: an undirected or weighted graph, an ordered list) and
that its ``datasets`` patterns name; every other pair is skipped with a note (``SweepPlan.skipped``,
printed by ``--dry-run``, kept in plan.json).  A pattern that names no dataset is a likely typo:
``SweepPlan.warnings`` says so (``run`` warns, ``run --dry-run`` refuses).  Every fault in a spec
is one ``ParameterError`` naming the file, the key and what is allowed.
"""

import fnmatch
import hashlib
import itertools
import json
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graphsweep.core import gpu
from graphsweep.core.errors import GraphsweepError, ParameterError
from graphsweep.datasets.format import read_manifest
from graphsweep.core.params import Param, identity, resolve
from graphsweep.kernels import registry
from graphsweep.kernels.contract import capabilities, capabilities_of, mismatch

from .yamlfile import read_yaml

FAILURE_POLICIES = ("continue", "stop")
TOP_KEYS = ("name", "results", "data", "backend", "reps", "warmup", "verify", "checksums", "on_failure",
            "part_rows", "roots_seed", "seed", "roots", "datasets", "kernels")
DATASET_KEYS = ("generator", "params", "seed", "path", "store")
KERNEL_KEYS = ("name", "params", "datasets", "placement")
STORES = ("parquet", "memory")
PLACEMENTS = ("device", "host")
GRID_FORMS = ("pow2", "range")


@dataclass
class DatasetRef:
    """One dataset of a sweep: generated (generator, params, seed) or found at ``path``."""
    id: str
    path: str
    generator: str | None = None
    params: dict = field(default_factory=dict)
    seed: int | None = None
    kind: str | None = None
    # What the dataset offers kernels (contract.capabilities of its manifest, or of what its
    # generator will write).
    capabilities: list | None = None
    # 'parquet' (written under the sweep's data folder once, reused) or 'memory' (generated into
    # the worker's memory when a task needs it, never written).
    store: str = "parquet"
    # Whether a worker loading it checks each part's sha256 against the manifest (the spec's
    # ``checksums``; not part of what the dataset is).
    checksums: bool = True
    # Its generator's parameters, every one, as the spec's reading coerced them (``params`` is their
    # identity): what its generation takes, so none is coerced again.  Not part of what it is.
    resolved: dict | None = None

    @property
    def generator_params(self) -> dict:
        """The keyword its generator takes: the parameters as the spec's reading resolved them, or,
        for a plan read back from before they were kept, their identity (resolved again there)."""
        return {"resolved": self.resolved} if self.resolved is not None else {"params": self.params}

    @property
    def generated(self) -> bool:
        return self.generator is not None

    @property
    def in_memory(self) -> bool:
        return self.store == "memory"

    @property
    def identity(self) -> dict:
        """What the dataset is, independent of where it lies (for the task hash; the same graph
        from either store is the same dataset)."""
        if self.generated:
            return {"generator": self.generator, "params": self.params, "seed": self.seed}
        return {"path": self.path}


@dataclass
class Task:
    """One kernel over one dataset with one parameter set; ``hash`` names its result file."""
    hash: str
    index: int
    sweep: str
    dataset: DatasetRef
    kernel: str
    params: dict
    backend: str
    reps: int
    warmup: int
    verify: bool
    roots: int | None = None   # instances drawn per task (single-source problems), from ``roots_seed``
    roots_seed: int = 0
    placement: str | None = None   # forced graph placement ('device' or 'host'); None: the planner's
    # The spec's name when it stands for another kernel per placement (cc.best: cc.streaming on a
    # host-placed graph, registry.HOST_ALIASES); ``kernel`` is what it stands for on the device.
    alias: str | None = None
    # The name the spec asked for when it is an alias of ``kernel`` (listrank.best, cc.best): tasks
    # are labelled by it, with the kernel that runs beside it.  Not part of what the task is.
    asked: str | None = None
    # The parameters the spec gave (coerced; ``params`` adds the kernel's defaults): with ``name``,
    # what a comparison of two runs lines tasks up by.  Not part of what the task is.
    given: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The kernel as the spec named it (cc.best), whatever implementation it stands for now."""
        return self.asked or self.alias or self.kernel

    @property
    def runs(self) -> str:
        """The name the harness is asked to run (it resolves an alias by placement)."""
        return self.alias or self.kernel

    @property
    def label(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.params.items() if v is not None)
        placed = f" [placement {self.placement}]" if self.placement else ""
        asked = self.asked or self.alias
        name = f"{asked} = {self.kernel}" if asked else self.kernel
        return f"{name}({params}) on {self.dataset.id}{' (in memory)' if self.dataset.in_memory else ''}{placed}"

    @property
    def key(self) -> str:
        """A Dask key that reads like the task; key_split groups the task stream by kernel."""
        return f"{self.kernel}-{self.dataset.id}-{self.hash}"


def _renamed(task: dict) -> dict:
    """A task of a plan.json written before ``seed`` became ``roots_seed``."""
    return {("roots_seed" if k == "seed" else k): v for k, v in task.items()}


@dataclass
class SweepPlan:
    name: str
    results: Path
    data: Path
    backend: str
    reps: int
    warmup: int
    verify: bool
    on_failure: str
    part_rows: int
    datasets: list
    tasks: list
    spec: dict = field(repr=False, default_factory=dict)
    # (dataset id, kernel, why) of every pair the plan leaves out.
    skipped: list = field(default_factory=list)
    # What in the spec looks like a mistake but still expands (a datasets pattern naming nothing):
    # ``run`` prints each as a warning, ``run --dry-run`` refuses.
    warnings: list = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        """Equal for two plans that would run the same tasks under the same policy."""
        return _digest({"tasks": sorted(t.hash for t in self.tasks), "on_failure": self.on_failure})

    def to_json(self) -> dict:
        return {"name": self.name, "results": str(self.results), "data": str(self.data),
                "backend": self.backend, "reps": self.reps, "warmup": self.warmup,
                "verify": self.verify, "on_failure": self.on_failure, "part_rows": self.part_rows,
                "fingerprint": self.fingerprint, "spec": self.spec,
                "datasets": [asdict(d) for d in self.datasets],
                "tasks": [{**asdict(t), "dataset": t.dataset.id} for t in self.tasks],
                "skipped": [list(s) for s in self.skipped]}

    @classmethod
    def from_json(cls, doc: dict) -> "SweepPlan":
        datasets = [DatasetRef(**d) for d in doc["datasets"]]
        by_id = {d.id: d for d in datasets}
        tasks = [Task(**{**_renamed(t), "dataset": by_id[t["dataset"]]}) for t in doc["tasks"]]
        return cls(name=doc["name"], results=Path(doc["results"]), data=Path(doc["data"]),
                   backend=doc["backend"], reps=doc["reps"], warmup=doc["warmup"],
                   verify=doc["verify"], on_failure=doc["on_failure"], part_rows=doc["part_rows"],
                   datasets=datasets, tasks=tasks, spec=doc["spec"],
                   skipped=[tuple(s) for s in doc.get("skipped", [])])

    def describe(self, costs: tuple | None = None) -> str:
        """The expanded plan as text (what ``run --dry-run`` prints); ``costs``: the estimate's
        (lines per dataset, the closing line), ``estimate.describe(plan)``, passed in by the caller."""
        to_make = [d for d in self.datasets if d.generated and not d.in_memory]
        kept = sum(d.in_memory for d in self.datasets)
        in_memory = f", {kept} generated in memory by their tasks" if kept else ""
        lines = [f"sweep {self.name}: {len(self.tasks)} tasks over {len(self.datasets)} datasets "
                 f"({len(to_make)} generated{in_memory}), backend {self.backend}, reps {self.reps}, "
                 f"warmup {self.warmup}, verify {str(self.verify).lower()}, on_failure {self.on_failure}",
                 f"results: {self.results}"]
        if to_make:
            lines.append(f"generated datasets go to {self.data} (reused when already there)")
        per_dataset, total = costs or ([], "")
        lines += per_dataset
        lines.append("tasks:")
        width = len(str(len(self.tasks)))
        lines += [f"  {t.index:>{width}}  {t.hash}  {t.label}" for t in self.tasks]
        if self.skipped:
            lines.append(f"skipped ({len(self.skipped)} dataset x kernel pairs):")
            lines += [f"  {kernel} on {dataset}: {why}" for dataset, kernel, why in self.skipped]
        if total:
            lines.append(total)
        return "\n".join(lines)


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


class _Where:
    """The location of a value in the spec, for error messages: 'sweep.yaml: kernels[1].params.p'."""

    def __init__(self, source: str, path: str = ""):
        self.source, self.path = source, path

    def __truediv__(self, part) -> "_Where":
        part = f"[{part}]" if isinstance(part, int) else (f".{part}" if self.path else str(part))
        return _Where(self.source, self.path + part)

    def error(self, what: str) -> ParameterError:
        return ParameterError(f"{self.source}: {self.path}: {what}" if self.path else f"{self.source}: {what}")


def _check_keys(obj, allowed, where: _Where, required=()) -> dict:
    if not isinstance(obj, dict):
        raise where.error(f"expected a mapping with keys {', '.join(allowed)}, got {obj!r}")
    for key in obj:
        if key not in allowed:
            raise (where / str(key)).error(f"unknown key (allowed: {', '.join(allowed)})")
    for key in required:
        if key not in obj:
            raise where.error(f"'{key}' is required")
    return obj


def _int(value, where: _Where, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(f"{value!r} is not an integer")
    if value < minimum:
        raise where.error(f"{value!r} is below the minimum {minimum}")
    return value


def _bool(value, where: _Where) -> bool:
    if not isinstance(value, bool):
        raise where.error(f"{value!r} is not true or false")
    return value


def _choice(value, choices, where: _Where) -> str:
    if value not in choices:
        raise where.error(f"{value!r} is not one of {', '.join(choices)}")
    return value


def _axis(value, where: _Where) -> list:
    """The values one grid axis takes."""
    if isinstance(value, list):
        if not value:
            raise where.error("an empty list gives no tasks")
        return value
    if isinstance(value, dict):
        if len(value) != 1 or next(iter(value)) not in GRID_FORMS:
            raise where.error(f"a mapping must be one of {{pow2: [lo, hi]}}, {{range: [start, stop, step]}}; got {value!r}")
        form, bounds = next(iter(value.items()))
        sub = where / form
        if not isinstance(bounds, list) or len(bounds) not in (2, 3):
            raise sub.error(f"expected [{'lo, hi' if form == 'pow2' else 'start, stop'}] or with a step, got {bounds!r}")
        lo, hi = (_int(b, sub, -2**62) for b in bounds[:2])
        step = _int(bounds[2], sub, 1) if len(bounds) == 3 else 1
        if hi < lo:
            raise sub.error(f"{hi} is below {lo}")
        if form == "pow2":
            if lo < 0 or hi > 62:
                raise sub.error("exponents must lie in 0..62")
            return [2**e for e in range(lo, hi + 1, step)]
        return list(range(lo, hi + 1, step))
    return [value]


def _grid(params, where: _Where) -> list[dict]:
    """Every combination of the parameter axes, in spec order (the last axis varies fastest)."""
    if params is None:
        return [{}]
    if not isinstance(params, dict):
        raise where.error(f"expected a mapping of parameter names to values, got {params!r}")
    names = list(params)
    axes = [_axis(params[k], where / str(k)) for k in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*axes)]


def _coerce(declared: dict, params: dict, where: _Where, owner: str) -> dict:
    """Kernel or generator parameters checked against their declaration (``params.resolve``),
    errors naming the spec's key."""
    return resolve(owner, declared, params, fault=lambda name, text: (where / name).error(text))


def _generators():
    try:
        from graphsweep import generators
    except ImportError:
        return None
    return generators


def _dataset_name(generator: str, params: dict, seed: int) -> str:
    parts = [generator] + [f"{k}={v}" for k, v in params.items()] + [f"seed={seed}"]
    return "_".join(parts).replace("/", "-")


def _datasets(entries, where: _Where, data: Path, checksums: bool) -> list[DatasetRef]:
    if not isinstance(entries, list) or not entries:
        raise where.error("expected a non-empty list of datasets ({generator: ..., params: ...} or {path: ...})")
    out = []
    for i, entry in enumerate(entries):
        at = where / i
        _check_keys(entry, DATASET_KEYS, at)
        if ("generator" in entry) == ("path" in entry):
            raise at.error("give exactly one of 'generator' and 'path'")
        store = _choice(entry.get("store", "parquet"), STORES, at / "store")
        if "path" in entry:
            if store == "memory":
                raise (at / "store").error("'memory' regenerates a dataset from its generator, and an imported "
                                           "dataset at 'path' has none to replay (use store: parquet)")
            if set(entry) - {"store"} != {"path"}:
                raise at.error("a 'path' dataset takes no params or seed")
            paths = entry["path"] if isinstance(entry["path"], list) else [entry["path"]]
            for j, p in enumerate(paths):
                if not isinstance(p, str):
                    raise (at / "path").error(f"{p!r} is not a path")
                path = Path(p).expanduser().absolute()
                try:
                    manifest = read_manifest(path)
                except GraphsweepError as exc:
                    raise (at / "path").error(str(exc)) from None
                out.append(DatasetRef(id=path.name, path=str(path), kind=manifest["kind"],
                                      capabilities=sorted(capabilities(manifest)), checksums=checksums))
            continue
        name = entry["generator"]
        gens = _generators()
        if gens is None:
            raise (at / "generator").error("graphsweep.generators is not installed; use 'path' datasets")
        if name not in gens.GENERATORS:
            raise (at / "generator").error(f"unknown generator {name!r} (known: {', '.join(sorted(gens.GENERATORS))})")
        gen = gens.GENERATORS[name]
        seeds = _axis(entry.get("seed", 1), at / "seed")
        for seed in seeds:
            _int(seed, at / "seed", 0)
        for given in _grid(entry.get("params"), at / "params"):
            # Named by the parameters given; identified (as in its manifest) by all, defaults filled,
            # but for those an identity leaves out at their default (left out of the name too).
            resolved = _coerce(gen.params, given, at / "params", name)
            params = identity(gen.params, resolved)
            # What the generator's manifest will say: undirected, weighted when given weights.
            caps = sorted(capabilities_of(gen.kind, weighted=params.get("weights", "none") != "none", generator=name))
            for seed in seeds:
                ident = _dataset_name(name, {k: v for k, v in given.items() if k in params}, seed)
                out.append(DatasetRef(id=ident, path=f"<memory:{ident}>" if store == "memory" else str(data / ident),
                                      generator=name, params=params, seed=seed, kind=gen.kind, capabilities=caps,
                                      store=store, checksums=checksums, resolved=resolved))
    ids = [d.path for d in out]
    for d in out:
        if ids.count(d.path) > 1:
            raise where.error(f"dataset {d.id} appears more than once")
    return out


def _patterns(value, where: _Where) -> list[str] | None:
    """A kernel entry's ``datasets``: glob patterns over dataset ids and generator names."""
    if value is None:
        return None
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise where.error(f"expected a dataset id, generator name or glob, or a list of them; got {value!r}")
    return value


def _named(data: DatasetRef, patterns: list[str] | None) -> bool:
    if patterns is None:
        return True
    return any(fnmatch.fnmatchcase(data.id, p) or (data.generator and fnmatch.fnmatchcase(data.generator, p))
               for p in patterns)


def _why_not(kernel, data: DatasetRef) -> str | None:
    """Why ``kernel`` cannot run on ``data`` (None when it can), from the dataset's capabilities."""
    if data.kind is None or data.capabilities is None:
        return None
    return mismatch(kernel, frozenset(data.capabilities))


def _kernels(entries, where: _Where, backend: str) -> list[tuple]:
    """(kernel, [resolved params, ...], dataset patterns or None, placement or None, alias or None,
    the name asked for when an alias or None) for each kernel entry."""
    if not isinstance(entries, list) or not entries:
        raise where.error("expected a non-empty list of kernels ({name: ..., params: ...})")
    out = []
    for i, entry in enumerate(entries):
        at = where / i
        if isinstance(entry, str):
            entry = {"name": entry}
        _check_keys(entry, KERNEL_KEYS, at, required=("name",))
        try:
            kernel = registry.get(entry["name"])
        except ParameterError as exc:
            raise (at / "name").error(str(exc)) from None
        if backend != "auto" and getattr(kernel, backend) is None:
            raise (at / "name").error(f"{kernel.name} has no {backend} implementation (backend: {backend})")
        grid = [(_coerce(kernel.params, p, at / "params", kernel.name), tuple(p))
                for p in _grid(entry.get("params"), at / "params")]
        placement = entry.get("placement")
        if placement is not None:
            _choice(placement, PLACEMENTS, at / "placement")
            if kernel.problem.dataset_kind != "graph":
                raise (at / "placement").error(f"{kernel.name} is not a graph kernel: a list is ranked on the device")
            if backend == "cpu" and placement == "device":
                raise (at / "placement").error("'device' needs a GPU backend (backend: cpu keeps graphs in host memory)")
        alias = entry["name"] if entry["name"] in registry.HOST_ALIASES else None
        asked = entry["name"] if entry["name"] != kernel.name else None
        out.append((kernel, grid, _patterns(entry.get("datasets"), at / "datasets"), placement, alias, asked))
    return out


def load(path, *, results: str | None = None) -> SweepPlan:
    """Read, check and expand the spec at ``path``; ``results`` overrides its results directory."""
    path = Path(path)
    return expand(read_yaml(path, "sweep spec"), source=str(path), results=results)


def _roots_seed(spec: dict, top) -> int:
    """The seed of the roots drawn for single-source problems (``roots_seed``; the top-level
    ``seed`` of older specs, read with a FutureWarning: ``seed`` now only seeds a dataset)."""
    if "seed" in spec:
        if "roots_seed" in spec:
            raise (top / "seed").error("give the roots' seed once, as 'roots_seed'")
        warnings.warn(str((top / "seed").error("deprecated at the top level; write 'roots_seed' (the seed of the "
                                               "roots drawn)")), FutureWarning, stacklevel=3)
        return _int(spec["seed"], top / "seed", 0)
    return _int(spec.get("roots_seed", 0), top / "roots_seed", 0)


def expand(spec, *, source: str = "sweep", results: str | None = None) -> SweepPlan:
    """The plan of the spec mapping ``spec``; ``source`` names it in errors."""
    top = _Where(source)
    _check_keys(spec, TOP_KEYS, top, required=("datasets", "kernels"))
    name = spec.get("name", Path(source).stem)
    if not isinstance(name, str) or not name or "/" in name:
        raise (top / "name").error(f"{name!r} is not a name (a non-empty string without '/')")
    backend = _choice(spec.get("backend", "auto"), gpu.BACKENDS, top / "backend")
    reps = _int(spec.get("reps", 20), top / "reps", 1)
    warmup = _int(spec.get("warmup", 2), top / "warmup", 0)
    verify, checksums = (_bool(spec.get(key, True), top / key) for key in ("verify", "checksums"))
    on_failure = _choice(spec.get("on_failure", "continue"), FAILURE_POLICIES, top / "on_failure")
    try:  # the one size syntax (4M, 2^22, 4e6)
        part_rows = Param(1 << 20, int, minimum=1).coerce("part_rows", spec.get("part_rows", 1 << 20))
    except ParameterError as exc:
        raise (top / "part_rows").error(str(exc).removeprefix("parameter 'part_rows': ")) from None
    dirs = {}
    for key, default in (("results", f"results/{name}"), ("data", "data")):
        value = results if key == "results" and results is not None else spec.get(key, default)
        if not isinstance(value, str) or not value:
            raise (top / key).error(f"{value!r} is not a path")
        dirs[key] = Path(value).expanduser().absolute()

    datasets = _datasets(spec["datasets"], top / "datasets", dirs["data"], checksums)
    kernels = _kernels(spec["kernels"], top / "kernels", backend)
    roots_seed = _roots_seed(spec, top)
    roots = spec.get("roots")
    if roots is not None:
        roots = _int(roots, top / "roots", 1)
    warnings = [(top / "kernels" / i / "datasets").error(
                     f"{pattern!r} names no dataset of this sweep ({kernel.name} gets no tasks from it)").args[0]
                 for i, (kernel, _, patterns, *_) in enumerate(kernels) for pattern in patterns or ()
                 if not any(_named(d, [pattern]) for d in datasets)]
    tasks, skipped = [], []
    for data in datasets:
        for kernel, grid, patterns, placement, alias, asked in kernels:
            if not _named(data, patterns):
                continue
            why = _why_not(kernel, data)
            if why is not None:
                skipped.append((data.id, kernel.name, why))
                continue
            # Roots and their seed are part of a task only where the problem draws instances.
            sampled = kernel.problem.instances is not None
            for params, given in grid:
                ident = {"dataset": data.identity, "kernel": kernel.name, "params": params,
                         "backend": backend, "reps": reps, "warmup": warmup, "verify": verify,
                         # "seed" in the hash is the roots' seed (its old name: results keep their names)
                         **({"roots": roots, "seed": roots_seed} if sampled else {}),
                         **({"placement": placement} if placement else {}), **({"alias": alias} if alias else {})}
                tasks.append(Task(hash=_digest(ident), index=len(tasks), sweep=name, dataset=data,
                                  kernel=kernel.name, params=params, backend=backend, reps=reps,
                                  warmup=warmup, verify=verify, roots=roots if sampled else None,
                                  roots_seed=roots_seed if sampled else 0, placement=placement, alias=alias,
                                  asked=asked, given={k: params[k] for k in given}))
    if not tasks:
        reasons = sorted({why for _, _, why in skipped})
        raise top.error("the spec expands to no tasks" + (f" ({'; '.join(reasons)})" if reasons else
                                                          " (no kernel's datasets patterns name a dataset)"))
    seen = set()
    for t in tasks:
        if t.hash in seen:
            raise top.error(f"task {t.label} appears more than once")
        seen.add(t.hash)
    return SweepPlan(name=name, results=dirs["results"], data=dirs["data"], backend=backend, reps=reps,
                warmup=warmup, verify=verify, on_failure=on_failure, part_rows=part_rows,
                datasets=datasets, tasks=tasks, spec=spec, skipped=skipped, warnings=warnings)
