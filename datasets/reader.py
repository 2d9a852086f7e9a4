"""Reading datasets into NumPy (host) or CuPy (device) arrays, checking them on the way.

Every fault is a ``DatasetError`` naming the file and what is wrong: a missing or unreadable
part, a schema or dtype other than the manifest promises, a row count that differs from the
manifest, a checksum mismatch (``checksums=True``), an index outside [0, n) or a negative weight.
"""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import DatasetError
from .format import column_dtype, columns_for, read_manifest, sha256_file
from .gpu import array_module, is_device

DEVICES = ("cpu", "gpu")


@dataclass
class Dataset:
    """A whole dataset in memory: its manifest and one contiguous array per column."""
    path: Path
    manifest: dict
    columns: dict = field(repr=False)
    # Derived inputs kernels reuse across runs (e.g. the list's head and tail, a CSR), by key.
    cache: dict = field(default_factory=dict, repr=False)

    kind = property(lambda self: self.manifest["kind"])
    n = property(lambda self: self.manifest["n"])
    m = property(lambda self: self.manifest.get("m"))
    weighted = property(lambda self: self.manifest.get("weighted", False))
    directed = property(lambda self: self.manifest.get("directed", False))
    index_dtype = property(lambda self: np.dtype(self.manifest["index_dtype"]))
    succ = property(lambda self: self.columns["succ"])
    src = property(lambda self: self.columns["src"])
    dst = property(lambda self: self.columns["dst"])
    weight = property(lambda self: self.columns.get("weight"))

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self.columns.values())

    @property
    def device(self) -> str:
        return "gpu" if is_device(next(iter(self.columns.values()))) else "cpu"

    def to(self, device: str) -> "Dataset":
        """This dataset with its columns on ``device`` ('cpu' or 'gpu'); itself if already there."""
        if device == self.device:
            return self
        if device == "gpu":
            import cupy
            columns = {c: cupy.asarray(a) for c, a in self.columns.items()}
        else:
            columns = {c: a.get() for c, a in self.columns.items()}
        return Dataset(self.path, self.manifest, columns)

    @classmethod
    def in_memory(cls, kind: str, n: int, *, name: str = "in-memory", directed: bool = False,
                  params: dict | None = None, seed: int | None = None, **columns) -> "Dataset":
        """A dataset made of arrays already in memory (NumPy or CuPy; tests and benchmarks):
        ``succ`` for a list, ``src``, ``dst`` and optionally ``weight`` for a graph.  The values
        are checked as a read would check them."""
        weight = columns.get("weight")
        columns = {k: v for k, v in columns.items() if v is not None}
        wanted = set(columns_for(kind, weight is not None))
        if set(columns) != wanted:
            raise DatasetError(f"<memory:{name}>: a {kind} dataset needs columns {sorted(wanted)}, got {sorted(columns)}")
        first = next(iter(columns.values()))
        manifest = {"format": "graphsweep-dataset", "version": 1, "kind": kind, "n": int(n),
                    "index_dtype": str(first.dtype) if kind == "list" else str(columns["src"].dtype),
                    "weighted": weight is not None, "directed": bool(directed),
                    **({"m": int(columns["src"].shape[0])} if kind == "graph" else {}),
                    "generator": {"name": name, "params": params or {}, "seed": seed}, "parts": [], "stats": {}}
        path = Path(f"<memory:{name}>")
        _check_values(path, manifest, columns, array_module(first))
        return cls(path, manifest, columns)

    @property
    def identity(self) -> dict:
        """What makes this dataset what it is, for result rows: its generator or source."""
        return self.manifest.get("generator") or self.manifest.get("source") or {}


