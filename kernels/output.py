"""Writing a kernel's output (``--save-output``): named columns, primary first, one Parquet file
written atomically.  A problem may say which columns (``Problem.columns``: canonical CC labels)
or write its output itself (``Problem.save``: an APSP matrix streamed in blocks of rows).
"""

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphsweep.core.gpu import to_host
from graphsweep.datasets.writer import write_atomically


def save(problem, output: dict, path) -> Path:
    """Write ``output`` (the dict of named arrays a run returned) to ``path``; returns the path."""
    path = Path(path).absolute()
    if problem.save is not None:
        return write_atomically(path, lambda tmp: problem.save(output, tmp))
    columns = problem.columns(output) if problem.columns is not None else output
    table = pa.table({name: np.asarray(to_host(values)) for name, values in columns.items()})
    return write_atomically(path, lambda tmp: pq.write_table(table, tmp))
