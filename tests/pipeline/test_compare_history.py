"""``graphsweep compare | history | results`` on results folders made here with known kernel times:
regressions flagged only beyond the threshold and outside the noise, exit codes, failed tasks,
tasks on one side only; the runs of a folder over time and its history page; folder states."""

import json
import math

import numpy as np
import pyarrow as pa
import pytest

from graphsweep.pipeline import compare, history, store, sweep

KERNELS = ["listrank.sequential", "listrank.wyllie", {"name": "listrank.random-splitter", "params": {"packing": [48, 64]}}]


def nightly(folder, n=(1024, 2048)):
    """The plan of a small sweep into ``folder``: 4 list-ranking kernel variants on lists of sizes ``n``."""
    return sweep.expand({"name": "nightly", "results": str(folder), "data": str(folder.parent / "data"),
                         "datasets": [{"generator": "list", "params": {"n": list(n)}}], "kernels": KERNELS})


def make_results(folder, times: dict, *, run_id: str = "20260101T000000-aaaaaa", failed=(), n=(1024, 2048)):
    """A results folder of that sweep whose tasks' kernel times are ``times[label]`` (ms of each
    rep, kernel phase ``total``); tasks whose label is in ``failed`` store an error row."""
    plan = nightly(folder, n)
    store.init(plan, resume=False)
    (folder / store.LOGS / f"{run_id}.log").write_text("")
    for task in plan.tasks:
        base = {"task": task.hash, "kernel": task.kernel, "dataset": task.dataset.id,
                "params": json.dumps(task.params, sort_keys=True), "stage": "kernel"}
        if task.label in failed:
            rows = [{**base, "phase": None, "rep": None, "ms": None, "verified": False, "error": "RuntimeError: boom"}]
        else:
            rows = [{**base, "phase": phase, "rep": rep, "ms": ms * share, "verified": True, "error": None}
                    for rep, ms in enumerate(times[task.label]) for phase, share in (("total", 1.0), ("walk", 0.9))]
        store.write_task(folder, task.hash, pa.Table.from_pylist(rows), failed=task.label in failed,
                         error="RuntimeError: boom" if task.label in failed else None)
    return plan


def noisy(ms: float, reps: int, spread: float, rng) -> list:
    return list(ms * rng.lognormal(0.0, spread, reps))


def labels(tmp_path):
    return [t.label for t in nightly(tmp_path / "r").tasks]


def test_slower_faster_and_same_are_told_apart_and_set_the_exit_code(tmp_path, gs):
    rng = np.random.default_rng(7)
    names = labels(tmp_path)
    slow, fast = names[0], names[1]
    base_times = {label: noisy(10.0, 5, 0.02, rng) for label in names}
    new_times = {label: noisy(10.0 * (1.5 if label == slow else 0.5 if label == fast else 1.0), 5, 0.02, rng)
                 for label in names}
    plan = make_results(tmp_path / "base", base_times)
    make_results(tmp_path / "new", new_times)
    found, only = compare.compare(tmp_path / "base", tmp_path / "new")
    assert len(found) == len(names) and only == {"base only": [], "new only": []}
    by_label = {t.label: next(c for c in found if (c.kernel, c.dataset, c.params) ==
                              (t.kernel, t.dataset.id, json.dumps(t.params, sort_keys=True))) for t in plan.tasks}
    assert by_label[slow].verdict == "slower" and by_label[fast].verdict == "faster"
    assert sum(c.verdict == "same" for c in found) == len(names) - 2
    for c in found:  # the interval holds the point estimate, which is the ratio of the medians
        assert c.low <= c.ratio <= c.high
        assert c.ratio == pytest.approx(c.new_ms / c.base_ms)
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "new")
    assert rc == 1 and f"{len(names)} tasks compared (threshold 10%): 1 regressed, 1 faster" in out
    # A threshold above the slowdown: nothing regressed.
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "new", "--threshold", "0.6")
    assert rc == 0 and "0 regressed" in out
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "base", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["regressed"] == 0 and all(c["ratio"] == 1.0 for c in doc["compared"])


