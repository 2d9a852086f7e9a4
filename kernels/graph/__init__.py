"""The graph input every graph problem shares: the edge list as loaded and the representations
built from it, each built once per dataset and device and cached by representation, not by
problem (CC, BFS and SSSP on one dataset share one CSR).

- ``inp.src``, ``inp.dst``, ``inp.weight``: the COO as loaded (an undirected edge once; self-loops
  and duplicates as the data has them; the dataset's index dtype; weights int32 or None).
- ``inp.csr()``: compressed sparse rows.  An undirected graph's CSR holds both directions of
  every edge; a directed graph's holds its out-edges.  Self-loops are dropped (no traversal or
  component uses them), duplicates kept (a relaxation keeps the smallest weight anyway), each
  row's neighbours sorted by id with the weights in the same order.  Indices are int32 while
  n < 2^31, offsets int64.
- ``inp.rcsr()``: in-edges (a directed graph's reverse); the same object as ``csr()`` when undirected.

A kernel names what it needs (``Kernel.needs``); the harness calls ``build`` before warm-up, so
the build is timed apart (stage ``input``, phase ``csr``/``rcsr``) as Graph500 times graph
construction apart from the searches.  Builds use sort + bincount + cumsum of the array module
that holds the data (CuPy's sort is CUB's radix sort).
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np

from graphsweep.datasets.errors import ParameterError
from graphsweep.datasets.gpu import array_module, is_device

from ..timing import timer_for

REPRESENTATIONS = ("csr", "rcsr")
# Graphs of fewer vertices sort one packed (row << 32 | col) key per edge; larger ones lexsort.
PACK_LIMIT = 2**31


@dataclass(frozen=True)
class Builder:
    """A representation another module adds by name (``register``): ``build(inp)`` makes it,
    ``traffic(inp)`` is its build's byte model (``read``, ``written``), ``warm_up(inp)`` compiles
    what the build uses on a tiny graph so the timed build does not include it."""
    build: Callable
    traffic: Callable
    warm_up: Callable


BUILDERS: dict[str, Builder] = {}


def register(name: str, builder: Builder) -> None:
    BUILDERS[name] = builder


@dataclass(frozen=True)
class CSR:
    offsets: object      # int64, n + 1
    indices: object      # int32 (n < 2^31) or int64, nnz
    weights: object      # int32, nnz, or None
    n: int

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    def degree(self):
        return self.offsets[1:] - self.offsets[:-1]


class GraphInput:
    """One loaded graph, on the device that holds its arrays (see the module doc)."""

    def __init__(self, n: int, src, dst, weight=None, *, directed: bool = False, where: str = "graph"):
        self.n, self.m = int(n), int(src.shape[0])
        self.src, self.dst, self.weight = src, dst, weight
        self.directed, self.where = bool(directed), str(where)
        self.xp = array_module(src)
        self.cache: dict = {}    # what kernels' setup derived from this graph, by key
        self.builds: dict = {}   # representation -> the row of its timed build
        self._reps: dict = {}

    @property
    def weighted(self) -> bool:
        return self.weight is not None

    @property
    def device(self) -> str:
        return "gpu" if is_device(self.src) else "cpu"

    @property
    def index_dtype(self):
        return np.dtype(np.int32 if self.n < 2**31 else np.int64)

    def csr(self) -> CSR:
        if "csr" not in self._reps:
            self._reps["csr"] = _build_csr(self.xp, self.n, self.src, self.dst, self.weight,
                                           both=not self.directed, index_dtype=self.index_dtype)
        return self._reps["csr"]

    def rcsr(self) -> CSR:
        if not self.directed:
            return self.csr()
        if "rcsr" not in self._reps:
            self._reps["rcsr"] = _build_csr(self.xp, self.n, self.dst, self.src, self.weight,
                                            both=False, index_dtype=self.index_dtype)
        return self._reps["rcsr"]

    def representation(self, name: str):
        """The representation ``name`` (``csr``, ``rcsr`` or a registered one), built once."""
        if name in REPRESENTATIONS:
            return getattr(self, name)()
        if name not in self._reps:
            self._reps[name] = BUILDERS[name].build(self)
        return self._reps[name]

    def build(self, names) -> list[dict]:
        """Build each representation in ``names`` that is not built yet, timing it; returns one row
        per name (phase, ms, byte model, ``cached``: True when an earlier run built it)."""
        unknown = [name for name in names if name not in REPRESENTATIONS and name not in BUILDERS]
        if unknown:
            known = ", ".join([*REPRESENTATIONS, *BUILDERS])
            raise ParameterError(f"unknown graph representation {unknown[0]!r} (known: {known})")
        # An undirected graph's reverse is its CSR: one build, one row.
        names = dict.fromkeys("csr" if name == "rcsr" and not self.directed else name for name in names)
        rows = []
        for name in names:
            cached = name in self.builds
            if not cached:
                if name in BUILDERS:
                    BUILDERS[name].warm_up(self)
                    traffic = BUILDERS[name].traffic(self)
                else:
                    _warm_up_build(self.xp, self.src, self.weight, both=name == "csr" and not self.directed,
                                   index_dtype=self.index_dtype)
                    traffic = self._build_traffic(name)
                timer = timer_for(self.device)
                with timer.phase(name, **traffic):
                    self.representation(name)
                timer.finish()
                self.builds[name] = timer.rows()[0]
            rows.append({**self.builds[name], "cached": cached})
        return rows

    def _build_traffic(self, name: str) -> dict:
        """The build's fewest bytes: the COO read once, the CSR written once (the sort's own passes
        over the keys show as GB/s below that)."""
        isz = self.src.itemsize
        wsz = 4 if self.weighted else 0
        nnz = (2 if name == "csr" and not self.directed else 1) * self.m
        return {"read": self.m * (2 * isz + wsz),
                "written": nnz * (self.index_dtype.itemsize + wsz) + 8 * (self.n + 1)}

    def degree_nonzero(self):
        """Mask of vertices with an edge other than a self-loop (out-edges when directed)."""
        xp, keep = self.xp, self.src != self.dst
        deg = bincount(xp, self.src[keep], self.n)
        if not self.directed:
            deg = deg + bincount(xp, self.dst[keep], self.n)
        return deg > 0


def bincount(xp, values, n: int):
    """Counts of each id in [0, n) (CuPy's bincount refuses an empty input)."""
    if values.shape[0] == 0:
        return xp.zeros(n, dtype=np.int64)
    return xp.bincount(values, minlength=n)


def _build_csr(xp, n: int, rows, cols, weight, *, both: bool, index_dtype) -> CSR:
    """CSR of the edges rows[i] -> cols[i] (and cols[i] -> rows[i] when ``both``), self-loops
    dropped, each row's neighbours sorted: one sort of (row << 32 | col) keys, then the offsets
    by binary search of each row's first key.  A self-loop's key is made the largest, so the sort
    moves loops to the end, where they are cut off (no compaction pass); keys are built and
    unpacked in place to keep the temporaries few (a graph of 2^28 edges sorts 2^29 keys)."""
    if both:
        rows, cols = xp.concatenate([rows, cols]), xp.concatenate([cols, rows])
        weight = None if weight is None else xp.concatenate([weight, weight])
    loop = rows == cols
    nnz = int(rows.shape[0]) - int(xp.count_nonzero(loop))
    if n >= PACK_LIMIT:  # ids too wide to pack two in a word: sort by (loop, row, col) with lexsort
        order = xp.lexsort(xp.stack([cols, rows, loop]))[:nnz]
        rows, cols = rows[order], cols[order]
        weight = None if weight is None else weight[order]
        offsets = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(bincount(xp, rows, n), out=offsets[1:])
        return CSR(offsets, cols.astype(index_dtype), None if weight is None else weight.astype(np.int32), n)
    key = rows.astype(np.int64)
    del rows
    key <<= 32
    key |= cols
    del cols
    xp.putmask(key, loop, np.int64(np.iinfo(np.int64).max))
    del loop
    if weight is None:
        key.sort()
    else:
        order = xp.argsort(key, kind="stable") if xp is np else xp.argsort(key)
        key, weight = key[order], weight[order]
        del order
    key = key[:nnz]
    offsets = xp.searchsorted(key, xp.arange(n + 1, dtype=np.int64) << 32).astype(np.int64)
    key &= 0xFFFFFFFF
    return CSR(offsets, key.astype(index_dtype), None if weight is None else weight[:nnz].astype(np.int32), n)


def _warm_up_build(xp, rows, weight, *, both: bool, index_dtype) -> None:
    """Run the build once on a two-edge graph of the same dtypes, so the first timed build of a
    process does not include CuPy's compilation of the elementwise and sort kernels it uses."""
    tiny = xp.asarray([0, 1], dtype=rows.dtype)
    w = None if weight is None else xp.asarray([1, 1], dtype=weight.dtype)
    _build_csr(xp, 2, tiny, tiny[::-1].copy(), w, both=both, index_dtype=index_dtype)


def graph_input(data) -> GraphInput:
    """The shared ``GraphInput`` of a loaded graph ``Dataset`` (made once, cached on it)."""
    if "graph-input" not in data.cache:
        data.cache["graph-input"] = GraphInput(data.n, data.src, data.dst, data.weight,
                                               directed=data.directed, where=str(data.path))
    return data.cache["graph-input"]


def from_edges(src, dst, n: int, weight=None, *, directed: bool = False, device: str = "cpu") -> GraphInput:
    """A ``GraphInput`` from host arrays, on ``device`` (tests and benchmarks)."""
    arrays = [np.asarray(src), np.asarray(dst), None if weight is None else np.asarray(weight, dtype=np.int32)]
    if device == "gpu":
        import cupy
        arrays = [None if a is None else cupy.asarray(a) for a in arrays]
    return GraphInput(n, *arrays, directed=directed, where="<memory>")


def pick_roots(inp: GraphInput, count: int, seed: int) -> list[int]:
    """``count`` roots drawn from ``seed`` among the vertices with an edge (GAPBS's SourcePicker
    skips degree 0), without repeats while there are enough; any vertex when none has an edge."""
    candidates = inp.xp.flatnonzero(inp.degree_nonzero())
    total = int(candidates.shape[0])
    if total == 0:
        candidates, total = None, inp.n
    rng = np.random.default_rng(seed)
    picks = rng.choice(total, size=count, replace=count > total)
    if candidates is None:
        return [int(p) for p in picks]
    return [int(v) for v in candidates[inp.xp.asarray(picks)].tolist()]


def root_instances(inp: GraphInput, params: dict, count: int | None, seed: int) -> list[dict]:
    """Instances of a single-source problem: the ``root`` parameter when given, else ``count`` (1)
    seeded roots of non-zero degree."""
    root = params.get("root")
    if root is not None:
        if not 0 <= int(root) < inp.n:
            raise ParameterError(f"parameter 'root': {root} is not a vertex of {inp.where} (n = {inp.n})")
        return [{"root": int(root)}]
    return [{"root": r} for r in pick_roots(inp, count or 1, seed)]


from . import simple  # noqa: E402,F401  (registers "simple" and "oriented"; it imports this module's names)
