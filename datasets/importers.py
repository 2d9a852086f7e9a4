"""Importers: turn a graph file into a dataset (``import_file``).

Formats:

- ``edgelist``: SNAP / plain edge lists (``.txt``, ``.el``): two whitespace-separated integer
  ids per line, lines starting with ``#`` or ``%`` are comments; ids are 0-based unless
  ``base=1``.  Undirected unless ``directed=True`` (SNAP says in its header which it is).
- ``wel``: the same with a third column, an integer weight >= 0.
- ``gr``: DIMACS shortest-path (9th challenge) files: ``c`` comments, one ``p sp N M`` line, then
  ``a U V W`` arcs with 1-based ids; directed (each road appears as two arcs); weighted.
- ``mtx``: Matrix Market coordinate files read with ``scipy.io.mmread``: ``symmetric`` ->
  undirected (the stored triangle, each edge once; with ``directed=True`` both arcs of each
  off-diagonal entry), ``general`` -> directed; ``pattern`` ->
  unweighted, ``integer`` -> weights (>= 0); ``real`` weights are refused unless
  ``round_weights=True`` rounds them to the nearest integer.

Text formats are parsed with pyarrow (a line per row, split on whitespace, cast to int64 in
C), so tens of millions of edges take seconds, not a Python loop per line.  Vertex ids keep
their values: n = max id + 1 (the ``gr`` and ``mtx`` headers give n), unless ``relabel=True``
numbers the ids that occur densely from 0 in increasing order; ``stats.n_from`` says which.  Every fault is one
``DatasetError`` naming the file and, where there is one, the line; a file without edges is
refused in every format (an empty edge list cannot even say n).  The manifest records
``source: {format, file, sha256, ...options}``.
"""

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from graphsweep.core.errors import DatasetError, ParameterError
from .format import INT32_MAX, sha256_file
from .writer import check_output_dir, write_arrays

FORMATS = ("edgelist", "wel", "gr", "mtx")
_INTEGER = r"^[+-]?[0-9]+$"
_NO_DELIMITER = "\x1f"  # a byte that never occurs in these text formats: one column per line


def _read_lines(file: Path) -> pa.StringArray:
    """Every line of ``file`` as a string (empty lines kept, so index + 1 is the line number)."""
    if file.stat().st_size == 0:  # Arrow refuses an empty file; it is a file without lines
        return pa.array([], pa.string())
    try:
        table = pacsv.read_csv(
            file,
            read_options=pacsv.ReadOptions(column_names=["line"], block_size=1 << 26),
            parse_options=pacsv.ParseOptions(delimiter=_NO_DELIMITER, quote_char=False,
                                              escape_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types={"line": pa.string()}))
    except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{file}: not a readable text file ({str(exc).splitlines()[0]})") from None
    return table.column("line").combine_chunks() if table.num_rows else pa.array([], pa.string())


