"""graphsweep.generators — random and ordered lists, list-graphs, trees, density graphs,
uniform-degree and scale-free graphs and R-MAT, each written as a dataset by ``generate``.

``GENERATORS`` maps each CLI kind to its ``Generator`` (parameters, plan, part function); the
randomness schemes that make datasets independent of part size and worker count are described
in ``streams``.
"""

from .driver import GENERATORS, generate
from .registry import Generator, Plan

__all__ = ["GENERATORS", "Generator", "Plan", "generate"]
