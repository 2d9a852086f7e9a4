"""Deep validation of a dataset on disk: manifest, every part's checksum, schema, rows and values,
and for lists the structure (one head, one tail, no cycle)."""

from pathlib import Path

import numpy as np

from .reader import read
from .structure import check_list


def validate(path, *, checksums: bool = True) -> dict:
    """Return a summary of the dataset at ``path``; raise ``DatasetError`` at the first fault."""
    path = Path(path)
    data = read(path, checksums=checksums, rehash=True)     # what any process remembers is not trusted here
    summary = {"path": str(path), "kind": data.kind, "n": data.n, "parts": len(data.manifest["parts"]),
               "bytes": data.nbytes, "index_dtype": str(data.index_dtype)}
    if data.kind == "list":
        head, tail = check_list(data.succ, where=str(path))
        summary.update(head=head, tail=tail)
    else:
        summary.update(m=data.m, weighted=data.weighted, directed=data.directed,
                       self_loops=int(np.count_nonzero(data.src == data.dst)))
        if data.weighted and data.m:
            summary.update(weight_min=int(data.weight.min()), weight_max=int(data.weight.max()))
    return summary
