"""The on-disk dataset format (version 1).

A dataset is a directory::

    manifest.json        what the dataset is (see ``check_manifest``)
    part-00000.parquet   rows 0 .. rows_0-1
    part-00001.parquet   ...

``kind: list`` parts hold one column ``succ``: concatenated in part order it is succ[0..n-1], and
the tail points to itself (succ[t] = t).  ``kind: graph`` parts hold ``src``, ``dst`` and, when
``weighted``, ``weight`` (int32, >= 0).  An undirected edge is stored once; self-loops and
duplicate edges may occur.  Index columns are ``index_dtype``: int32 while n <= 2^31-1, else
int64.
"""

import hashlib
import json
from pathlib import Path

import numpy as np

from graphsweep.core.errors import DatasetError

FORMAT = "graphsweep-dataset"
VERSION = 1
MANIFEST = "manifest.json"
KINDS = ("list", "graph")
INDEX_DTYPES = ("int32", "int64")
WEIGHT_DTYPE = "int32"
INT32_MAX = 2**31 - 1


def index_dtype_for(n: int) -> str:
    """The narrowest index dtype that addresses ``n`` vertices."""
    return "int32" if n <= INT32_MAX else "int64"


def columns_for(kind: str, weighted: bool) -> tuple[str, ...]:
    """The columns every part of a dataset of ``kind`` holds."""
    if kind == "list":
        return ("succ",)
    return ("src", "dst", "weight") if weighted else ("src", "dst")


def column_dtype(column: str, index_dtype: str) -> np.dtype:
    """The dtype of ``column``: weights are int32, indices ``index_dtype``."""
    return np.dtype(WEIGHT_DTYPE if column == "weight" else index_dtype)


def part_name(index: int) -> str:
    """The file name of part ``index`` (at least five digits; more past 99999 parts)."""
    return f"part-{index:05d}.parquet"


def part_order(entry: dict) -> tuple:
    """Sort key of a manifest part entry: by index, also past 99999 parts, where names get longer."""
    return len(entry["path"]), entry["path"]


def sha256_file(path: Path) -> str:
    """The hex sha256 of the file at ``path``."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def is_dataset(path: Path) -> bool:
    """True when ``path`` holds a manifest that says it is a graphsweep dataset."""
    try:
        return json.loads((Path(path) / MANIFEST).read_text()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def _need(cond: bool, where: Path, what: str) -> None:
    if not cond:
        raise DatasetError(f"{where}: {what}")


def check_manifest(manifest: dict, where: Path) -> dict:
    """Raise ``DatasetError`` naming ``where`` and the field unless ``manifest`` is well formed."""
    _need(isinstance(manifest, dict), where, "manifest is not a JSON object")
    _need(manifest.get("format") == FORMAT, where, f"'format' is {manifest.get('format')!r}, expected {FORMAT!r}")
    _need(manifest.get("version") == VERSION, where,
          f"'version' is {manifest.get('version')!r}; this graphsweep reads version {VERSION}")
    kind = manifest.get("kind")
    _need(kind in KINDS, where, f"'kind' is {kind!r}, expected one of {', '.join(KINDS)}")
    n = manifest.get("n")
    _need(isinstance(n, int) and not isinstance(n, bool) and n >= 1, where, f"'n' is {n!r}, expected an integer >= 1")
    _need(manifest.get("index_dtype") in INDEX_DTYPES, where,
          f"'index_dtype' is {manifest.get('index_dtype')!r}, expected int32 or int64")
    _need(n <= INT32_MAX or manifest["index_dtype"] == "int64", where,
          f"n = {n} needs index_dtype int64, manifest says {manifest['index_dtype']}")
    parts = manifest.get("parts")
    _need(isinstance(parts, list), where, "'parts' is missing or not a list")
    for i, part in enumerate(parts):
        _need(isinstance(part, dict) and isinstance(part.get("path"), str)
              and isinstance(part.get("rows"), int) and part["rows"] >= 0, where,
              f"parts[{i}] needs 'path' (string) and 'rows' (integer >= 0)")
        _need("/" not in part["path"] and part["path"] not in ("", ".", ".."), where,
              f"parts[{i}].path {part['path']!r} must name a file inside the dataset directory")
    rows = sum(p["rows"] for p in parts)
    if kind == "list":
        _need(rows == n, where, f"list parts hold {rows} rows in all, 'n' is {n}")
    else:
        m = manifest.get("m")
        _need(m == rows, where, f"graph parts hold {rows} rows in all, 'm' is {m!r}")
        _need(isinstance(manifest.get("weighted"), bool), where, "'weighted' must be true or false")
        _need(isinstance(manifest.get("directed"), bool), where, "'directed' must be true or false")
    _need(("generator" in manifest) != ("source" in manifest), where,
          "exactly one of 'generator' and 'source' must say where the data came from")
    return manifest


def read_manifest(path: Path) -> dict:
    """The checked manifest of the dataset at ``path``."""
    path = Path(path)
    file = path / MANIFEST
    if not path.is_dir():
        raise DatasetError(f"{path}: no such dataset directory")
    try:
        manifest = json.loads(file.read_text())
    except FileNotFoundError:
        raise DatasetError(f"{file}: missing; {path} is not a graphsweep dataset") from None
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{file}: not readable JSON ({exc})") from None
    return check_manifest(manifest, file)
