"""What a new user met on a fresh install (issue 19), each with the test that would have caught it:
one capacity check at every entry point, what the importer inferred, exit codes in --help,
datasets patterns that name nothing, `run --default` typed twice, dry runs that check what a run
checks, the kernel table, published results' status, output paths on /proc, the sweep format's
reference."""

import re
from pathlib import Path

import pytest
import yaml

from graphsweep.core import capacity
from graphsweep.pipeline import cli_sweep, eta, history, store, sweep

from .test_user_defects import one_error_line, read_only

ROOT = Path(__file__).parents[2]


# --- one capacity check everywhere -----------------------------------------------------------------

def test_a_huge_imported_graph_is_refused_alike_by_kernel_and_sweep(tmp_path, gs, write_spec, monkeypatch):
    edges = tmp_path / "e.txt"
    edges.write_text("# a vertex id near 2^32\n0 1\n1 4294967295\n")
    rc, out, err = gs("datasets", "import", "edgelist", edges, "--out", tmp_path / "g")
    assert rc == 0, err
    assert "n = 4,294,967,296: inferred as the largest vertex id + 1" in out and "--relabel" in out
    rc, out, err = gs("datasets", "import", "edgelist", edges, "--out", tmp_path / "r", "--relabel")
    assert rc == 0 and "n = 3: the distinct vertex ids, numbered densely from 0" in out
    monkeypatch.setattr(capacity, "available_memory", lambda: 8 << 30)
    rc, out, err = gs("kernel", "cc.best", tmp_path / "g", "--backend", "cpu")
    kernel_need = re.search(r"need (\S+ \S+) of memory for a CPU kernel task, have 8.00 GiB", one_error_line(err))
    assert rc == 2 and kernel_need, err
    spec = write_spec(tmp_path, "huge", datasets=[{"path": str(tmp_path / "g")}], kernels=["cc.best"], backend="cpu")
    rc, out, err = gs("run", spec, "--dry-run")
    sweep_need = re.search(r"need (\S+ \S+) of memory for a CPU kernel task on this host, have 8.00 GiB",
                           one_error_line(err))
    assert rc == 2 and sweep_need and sweep_need.group(1) == kernel_need.group(1)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_file_on_proc_is_refused_before_the_run(tmp_path, gs, make_list):
    rc, out, err = gs("generate", "list", "--n", "1000", "--out", tmp_path / "l", "--no-progress")
    assert rc == 0, err
    rc, out, err = gs("kernel", "listrank.sequential", tmp_path / "l", "--save-output", "/proc/rank.parquet")
    assert rc == 2 and "--save-output /proc/rank.parquet: cannot create files in /proc" in one_error_line(err)
    assert out == ""  # refused before the kernel ran


# --- exit codes are in --help -------------------------------------------------------------------------

@pytest.mark.parametrize("command, codes", [
    ("run", {0, 1, 2, 130}), ("submit", {0, 2, 130}), ("status", {0, 1, 2, 3, 4, 5}), ("kernel", {0, 1, 2, 130}),
    ("compare", {0, 1, 2}), ("history", {0, 2}), ("results", {0, 2}), ("reduce", {0, 2}), ("report", {0, 2})])
def test_every_exit_code_is_in_help(gs, command, codes):
    rc, out, err = gs(command, "--help")
    assert rc == 0 and "Exit codes" in out
    text = out[out.index("Exit codes"):]
    assert all(re.search(rf"(?<![\d.]){code}\s", text) for code in codes), text
    rc, top, err = gs("--help")
    assert all(re.search(rf"^ +{code} +\S", top, re.M) for code in (0, 2, 130)), top


# --- datasets patterns that name nothing --------------------------------------------------------------

def test_a_datasets_pattern_that_names_nothing_warns_and_fails_a_dry_run(tmp_path, gs, write_spec):
    spec = write_spec(tmp_path, "typo", kernels=["listrank.wyllie", {"name": "listrank.sequential",
                                                                      "datasets": ["lsit_*", "list_n=1024_*"]}])
    plan = sweep.load(spec)
    assert plan.warnings == [f"{spec}: kernels[1].datasets: 'lsit_*' names no dataset of this sweep "
                             "(listrank.sequential gets no tasks from it)"]
    rc, out, err = gs("run", spec, "--dry-run")
    assert rc == 2 and f"graphsweep: warning: {plan.warnings[0]}" in err
    assert err.strip().splitlines()[-1] == "graphsweep: error: 1 datasets patterns name no dataset (see the warnings above)"
    assert not (tmp_path / "results-typo").exists()


def test_the_shipped_sweeps_have_no_pattern_that_names_nothing():
    for path in [*sorted((ROOT / "sweeps").glob("*.yaml")), cli_sweep.DEFAULT_SPEC]:
        assert sweep.load(path).warnings == [], path


# --- run --default, again and again -----------------------------------------------------------------

