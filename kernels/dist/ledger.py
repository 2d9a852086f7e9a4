"""What one partitioned run did, in the harness's rows: from its ranks' records (``spmd.run``).

- ``total``: the slowest rank's time, from the barrier that starts the run to the end of its
  work (``Timer.total_measured``; on the GPU by CUDA events, as a one-GPU kernel's total: see
  ``spmd``): the work and the exchanges, not Dask's dispatch;
- ``dispatch``: the driver's wall time of the call (tasks sent to the K workers, records back);
  what one call through Dask costs beyond the run itself;
- the kernel's phases (``Rank.phase``), each the slowest rank's, as measured phases;
- statistics: ``phases_by_rank`` (each phase's milliseconds on rank 0, 1, ...: the phases are the
  slowest rank's, so a phase that ends in a collective also counts the wait for a rank slower
  in the phase before — this says which), ``local_ms`` (the slowest rank's time outside collectives), ``comm_ms`` (the most
  time a rank spent inside collectives, waiting for the slowest peer included; NaN where
  collectives ran inside CUDA graphs, untimed),
  ``bytes_exchanged`` (received by all ranks), ``rounds`` (collectives a rank made), the
  ``transport`` and the partition's facts (slice entries, cut entries, build seconds);
- step rows (BFS levels, PageRank iterations): per step the slowest rank's time, the info the
  ranks agree on, the bytes all received.
"""

import math

from .driver import Partition


def _most(values) -> float:
    """The largest of ``values``, NaN if any is NaN (a rank whose collectives went untimed)."""
    values = list(values)
    return math.nan if any(math.isnan(v) for v in values) else max(values)


class Ledger:
    def __init__(self, part: Partition, timer):
        self.part, self.timer = part, timer
        self.records: list = []

    def run(self, fn, *args, name: str) -> list[dict]:
        """``fn`` on every rank in step (``Partition.spmd``), recorded in the timer; the records."""
        with self.timer.phase("dispatch"):
            records = self.part.spmd(fn, *args, name=name)
        self.records = records
        self.timer.total_measured(max(r["ms"] for r in records))
        for phase in records[0]["phases_ms"]:
            self.timer.measured(phase, max(r["phases_ms"].get(phase, 0.0) for r in records))
        by_rank = "; ".join(f"{phase} " + " ".join(f"{r['phases_ms'].get(phase, 0.0):.3f}" for r in records)
                            for phase in records[0]["phases_ms"])
        stats = {"phases_by_rank": by_rank, "local_ms": _most(r["ms"] - r["comm_ms"] for r in records),
                 "comm_ms": _most(r["comm_ms"] for r in records),
                 "bytes_exchanged": sum(r["bytes"] for r in records),
                 "rounds": max(r["rounds"] for r in records), "transport": self.part.transport,
                 **self.part.facts}
        for stat, value in stats.items():
            self.timer.stat(stat, value)
        return records

    def steps(self, phase: str, keys: tuple = (), spread: tuple = ()) -> None:
        """Step rows of phase ``phase`` from the ranks' ``steps`` (one list per rank, same length):
        per step the slowest rank's time and its time in collectives, ``keys`` of the info the
        ranks agree on, the bytes all ranks received, and of each of ``spread`` (a time each rank
        measured for itself) the largest and the smallest over the ranks (``KEY_max``, ``KEY_min``)."""
        def rows():
            out = []
            for per_rank in zip(*(r["steps"] for r in self.records)):
                slowest = max(per_rank, key=lambda st: st["ms"])
                ranges = {f"{k}_{end}": fn(st[k] for st in per_rank) for k in spread
                          if all(k in st for st in per_rank) for end, fn in (("max", max), ("min", min))}
                out.append({"step": slowest["step"], "ms": slowest["ms"],
                            "info": {**{k: slowest[k] for k in keys}, "comm_ms": slowest["comm_ms"],
                                     "bytes_exchanged": sum(st["bytes"] for st in per_rank),
                                     "rounds": slowest["rounds"], **ranges}})
            return out
        self.timer.steps(phase, rows)
