"""Checks that an output path can be written, made before any work: one clear line instead of an
OS error's traceback after minutes of computing.

``check_writable(path, what)`` accepts a path whose nearest existing ancestor is a folder this
process may create entries in (checked by creating one) (and, for an existing ``path``, that is writable itself);
``prepare_output_file(path, what)`` also creates the file's missing folders.
"""

import errno
import os
import tempfile
from pathlib import Path

from graphsweep.core.capacity import nearest_existing
from graphsweep.core.errors import GraphsweepError


def check_writable(path, what: str) -> Path:
    """``path`` as an absolute Path, or GraphsweepError naming ``what`` (e.g. '--out') and why."""
    path = Path(path).expanduser().absolute()
    existing = nearest_existing(path)
    if existing != path and not existing.is_dir():
        raise GraphsweepError(f"{what} {path}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | (os.X_OK if existing.is_dir() else 0)):
        reason = "is on a read-only file system" if _read_only(existing) else "is not writable"
        raise GraphsweepError(f"{what} {path}: {existing} {reason}")
    if existing.is_dir():
        _probe(existing, f"{what} {path}")
    return path


def _probe(folder: Path, what: str) -> None:
    """Create and remove a file in ``folder``: file systems such as /proc and /sys pass the access
    check (for root) yet take no new files."""
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".graphsweep-probe-")
    except OSError as exc:
        raise GraphsweepError(f"{what}: cannot create files in {folder} ({exc.strerror})") from None
    os.close(fd)
    os.unlink(name)


def prepare_output_file(path, what: str) -> Path:
    """Check an output file's place and create its missing folders (before the work that fills it)."""
    path = check_writable(path, what)
    if path.is_dir():
        raise GraphsweepError(f"{what} {path}: is a folder, expected a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GraphsweepError(f"{what} {path}: cannot create {path.parent} ({exc.strerror})") from None
    return path


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError as exc:
        return exc.errno == errno.EROFS
