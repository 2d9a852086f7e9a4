"""graphsweep's Dask configuration: the defaults in graphsweep.yaml, under the ``graphsweep`` key.

Loaded with ``dask.config.update_defaults`` when graphsweep.pipeline is imported, so anything a user
sets through Dask's own channels (YAML under ~/.config/dask, ``DASK_GRAPHSWEEP__...`` environment
variables, ``dask.config.set``) wins over them.
"""

from pathlib import Path

import dask.config
import yaml

from graphsweep.datasets.errors import ParameterError

DEFAULTS = Path(__file__).with_name("graphsweep.yaml")


def load_defaults() -> None:
    dask.config.update_defaults(yaml.safe_load(DEFAULTS.read_text()))


def get(key: str):
    """The value of ``graphsweep.<key>``."""
    return dask.config.get(f"graphsweep.{key}")


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