def test_noise_is_not_a_regression_and_a_real_slowdown_is_found(tmp_path):
    # Same distribution on both sides, 5 reps with 5% noise, 40 comparisons: false alarms are rare;
    # a 30% slowdown under the same noise is found every time.
    rng = np.random.default_rng(11)
    alarms = found = 0
    for trial in range(40):
        base, same, slower = (np.array(noisy(4.0 * f, 5, 0.05, rng)) for f in (1.0, 1.0, 1.3))
        ci = compare.interval(base, same, seed=trial)
        alarms += compare._verdict(float(compare._ratio_of_medians(base, same)), *ci, 0.10) == "slower"
        ci = compare.interval(base, slower, seed=trial)
        found += compare._verdict(float(compare._ratio_of_medians(base, slower)), *ci, 0.10) == "slower"
    assert alarms <= 1 and found >= 38


def test_a_wide_interval_keeps_a_large_ratio_from_being_flagged():
    base = np.array([10.0, 10.2, 9.8, 30.0, 3.0])
    new = np.array([12.0, 13.0, 4.0, 40.0, 9.0])  # median 12 vs 10: 20% slower, but the reps scatter
    low, high = compare.interval(base, new, seed=1)
    assert low < 1 < high and compare._verdict(1.2, low, high, 0.10) == "same"
    assert compare.interval(base[:1], new, seed=1) is None  # one rep: no interval ...
    assert compare._verdict(1.2, None, None, 0.10) == "slower"  # ... the threshold alone decides


def test_failed_tasks_and_tasks_on_one_side(tmp_path, gs):
    names = labels(tmp_path)
    times = {label: [5.0, 5.1, 4.9] for label in names}
    make_results(tmp_path / "base", times, failed={names[2]})
    make_results(tmp_path / "new", {t.label: [5.0, 5.1, 4.9] for t in nightly(tmp_path / "x", (1024, 4096)).tasks},
                 failed={names[0]}, n=(1024, 4096))
    found, only = compare.compare(tmp_path / "base", tmp_path / "new")
    verdicts = sorted(c.verdict for c in found)
    assert "failed in NEW" in verdicts and all(v in ("same", "failed in NEW", "fixed in NEW") for v in verdicts)
    assert len(only["base only"]) == len(only["new only"]) == len(names) // 2  # the 2048 vs 4096 lists
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "new")
    assert rc == 1 and "1 regressed" in out and f"{len(names) // 2} only in BASE" in out
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "new", "--json")
    doc = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    [lost] = [c for c in doc["compared"] if c["verdict"] == "failed in NEW"]
    assert rc == 1 and lost["new_ms"] is None and lost["base_ms"] == pytest.approx(5.0)
    assert len(doc["base_only"]) == len(names) // 2
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "nothing")
    assert rc == 2 and err.startswith("graphsweep: error: ") and "not a graphsweep results directory" in err
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "new", "--threshold", "-1")
    assert rc == 2


def test_history_lists_the_runs_oldest_first_and_plots_each_kernel(tmp_path, gs):
    names = labels(tmp_path)
    root = tmp_path / "nightly"
    for day, factor in ((3, 1.2), (1, 1.0), (2, 1.1)):
        make_results(root / f"nightly-2026-01-0{day}", {label: [10.0 * factor] * 3 for label in names},
                     run_id=f"2026010{day}T023000-00000{day}")
    (root / "data").mkdir()  # not a results folder: left out
    rc, out, err = gs("history", root)
    assert rc == 0, err
    lines = out.splitlines()
    assert [line.split()[2] for line in lines[1:4]] == [f"nightly-2026-01-0{d}" for d in (1, 2, 3)]
    assert [float(line.split()[-1]) for line in lines[1:4]] == pytest.approx([10.0, 11.0, 12.0])
    page = (root / history.HISTORY).read_text()
    assert page.count("<img") == 3 and all(k in page for k in ("listrank.sequential", "listrank.wyllie"))
    rc, out, err = gs("history", tmp_path / "empty-or-not-there")
    assert rc == 2


