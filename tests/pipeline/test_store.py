"""The result store: claimed directories, never-overwritten task files, status from footers."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphsweep.core.errors import GraphsweepError
from graphsweep.pipeline import store, sweep


def plan_in(tmp_path, **top):
    spec = {"name": "s", "results": str(tmp_path / "r"), "datasets": [{"generator": "list", "params": {"n": [64, 128]}}],
            "kernels": [{"name": "listrank.sequential"}], **top}
    return sweep.expand(spec)


def test_a_result_is_written_once_and_never_overwritten(tmp_path):
    plan = plan_in(tmp_path)
    store.init(plan, resume=False)
    first = pa.table({"ms": [1.0, 2.0]})
    assert store.write_task(plan.results, "abc", first, failed=False, error=None)
    assert not store.write_task(plan.results, "abc", pa.table({"ms": [9.0]}), failed=True, error="late")
    path = store.task_file(plan.results, "abc")
    assert pq.read_table(path).column("ms").to_pylist() == [1.0, 2.0]
    assert store.outcome(path) == ("ok", None)
    assert [p.name for p in path.parent.iterdir()] == ["abc.parquet"]  # no temporary left behind


def test_a_used_results_directory_is_refused_unless_resuming_the_same_sweep(tmp_path):
    plan = plan_in(tmp_path)
    store.init(plan, resume=False)
    with pytest.raises(GraphsweepError, match="already holds sweep results; pass --resume"):
        store.init(plan, resume=False)
    store.init(plan, resume=True)
    with pytest.raises(GraphsweepError, match="holds a different sweep"):
        store.init(plan_in(tmp_path, reps=3), resume=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "file").write_text("x")
    with pytest.raises(GraphsweepError, match="not a graphsweep results directory"):
        store.init(plan_in(tmp_path, results=str(tmp_path / "other")), resume=False)


def test_status_sorts_tasks_into_done_failed_pending(tmp_path):
    plan = plan_in(tmp_path)
    store.init(plan, resume=False)
    ok, bad = plan.tasks
    store.write_task(plan.results, ok.hash, pa.table({"x": [1]}), failed=False, error=None)
    state = store.status(plan.results)
    assert [t.hash for t in state["done"]] == [ok.hash] and [t.hash for t in state["pending"]] == [bad.hash]
    store.write_task(plan.results, bad.hash, pa.table({"x": [1]}), failed=True, error="RuntimeError: boom")
    state = store.status(plan.results)
    assert state["failed"][bad.hash][1] == "RuntimeError: boom" and not state["pending"]
    assert not state["stopped"]
    store.stop(plan.results, "test")
    assert store.status(plan.results)["stopped"]
    store.init(plan, resume=True)  # resuming lifts the stop
    assert not store.stopped(plan.results)


def test_a_corrupt_task_file_is_one_clear_error(tmp_path):
    from graphsweep.pipeline import reduce
    plan = plan_in(tmp_path)
    store.init(plan, resume=False)
    store.task_file(plan.results, "bad").write_bytes(b"PAR1 not really")
    with pytest.raises(GraphsweepError, match=r"bad\.parquet: unreadable task result"):
        store.outcome(store.task_file(plan.results, "bad"))
    with pytest.raises(GraphsweepError, match=r"bad\.parquet: unreadable task result"):
        reduce.load(plan.results)


# --- what a polling loop reads (status: starting, running, interrupted) -------------------------------

def test_a_run_marks_a_new_folder_locked_in_one_step_and_leaves_nothing_if_it_never_claims_it(tmp_path):
    plan = plan_in(tmp_path)
    with store.hold(plan.results, "run"):
        assert [p.name for p in plan.results.iterdir()] == [store.LOCK]   # made with its lock held
        assert "in use by `graphsweep run`" in store.lock_holder(plan.results)
        assert [p.name for p in tmp_path.iterdir()] == ["r"]             # no staging folder left beside it
    assert list(tmp_path.iterdir()) == []                                # never claimed: gone again
    with store.hold(plan.results, "run"):
        store.init(plan, resume=False)
    assert store.lock_holder(plan.results) is None and (plan.results / store.PLAN).is_file()


def test_status_tells_a_starting_a_running_and_an_interrupted_run_apart(tmp_path, gs):
    import json
    plan = plan_in(tmp_path)
    with store.hold(plan.results, "run"):   # as a run holds it while its cluster starts, before plan.json
        rc, out, err = gs("status", plan.results)
        assert rc == 3 and "starting" in out and "in use by `graphsweep run`" in out, out + err
        rc, out, err = gs("status", plan.results, "--json")
        assert rc == 3 and json.loads(out)["state"] == "starting"
        store.init(plan, resume=False)
        rc, out, err = gs("status", plan.results)
        assert rc == 3 and "0 done, 0 failed, 2 pending" in out        # the run holds it: at work
    store.write_task(plan.results, plan.tasks[0].hash, pa.table({"x": [1]}), failed=False, error=None)
    rc, out, err = gs("status", plan.results)          # the run is gone and a task is still pending
    assert rc == 5 and "interrupted" in out and "--resume" in out, out + err
    rc, out, err = gs("status", plan.results, "--json")
    assert rc == 5 and json.loads(out)["state"] == "interrupted" and json.loads(out)["exit_code"] == 5
    store.write_task(plan.results, plan.tasks[1].hash, pa.table({"x": [1]}), failed=False, error=None)
    assert gs("status", plan.results)[0] == 0
    rc, out, err = gs("status", tmp_path / "nothing")
    assert rc == 2 and "not a graphsweep results directory" in err