class _Records:
    """The data lines of a text file split into whitespace-separated tokens, with line numbers."""

    def __init__(self, file: Path, lines: pa.StringArray, keep: pa.BooleanArray):
        self.file = file
        self.line_numbers = np.flatnonzero(np.asarray(keep.to_numpy(zero_copy_only=False))) + 1
        self.tokens = pc.utf8_split_whitespace(pc.utf8_trim_whitespace(pc.filter(lines, keep)))

    def __len__(self):
        return len(self.tokens)

    def fail(self, row: int, what: str):
        raise DatasetError(f"{self.file}: line {self.line_numbers[row]}: {what}")

    def columns(self, count: int, what: str) -> np.ndarray:
        """The records as an int64 array of shape (rows, count), or DatasetError at the first bad line."""
        lengths = pc.list_value_length(self.tokens).to_numpy(zero_copy_only=False)
        bad = np.flatnonzero(lengths != count)
        if bad.size:
            self.fail(bad[0], f"expected {count} columns ({what}), found {lengths[bad[0]]}")
        flat = pc.list_flatten(self.tokens)
        integer = pc.match_substring_regex(flat, _INTEGER).to_numpy(zero_copy_only=False)
        bad = np.flatnonzero(~integer)
        if bad.size:
            self.fail(bad[0] // count, f"{flat[int(bad[0])].as_py()!r} is not an integer ({what})")
        flat = pc.utf8_ltrim(flat, characters="+")  # Arrow's cast refuses a leading '+'
        try:
            values = pc.cast(flat, pa.int64()).to_numpy(zero_copy_only=False)
        except pa.ArrowInvalid:
            # only a token of 19 or more characters can overflow: find the first that does
            long = np.flatnonzero(pc.utf8_length(flat).to_numpy(zero_copy_only=False) >= 19)
            at = next(i for i, token in zip(long, pc.take(flat, long).to_pylist())
                      if not -2**63 <= int(token) < 2**63)
            self.fail(at // count, f"integer {flat[int(at)].as_py()} does not fit 64 bits ({what})")
        return values.reshape(-1, count)

    def check_range(self, values: np.ndarray, lo: int, hi: int, what: str):
        """DatasetError naming the first line whose ``values`` fall outside [lo, hi]."""
        bad = np.flatnonzero((values < lo) | (values > hi))
        if bad.size:
            self.fail(bad[0], f"{what} {values[bad[0]]} is outside [{lo}, {hi}]")


def _edge_lines(file: Path, weighted: bool, base: int):
    lines = _read_lines(file)
    stripped = pc.utf8_trim_whitespace(lines)
    keep = pc.and_(pc.not_equal(stripped, ""),
                   pc.invert(pc.or_(pc.starts_with(stripped, "#"), pc.starts_with(stripped, "%"))))
    records = _Records(file, lines, keep)
    if not len(records):
        raise DatasetError(f"{file}: holds no edges; an empty graph is not imported")
    what = "source, target, weight" if weighted else "source, target"
    table = records.columns(3 if weighted else 2, what)
    ends = table[:, :2] - base
    for column, name in ((0, "source id"), (1, "target id")):
        bad = np.flatnonzero(ends[:, column] < 0)
        if bad.size:
            records.fail(bad[0], f"{name} {table[bad[0], column]} is below {base} (ids are {base}-based)")
    weight = None
    if weighted:
        weight = table[:, 2]
        records.check_range(weight, 0, INT32_MAX, "weight")
    return ends[:, 0], ends[:, 1], weight, None


def _gr(file: Path):
    lines = _read_lines(file)
    stripped = pc.utf8_trim_whitespace(lines)
    first = pc.utf8_slice_codeunits(stripped, 0, 2)
    is_comment = pc.or_(pc.equal(stripped, ""), pc.or_(pc.equal(first, "c"), pc.equal(first, "c ")))
    is_problem = pc.equal(first, "p ")
    is_arc = pc.equal(first, "a ")
    other = np.flatnonzero(~(np.asarray(is_comment) | np.asarray(is_problem) | np.asarray(is_arc)))
    if other.size:
        raise DatasetError(f"{file}: line {other[0] + 1}: expected a 'c', 'p' or 'a' line, found "
                           f"{lines[int(other[0])].as_py()[:40]!r}")
    problems = np.flatnonzero(np.asarray(is_problem))
    if problems.size != 1:
        raise DatasetError(f"{file}: needs exactly one 'p sp N M' line, found {problems.size}")
    header = lines[int(problems[0])].as_py().split()
    if len(header) != 4 or header[1] != "sp" or not all(t.isdigit() for t in header[2:]):
        raise DatasetError(f"{file}: line {problems[0] + 1}: expected 'p sp N M', found {' '.join(header)!r}")
    n, m = int(header[2]), int(header[3])
    arcs_at = np.flatnonzero(np.asarray(is_arc))
    if arcs_at.size and arcs_at[0] < problems[0]:
        raise DatasetError(f"{file}: line {arcs_at[0] + 1}: an arc comes before the 'p sp N M' line")
    if arcs_at.size != m:
        raise DatasetError(f"{file}: the 'p' line (line {problems[0] + 1}) promises {m} arcs, "
                           f"the file holds {arcs_at.size}")
    if n < 1:
        raise DatasetError(f"{file}: line {problems[0] + 1}: N = {n}, expected at least 1 vertex")
    records = _Records(file, pc.utf8_slice_codeunits(stripped, 1), is_arc)  # drop the 'a'
    table = records.columns(3, "a source target weight") if m else np.empty((0, 3), np.int64)
    for column, name in ((0, "source id"), (1, "target id")):
        records.check_range(table[:, column], 1, n, name)
    records.check_range(table[:, 2], 0, INT32_MAX, "weight")
    return table[:, 0] - 1, table[:, 1] - 1, table[:, 2], n


def _mtx(file: Path, round_weights: bool, directed: bool | None):
    import scipy.io
    try:
        rows, cols, _, layout, field, symmetry = scipy.io.mminfo(file)
        matrix = scipy.io.mmread(file, spmatrix=False)
    except (ValueError, OSError, IndexError, OverflowError) as exc:
        raise DatasetError(f"{file}: not a readable Matrix Market file ({str(exc).splitlines()[0]})") from None
    if layout != "coordinate":
        raise DatasetError(f"{file}: a dense ('{layout}') matrix; only 'coordinate' (sparse) files are graphs")
    if symmetry not in ("general", "symmetric"):
        raise DatasetError(f"{file}: symmetry '{symmetry}' is not a graph; expected general or symmetric")
    if field == "complex":
        raise DatasetError(f"{file}: complex values cannot be edge weights")
    if max(rows, cols) < 1:
        raise DatasetError(f"{file}: a {rows} x {cols} matrix has no vertices")
    is_directed = symmetry == "general" if directed is None else directed
    matrix = matrix.tocoo()
    if symmetry == "symmetric" and not is_directed:
        # mmread mirrors the stored triangle; keep it alone so each undirected edge appears once
        # (read as directed, each off-diagonal entry stays as both its arcs)
        lower = matrix.row >= matrix.col
        matrix = type(matrix)((matrix.data[lower], (matrix.row[lower], matrix.col[lower])), shape=matrix.shape)
    weight = None
    if field != "pattern":
        values = np.asarray(matrix.data)
        if field == "real":
            if not round_weights:
                raise DatasetError(f"{file}: real (non-integer) weights; graphsweep weights are integers "
                                   f"(import with --round-weights to round them to the nearest integer)")
            values = np.rint(values)
        for bad, what in ((~np.isfinite(values), "is not a finite number"),
                          ((values < 0) | (values > INT32_MAX), f"is outside [0, {INT32_MAX}]")):
            if bad.any():
                at = np.flatnonzero(bad)[0]
                raise DatasetError(f"{file}: entry ({matrix.row[at] + 1}, {matrix.col[at] + 1}): "
                                   f"weight {values[at]} {what}")
        weight = values.astype(np.int64)
    return matrix.row.astype(np.int64), matrix.col.astype(np.int64), weight, max(rows, cols), is_directed


def import_file(fmt: str, file, out, *, part_rows: int = 1 << 20, overwrite: bool = False,
                directed: bool | None = None, base: int = 0, relabel: bool = False,
                round_weights: bool = False) -> Path:
    """Import graph ``file`` of format ``fmt`` as a dataset at ``out``; returns its path.

    ``directed`` overrides the format's default (edge lists: undirected; ``gr``: directed;
    ``mtx``: from its symmetry); ``base`` is the first id of edge lists (0 or 1); ``relabel``
    numbers the ids that occur densely from 0; ``round_weights`` accepts real ``mtx`` weights.
    """
    if fmt not in FORMATS:
        raise ParameterError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    if base not in (0, 1):
        raise ParameterError(f"base: {base!r} is not 0 or 1")
    file, out = Path(file), Path(out)
    if not file.is_file():
        raise DatasetError(f"{file}: no such file")
    check_output_dir(out.absolute(), overwrite)  # refuse before spending time on parsing
    if fmt == "mtx":
        src, dst, weight, n, is_directed = _mtx(file, round_weights, directed)
    elif fmt == "gr":
        src, dst, weight, n = _gr(file)
        is_directed = True
    else:
        src, dst, weight, n = _edge_lines(file, fmt == "wel", base)
        is_directed = False
    if directed is not None:
        is_directed = directed
    if not len(src):  # every format alike: an edge list without edges does not even say n
        raise DatasetError(f"{file}: holds no edges; an empty graph is not imported")
    stats = {}
    if relabel:
        ids, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
        src, dst = inverse[:len(src)], inverse[len(src):]
        n = len(ids)
        stats.update(relabelled_from_max_id=int(ids[-1]), n_from="distinct ids")
    elif n is None:
        n = int(max(src.max(), dst.max())) + 1
        stats["n_from"] = "largest id + 1"
    else:
        stats["n_from"] = "header"
    columns = {"src": src, "dst": dst, **({"weight": weight} if weight is not None else {})}
    source = {"format": fmt, "file": file.name, "sha256": sha256_file(file), "relabel": relabel,
              **({"base": base} if fmt in ("edgelist", "wel") else {})}
    stats.update(self_loops=int(np.count_nonzero(src == dst)))
    return write_arrays(out, kind="graph", n=n, columns=columns, part_rows=part_rows,
                        weighted=weight is not None, directed=is_directed, source=source,
                        stats=stats, overwrite=overwrite)
