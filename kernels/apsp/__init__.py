"""All-pairs shortest paths over non-negative integer weights: dist[s, v] = weight of a lightest
path from s to v (-1 when there is none), an n x n matrix.

Every algorithm in this package takes the shared ``GraphInput`` of a weighted graph dataset
(undirected: both directions; directed: out-edges) and returns ``{"dist": int32 n x n}`` on the
device it ran on (a view of a padded matrix for the blocked Floyd-Warshall).  Inside, "no path" is
AP_INF = 2^30 - 1, so a + b never overflows int32; graphs whose distances could reach it
((n - 1) x the largest weight) are refused, as is a matrix larger than the free device (or host)
memory, in one line before anything runs.

A run's rate counts pairs (n^2 distances per second): GTEPS would count input edges, which
Floyd-Warshall does not traverse (its work is n^3 min-plus steps whatever the edges; the
benchmark reports that rate too).  ``--save-output`` streams the matrix to Parquet, one row group
per block of sources: a ``source`` column and a ``dist`` column of fixed-size lists of n int64
(-1 unreachable), so a reader gets a block of rows as one flat array with no per-row offsets and
no (source, target, dist) triples three times the size.
"""

import numpy as np

from graphsweep.core.gpu import to_host

from ..contract import Problem
from ..graph import graph_input
from .verify import verify_apsp

ROW_GROUP_VALUES = 1 << 24      # distances per Parquet row group (128 MB of int64)


def verify(inp, params, out) -> dict:
    return verify_apsp(inp.n, inp.src, inp.dst, inp.weight, inp.directed, out["dist"])


def pairs(inp) -> int:
    return inp.n * inp.n


def save(out, path) -> None:
    """The matrix as Parquet: one row per source, one row group per block of sources."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    dist = out["dist"]
    n = int(dist.shape[0])
    schema = pa.schema([("source", pa.int64()), ("dist", pa.list_(pa.int64(), n))])
    rows = max(1, ROW_GROUP_VALUES // n)
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, n, rows):
            block = np.ascontiguousarray(to_host(dist[start:start + rows]), dtype=np.int64)
            lists = pa.FixedSizeListArray.from_arrays(pa.array(block.ravel()), n)
            table = pa.table({"source": np.arange(start, start + block.shape[0], dtype=np.int64), "dist": lists},
                             schema=schema)
            writer.write_table(table, row_group_size=block.shape[0])


APSP = Problem(name="apsp", dataset_kind="graph", prepare=graph_input, verify=verify, outputs=("dist",),
               requires=frozenset({"weighted"}), element="pair", elements=pairs, save=save,
               baseline="apsp.floyd-warshall")