def test_results_lists_folders_with_their_state(tmp_path, gs):
    names = labels(tmp_path)
    times = {label: [1.0, 1.0] for label in names}
    make_results(tmp_path / "r" / "done", times)
    make_results(tmp_path / "r" / "failed", times, failed={names[0]})
    partial = make_results(tmp_path / "r" / "pending", times)
    store.task_file(partial.results, partial.tasks[0].hash).unlink()
    make_results(tmp_path / "r" / "busy", times)
    with store.hold(tmp_path / "r" / "busy", "run"):
        rc, out, err = gs("results", tmp_path)
    assert rc == 0, err
    states = {line.split()[0].rsplit("/", 1)[-1]: line.split()[2] for line in out.splitlines()[1:]}
    assert states == {"done": "done", "failed": "failed", "pending": "pending", "busy": "running"}


def test_compare_prints_tasks_sorted_by_kernel_dataset_and_params_in_lines_of_100_columns(tmp_path, gs):
    times = {label: [5.0, 5.1, 4.9] for label in labels(tmp_path)}
    make_results(tmp_path / "base", times)
    make_results(tmp_path / "new", times)
    rc, out, err = gs("compare", tmp_path / "base", tmp_path / "new")
    lines = out.splitlines()
    assert rc == 0 and max(map(len, lines)) <= 100, out
    headings = [line for line in lines[1:-1] if not line.startswith(" ")]   # a line per kernel, sorted
    assert [h.split()[0] for h in headings] == ["listrank.random-splitter", "listrank.sequential", "listrank.wyllie"]
    assert "packing" not in headings[0] and "threads=256" in headings[0]   # what its tasks share
    first = lines[lines.index(headings[0]) + 1:lines.index(headings[1])]
    # under the kernel a line per dataset (in natural order), under that a task's own parameters and numbers
    assert [line.split()[0] for line in first] == ["list_n=1024_seed=1", "packing=48", "packing=64",
                                                   "list_n=2048_seed=1", "packing=48", "packing=64"]
    assert [len(line) - len(line.lstrip()) for line in first] == [2, 4, 4, 2, 4, 4]
    assert all(line.split()[-1] == "same" for line in first if line.startswith("    "))
    # a kernel without parameters of its own: the dataset's line carries the numbers, in the same columns
    sequential = lines[lines.index(headings[1]) + 1]
    assert sequential.split()[0] == "list_n=1024_seed=1" and sequential.split()[-1] == "same"
    assert len({line.index("same") for line in lines if line.endswith("same")}) == 1


def test_long_names_get_lines_of_their_own_and_regressions_close_largest_first():
    dataset = "rmat_scale=22_edge_factor=16_weights=1:255_seed=1"     # what a sweep's ids look like
    params = json.dumps({"dangling": "spread", "max_iterations": 100, "threads": 256, "tolerance": 0.0001,
                         "lanes": 4, "split_rows_longer_than_this_many_edges": 1024})
    slower = compare.Comparison("pagerank.pull-warp", dataset, params, 2.0, 3.0, 5, 5, 1.5, 1.4, 1.6, "slower")
    much = compare.Comparison("bc.brandes", "tiny", json.dumps({"a": 1}), 2.0, 5.0, 5, 5, 2.5, 2.4, 2.6, "slower")
    failed = compare.Comparison("bc.brandes", "tiny", json.dumps({"a": 2}), 2.0, math.nan, 5, 0, math.nan, None,
                                None, "failed in NEW")
    same = compare.Comparison("bc.brandes", "tiny", json.dumps({"a": 3}), 2.0, 2.0, 5, 5, 1.0, 0.9, 1.1, "same")
    lines = compare.lines([slower, much, failed, same])
    assert max(map(len, lines)) <= 100, "\n".join(lines)
    assert lines[1:6] == ["bc.brandes", "  tiny", lines[3], lines[4], lines[5]]
    assert [line.split()[0] for line in lines[3:6]] == ["a=1", "a=2", "a=3"]
    heading = lines[6:8]           # too long for one line: its second under its '('
    assert heading[0].startswith("pagerank.pull-warp (dangling=spread") and heading[1].startswith(" " * 20 + "split")
    assert lines[8].strip() == dataset                                            # its own line, then the numbers
    assert lines[9].split() == ["2", "3", "1.500", "1.4-1.6", "5/5", "slower"]
    closing = lines[lines.index("regressed, largest change first:") + 1:]
    firsts = [line.split()[:2] for line in closing if not line.startswith("    ")]   # not a long one's further lines
    assert firsts == [["failed", "in"], ["2.500x", "bc.brandes"], ["1.500x", "pagerank.pull-warp"]]


