"""End to end on a CPU LocalCluster: run, failures as rows, a killed worker, interrupt and resume,
submit and status, stop on failure, reduce, and the report rendered in headless Chromium."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import dask
import numpy as np
import pandas as pd
import pytest
from distributed import Client

from graphsweep.core.errors import GraphsweepError
from graphsweep.kernels.dist import driver
from graphsweep.pipeline import cluster, reduce, runner, store, sweep

FIGURES = ("fig-time-vs-n", "fig-time-per-n", "fig-phases", "fig-gbps", "fig-speedup-blocks", "fig-iterations")


def assert_each_task_once(plan, rows: pd.DataFrame, phases: dict):
    """Every task of ``plan`` stored exactly once: its file, and each (rep, phase) in one row."""
    assert set(store.finished(plan.results)) == {t.hash for t in plan.tasks}
    for task in plan.tasks:
        mine = rows[rows["task"] == task.hash]
        expect = phases[task.kernel]
        assert sorted(map(tuple, mine[["rep", "phase"]].to_numpy().tolist())) == \
            sorted((r, p) for r in range(plan.reps) for p in expect), task.label
        assert mine["run_id"].nunique() == 1


@pytest.fixture(scope="module")
def mixed(cluster_file, tmp_path_factory, gs, write_spec):
    """A finished sweep with good tasks, a kernel that raises and one that fails verification."""
    folder = tmp_path_factory.mktemp("mixed")
    spec = write_spec(folder, "mixed", reps=3, kernels=[
        {"name": "listrank.sequential"},
        {"name": "test.flaky", "params": {"blocks": [1, 4]}},
        {"name": "test.flaky", "params": {"mode": ["raise", "wrong"]}}])
    rc, out, err = gs("run", spec, "--cluster", "test", "--cluster-file", cluster_file)
    return sweep.load(spec), rc, out, err


def test_failures_become_rows_and_the_sweep_goes_on(mixed):
    plan, rc, out, err = mixed
    assert rc == 1, err  # not every task succeeded
    assert "10 tasks: 6 done, 4 failed, 0 pending" in out
    rows = reduce.load(plan.results)
    by_mode = {}
    for task in plan.tasks:
        by_mode.setdefault((task.kernel, task.params.get("mode")), []).append(rows[rows["task"] == task.hash])
    for raised in by_mode[("test.flaky", "raise")]:
        assert len(raised) == 1 and pd.isna(raised["phase"].iloc[0])
        assert raised["error"].iloc[0].startswith("RuntimeError: boom")
    for wrong in by_mode[("test.flaky", "wrong")]:
        assert len(wrong) == 3 * 3 and not wrong["verified"].any()
        assert wrong["error"].str.contains("rank\\[tail=").all()
    for good in by_mode[("test.flaky", "ok")] + by_mode[("listrank.sequential", None)]:
        assert good["verified"].all() and good["error"].isna().all()
        assert sorted(set(good["rep"])) == [0, 1, 2]
    ok = pd.concat(by_mode[("test.flaky", "ok")])
    assert set(ok["phase"]) == {"setup", "walk", "total"}
    assert (ok["stat_iterations"] == ok["param_blocks"]).all()
    walk = ok[ok["phase"] == "walk"]
    np.testing.assert_allclose(walk["gbps"], (walk["bytes_read"] + walk["bytes_written"]) / walk["ms"] / 1e6)
    assert (walk["n"] == walk["data_n"]).all() and set(walk["n"]) == {1024, 2048}
    assert (rows["device"].dropna() != "").all() and set(rows["backend"]) == {"cpu"}
    logs = list((plan.results / store.LOGS).glob("*.log"))
    assert len(logs) == 1 and "failed: test.flaky(mode=raise" in logs[0].read_text()
    # the workers' tracebacks too, once each and before the run's line (its workers are other processes)
    text = logs[0].read_text()
    assert text.count("WARNING graphsweep.worker: task test.flaky(mode=raise") == text.count("Traceback") == 2
    assert text.index("graphsweep.worker: task test.flaky(mode=raise") < text.index("graphsweep.run: failed:")


def test_status_names_the_failed_tasks(mixed, gs):
    plan = mixed[0]
    rc, out, err = gs("status", plan.results)
    assert rc == 1
    assert "10 tasks: 6 done, 4 failed, 0 pending" in out
    assert out.count("  failed  ") == 4 and "RuntimeError: boom" in out


def test_reduce_summarises_each_task_and_phase_from_the_rows(mixed, gs):
    plan = mixed[0]
    rc, out, err = gs("reduce", plan.results)
    assert rc == 0, err
    rows = pd.read_parquet(plan.results / reduce.RESULTS)
    summary = pd.read_csv(plan.results / reduce.SUMMARY)
    assert len(rows) == len(reduce.load(plan.results))
    timed = rows[rows["phase"].notna()]
    assert len(summary) == timed.groupby(["task", "phase"]).ngroups
    for (task, phase), group in timed.groupby(["task", "phase"]):
        got = summary[(summary["task"] == task) & (summary["phase"] == phase)].iloc[0]
        ms = group["ms"].to_numpy()
        assert got["reps"] == 3
        np.testing.assert_allclose([got["mean_ms"], got["std_ms"], got["median_ms"], got["min_ms"]],
                                   [ms.mean(), ms.std(ddof=1), np.median(ms), ms.min()])


CHECKER = """<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || 'resource failed: ' + e.target.tagName)), true);
const consoleError = console.error;
console.error = (...a) => { window.__errors.push(a.join(' ')); consoleError(...a); };
window.addEventListener('load', () => {
  const figures = [...document.querySelectorAll('figure.plot')].map(f => {
    const img = f.querySelector('img');
    return [f.id, !!img && img.complete && img.naturalWidth > 100 && img.naturalHeight > 100]; });
  document.title = 'CHECK:' + JSON.stringify({figures, errors: window.__errors});
});
</script>"""


def test_report_renders_in_headless_chromium_with_every_plot(mixed, gs, tmp_path):
    plan = mixed[0]
    rc, out, err = gs("report", plan.results)
    assert rc == 0, err
    page = (plan.results / "report.html").read_text()
    for ident in FIGURES:
        assert f"id='{ident}'" in page, ident
    assert "src='http" not in page and "href='http" not in page  # self-contained
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        pytest.skip("headless Chromium not installed")
    probe = tmp_path / "report.html"
    probe.write_text(page.replace("<style>", CHECKER + "<style>", 1))
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    title = done.stdout.split("<title>CHECK:", 1)[1].split("</title>", 1)[0]
    check = json.loads(title.replace("&quot;", '"').replace("&amp;", "&"))
    assert check["errors"] == []
    figures = dict(check["figures"])                       # every figure on the page, drawn
    assert set(FIGURES) <= set(figures) and all(figures.values()), figures
    assert len(figures) == page.count("<figure class='plot'")
    assert "CONSOLE" not in done.stderr  # the report itself logs nothing


def test_a_published_sweep_re_renders_from_its_reduced_results_alone(mixed, gs, tmp_path):
    """docs/results/<sweep>/ holds plan.json, results.parquet and summary.csv, not the task files:
    `graphsweep report` renders the same figures and counts from results.parquet."""
    plan = mixed[0]
    rc, out, err = gs("report", plan.results)
    assert rc == 0, err
    published = tmp_path / "published"
    published.mkdir()
    for name in ("plan.json", "results.parquet", "summary.csv"):
        shutil.copy(plan.results / name, published / name)
    rc, out, err = gs("report", published)
    assert rc == 0, err
    page, original = (published / "report.html").read_text(), (plan.results / "report.html").read_text()
    assert "10 tasks: 6 done, <span class='failed'>4 failed</span>, 0 pending" in page
    ids = lambda text: [line.split("id='")[1].split("'")[0] for line in text.split("<figure")[1:]]  # noqa: E731
    assert ids(page) == ids(original) and set(FIGURES) <= set(ids(page))
    assert page.count("<tr>") == original.count("<tr>")   # the same tables, failed tasks included
    # the figures as files (docs/results/<sweep>/figures), from the same rows
    rc, out, err = gs("report", published, "--figures", tmp_path / "figures")
    assert rc == 0, err
    written = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert written and all(name.endswith((".png", ".md")) for name in written)
    assert sorted(Path(line).name for line in out.splitlines()[1:]) == written
    rc, out, err = gs("report", published, "--figures", published / "report.html")
    assert rc == 2 and "--figures" in err and "is a file" in err


def test_a_second_run_refuses_and_resume_redoes_nothing(mixed, gs, cluster_file):
    plan = mixed[0]
    spec = plan.results.parent / "mixed.yaml"
    rc, out, err = gs("run", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 2 and "already holds sweep results; pass --resume" in err and "Traceback" not in err
    before = {p: p.stat().st_mtime_ns for p in store.finished(plan.results).values()}
    rc, out, err = gs("run", spec, "--resume", "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    assert "resuming: 10 of 10 tasks already finished" in out
    assert {p: p.stat().st_mtime_ns for p in store.finished(plan.results).values()} == before
    assert rc == 1  # the failed tasks stay failed


def test_a_run_records_the_datasets_it_generated_and_nothing_it_found_made(tmp_path, gs, write_spec, cluster_file):
    """Each dataset a run generated is one generation row (rows, parts and bytes from what was
    written); a second sweep on the same data generates and records nothing."""
    records = []
    for name in ("first", "second"):
        spec = write_spec(tmp_path, name, kernels=["listrank.sequential"], data=str(tmp_path / "own-data"))
        rc, out, err = gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
        assert rc == 0, out + err
        plan = sweep.load(spec)
        records.append(store.generation(plan.results))
    first, second = records
    assert sorted(r["dataset"] for r in first) == sorted(d.id for d in plan.datasets) and second == []
    assert len(list((tmp_path / "results-first" / store.GENERATION).glob("*.parquet"))) == 1
    for r in first:
        manifest = json.loads((tmp_path / "own-data" / r["dataset"] / "manifest.json").read_text())
        assert r["rows"] == manifest["n"] and r["parts"] == len(manifest["parts"]) and r["bytes"] > 0
        assert r["seconds"] > 0 and r["workers"] >= 1 and r["backend"] == "cpu"
    assert store.write_generation(plan.results, "nothing", []) is None


def test_all_good_sweep_exits_zero(tmp_path, gs, write_spec, cluster_file):
    spec = write_spec(tmp_path, "good", kernels=["listrank.sequential", {"name": "test.flaky"}])
    rc, out, err = gs("run", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0, out + err
    assert "4 tasks: 4 done, 0 failed, 0 pending" in out and "report: " in out
    rc, out, err = gs("status", tmp_path / "results-good")
    assert rc == 0 and "4 done" in out


def test_a_killed_worker_loses_nothing_and_duplicates_nothing(tmp_path, write_spec, cluster, wait_for):
    spec = write_spec(tmp_path, "kill", reps=2, datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"sleep_ms": 150, "blocks": list(range(1, 9))}}])
    plan = sweep.load(spec)
    store.init(plan, resume=False)
    with Client(cluster) as client:
        client.wait_for_workers(2)
        counts = {}
        thread = threading.Thread(target=lambda: counts.update(
            runner.execute(plan, client, run_id="kill", progress=False, echo=lambda *_: None)))
        thread.start()
        wait_for(lambda: len(store.finished(plan.results)) >= 1, what="a first result")
        busy = next(w for w, keys in client.processing().items() if keys)
        victim = client.run(os.getpid, workers=[busy])[busy]
        os.kill(victim, signal.SIGKILL)
        thread.join(timeout=90)
        assert not thread.is_alive()
        client.wait_for_workers(2)  # the nanny restarts it for the next tests
    assert counts["ok"] == 8 and counts["failed"] == 0
    assert_each_task_once(plan, reduce.load(plan.results), {"test.flaky": ("setup", "walk", "total")})


def test_interrupted_run_resumes_without_redoing_finished_tasks(tmp_path, write_spec, gs, gs_process, cluster_file,
                                                                 wait_for):
    spec = write_spec(tmp_path, "intr", reps=2, datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"sleep_ms": 150, "blocks": list(range(1, 13))}}])
    plan = sweep.load(spec)
    proc = gs_process("run", spec, "--cluster", "test", "--cluster-file", cluster_file, "--no-progress")
    try:
        wait_for(lambda: len(store.finished(plan.results)) >= 2 or proc.poll() is not None, what="two results")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-2000:]
    first = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in store.finished(plan.results).values()}
    assert 2 <= len(first) < len(plan.tasks)
    rc, out, err = gs("status", plan.results)   # nothing runs on the folder now: a polling loop is told so
    assert rc == 5 and "interrupted" in out
    rc, out, err = gs("run", spec, "--resume", "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0, out + err
    assert "resuming: " in out
    files = store.finished(plan.results)
    assert {name: (files[name[:-8]].stat().st_ino, files[name[:-8]].stat().st_mtime_ns) for name in first} == first
    rows = reduce.load(plan.results)
    assert_each_task_once(plan, rows, {"test.flaky": ("setup", "walk", "total")})
    assert rows["run_id"].nunique() == 2


def test_submit_returns_and_the_cluster_finishes_the_sweep(tmp_path, write_spec, gs, cluster_file, wait_for):
    spec = write_spec(tmp_path, "sub", kernels=[{"name": "test.flaky", "params": {"sleep_ms": 20, "blocks": [1, 2]}}])
    rc, out, err = gs("submit", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0, err
    assert "submitted 4 tasks" in out and "dashboard: " in out
    results = tmp_path / "results-sub"
    wait_for(lambda: gs("status", results)[0] != 3, what="the submitted sweep")
    rc, out, err = gs("status", results)
    assert rc == 0 and "4 tasks: 4 done, 0 failed, 0 pending" in out
    rc, out, err = gs("submit", spec, "--cluster", "local-cpu", "--cluster-file", cluster_file, "--results", tmp_path / "x")
    assert rc == 2 and "submit needs a cluster that outlives this command" in err


def test_on_failure_stop_stops_the_sweep(tmp_path, write_spec, gs, cluster_file):
    spec = write_spec(tmp_path, "stop", on_failure="stop", datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"mode": "raise"}},
                               {"name": "test.flaky", "params": {"sleep_ms": 100, "blocks": list(range(1, 7))}}])
    rc, out, err = gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 1
    state = store.status(tmp_path / "results-stop")
    assert state["stopped"] and len(state["failed"]) == 1 and len(state["done"]) <= 2 and state["pending"]
    assert "(stopped after a failure)" in out


def test_a_sweep_over_a_graph_generated_in_memory_runs_and_writes_no_dataset(tmp_path, gs, write_spec, cluster_file):
    spec = write_spec(tmp_path, "mem", datasets=[{"generator": "rmat", "params": {"scale": 9}, "store": "memory"}],
                      kernels=["cc.best", "bfs.best", "cc.adaptive"], roots=2, data=str(tmp_path / "data"))
    rc, out, err = gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0, out + err
    rows = reduce.load(tmp_path / "results-mem")
    kernel_rows = rows[rows["stage"] == "kernel"]
    # cc.adaptive works on the edge list as loaded: a CPU run generates it whole in host memory
    assert set(kernel_rows["kernel"]) == {"cc.select", "bfs.direction-optimizing", "cc.adaptive"}
    assert kernel_rows["verified"].all()
    assert set(kernel_rows["placement"]) == {"host"}      # the CPU backend's graphs are in host memory
    assert not (tmp_path / "data").exists()


def test_a_sweep_runs_partitioned_kernels_on_its_own_cluster(tmp_path, gs, write_spec, cluster_file, monkeypatch):
    """Partitioned tasks beside ordinary ones on one cluster of two workers: each partitioned task
    holds both workers while it runs (dist.reserving), the ordinary ones run between them; the CPU
    twins are compiled by the sweep's client before any task is sent (workers compiling them in
    step could corrupt Numba's cache)."""
    compiled = []
    real = driver.compile_cpu_twins
    monkeypatch.setattr(driver, "compile_cpu_twins", lambda: compiled.append(True) or real())
    spec = write_spec(tmp_path, "part", datasets=[{"generator": "rmat", "params": {"scale": 9}},
                                                  {"generator": "rmat", "params": {"scale": 8}, "store": "memory"}],
                      kernels=[{"name": "cc.distributed", "params": {"partitions": [1, 2]}},
                               {"name": "bfs.distributed", "params": {"partitions": 2}},
                               {"name": "pagerank.distributed", "params": {"partitions": 2}}, "cc.best"],
                      roots=2, reps=1)
    rc, out, err = gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0, out + err
    assert compiled
    rows = reduce.load(tmp_path / "results-part")
    kernel_rows = rows[rows["stage"] == "kernel"]
    assert set(kernel_rows["kernel"]) == {"cc.distributed", "bfs.distributed", "pagerank.distributed", "cc.select"}
    assert kernel_rows["verified"].all()
    totals = kernel_rows[(kernel_rows["phase"] == "total") & (kernel_rows["kernel"] != "cc.select")]
    assert sorted(set(totals["stat_partitions"])) == [1, 2]
    two = totals[totals["stat_partitions"] == 2]
    assert (two["stat_rounds"] > 0).all() and (two["stat_bytes_exchanged"] > 0).all()
    from graphsweep.pipeline import figures
    [table] = [t for ident, _, t in figures.tables(reduce.summarize(rows)) if ident == "table-partitioned"]
    assert set(table["K"]) == {1, 2} and set(table["kernel"]) == {"cc.distributed", "bfs.distributed",
                                                                 "pagerank.distributed"}
    assert two["stat_comm_ms"].notna().all() and two["stat_local_ms"].notna().all()


