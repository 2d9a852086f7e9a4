"""graphsweep's Dask configuration: the defaults in graphsweep.yaml, under the ``graphsweep`` key.

Loaded with ``dask.config.update_defaults`` when this module is imported (every module that reads a
setting imports it), so anything a user sets through Dask's own channels (YAML under
~/.config/dask, ``DASK_GRAPHSWEEP__...`` environment variables, ``dask.config.set``) wins over them.

Every YAML file graphsweep reads — sweep specs, cluster files, and Dask's config files that hold
``graphsweep`` settings — is read so that a syntax error or a key given twice is one line,
``FILE:LINE:COLUMN: what is wrong`` (``read_yaml``; plain YAML keeps a repeated key's last value).
"""

import copy
import difflib
from pathlib import Path

from graphsweep.core.errors import ParameterError

from .yamlfile import malformed_dask_file, read_yaml

# Dask reads its config files (~/.config/dask/*.yaml ...) when it is first imported; one it cannot
# parse fails that import with a ValueError of several lines.  Here it becomes one ParameterError,
# which the CLI (importing this module inside its error handling) prints as one line.
try:
    import dask.config
    import dask.utils
except ValueError as exc:
    raise malformed_dask_file(exc) from None

DEFAULTS = Path(__file__).with_name("graphsweep.yaml")


# Mappings whose keys the user names (profiles, Dask resources): their contents are checked where
# they are used (``cluster.profiles``), not against the defaults.
OPEN = ("cluster.profiles", "worker.gpu-resources", "worker.cpu-resources")
_checked: list = []      # the configuration last found sound (checked again when Dask's changes)


def _defaults() -> dict:
    """The shipped graphsweep.yaml."""
    return read_yaml(DEFAULTS, "defaults file")


def get(key: str):
    """The value of ``graphsweep.<key>``, once the whole ``graphsweep`` configuration is sound
    (``check``)."""
    check()
    return dask.config.get(f"graphsweep.{key}")


def raw(key: str):
    """``graphsweep.<key>`` unchecked: for text built at import time (a command's help), where a
    configuration error would escape the CLI's one-line report; the command itself checks."""
    return dask.config.get(f"graphsweep.{key}")


def check() -> None:
    """The ``graphsweep`` configuration as Dask merged it (graphsweep.yaml, YAML under
    ~/.config/dask, ``DASK_GRAPHSWEEP__...`` variables, ``dask.config.set``) against the shipped
    defaults, which are its schema: a key they do not have, or a value of another kind, is one
    ParameterError naming the key, what is allowed, and the closest known key."""
    current = dask.config.get("graphsweep", default={})
    if _checked and _checked[0] == current:
        return
    _check_dask_files()
    _check(current, _defaults()["graphsweep"], "graphsweep")
    _checked[:] = [copy.deepcopy(current)]


def _check_dask_files() -> None:
    """Dask's config files that hold graphsweep settings, read again so that a key given twice is
    one error naming its file and line (Dask's own reading keeps the last value)."""
    for path, doc in dask.config.collect_yaml(dask.config.paths, return_paths=True):
        if "graphsweep" in doc:
            read_yaml(path, "Dask config file")


def _check(value, schema, key: str) -> None:
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise ParameterError(f"configuration {key}: expected a mapping, got {value!r}")
        if key.removeprefix("graphsweep.") in OPEN:
            return
        known = {dask.config.canonical_name(k, schema): k for k in schema}
        for name, sub in value.items():
            canonical = dask.config.canonical_name(name, schema)
            if canonical not in schema:
                near = difflib.get_close_matches(str(name).replace("_", "-"), list(schema), n=1)
                hint = f"; did you mean {key}.{near[0]}?" if near else ""
                raise ParameterError(f"configuration {key}.{name}: not a graphsweep setting (known under {key}: "
                                     f"{', '.join(sorted(known.values()))}){hint}")
            _check(sub, schema[canonical], f"{key}.{canonical}")
        return
    if isinstance(schema, bool):
        ok, kind = isinstance(value, bool), "true or false"
    elif isinstance(schema, int):
        ok, kind = isinstance(value, int) and not isinstance(value, bool), "a whole number"
    elif isinstance(schema, str) and _duration(schema):
        ok, kind = not isinstance(value, bool) and _duration(value), "a duration such as 30s or 10 minutes"
    else:
        ok, kind = isinstance(value, str), "text"
    if not ok:
        raise ParameterError(f"configuration {key}: {value!r} is not {kind} (default {schema!r})")


def _duration(value) -> bool:
    try:
        dask.utils.parse_timedelta(value)
    except (ValueError, TypeError, KeyError):
        return False
    return isinstance(value, (int, float, str))


# Under whatever the user set through Dask (a module that reads a setting imports this one).
dask.config.update_defaults(_defaults())
