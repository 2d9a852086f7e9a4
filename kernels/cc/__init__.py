"""Connected components of an undirected graph: label[v], equal for two vertices exactly when a
path joins them.

Every algorithm in this package takes the shared ``GraphInput`` of an undirected graph dataset
(an edge list with self-loops, duplicate edges and isolated vertices allowed; int32 or int64
ids) and returns ``label`` (int32 while n < 2^31, else int64) on the device it ran on.  Labels
need not be canonical; ``--save-output`` writes the canonical ones (the smallest vertex id of
each component).  A run's rate counts input edges (G edges/s = m / time).
"""

import numpy as np

from graphsweep.datasets.format import index_dtype_for
from graphsweep.core.gpu import array_module

from ..contract import Problem
from ..graph import graph_input, input_edges
from .verify import verify_graph_labels


def verify_output(inp, params, out) -> dict:
    return verify_graph_labels(inp, out["label"])


def label_dtype(n: int):
    """The label type of a graph of n vertices."""
    return np.dtype(index_dtype_for(n))


def canonical_labels(label):
    """Each vertex's label replaced by the smallest vertex id that has the same label."""
    xp = array_module(label)
    n = label.shape[0]
    if n == 0:
        return label
    _, group = xp.unique(label, return_inverse=True)
    group = group.reshape(-1)
    smallest = xp.full(int(group.max()) + 1, n, dtype=label.dtype)
    ids = xp.arange(n, dtype=label.dtype)
    xp.minimum.at(smallest, group, ids)
    return smallest[group]


def canonical_columns(out) -> dict:
    return {"label": canonical_labels(out["label"])}


CC = Problem(name="cc", dataset_kind="graph", prepare=graph_input, verify=verify_output, outputs=("label",),
             requires=frozenset({"undirected"}), element="edge", elements=input_edges, columns=canonical_columns,
             baseline="cc.hook-compress")