# --- exit codes a scheduler can trust (issue 34) ------------------------------------------------------

@pytest.fixture
def close_times_out(monkeypatch):
    """Leaving a Client's ``with`` closes it, then raises TimeoutError (a cluster slow to go, after the
    results are stored)."""
    import distributed
    really_exit = distributed.Client.__exit__

    def exit_then_time_out(self, *exc):
        really_exit(self, *exc)
        raise TimeoutError("closing took too long")
    monkeypatch.setattr(distributed.Client, "__exit__", exit_then_time_out)


@pytest.mark.parametrize("kernels, code", [(["listrank.sequential"], 0),
                                           ([{"name": "test.flaky", "params": {"mode": "raise"}}], 1)])
def test_a_close_that_times_out_after_the_results_are_stored_is_a_warning(tmp_path, write_spec, gs, cluster_file,
                                                                          close_times_out, kernels, code):
    spec = write_spec(tmp_path, "close", kernels=kernels)
    rc, out, err = gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == code, err
    assert f"2 tasks: {2 - 2 * code} done, {2 * code} failed, 0 pending" in out
    warning = [line for line in err.splitlines() if line.startswith("graphsweep: warning: closing the client of")]
    assert len(warning) == 1 and "TimeoutError: closing took too long" in warning[0]
    assert "error" not in err and "Traceback" not in err


