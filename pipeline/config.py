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


def read_yaml(path: Path, what: str):
    """The YAML document at ``path`` (a ``what``: 'sweep spec', 'cluster file'), or one clear error."""
    try:
        return yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ParameterError(f"{path}: no such {what}") from None
    except (OSError, yaml.YAMLError) as exc:
        raise ParameterError(f"{path}: not a readable YAML file ({str(exc).splitlines()[0]})") from None
