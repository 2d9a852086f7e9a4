"""graphsweep.pipeline — sweeps on Dask clusters, the result store, reduce and report, and the CLI."""

from .config import load_defaults

load_defaults()
