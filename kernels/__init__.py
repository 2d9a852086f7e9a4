"""graphsweep.kernels — GPU kernels with CPU twins, one contract, one harness, shared verifiers.

``run(name, dataset, backend=..., reps=..., warmup=..., verify=..., **params)`` is the entry point;
``names()`` lists the registry.
"""

from .contract import Kernel, Param, Problem
from .harness import KernelResult, run
from .registry import get, names

__all__ = ["Kernel", "KernelResult", "Param", "Problem", "get", "names", "run"]
