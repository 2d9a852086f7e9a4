"""How long a run has left: each task's estimate, corrected as tasks finish.

``forecast`` estimates the tasks (``estimate.times``: from earlier runs of the same kernels on the
same device kind, from the device's ceilings, or rough) on the devices of the cluster's workers,
knowing what they hold from earlier runs (a dataset loaded, kernels warmed up).
Before any task finishes, the time left is the workers' start (a fresh worker's ceilings) and
the tasks laid out on them, longest first.  Once some have finished, the estimate of the rest is
scaled by what they really took: elapsed seconds over the estimated seconds of the finished
tasks, which also captures how many workers ran side by side.
"""

import time

from . import estimate, worker


def forecast(plan, tasks: list, *, has_gpu: bool, client=None) -> estimate.TimeEstimate:
    """``estimate.times`` of ``tasks`` on the devices (and with the ceilings) of ``client``'s
    workers, or of this host without a client: a dataset a worker holds is not loaded again, a
    kernel every worker has warmed up is not warmed up again."""
    devices = ceilings = None
    held, warmed = frozenset(), frozenset()
    if client is not None:
        offers = client.run(worker.worker_devices)
        if offers:
            first = offers[min(offers)]
            devices, ceilings = first["devices"], first["ceilings"]
            held = frozenset(o["held"] for o in offers.values() if o["held"])
            warmed = frozenset.intersection(*(frozenset(o["warmed"]) for o in offers.values()))
    return estimate.times(plan, tasks, has_gpu=has_gpu, devices=devices, ceilings=ceilings, held=held,
                          warmed=warmed)


class Eta:
    """``done(hash)`` as each task finishes; ``left()`` the seconds still to go."""

    def __init__(self, expected: dict, workers: int = 1, clock=time.perf_counter, start: float = 0.0):
        self.expected, self.workers, self.clock = dict(expected), max(1, workers), clock
        self.start_s = start       # seconds each worker spends before its first task
        self.start = clock()
        self.finished = 0.0  # estimated seconds of the tasks done

    def done(self, task_hash: str) -> None:
        self.finished += self.expected.pop(task_hash, 0.0)

    def left(self) -> float:
        elapsed = self.clock() - self.start
        if self.finished > 0:
            return sum(self.expected.values()) * elapsed / self.finished
        return estimate.makespan(self.expected.values(), self.workers, max(0.0, self.start_s - elapsed))