def test_a_submit_and_a_generation_whose_close_times_out_still_exit_0(tmp_path, write_spec, gs, cluster_file,
                                                                      close_times_out, wait_for):
    spec = write_spec(tmp_path, "sent", kernels=[{"name": "test.flaky", "params": {"sleep_ms": 300}}])
    rc, out, err = gs("submit", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0 and "submitted 2 tasks" in out and "warning: closing the client of" in err, err
    codes = []
    wait_for(lambda: codes.append(gs("status", tmp_path / "results-sent")[0]) or codes[-1] == 0,
             what="the submitted tasks")
    assert codes[0] == 3 and 4 not in codes   # a scheduler that answered, then closed slowly, lost nothing
    rc, out, err = gs("generate", "list", "--n", "4096", "--workers", "1", "--no-progress", "--out", tmp_path / "l")
    assert rc == 0 and "4,096 elements in" in out and "warning: closing the generation's client" in err, err
    assert "Traceback" not in err


def test_a_run_whose_cluster_fails_under_it_exits_1_with_what_is_stored(tmp_path, write_spec, gs, cluster_file,
                                                                       monkeypatch):
    def lose_the_scheduler(plan, client, **kwargs):
        raise OSError("Timed out during handshake while connecting to the scheduler")
    monkeypatch.setattr(runner, "execute", lose_the_scheduler)
    spec = write_spec(tmp_path, "early", kernels=["listrank.sequential"])
    rc, out, err = gs("run", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 1 and "2 tasks: 0 done, 0 failed, 2 pending" in out, out + err
    assert "graphsweep: error: the run ended early (OSError: Timed out during handshake" in err
    assert gs("status", tmp_path / "results-early")[0] == 5   # nothing runs on it: interrupted


def test_a_report_that_fails_after_the_results_are_stored_is_a_warning(tmp_path, write_spec, gs, cluster_file,
                                                                      monkeypatch):
    from graphsweep.pipeline import report

    def broken(results):
        raise ValueError("no figure today")
    monkeypatch.setattr(report, "report", broken)
    spec = write_spec(tmp_path, "noreport", kernels=["listrank.sequential"])
    rc, out, err = gs("run", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0 and "2 tasks: 2 done" in out, out + err
    assert "graphsweep: warning: no report (ValueError: no figure today)" in err


def test_status_sees_a_run_from_before_its_cluster_answers(tmp_path, write_spec, gs, monkeypatch):
    """The folder is marked (locked) before the cluster starts; a cluster that never answers leaves nothing."""
    seen = []

    @contextlib.contextmanager
    def unreachable(*args, **kwargs):
        seen.append(gs("status", tmp_path / "results-early"))
        raise GraphsweepError("profile x: cannot reach the scheduler")
        yield
    monkeypatch.setattr(cluster, "connect", unreachable)
    spec = write_spec(tmp_path, "early", kernels=["listrank.sequential"])
    rc, out, err = gs("run", spec, "--cluster", "local-cpu")
    assert rc == 2 and "cannot reach the scheduler" in err
    [(code, text, _)] = seen
    assert code == 3 and "starting" in text and "in use by `graphsweep run`" in text
    assert not (tmp_path / "results-early").exists()


# --- a dry run refuses what the run refuses (issue 34) ------------------------------------------------

@pytest.mark.parametrize("top, kernels, message", [
    ({"backend": "gpu"}, ["cc.best"], "graphsweep: error: backend: gpu, but the cluster's workers have no "
                                              "usable CUDA device"),
    ({}, [{"name": "cc.best", "placement": "device"}],
     "graphsweep: error: kernels[0].placement: 'device' needs a GPU, but the cluster's workers have no usable CUDA "
     "device (backend auto runs the CPU twins, whose graphs are in host memory)"),
    ({}, [{"name": "cc.distributed", "params": {"partitions": 3}}],
     "graphsweep: error: cc.distributed(link=auto,loads=l1,flatten=True,skip_share=0.5,thread_max=32,seed=1,"
     "threads=256,partitions=3,scheduler=,comms=auto) on rmat_scale=6_seed=1: "
     "parameter 'partitions': 3 slices, but the cluster of profile local-cpu has 2 workers"),
])
def test_a_dry_run_refuses_in_the_run_s_own_words(tmp_path, write_spec, gs, cluster_file, monkeypatch, top, kernels,
                                                  message):
    from graphsweep.core import gpu
    monkeypatch.setattr(gpu, "available", lambda: False)   # a machine without a GPU
    monkeypatch.setattr(os, "cpu_count", lambda: 4)        # ... of 4 cores, under local-cpu's 2 workers
    spec = write_spec(tmp_path, "refused", datasets=[{"generator": "rmat", "params": {"scale": 6}}],
                      kernels=kernels, **top)
    for argv in (["--dry-run"], ["--no-report"]):
        rc, out, err = gs("run", spec, *argv, "--cluster", "local-cpu", "--cluster-file", cluster_file)
        assert rc == 2 and err.strip().splitlines()[-1] == message, err
    assert not (tmp_path / "results-refused").exists()


def test_partitions_beyond_a_remote_cluster_s_workers_are_refused_before_any_task(tmp_path, write_spec, gs,
                                                                                   cluster_file):
    spec = write_spec(tmp_path, "wide", datasets=[{"generator": "rmat", "params": {"scale": 6}}],
                      kernels=[{"name": "cc.distributed", "params": {"partitions": 3}}])
    rc, out, err = gs("run", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 2 and err.strip().endswith("parameter 'partitions': 3 slices, but the cluster has 2 workers"), err
    assert not (tmp_path / "results-wide").exists()


# --- progress without a terminal; Ctrl-C while generating (issue 34) ---------------------------------

def test_progress_lines_go_on_while_no_task_ends(tmp_path, write_spec, gs, cluster_file):
    spec = write_spec(tmp_path, "slow", reps=1, datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"sleep_ms": 1500}}])
    with dask.config.set({"graphsweep.run.progress-interval": "0.2s"}):
        rc, out, err = gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0, err
    waiting = [line for line in err.splitlines() if line.startswith("slow: 0/1 tasks")]
    assert len(waiting) >= 4, err   # one a 0.2 s while the one task sleeps 1.5 s
    assert "\r" not in err


def test_ctrl_c_while_a_sweep_generates_is_one_line_and_no_dask_traceback(tmp_path, write_spec, gs_process,
                                                                        cluster_file, wait_for):
    spec = write_spec(tmp_path, "gen", datasets=[{"generator": "list", "params": {"n": "64M"}}],
                      kernels=["listrank.sequential"], data=str(tmp_path / "data"))
    proc = gs_process("run", spec, "--cluster", "local-cpu", "--cluster-file", cluster_file, "--no-progress",
                      start_new_session=True)
    try:
        wait_for(lambda: any(p.name.startswith(".") for p in (tmp_path / "data").glob("*")) or proc.poll() is not None,
                 timeout=120, what="a partial dataset")
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)   # Ctrl-C reaches every process of the group
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "AllExit" not in err and "exception was never retrieved" not in err, err
    assert err.strip().splitlines()[-1] == "graphsweep: interrupted"


