"""Verification references kept beside a stored dataset, so every worker and every later run reads
what one computed (``checks.reference`` asks here before computing); also what a problem's
``prepare`` learns checking its input (list ranking's: one list, its head and tail).

A reference is what a verifier computes from the input alone — a Brandes from a root, a triangle
count, a component count — never from an output.  In one process ``checks.reference`` keeps it on
the graph input; across processes (a sweep's workers, a later run) each paid it again: on
`sweeps/gap-scales.yaml` the first verifications were 5.6 of one H200's 6.1 s of verification, and
four workers paid 8.4 s between them.  Each reference is one ``.npz`` under the dataset's
``.references/`` folder, named by a digest of the dataset's manifest (its parts' sha256s: another
dataset, or this one regenerated differently, never matches), the backend, the reference's key and
the sources it is computed by (the verifier's family folder and the graph representations: a
changed verifier computes afresh).  A file is written under a temporary name and renamed into
place, so a reader sees it whole or not at all; two workers computing the same reference at once
each write a whole file, and the last rename stays.  A folder that cannot
be written, a file that cannot be read, or a value of a shape not kept here (a dict) only means
the reference is computed as before.
"""

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

import numpy as np

from graphsweep.core.gpu import is_device

log = logging.getLogger(__name__)

STORE = "verify.store"          # the graph input's cache key of its ReferenceStore
FOLDER = ".references"          # beside the dataset's parts: removed with the dataset
FORMAT = 1


class _NotKept(Exception):
    """A value this store does not write (a dict, an object)."""


class ReferenceStore:
    """The references of one stored dataset on one backend."""

    def __init__(self, folder: Path, manifest: dict, backend: str):
        self.folder = Path(folder)
        self.base = {"format": FORMAT, "manifest": manifest, "backend": backend}

    def path(self, key: tuple, compute) -> Path:
        text = json.dumps({**self.base, "key": repr(key), "verifier": _source_digest(compute)}, sort_keys=True,
                          default=str)
        return self.folder / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.npz"

    def load(self, key: tuple, compute):
        """The value kept for ``key``, or None (none kept, or unreadable)."""
        path = self.path(key, compute)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as npz:
                spec = json.loads(bytes(npz["spec"]).decode())
                return _rebuild(spec, npz)
        except (OSError, ValueError, KeyError, TypeError, ImportError) as exc:
            log.info("reference %s unreadable, computed again: %s", path, exc)
            return None

    def save(self, key: tuple, compute, value) -> None:
        """Keep ``value`` for ``key`` (atomically; quietly not where it cannot be written)."""
        arrays = []
        try:
            spec = _flatten(value, arrays)
        except _NotKept:
            return
        path = self.path(key, compute)
        tmp = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".partial-", suffix=".npz", dir=self.folder)
            with os.fdopen(fd, "wb") as f:
                np.savez(f, spec=np.frombuffer(json.dumps(spec).encode(), dtype=np.uint8),
                         **{f"a{i}": a for i, a in enumerate(arrays)})
            os.replace(tmp, path)
            tmp = None
        except OSError as exc:
            log.info("reference not kept in %s: %s", self.folder, exc)
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)


def store_for(data, backend: str | None = None) -> "ReferenceStore | None":
    """The store of ``data`` where it is a dataset read from disk (a manifest with parts and their
    checksums; a dataset made in memory has none), for values computed on ``backend`` (default the
    dataset's)."""
    path, manifest = getattr(data, "path", None), getattr(data, "manifest", {})
    if not isinstance(path, Path) or not manifest.get("parts") or not (path / "manifest.json").is_file():
        return None
    return ReferenceStore(path / FOLDER, manifest, backend or data.backend)


def attach(inp, data) -> None:
    """Give the graph input ``inp`` of ``data`` its store (``store_for``)."""
    cache = getattr(inp, "cache", None)
    if cache is None:
        return
    # the input's array module, which the references are computed with (a host placement's input
    # computes on the device though its dataset's columns are on the host)
    store = store_for(data, getattr(inp, "backend", None))
    if store is not None:
        cache[STORE] = store


_SOURCES: dict = {}
GRAPH = Path(__file__).parent / "graph"      # the representations a reference is computed from


def _source_digest(compute) -> str:
    """The sha256 of the sources ``compute`` runs: the .py files of the folder that defines it (a
    family's verifier and its reference algorithms) and of kernels/graph, read once a process."""
    code = getattr(compute, "__code__", None)
    if code is None:
        return repr(compute)
    folder = Path(code.co_filename).parent
    if folder not in _SOURCES:
        digest = hashlib.sha256()
        for path in sorted([*folder.glob("*.py"), *GRAPH.glob("*.py")]):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        _SOURCES[folder] = digest.hexdigest()
    return _SOURCES[folder]


def _flatten(value, arrays: list):
    """``value``'s structure as JSON, its arrays appended to ``arrays`` (device arrays copied to
    the host, marked to go back)."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return {"t": "v", "v": value}
    if isinstance(value, np.generic):
        arrays.append(np.asarray(value))
        return {"t": "scalar", "i": len(arrays) - 1}
    if isinstance(value, np.ndarray) or is_device(value):
        device = is_device(value)
        arrays.append(value.get() if device else value)
        return {"t": "array", "i": len(arrays) - 1, "device": device}
    if isinstance(value, (tuple, list)):
        return {"t": type(value).__name__, "items": [_flatten(v, arrays) for v in value]}
    raise _NotKept(type(value).__name__)


def _rebuild(spec: dict, npz):
    kind = spec["t"]
    if kind == "v":
        return spec["v"]
    if kind == "scalar":
        return npz[f"a{spec['i']}"][()]
    if kind == "array":
        arr = npz[f"a{spec['i']}"]
        if spec["device"]:
            import cupy
            return cupy.asarray(arr)
        return arr
    items = [_rebuild(s, npz) for s in spec["items"]]
    return tuple(items) if kind == "tuple" else items
