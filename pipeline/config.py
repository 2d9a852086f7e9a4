"""graphsweep's Dask configuration: the defaults in graphsweep.yaml, under the ``graphsweep`` key.

Loaded with ``dask.config.update_defaults`` when graphsweep.pipeline is imported, so anything a user
sets through Dask's own channels (YAML under ~/.config/dask, ``DASK_GRAPHSWEEP__...`` environment
variables, ``dask.config.set``) wins over them.
"""

import copy
import difflib
from pathlib import Path

import dask.config
import dask.utils
import yaml

from graphsweep.core.errors import ParameterError

DEFAULTS = Path(__file__).with_name("graphsweep.yaml")


# Mappings whose keys the user names (profiles, Dask resources): their contents are checked where
# they are used (``cluster.profiles``), not against the defaults.
OPEN = ("cluster.profiles", "worker.gpu-resources", "worker.cpu-resources")
_checked: list = []      # the configuration last found sound (checked again when Dask's changes)


def load_defaults() -> None:
    dask.config.update_defaults(yaml.safe_load(DEFAULTS.read_text()))


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
    _check(current, yaml.safe_load(DEFAULTS.read_text())["graphsweep"], "graphsweep")
    _checked[:] = [copy.deepcopy(current)]


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


class UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that gives a key twice (plain YAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        first = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                seen = first.setdefault(key, key_node.start_mark)
            except TypeError:  # an unhashable key: PyYAML's own error says so
                break
            if seen is not key_node.start_mark:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first given at line {seen.line + 1})", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def _yaml_fault(exc: yaml.YAMLError) -> str:
    """'line L, column C: what is wrong' of a YAML error (its first line when it has no position)."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return str(exc).splitlines()[0]
    context = f" ({exc.context} at line {exc.context_mark.line + 1})" if getattr(exc, "context_mark", None) else ""
    return f"line {mark.line + 1}, column {mark.column + 1}: {exc.problem}{context}"


def read_yaml(path: Path, what: str):
    """The YAML document at ``path`` (a ``what``: 'sweep spec', 'cluster file'), or one clear error
    naming the line at fault (a syntax error, a key given twice)."""
    try:
        return yaml.load(path.read_text(), Loader=UniqueKeyLoader)
    except FileNotFoundError:
        raise ParameterError(f"{path}: no such {what}") from None
    except OSError as exc:
        raise ParameterError(f"{path}: not a readable YAML file ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise ParameterError(f"{path}: not a readable YAML file ({_yaml_fault(exc)})") from None
