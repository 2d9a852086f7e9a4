"""The kernel contract: what an algorithm module declares and what it is handed.

An algorithm module (``kernels/<problem>/<algorithm>.py``, its ``.cu`` beside it) ends with::

    KERNEL = Kernel(name="listrank.wyllie", problem=LISTRANK, summary="...",
                    gpu=run_gpu, cpu=run_cpu, params={"threads": Param(256, minimum=32)})

``gpu`` and ``cpu`` have the signature ``run(inp, params, timer) -> output``: ``inp`` is what the
problem's ``prepare`` made of the dataset (on the device the backend uses), ``params`` the
validated parameters (a dict, defaults filled in), ``timer`` a ``Timer``.  Only the work goes
inside ``run``; every phase is wrapped in ``timer.phase(name, read=..., written=...,
random=...)`` with its byte model (bytes read, bytes written, random accesses).  A phase run many
times (one per iteration) is summed under its name and counted in ``calls``.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from graphsweep.datasets.params import Param, resolve  # noqa: F401  (Param is part of the contract)

@dataclass(frozen=True)
class Problem:
    """What every algorithm for one problem shares: the input it takes and how output is checked.

    ``prepare(dataset) -> inp`` checks the dataset and builds the kernels' input on the dataset's
    device (untimed; the result is cached on the dataset).  ``verify(inp, output) -> dict`` checks
    properties of the output independently of any kernel, raising ``VerificationError``; it may
    return facts it learnt (e.g. the number of components).
    """
    name: str
    dataset_kind: str
    prepare: Callable
    verify: Callable


@dataclass(frozen=True)
class Kernel:
    name: str
    problem: Problem
    summary: str
    gpu: Callable | None = None
    cpu: Callable | None = None
    params: Mapping[str, Param] = field(default_factory=dict)
    # setup(inp, params): untimed work the kernel needs per input and parameters, run once before
    # warm-up (check a list is ordered, choose even splitters); it keeps its results in inp.cache.
    setup: Callable | None = None

    def resolve_params(self, given: Mapping[str, Any]) -> dict:
        return resolve(self.name, self.params, dict(given))
