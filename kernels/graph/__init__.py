"""The graph input every graph problem shares: the edge list as loaded and the representations
built from it, each built once per dataset and backend and cached by representation, not by
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

Placement (``kernels.placement`` decides it): ``device`` keeps the representations in device
memory; ``host`` keeps their indices and weights in pinned, device-mapped host memory (offsets,
O(n), stay on the device), so ``csr().indices`` is a CuPy view a kernel reads over the link
(zero-copy) and ``csr().host`` the NumPy view of the same bytes.  When the edge list is not on
the compute device whole (a host placement, an edge list too large to sort on the device, or a
graph generated in memory), the representation is built by slices (``sliced``).
``edge_chunks()`` gives the edge list as loaded, a chunk at a time, wherever it is: the
verifiers read it that way.
"""

import numpy as np

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.format import index_dtype_for
from graphsweep.core.gpu import array_module
from graphsweep.core.params import Param

from ..timing import timer_for
from . import csr as layout
from . import sliced
from .csr import BUILDERS, CSR, PACK_LIMIT, Builder, bincount, register  # noqa: F401  (the package's names)

REPRESENTATIONS = ("csr", "rcsr")
class GraphInput:
    """One loaded graph, computed on by ``xp`` (see the module doc).  ``src``/``dst``/``weight``:
    the edge list as loaded, or None when ``edges`` (an edge source: ``m``, ``weighted``,
    ``chunks(xp)``) computes it again; ``placement``: where the representations live."""

    def __init__(self, n: int, src, dst, weight=None, *, directed: bool = False, where: str = "graph",
                 edges=None, xp=None, placement: str = "device"):
        self.src, self.dst, self.weight = src, dst, weight
        self.edges = edges if edges is not None else sliced.ArrayEdges(src, dst, weight)
        self.n, self.m = int(n), int(self.edges.m)
        self.directed, self.where = bool(directed), str(where)
        self.xp = xp if xp is not None else array_module(src)
        self.placement = placement
        self.cache: dict = {}    # what kernels' setup derived from this graph, by key
        self.builds: dict = {}   # representation -> the row of its timed build
        self._reps: dict = {}
        self._slices: dict = {}  # representation -> slices its build took (sliced builds)

    @property
    def weighted(self) -> bool:
        return self.edges.weighted

    @property
    def backend(self) -> str:
        return "cpu" if self.xp is np else "gpu"

    @property
    def whole(self) -> bool:
        """Whether the edge list is on the compute device whole (built by one sort, not by slices):
        loaded there, and the graph placed on the device (a CPU's device is the host)."""
        return (self.src is not None and array_module(self.src) is self.xp
                and (self.placement == "device" or self.xp is np))

    def edge_chunks(self, rows: int = 1 << 26):
        """(src, dst, weight or None) of the edge list as loaded, ``rows`` edges at a time, on the
        compute device."""
        if self.whole:
            for start in range(0, self.m, rows):
                yield (self.src[start:start + rows], self.dst[start:start + rows],
                       None if self.weight is None else self.weight[start:start + rows])
            return
        for _, chunk in self.edges.chunks(self.xp, rows):
            yield chunk["src"], chunk["dst"], chunk.get("weight")

    @property
    def index_dtype(self):
        return np.dtype(index_dtype_for(self.n))

    def csr(self) -> CSR:
        if "csr" not in self._reps:
            self._reps["csr"] = self._build("csr")
        return self._reps["csr"]

    def rcsr(self) -> CSR:
        if not self.directed:
            return self.csr()
        if "rcsr" not in self._reps:
            self._reps["rcsr"] = self._build("rcsr")
        return self._reps["rcsr"]

    def representation(self, name: str):
        """The representation ``name`` (``csr``, ``rcsr`` or a registered one), built once."""
        if name in REPRESENTATIONS:
            return getattr(self, name)()
        if name not in self._reps:
            if not self.whole:
                raise ParameterError(f"{self.where}: the '{name}' representation is built from the whole edge list "
                                     f"on the compute device, and this graph's is not there (placement "
                                     f"{self.placement}); run it where the graph fits the device")
            self._reps[name] = BUILDERS[name].build(self)
        return self._reps[name]

    def _build(self, name: str) -> CSR:
        reverse = name == "rcsr"
        if self.whole:
            rows, cols = (self.dst, self.src) if reverse else (self.src, self.dst)
            return _build_csr(self.xp, self.n, rows, cols, self.weight, both=not self.directed and not reverse,
                              index_dtype=self.index_dtype)
        edges = sliced.Reversed(self.edges) if reverse else self.edges
        csr, self._slices[name] = sliced.build(self.xp, edges, self.n, directed=self.directed,
                                               index_dtype=self.index_dtype, destination=self.placement,
                                               budget=_slice_budget(self.xp))
        return csr

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
                    if not self.whole:
                        self.representation(name)  # refuses: registered builders need the whole edge list
                    BUILDERS[name].warm_up(self)
                    traffic = BUILDERS[name].traffic(self)
                else:
                    if self.whole:
                        _warm_up_build(self.xp, self.src, self.weight, both=name == "csr" and not self.directed,
                                       index_dtype=self.index_dtype)
                    traffic = self._build_traffic(name)
                timer = timer_for(self.backend)
                with timer.phase(name, **traffic):
                    self.representation(name)
                timer.finish()
                self.builds[name] = timer.rows()[0]
            rows.append({**self.builds[name], "cached": cached})
        return rows

    def _build_traffic(self, name: str) -> dict:
        """The build's fewest bytes: the COO read once, the CSR written once (the sort's own passes
        over the keys show as GB/s below that).  A sliced build reads the edge list once per slice
        and once to count (a generated one is computed, not read); over the link go an edge list
        held in host memory, once per pass, and a host-placed CSR."""
        isz = self.index_dtype.itemsize
        wsz = 4 if self.weighted else 0
        nnz = (2 if name == "csr" and not self.directed else 1) * self.m
        coo = self.m * (2 * isz + wsz)
        csr = nnz * (isz + wsz)
        written = csr + 8 * (self.n + 1)
        if self.whole:
            return {"read": coo, "written": written}
        passes = lambda: 1 + self._slices.get(name, 0)  # noqa: E731  (known after the build)
        coo_on_host = isinstance(self.edges, sliced.ArrayEdges) and array_module(self.edges.src) is not self.xp
        return {"read": lambda: coo * passes() if self.src is not None else 0, "written": written,
                "link": lambda: (coo * passes() if coo_on_host else 0) + (csr if self.placement == "host" else 0)}

    def degree_nonzero(self):
        """Mask of vertices with an edge other than a self-loop (out-edges when directed)."""
        if not self.whole:  # the CSR's degrees count exactly those edges
            return self.csr().degree() > 0
        xp, keep = self.xp, self.src != self.dst
        deg = bincount(xp, self.src[keep], self.n)
        if not self.directed:
            deg = deg + bincount(xp, self.dst[keep], self.n)
        return deg > 0


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
    if n >= layout.PACK_LIMIT:  # ids too wide to pack two in a word: sort by (loop, row, col) with lexsort
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


