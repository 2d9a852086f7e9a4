"""How long a run has left: the dry-run estimate of each task, corrected as tasks finish.

Before any task finishes, the remaining estimate is the sum of the tasks' estimates
(``estimate.costs``: conservative, one task at a time) shared by the workers.  Once some have
finished, the estimate is scaled by what they really took: elapsed seconds over the estimated
seconds of the finished tasks, which also captures how many workers ran side by side.
"""

import time

from . import estimate


def task_seconds(plan, tasks: list, *, has_gpu: bool) -> dict:
    """task hash -> the estimated seconds of each of ``tasks`` (its dataset's tasks' estimate,
    shared evenly among them)."""
    per_dataset = {c.id: c.task_seconds / c.tasks
                   for c in estimate.costs(plan, has_gpu=has_gpu) if c.tasks}
    return {t.hash: per_dataset[t.dataset.id] for t in tasks}


class Eta:
    """``done(hash)`` as each task finishes; ``left()`` the seconds still to go."""

    def __init__(self, expected: dict, workers: int = 1, clock=time.perf_counter):
        self.expected, self.workers, self.clock = dict(expected), max(1, workers), clock
        self.start = clock()
        self.finished = 0.0  # estimated seconds of the tasks done

    def done(self, task_hash: str) -> None:
        self.finished += self.expected.pop(task_hash, 0.0)

    def left(self) -> float:
        remaining = sum(self.expected.values())
        if self.finished > 0:
            return remaining * (self.clock() - self.start) / self.finished
        return remaining / self.workers

