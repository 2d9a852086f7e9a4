"""What the connected-components GPU launchers share: the (index, label) C types of their template
instances and the bound on iterations of the algorithms whose host loops until a flag stays clear."""

import math

from ..cuda import c_type
from . import label_dtype


def types(index_dtype, n: int) -> str:
    """'S, L': the C types of edge endpoints (or CSR indices) and of labels, as template arguments."""
    return f"{c_type(index_dtype)}, {c_type(label_dtype(n))}"


def iteration_guard(n: int) -> int:
    """A bound no correct run of Shiloach-Vishkin reaches: four times the PRAM bound of
    ceil(log_3/2 n) + 2 iterations (000 §4), plus slack.  Exceeding it means a bug, not a hard graph."""
    return 4 * (math.ceil(math.log(max(n, 2), 1.5)) + 2) + 16


def rounds_guard(n: int) -> int:
    """A bound on rounds of atomic-free hooking (or of jumps) no correct run reaches: a round that
    changes anything removes at least one root (its first write, made before any other, lands on a
    root), so there are at most n of them.  Concurrent writes to one root leave one survivor per
    round, so a star can take many rounds; only an endless loop exceeds this."""
    return n + 2