# --- what a task loads, and what the report calls it (issue 34) ---------------------------------------

def test_a_sweep_task_checks_its_dataset_s_checksums_unless_the_spec_turns_them_off(tmp_path, make_list):
    from graphsweep.datasets.writer import write_arrays
    from graphsweep.pipeline import worker

    def written(name, seed):
        return write_arrays(tmp_path / name, kind="list", n=64, columns={"succ": make_list(64, seed=seed)},
                            generator={"name": "random_list", "params": {"n": 64}, "seed": seed})
    data, other = written("l", 1), written("o", 2)
    part = json.loads((data / "manifest.json").read_text())["parts"][0]["path"]
    (data / part).write_bytes((other / part).read_bytes())   # another valid list: only its sha256 tells
    for checksums, state in ((True, "failed"), (False, "ok")):
        plan = sweep.expand({"name": "sums", "results": str(tmp_path / f"results-{checksums}"), "reps": 1, "warmup": 0,
                             "checksums": checksums, "datasets": [{"path": str(data)}],
                             "kernels": ["listrank.sequential"]})
        store.init(plan, resume=False)
        outcome = worker.run_task(plan.tasks[0], str(plan.results), "sums", "continue", [])
        assert outcome["status"] == state, outcome
    assert f"{data / part}: sha256 is " in store.status(tmp_path / "results-True")[
        "failed"][plan.tasks[0].hash][1]