def test_a_best_that_changed_implementation_still_lines_up(tmp_path):
    """Rows keep the name the spec asked for and the parameters it gave: a task of cc.best that
    ran cc.select in one run and another implementation (other defaults) in the next compares."""
    plan = sweep.expand({"name": "best", "results": str(tmp_path / "base"), "data": str(tmp_path / "data"),
                         "datasets": [{"generator": "rmat", "params": {"scale": 6}}], "kernels": ["cc.best"]})
    [task] = plan.tasks
    assert (task.name, task.kernel, task.given) == ("cc.best", "cc.select", {})
    for folder, ran, params, ms in (("base", "cc.select", task.params, 10.0), ("new", "cc.other", {"x": 1}, 5.0)):
        store.init(sweep.expand({**plan.spec, "results": str(tmp_path / folder)}), resume=False)
        rows = [{"task": task.hash, "kernel": ran, "asked": task.name, "given": json.dumps(task.given),
                 "dataset": task.dataset.id, "params": json.dumps(params, sort_keys=True), "stage": "kernel",
                 "phase": "total", "rep": rep, "ms": ms, "verified": True, "error": None} for rep in range(3)]
        store.write_task(tmp_path / folder, task.hash, pa.Table.from_pylist(rows), failed=False, error=None)
    found, only = compare.compare(tmp_path / "base", tmp_path / "new")
    assert only == {"base only": [], "new only": []}
    assert [(c.kernel, c.params, c.verdict) for c in found] == [("cc.best", "{}", "faster")]


def test_a_folder_written_before_asked_and_given_lines_up_with_a_newer_one_by_what_ran(tmp_path):
    """A results folder from before rows kept the kernel asked and the parameters given (its rows
    have neither) compared with a newer one: both line up by the kernel that ran and all its
    parameters (the newer one's given parameters, here none, would match nothing on the older side)."""
    names = labels(tmp_path)
    make_results(tmp_path / "base", {label: [10.0, 10.0, 10.0] for label in names})
    plan = nightly(tmp_path / "new")
    store.init(plan, resume=False)
    for task in plan.tasks:
        rows = [{"task": task.hash, "kernel": task.kernel, "asked": task.name, "given": json.dumps(task.given),
                 "dataset": task.dataset.id, "params": json.dumps(task.params, sort_keys=True), "stage": "kernel",
                 "phase": "total", "rep": rep, "ms": 10.0, "verified": True, "error": None} for rep in range(3)]
        store.write_task(tmp_path / "new", task.hash, pa.Table.from_pylist(rows), failed=False, error=None)
    found, only = compare.compare(tmp_path / "base", tmp_path / "new")
    assert only == {"base only": [], "new only": []}
    assert len(found) == len(names) and {c.verdict for c in found} == {"same"}
    assert '{"blocks": null, "threads": 256}' in {c.params for c in found}     # wyllie: the parameters that ran
