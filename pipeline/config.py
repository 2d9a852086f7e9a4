"""graphsweep's Dask configuration: the defaults in graphsweep.yaml, under the ``graphsweep`` key.

Loaded with ``dask.config.update_defaults`` when graphsweep.pipeline is imported, so anything a user
sets through Dask's own channels (YAML under ~/.config/dask, ``DASK_GRAPHSWEEP__...`` environment
variables, ``dask.config.set``) wins over them.
"""

from pathlib import Path

import dask.config
import yaml

DEFAULTS = Path(__file__).with_name("graphsweep.yaml")


def load_defaults() -> None:
    dask.config.update_defaults(yaml.safe_load(DEFAULTS.read_text()))


def get(key: str):
    """The value of ``graphsweep.<key>``."""
    return dask.config.get(f"graphsweep.{key}")