def test_the_report_names_kernels_as_asked_and_sorts_its_summary(tmp_path):
    import re

    from graphsweep.generators import generate
    from graphsweep.pipeline import report, worker
    plan = sweep.expand({"name": "names", "results": str(tmp_path / "results"), "data": str(tmp_path / "data"),
                         "reps": 2, "warmup": 0, "datasets": [{"generator": "list", "params": {"n": [2048, 1024]}}],
                         "kernels": ["listrank.wyllie", "listrank.best"]})
    store.init(plan, resume=False)
    for ref in plan.datasets:
        generate(ref.generator, ref.path, seed=ref.seed, params=ref.params, progress=False)
    for task in plan.tasks:   # in plan order: n = 2048 first, wyllie before best
        assert worker.run_task(task, str(plan.results), "names", "continue", [])["status"] == "ok"
    page = report.report(plan.results).read_text()
    summary = page.split("<h2 id='summary'>", 1)[1].split("</table>", 1)[0]
    assert "All tasks: backend cpu" in summary          # what every task shares is said once
    header = re.findall(r"<th>(.*?)</th>", summary.split("</thead>")[0])
    assert header == ["phase", "reps", "median ms", "min ms", "sd ms", "GB/s", "% of copy ceiling"]
    # a heading row per task, in this order (the kernel as asked, the one that ran beside it; then n)
    tasks = [name.split(" · ")[:3] for name in re.findall(r"<tr class='task'><th colspan='7'>(.*?)</th>", summary)]
    assert tasks == [["listrank.best (listrank.recursive-splitter)", "list_n=1024_seed=1", "n = 1024"],
                     ["listrank.best (listrank.recursive-splitter)", "list_n=2048_seed=1", "n = 2048"],
                     ["listrank.wyllie", "list_n=1024_seed=1", "n = 1024"],
                     ["listrank.wyllie", "list_n=2048_seed=1", "n = 2048"]]
    phases = re.findall(r"<tr><td>(.*?)</td>", summary.split("<tr class='task'>")[1])   # under it its phases
    assert phases[-1] == "total" and len(phases) >= 2


