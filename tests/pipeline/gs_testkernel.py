"""test.flaky — a list-ranking kernel whose behaviour the pipeline tests choose.

``mode`` ok ranks correctly (two phases, an ``iterations`` stat equal to ``blocks``); raise
throws; wrong returns ranks that fail verification.  ``sleep_ms`` stretches each run so tests can
kill a worker or interrupt the client mid-task.  Loaded through GRAPHSWEEP_KERNEL_MODULES.
"""

import threading
import time

import numpy as np

from graphsweep.kernels.contract import Kernel, Param
from graphsweep.kernels.listrank import LISTRANK


# How many runs of this process are inside their walk now, the most at once, and how many there
# were: a test with an in-process cluster reads MOST to see whether tasks that should hold the host
# alone overlapped, RUNS to count warm-ups.
_held = threading.Lock()
RUNNING = MOST = RUNS = 0


def _enter(step: int) -> None:
    global RUNNING, MOST, RUNS
    with _held:
        RUNNING += step
        MOST = max(MOST, RUNNING)
        RUNS += step > 0


def run_cpu(inp, params, timer):
    if params["mode"] == "raise":
        raise RuntimeError("boom: test.flaky was asked to fail")
    with timer.phase("setup", written=inp.n * 4):
        rank = np.empty(inp.n, dtype=inp.rank_dtype)
    with timer.phase("walk", read=inp.n * 4, written=inp.n * 4, random=inp.n):
        _enter(1)
        try:
            time.sleep(params["sleep_ms"] / 1e3)
        finally:
            _enter(-1)
        x, r = inp.head, inp.n - 1
        succ = inp.succ.tolist()
        out = [0] * inp.n
        while True:
            out[x] = r
            if succ[x] == x:
                break
            x, r = succ[x], r - 1
        rank[:] = out
    if params["mode"] == "wrong":
        rank[inp.tail] = 1
    timer.stat("iterations", params["blocks"])
    return rank


KERNEL = Kernel(name="test.flaky", problem=LISTRANK, summary="test kernel: ok, raise or wrong", cpu=run_cpu,
                params={"mode": Param("ok", str, choices=("ok", "raise", "wrong")),
                        "sleep_ms": Param(0, int, minimum=0), "blocks": Param(1, int, minimum=1)})
