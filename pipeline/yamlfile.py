"""YAML files read with one-line errors: ``FILE:LINE:COLUMN: what is wrong`` for a syntax error or
a key given twice in one mapping (plain YAML keeps the last value silently).  Imports no Dask, so
that the configuration can name a Dask config file that Dask itself fails to import over."""

import re
from pathlib import Path

import yaml

from graphsweep.core.errors import ParameterError


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping that gives a key twice."""


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
                raise DuplicateKeyError(
                    None, None, f"duplicate key {key!r} (first given at line {seen.line + 1})", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def _yaml_fault(exc: yaml.YAMLError) -> str:
    """':LINE:COLUMN: what is wrong' of a YAML error (': not valid YAML (...)' when it has no position)."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return f": not valid YAML ({str(exc).splitlines()[0]})"
    context = f" ({exc.context} at line {exc.context_mark.line + 1})" if getattr(exc, "context_mark", None) else ""
    problem = exc.problem if isinstance(exc, DuplicateKeyError) else f"not valid YAML: {exc.problem}"
    return f":{mark.line + 1}:{mark.column + 1}: {problem}{context}"


def read_yaml(path: Path, what: str):
    """The YAML document at ``path`` (a ``what``: 'sweep spec', 'cluster file'), or one clear error
    naming the file, line and column at fault (a syntax error, a key given twice)."""
    try:
        return yaml.load(Path(path).read_text(), Loader=UniqueKeyLoader)
    except FileNotFoundError:
        raise ParameterError(f"{path}: no such {what}") from None
    except OSError as exc:
        raise ParameterError(f"{path}: not a readable YAML file ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise ParameterError(f"{path}{_yaml_fault(exc)}") from None


def malformed_dask_file(exc: ValueError) -> ParameterError:
    """Dask's error for a config file it cannot parse (several lines, with PyYAML's) as one line
    naming the file, line and column, read again by ``read_yaml``."""
    found = re.match(r"A dask config file at '(.+?)' is malformed", str(exc))
    if found:
        try:
            read_yaml(Path(found.group(1)), "Dask config file")
        except ParameterError as fault:
            return fault
    return ParameterError(str(exc).splitlines()[0])