def test_run_default_works_every_time_and_keeps_earlier_results(tmp_path, gs, write_spec, cluster_file, monkeypatch):
    monkeypatch.setattr(cli_sweep, "DEFAULT_SPEC", write_spec(tmp_path, "default", datasets=[
        {"generator": "list", "params": {"n": 1024}}], kernels=["listrank.sequential", "listrank.wyllie"]))
    results = tmp_path / "gr" / "default"
    args = ("run", "--default", "--results", results, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    rc, out, err = gs(*args)
    assert rc == 0 and re.search(r"default: 0/2 tasks, ~\S+ (s|min|h) left \(", err), err  # the ETA
    first = store.last_run_id(results)
    rc, out, err = gs(*args)
    assert rc == 0, err
    kept = results.with_name(f"default-{first}")
    assert f"earlier results set aside: {kept}" in out and len(store.finished(kept)) == 2
    assert [r.path.name for r in history.runs(tmp_path / "gr")] == [kept.name, "default"]
    # An unfinished run (a task lost, or Ctrl-C) is finished, not set aside.
    plan = store.read_plan(results)
    store.task_file(results, plan.tasks[0].hash).unlink()
    rc, out, err = gs(*args)
    assert rc == 0 and f"finishing the unfinished run in {results} (1 tasks to go)" in out
    assert "resuming: 1 of 2 tasks already finished" in out and len(list((tmp_path / "gr").iterdir())) == 2
    rc, out, err = gs(*args[:4], "--dry-run")
    assert rc == 0 and f"earlier results in {results} would be set aside as default-RUN_ID" in out


# --- dry runs check what a run checks ------------------------------------------------------------------

def test_resume_dry_run_estimates_only_what_is_left(tmp_path, gs, write_spec, cluster_file):
    spec = write_spec(tmp_path, "again", kernels=["listrank.sequential", "listrank.wyllie"])
    assert gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)[0] == 0
    plan = sweep.load(spec)
    store.task_file(plan.results, plan.tasks[0].hash).unlink()
    rc, out, err = gs("run", spec, "--resume", "--dry-run")
    assert rc == 0, err
    assert out.startswith("sweep again: 1 tasks over 2 datasets") and "resuming: 3 of 4 tasks already finished" in out
    assert ", 1 tasks, ~" in out  # the estimate line counts the one left
    # Without --resume the folder is refused, as the run would refuse it.
    rc, out, err = gs("run", spec, "--dry-run")
    assert rc == 2 and "already holds sweep results; pass --resume" in one_error_line(err)


def test_a_dry_run_refuses_a_read_only_or_busy_results_folder(tmp_path, gs, write_spec, monkeypatch):
    spec = write_spec(tmp_path, "ro", kernels=["listrank.sequential"])
    plan = sweep.load(spec)
    plan.results.mkdir()  # a lock on a folder of its own making goes with the folder, unclaimed
    with store.hold(plan.results, "run"):
        rc, out, err = gs("run", spec, "--dry-run", "--resume")
        assert rc == 2 and "in use by `graphsweep run`" in one_error_line(err)
    read_only(monkeypatch, plan.results)
    rc, out, err = gs("run", spec, "--dry-run")
    assert rc == 2 and f"results directory {plan.results}: {plan.results} is not writable" in one_error_line(err)


# --- published results ------------------------------------------------------------------------------------

def test_status_of_published_results_counts_them_done(gs):
    for folder in sorted((ROOT / "docs" / "results").iterdir()):
        if (folder / store.PLAN).is_file():
            rc, out, err = gs("status", folder)
            tasks = len(store.read_plan(folder).tasks)
            assert rc == 0 and f": {tasks} tasks: {tasks} done, 0 failed, 0 pending" in out, folder


# --- the sweep format's reference ----------------------------------------------------------------------

def test_the_sweep_reference_names_every_key_and_its_example_expands(tmp_path):
    text = (ROOT / "docs" / "sweep-format.md").read_text()
    for key in (*sweep.TOP_KEYS, *sweep.DATASET_KEYS, *sweep.KERNEL_KEYS, *sweep.GRID_FORMS):
        assert f"`{key}`" in text, key
    example = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    spec = yaml.safe_load(example)
    plan = sweep.expand({**spec, "results": str(tmp_path / "r"), "data": str(tmp_path / "d")}, source="example")
    assert plan.tasks and plan.warnings == []
    assert f"expands to {len(plan.tasks)} tasks" in text



# --- the ETA ------------------------------------------------------------------------------------------

def test_the_eta_starts_from_the_estimate_and_learns_from_finished_tasks():
    now = [0.0]
    clock = eta.Eta({"a": 10.0, "b": 10.0, "c": 20.0}, workers=2, clock=lambda: now[0])
    assert clock.left() == 20.0  # 40 s of estimates shared by two workers
    now[0] = 5.0
    clock.done("a")  # estimated 10 s, done after 5: the rest will take half their estimate
    assert clock.left() == pytest.approx(15.0)
    now[0] = 20.0
    clock.done("b")  # 20 s of estimates took 20 s
    assert clock.left() == pytest.approx(20.0)
    clock.done("c")
    assert clock.left() == 0.0