FIT_CHECK = """<script>window.addEventListener('load', () => {
  const table = document.querySelector('table.summary');
  const broken = [...table.querySelectorAll('td')].filter(td => {
    const range = document.createRange(); range.selectNodeContents(td);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1; }).length;
  document.title = 'FIT:' + JSON.stringify({table: table.scrollWidth, page: table.parentElement.clientWidth,
                                            cells: table.querySelectorAll('td').length, broken});
});</script>"""


def test_the_summary_table_fits_a_printed_page_without_breaking_a_number(tmp_path):
    """Forty tasks of five phases with a sweep's long dataset ids and parameters, laid out by
    headless Chromium 800 pixels wide (an A4 page at 96 dpi): no wider than the page, and every
    number on one line (the table used to fit only by breaking its numbers: '0.00' over '6592')."""
    from graphsweep.pipeline import report
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        pytest.skip("headless Chromium not installed")
    ids = ["rmat_scale=22_edge_factor=16_weights=1:255_seed=1", "uniform_n=4194304_degree=32_weights=1:255_seed=2"]
    phases = [("init", "kernel"), ("forward", "kernel"), ("backward", "kernel"), ("total", "kernel"),
              ("simple", "input")]
    rows = [{"task": f"t{t}", "stage": stage, "phase": phase, "reps": 12, "median_ms": 0.006592 * (p + 1),
             "min_ms": 0.006016, "std_ms": 0.02255, "mean_ms": 0.007, "gbps": 15270.0 / (p + 1),
             "pct_copy_ceiling": 515.8 / (p + 1), "kernel": "bfs.direction-optimizing", "asked": "bfs.best",
             "dataset": ids[t % 2], "generator": ids[t % 2].split("_")[0], "n": 4194304, "backend": "gpu",
             "params": json.dumps({"alpha": 15.0, "beta": 18.0, "direction": "auto", "split": 1024 * t}),
             "placement": "device", "verified": True, "ceiling_table_bytes": 2**28}
            for t in range(40) for p, (phase, stage) in enumerate(phases)]
    table, note = report.summary_table(pd.DataFrame(rows))
    probe = tmp_path / "summary.html"
    probe.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{report.STYLE}</style></head>"
                     f"<body>{table}{note}{FIT_CHECK}</body></html>")
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=800,1000",
                           "--virtual-time-budget=3000", "--dump-dom", probe.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    fit = json.loads(done.stdout.split("<title>FIT:", 1)[1].split("</title>", 1)[0].replace("&quot;", '"'))
    assert fit["cells"] == 200 * 7 and fit["broken"] == 0 and fit["table"] <= fit["page"] <= 800, fit