def _open_part(file: Path, names: list, dtypes: dict, rows: int, checksum: str | None) -> pq.ParquetFile:
    """The part's ParquetFile after checking existence, checksum, schema and row count."""
    if not file.is_file():
        raise DatasetError(f"{file}: part listed in the manifest is missing")
    if checksum is not None and sha256_file(file) != checksum:
        raise DatasetError(f"{file}: sha256 differs from the manifest (the part is corrupt or was replaced)")
    try:
        pf = pq.ParquetFile(file, memory_map=True)
    except (pa.ArrowException, OSError) as exc:
        raise DatasetError(f"{file}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None
    schema = pf.schema_arrow
    for name in names:
        if name not in schema.names:
            raise DatasetError(f"{file}: column '{name}' is missing (has {', '.join(schema.names)})")
        got = schema.field(name).type
        if got != pa.from_numpy_dtype(dtypes[name]):
            raise DatasetError(f"{file}: column '{name}' is {got}, the manifest needs {dtypes[name]}")
    if pf.metadata.num_rows != rows:
        raise DatasetError(f"{file}: holds {pf.metadata.num_rows} rows, the manifest says {rows}")
    return pf


def _row_groups(file: Path, pf: pq.ParquetFile, names: list):
    """Yield (offset within the part, {column: host array}) row group by row group."""
    offset = 0
    for i in range(pf.num_row_groups):
        try:
            table = pf.read_row_group(i, columns=names, use_threads=False)
        except (pa.ArrowException, OSError) as exc:
            raise DatasetError(f"{file}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None
        chunk = {}
        for name in names:
            col = table.column(name)
            if col.null_count:
                raise DatasetError(f"{file}: column '{name}' has {col.null_count} null values")
            chunk[name] = col.to_numpy()
        yield offset, chunk
        offset += table.num_rows


def _check_values(path: Path, manifest: dict, columns: dict, xp) -> None:
    n = manifest["n"]
    for name, values in columns.items():
        if values.size == 0:
            continue
        lo, hi = int(values.min()), int(values.max())
        if name == "weight":
            if lo < 0:
                pos = int(xp.argmax(values < 0))
                edge = (f" (edge {int(columns['src'][pos])} - {int(columns['dst'][pos])})"
                        if "src" in columns and "dst" in columns else "")
                raise DatasetError(f"{path}: column 'weight' row {pos}{edge} is {int(values[pos])}: "
                                   "weights must be >= 0")
        elif lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            pos = int(xp.argmax(values == bad))
            raise DatasetError(f"{path}: column '{name}' row {pos} is {bad}, outside [0, n={n})")


def read_chunks(path, parts=None, *, columns=None):
    """Yield {column: host array} of the dataset at ``path``, part by part (``parts``: the indices
    of the parts to read, default all) and row group by row group, with the checks ``read`` makes
    of each part (existence, schema and dtypes, rows, nulls); values are not range-checked.  What
    a worker holding a slice of a graph reads, keeping only the rows it needs."""
    path = Path(path)
    manifest = read_manifest(path)
    names = list(columns or columns_for(manifest["kind"], manifest.get("weighted", False)))
    dtypes = {c: column_dtype(c, manifest["index_dtype"]) for c in names}
    for i in range(len(manifest["parts"])) if parts is None else parts:
        part = manifest["parts"][i]
        file = path / part["path"]
        pf = _open_part(file, names, dtypes, part["rows"], None)
        for _, chunk in _row_groups(file, pf, names):
            yield chunk


def read(path, *, device: str = "cpu", columns=None, checksums: bool = False,
         check_values: bool = True, threads: int = 2) -> Dataset:
    """Load the dataset at ``path`` whole, as NumPy (``device="cpu"``) or CuPy (``"gpu"``) arrays.

    Parts are read by ``threads`` threads, row group by row group, straight into one
    preallocated array per column (on the GPU, each row group is copied to its slice of the
    device array as soon as it is read, so host memory holds only a few row groups).
    """
    if device not in DEVICES:
        raise DatasetError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    path = Path(path)
    manifest = read_manifest(path)
    names = list(columns or columns_for(manifest["kind"], manifest.get("weighted", False)))
    dtypes = {c: column_dtype(c, manifest["index_dtype"]) for c in names}
    total = sum(p["rows"] for p in manifest["parts"])
    if device == "gpu":
        import cupy as xp
    else:
        xp = np
    out = {c: xp.empty(total, dtype=dtypes[c]) for c in names}
    starts = np.cumsum([0] + [p["rows"] for p in manifest["parts"]])

    def load(i):
        part = manifest["parts"][i]
        file = path / part["path"]
        pf = _open_part(file, names, dtypes, part["rows"], part.get("sha256") if checksums else None)
        for offset, chunk in _row_groups(file, pf, names):
            a = starts[i] + offset
            for c in names:
                if device == "gpu":
                    out[c][a:a + len(chunk[c])].set(chunk[c])
                else:
                    out[c][a:a + len(chunk[c])] = chunk[c]

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        list(pool.map(load, range(len(manifest["parts"]))))
    if check_values:
        _check_values(path, manifest, out, xp)
    return Dataset(path, manifest, out)