def warm_up_builds() -> None:
    """Compile the GPU builds of every index dtype, with and without weights (a worker's warm start)."""
    import cupy
    for index_dtype in (np.int32, np.int64):
        for weight in (None, cupy.ones(2, dtype=np.int32)):
            _warm_up_build(cupy, cupy.zeros(2, dtype=index_dtype), weight, both=True, index_dtype=index_dtype)


def _slice_budget(xp) -> int:
    """Device bytes a slice of a sliced build may take: half of what is free now (the pool's
    cached blocks included), less what a chunk of edges needs."""
    if xp is np:
        from graphsweep.core.capacity import available_memory
        return available_memory() // 4
    from graphsweep.core.capacity import device_memory
    return max(device_memory() // 2 - (1 << 30), 1 << 24)


def graph_input(data) -> GraphInput:
    """The shared ``GraphInput`` of a loaded graph ``Dataset`` (made once per placement, cached on
    it).  ``data.cache["placement"]`` (set by the harness) says where the representations go and
    which backend computes ('device'/the dataset's backend unless told); a dataset generated in memory carries its
    edge source as ``data.cache["edges"]`` (with its edge list, or without it when only slices of
    the representation fit)."""
    placement, backend = data.cache.get("placement", ("device", data.backend))
    key = ("graph-input", placement, backend)
    if key not in data.cache:
        xp = np
        if backend == "gpu":
            import cupy as xp
        edges = data.cache.get("edges")
        columns = (data.src, data.dst, data.weight) if data.columns else (None, None, None)
        data.cache[key] = GraphInput(data.n, *columns, directed=data.directed, where=str(data.path),
                                     edges=edges, xp=xp, placement=placement)
    return data.cache[key]


def from_edges(src, dst, n: int, weight=None, *, directed: bool = False, backend: str = "cpu") -> GraphInput:
    """A ``GraphInput`` from host arrays, on ``backend``'s arrays (tests and benchmarks)."""
    arrays = [np.asarray(src), np.asarray(dst), None if weight is None else np.asarray(weight, dtype=np.int32)]
    if backend == "gpu":
        import cupy
        arrays = [None if a is None else cupy.asarray(a) for a in arrays]
    return GraphInput(n, *arrays, directed=directed, where="<memory>")


# A graph sliced over workers (kernels/dist's partition) answers for its vertices with an edge
# under this key of its input's cache: ``count_with_edges()`` and ``with_edges(positions)``, the
# vertices at those positions of the sorted list of them.
WITH_EDGES = "vertices-with-edges"


def pick_roots(inp: GraphInput, count: int, seed: int) -> list[int]:
    """``count`` roots drawn from ``seed`` among the vertices with an edge (GAPBS's SourcePicker
    skips degree 0), never repeated: fewer when fewer vertices qualify (a repeated root would be
    timed twice and weigh twice in the GTEPS mean); any vertex when none has an edge.  A graph
    not held whole but sliced over workers is asked through its slices (``WITH_EDGES``): the
    same roots, without building its CSR here."""
    sliced = inp.cache.get(WITH_EDGES) if not inp.whole else None
    if sliced is not None:       # sliced over workers: their counts, never the whole CSR here
        total = sliced.count_with_edges()
    else:
        candidates = inp.xp.flatnonzero(inp.degree_nonzero())
        total = int(candidates.shape[0])
    rng = np.random.default_rng(seed)
    if total == 0:
        return [int(p) for p in rng.choice(inp.n, size=min(count, inp.n), replace=False)]
    picks = rng.choice(total, size=min(count, total), replace=False)
    if sliced is not None:
        return sliced.with_edges(picks)
    return [int(v) for v in candidates[inp.xp.asarray(picks)].tolist()]


# The ``root`` parameter of every single-source problem (BFS, SSSP, BC).
ROOT_PARAM = {"root": Param(None, int, minimum=0, help="root vertex (default: the sweep's seeded roots of "
                                                       "non-zero degree, or one)")}


def input_edges(inp: GraphInput) -> int:
    """A graph problem's elements (its rates' unit): the edges as loaded."""
    return inp.m


def root_instances(inp: GraphInput, params: dict, count: int | None, seed: int) -> list[dict]:
    """Instances of a single-source problem: the ``root`` parameter when given, else ``count`` (1)
    seeded roots of non-zero degree."""
    root = params.get("root")
    if root is not None:
        if not 0 <= int(root) < inp.n:
            raise ParameterError(f"parameter 'root': {root} is not a vertex of {inp.where} (n = {inp.n})")
        return [{"root": int(root)}]
    return [{"root": r} for r in pick_roots(inp, count or 1, seed)]


from . import simple  # noqa: E402,F401  (registers the "simple" and "oriented" representations)
from . import by_degree  # noqa: E402,F401  (registers "by-degree")
