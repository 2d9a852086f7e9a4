"""The ledger's step rows: per step the slowest rank's time, and of each time the ranks measured for
themselves (``spread``) the largest and the smallest — the imbalance a slowest-rank row hides."""

from graphsweep.kernels.dist.ledger import Ledger


class _Timer:
    def __init__(self):
        self.rows = {}

    def steps(self, name, rows):
        self.rows[name] = rows


def _step(ms, work=None, bytes_=8):
    st = {"step": 0, "ms": ms, "comm_ms": 0.1, "bytes": bytes_, "rounds": 0, "direction": "top-down"}
    return st if work is None else {**st, "work_ms": work}


def test_each_step_keeps_the_slowest_rank_and_the_spread_of_the_ranks_own_times():
    timer = _Timer()
    ledger = Ledger(part=None, timer=timer)
    ledger.records = [{"steps": [_step(3.0, 2.5)]}, {"steps": [_step(3.2, 1.0)]}, {"steps": [_step(2.9, 2.8)]}]
    ledger.steps("level", ("direction",), spread=("work_ms",))
    (row,) = timer.rows["level"]()
    assert row["ms"] == 3.2 and row["info"]["direction"] == "top-down" and row["info"]["bytes_exchanged"] == 24
    assert (row["info"]["work_ms_max"], row["info"]["work_ms_min"]) == (2.8, 1.0)


def test_a_time_some_rank_did_not_measure_is_left_out():
    timer = _Timer()
    ledger = Ledger(part=None, timer=timer)
    ledger.records = [{"steps": [_step(1.0, 0.5)]}, {"steps": [_step(1.1)]}]
    ledger.steps("level", spread=("work_ms",))
    (row,) = timer.rows["level"]()
    assert "work_ms_max" not in row["info"] and "work_ms_min" not in row["info"]
