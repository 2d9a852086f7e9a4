"""What a new user hit (issue 10), each defect with the test that would have caught it: the
dashboard, concurrent runs and the results lock, submit's record for status, CPU kernels that
must own the host, impossible sizes, SIGTERM and stale partials, OS errors as one line, connect
before claim, quiet failures and interrupts, progress without a terminal, retry of failed tasks."""

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings

import dask
import numba
import pandas as pd
import pytest
import yaml
from distributed import Client, LocalCluster

from graphsweep.core import capacity
from graphsweep.core.errors import GraphsweepError
from graphsweep.core.workers import live_workers
from graphsweep.generators.progress import Progress
from graphsweep.pipeline import cli, cluster, figures, launched, logs, paths, reduce, report, runner, store, sweep, worker
from graphsweep.pipeline.figures import overview


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("graphsweep: error: "), err
    assert "Traceback" not in err
    return lines[0]


def read_only(monkeypatch, folder):
    """``folder`` refuses writes to this process as a read-only folder would (tests run as root)."""
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: (
        not mode & os.W_OK and real_access(p, mode) if str(p) == str(folder) else real_access(p, mode)))


def profiles_file(folder, **profiles):
    path = folder / "profiles.yaml"
    path.write_text(yaml.safe_dump({"profiles": profiles}))
    return path


# --- 1. the dashboard -------------------------------------------------------------------------

def test_the_dashboard_of_a_cluster_graphsweep_starts_serves_its_status_page(tmp_path):
    path = profiles_file(tmp_path, quick={"kind": "local-cpu", "options": {
        "n_workers": 1, "processes": False, "dashboard_address": ":0"}})
    with cluster.connect("quick", path) as client:
        page = urllib.request.urlopen(client.dashboard_link, timeout=30).read().decode()
    assert "Dask needs bokeh" not in page and "bokeh" in page.lower()


@pytest.mark.gpu
def test_the_dashboard_of_a_gpu_cluster_has_its_gpu_panels(tmp_path, wait_for):
    path = profiles_file(tmp_path, gpus={"kind": "local-gpu", "options": {"dashboard_address": ":0"}})
    with cluster.connect("gpus", path) as client:
        base = client.dashboard_link.rsplit("/", 1)[0]
        # The GPU tab is in the menu only when NVML (pynvml) sees the devices.
        assert 'href="gpu"' in urllib.request.urlopen(f"{base}/status", timeout=30).read().decode()
        page = urllib.request.urlopen(f"{base}/gpu", timeout=30).read().decode()
        assert 'id="gpu-utilization"' in page and 'id="gpu-memory"' in page  # distributed's gpu.html panels
        # The panels plot what pynvml reports in each worker's heartbeat.
        wait_for(lambda: all("gpu_memory_used" in w["metrics"]
                             for w in live_workers(client).values()),
                 timeout=30, what="GPU metrics from every worker")


# --- 2. one run at a time per results directory; what submit launched --------------------------

def test_the_lock_names_its_holder_and_dies_with_it(tmp_path):
    results = tmp_path / "r"
    with store.hold(results, "run"):
        holder = store.lock_holder(results)
        assert holder.startswith(f"in use by `graphsweep run` on {socket.gethostname()} (pid {os.getpid()}) since ")
        with pytest.raises(GraphsweepError, match=r"in use by `graphsweep run` on .* since .*; wait for it"):
            with store.hold(results, "submit"):
                pass
    assert store.lock_holder(results) is None
    # A holder killed outright: the kernel drops its lock, the next run is not blocked.
    code = ("import sys, time; from graphsweep.pipeline import store\n"
            "with store.hold(sys.argv[1], 'run'):\n    print('held', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(results)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert "in use by `graphsweep run`" in store.lock_holder(results)
        proc.kill()
        proc.wait(30)
    finally:
        proc.kill()
    assert store.lock_holder(results) is None
    with store.hold(results, "run"):
        pass


def test_a_second_run_into_a_directory_in_use_is_refused_in_one_line(tmp_path, write_spec, gs, cluster_file):
    spec = write_spec(tmp_path, "busy", kernels=[{"name": "test.flaky"}])
    assert gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)[0] == 0
    results = tmp_path / "results-busy"
    with store.hold(results, "run"):  # as the first of two runs holds it for its whole life
        for command in ("run", "submit"):
            rc, out, err = gs(command, spec, "--resume", "--cluster", "test", "--cluster-file", cluster_file)
            assert rc == 2 and (f"{results}: in use by `graphsweep run` on {socket.gethostname()} "
                                f"(pid {os.getpid()}) since ") in one_error_line(err)
        assert gs("status", results)[1].count("in use by `graphsweep run`") == 1
    assert gs("run", spec, "--resume", "--no-report", "--cluster", "test", "--cluster-file", cluster_file)[0] == 0


def test_status_tells_running_queued_and_lost_tasks_apart(tmp_path, write_spec, gs, cluster_file, wait_for):
    spec = write_spec(tmp_path, "sub", datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"sleep_ms": 250, "blocks": list(range(1, 7))}}])
    results = tmp_path / "results-sub"
    rc, out, err = gs("submit", spec, "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 0, err
    [record] = store.submissions(results)
    assert len(record["keys"]) == 6 and record["scheduler"].startswith("tcp://")
    # Two workers hold HOST=1 each: at most two tasks execute, the rest wait (on a worker or the scheduler).
    def states():
        rc, out, err = gs("status", results, "--json")
        return rc, json.loads(out)
    wait_for(lambda: states()[1]["pending"]["running"], what="a running task")
    rc, state = states()
    assert rc == 3 and 1 <= len(state["pending"]["running"]) <= 2 and not state["pending"]["lost"]
    assert state["pending"]["queued"] and set(state["pending"]) == {"running", "queued", "lost", "not submitted"}
    assert len(state["pending"]["running"]) + len(state["pending"]["queued"]) + state["done"] == 6
    # Resuming while the cluster still runs them would run them twice, under double load.
    rc, out, err = gs("run", spec, "--resume", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 2 and "still running or queued on their cluster" in one_error_line(err)
    wait_for(lambda: gs("status", results)[0] == 0, what="the submitted tasks")
    # A launched task its scheduler no longer knows, without a result, is lost.
    plan = store.read_plan(results)
    victim = plan.tasks[0]
    store.task_file(results, victim.hash).unlink()
    rc, out, err = gs("status", results)
    assert rc == 4 and f"lost    {victim.hash}" in out and "1 lost" in out
    # A scheduler that does not answer (it died) took its tasks with it: lost, exit 4, not pending.
    store.record_submission(results, "gone", "tcp://127.0.0.1:9", {victim.hash: victim.key})
    where, why = launched.classify(results, [victim], timeout=1)
    assert where["lost"] == [victim] and why[victim.hash] == "its scheduler tcp://127.0.0.1:9 does not answer"
    rc, out, err = gs("status", results)
    assert rc == 4 and "its scheduler tcp://127.0.0.1:9 does not answer: run again with --resume" in out


# --- 3. timed CPU kernels own the host ----------------------------------------------------------

def test_the_local_cpu_profile_is_one_worker_owning_every_core():
    with cluster.connect("local-cpu") as client:
        [worker] = live_workers(client).values()
        assert worker["nthreads"] == os.cpu_count() and worker["resources"] == {"HOST": 1}
        assert client.submit(numba.get_num_threads, pure=False).result() == numba.config.NUMBA_NUM_THREADS


def test_cpu_kernel_tasks_never_overlap_and_need_a_host_resource(tmp_path, write_spec, test_kernels):
    import gs_testkernel   # the module the in-process workers run (the registry imports it by name)
    spec = write_spec(tmp_path, "host", datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"sleep_ms": 40, "blocks": [1, 2, 3, 4]}}])
    plan = sweep.load(spec)
    store.init(plan, resume=False)
    gs_testkernel.MOST = 0
    with LocalCluster(n_workers=1, threads_per_worker=3, processes=False, dashboard_address=":0",
                      resources={"HOST": 1}) as three_threads, Client(three_threads) as client:
        counts = runner.execute(plan, client, run_id="host", progress=False, echo=lambda *_: None)
    # Counted inside the kernels' 40 ms sleeps, not from the task stream, whose times each worker
    # shifts by its estimate of the scheduler's clock: under load that estimate moves by 0.1 s.
    assert counts["ok"] == 4 and gs_testkernel.MOST == 1 and gs_testkernel.RUNNING == 0
    with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as bare, Client(bare) as client:
        with pytest.raises(GraphsweepError, match=r"no worker offers the resources \{'HOST': 1\}.*--resources HOST=1"):
            runner.execute(plan, client, run_id="bare", progress=False, echo=lambda *_: None)


# --- 4. impossible sizes are refused before any work --------------------------------------------

@pytest.mark.parametrize("argv, need", [
    (["generate", "list", "--n", "2^40"], "need 8.00 TiB of disk under "),
    (["generate", "rmat", "--scale", "40"], "need 256.06 TiB of disk under "),
])
def test_impossible_sizes_are_refused_at_once(tmp_path, gs, argv, need):
    start = time.perf_counter()
    rc, out, err = gs(*argv, "--out", tmp_path / "d")
    assert rc == 2 and need in one_error_line(err) and ", have " in err
    assert time.perf_counter() - start < 10 and list(tmp_path.iterdir()) == []


def test_memory_counts_the_tree_planner(tmp_path, gs, monkeypatch):
    monkeypatch.setattr(capacity, "available_memory", lambda: 100 << 20)
    rc, out, err = gs("generate", "tree", "--n", "16M", "--out", tmp_path / "t")
    # 12 B per vertex to plan 2^24 vertices: 192 MiB, more than the 100 MiB there are.
    assert rc == 2 and "of host memory, have 100.00 MiB" in one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_prints_its_costs_and_refuses_what_does_not_fit(tmp_path, write_spec, gs, monkeypatch):
    spec = write_spec(tmp_path, "cost", datasets=[{"generator": "list", "params": {"n": [3001, 3002]}}],
                      kernels=["listrank.sequential", "listrank.wyllie"])
    rc, out, err = gs("run", spec, "--dry-run")
    assert rc == 0, err
    # 3001 int32 nodes and one part: 15.72 kiB on disk; 56 B per node for a CPU kernel task
    assert re.search(r"list_n=3001_seed=1 +15.72 kiB on disk \(to generate: .*\); 2 tasks, 164.12 kiB each", out)
    estimate, needs = out.strip().splitlines()[-2:]
    assert estimate.startswith("estimate: 31.45 kiB of datasets (31.45 kiB new, ")
    assert needs.startswith("needs: 164.17 kiB of host memory for its largest CPU kernel task; ")
    monkeypatch.setattr(capacity, "free_disk", lambda path: 1000)
    for argv in (["--dry-run"], []):
        rc, out, err = gs("run", spec, *argv)
        assert rc == 2 and "sweep cost: need 31.45 kiB of disk for new datasets under " in one_error_line(err)
    assert not (tmp_path / "results-cost").exists()


# --- 5. SIGTERM cleans up like Ctrl-C; stale partials go ----------------------------------------

def test_sigterm_while_generating_leaves_nothing_behind(tmp_path, gs_process, wait_for):
    proc = gs_process("generate", "list", "--n", "64M", "--part-rows", "64K", "--out", tmp_path / "big")
    try:
        wait_for(lambda: any(p.name.startswith(".big.partial-") for p in tmp_path.iterdir()), what="a partial")
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (f"graphsweep: terminated; partial dataset removed, {tmp_path / 'big'} "
                                            "left as it was")
    assert list(tmp_path.iterdir()) == []


# --- 6. OS errors: one line, exit 2 ---------------------------------------------------------------

def test_output_paths_are_checked_before_any_work(tmp_path, gs, write_spec, monkeypatch):
    (tmp_path / "file").write_text("x")
    rc, out, err = gs("generate", "list", "--n", "10", "--out", tmp_path / "file" / "d")
    assert rc == 2 and "/file is a file, not a folder" in one_error_line(err)
    spec = write_spec(tmp_path, "os", kernels=["listrank.sequential"])
    rc, out, err = gs("run", spec, "--results", tmp_path / "file" / "r")
    assert rc == 2 and "results directory" in one_error_line(err)
    readonly = tmp_path / "ro"
    readonly.mkdir()
    read_only(monkeypatch, readonly)
    rc, out, err = gs("generate", "list", "--n", "10", "--out", readonly / "d")
    assert rc == 2 and f"{readonly} is not writable" in one_error_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "os.yaml", "ro"] and not any(readonly.iterdir())


def test_reduce_and_report_on_a_read_only_results_folder(tmp_path, gs, monkeypatch):
    results = tmp_path / "results"
    (results / store.TASKS).mkdir(parents=True)
    (results / store.PLAN).write_text("{}")
    read_only(monkeypatch, results)
    for command in ("reduce", "report"):
        rc, out, err = gs(command, results)
        assert rc == 2 and f"results directory {results}: {results} is not writable" in one_error_line(err)


def test_any_os_error_left_is_one_line_exit_2(monkeypatch, gs, tmp_path):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device", str(tmp_path / "x.parquet"))
    monkeypatch.setattr(runner, "run_plan", full)
    rc, out, err = gs("run", "--default", "--results", tmp_path / "r")
    assert rc == 2 and one_error_line(err) == f"graphsweep: error: {tmp_path / 'x.parquet'}: No space left on device"


def test_an_output_file_gets_its_folder_before_the_work(tmp_path):
    made = paths.prepare_output_file(tmp_path / "new" / "deeper" / "rank.parquet", "--save-output")
    assert made.parent.is_dir() and not made.exists()
    (tmp_path / "f").write_text("")
    with pytest.raises(GraphsweepError, match="--save-output .*: .*/f is a file, not a folder"):
        paths.prepare_output_file(tmp_path / "f" / "rank.parquet", "--save-output")


# --- 7. connect first, then claim -----------------------------------------------------------------

def test_an_unreachable_cluster_leaves_the_results_folder_unclaimed(tmp_path, write_spec, gs, cluster_file, wait_for):
    spec = write_spec(tmp_path, "cron", kernels=[{"name": "test.flaky"}])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        rc, out, err = gs("submit", spec, "--cluster", f"tcp://127.0.0.1:{port}")
    assert rc == 2 and "cannot reach the scheduler" in one_error_line(err)
    assert not (tmp_path / "results-cron").exists()
    rc, out, err = gs("submit", spec, "--cluster", "test", "--cluster-file", cluster_file)  # the cron retry
    assert rc == 0, err
    wait_for(lambda: gs("status", tmp_path / "results-cron")[0] == 0, what="the retried submit")


# --- should fix: quiet failures and interrupts, progress without a terminal, retry ----------------

def test_failures_are_one_line_each_ctrl_c_is_one_line_and_failed_tasks_retry(tmp_path, write_spec, gs_process,
                                                                              gs, cluster_file, test_kernels, wait_for):
    # On a cluster embedded in the run, whose worker processes share the terminal (and its Ctrl-C).
    profiles = profiles_file(tmp_path, embedded={"kind": "local-cpu", "options": {
        "n_workers": 1, "threads_per_worker": 1, "dashboard_address": ":0"}})
    spec = write_spec(tmp_path, "loud", datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"mode": "raise", "blocks": [1, 2]}},
                               {"name": "test.flaky", "params": {"sleep_ms": 400, "blocks": list(range(3, 13))}}])
    results = tmp_path / "results-loud"
    proc = gs_process("run", spec, "--cluster", "embedded", "--cluster-file", profiles,
                      start_new_session=True)  # its own process group, as a terminal's
    try:
        wait_for(lambda: len(store.finished(results)) >= 3 or proc.poll() is not None, timeout=120,
                 what="the failures and a good task")
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches every process of the group
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-2000:]
    lines = [line for line in err.splitlines() if line.strip()]
    failures = [line for line in lines if line.startswith("failed: ")]
    assert len(failures) == 2 and all("RuntimeError: boom" in line for line in failures)
    assert lines[-1] == "graphsweep: interrupted" and "Traceback" not in err and "\r" not in err
    assert lines[-2] == f"finished tasks are kept; finish the sweep with: graphsweep run {spec} --resume"
    assert all(line.startswith(("loud: ", "failed: ", "graphsweep: interrupted", "finished tasks are kept"))
               for line in lines), lines
    [log] = (results / store.LOGS).glob("*.log")
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "RuntimeError: boom" in text  # from the worker
    # Counted in the store, so a task that stored its result just before the interrupt counts.
    stored = len(store.finished(results))
    assert f"interrupted with {stored} of the 12 tasks of this run stored" in text

    rc, out, err = gs("run", spec, "--retry-failed", "--cluster", "test", "--cluster-file", cluster_file)
    assert rc == 2 and "--retry-failed goes with --resume" in one_error_line(err)
    before = reduce.load(results).groupby("task")["run_id"].first()
    failed = {t.hash for t, _ in store.status(results)["failed"].values()}
    rc, out, err = gs("run", spec, "--resume", "--retry-failed", "--no-report", "--cluster", "test",
                      "--cluster-file", cluster_file)
    assert rc == 1 and "retrying 2 failed tasks" in out
    after = reduce.load(results).groupby("task")["run_id"].first()
    assert len(failed) == 2 and all(after[h] != before[h] for h in failed)
    assert all(after[h] == before[h] for h in set(before.index) - failed)


def test_workers_leaving_and_joining_go_to_the_log(caplog):
    members = runner._Membership()
    with caplog.at_level("INFO", "graphsweep.run"):
        members.update(["tcp://a:1", "tcp://b:1"])
        members.update(["tcp://a:1", "tcp://c:1"])
    assert "worker tcp://b:1 left the cluster" in caplog.text and "retries the tasks it was running" in caplog.text
    assert "worker tcp://c:1 joined" in caplog.text and "tcp://a:1" not in caplog.text


def test_a_busy_dashboard_port_is_a_log_line_not_a_warning(tmp_path, caplog):
    with socket.socket() as busy:
        busy.bind(("", 0))
        busy.listen()
        path = profiles_file(tmp_path, x={"kind": "local-cpu", "options": {
            "n_workers": 1, "processes": False, "dashboard_address": f":{busy.getsockname()[1]}"}})
        with warnings.catch_warnings(record=True) as shown, caplog.at_level("INFO", "graphsweep.cluster"):
            warnings.simplefilter("always")
            with cluster.connect("x", path):
                pass
    assert not [w for w in shown if "already in use" in str(w.message)]
    assert "already in use" in caplog.text


# What a task logs on a worker: a failed task's traceback (WARNING) and a build's pieces (INFO).
ON_A_WORKER = """
import logging, traceback
try:
    raise RuntimeError("boom")
except RuntimeError:
    logging.getLogger("graphsweep.worker").warning("task x failed: %s", traceback.format_exc())
logging.getLogger("graphsweep.build").info("csr slice 1/2")
"""


@pytest.mark.parametrize("processes", [True, False])
def test_a_workers_records_reach_the_run_log_once_and_not_its_stderr(tmp_path, capfd, processes):
    path = tmp_path / "run.log"
    with dask.config.set({"graphsweep.worker.warm-start": False}), \
            LocalCluster(n_workers=1, threads_per_worker=1, processes=processes, dashboard_address=":0") as c, \
            Client(c) as client:
        worker.ensure_state(client)     # graphsweep's loggers at INFO on every worker
        held = logs.attach(path)
        try:
            with logs.forwarded(client):
                client.submit(exec, ON_A_WORKER, {}, pure=False).result()
        finally:
            logs.detach(held)
        assert (os.getpid() in client.run(os.getpid).values()) is not processes
    text = path.read_text()
    assert text.count("task x failed: Traceback") == 1 and "RuntimeError: boom" in text     # once, whole
    assert text.count("INFO graphsweep.build: csr slice 1/2") == 1
    assert "boom" not in capfd.readouterr().err                 # not on the worker's (or our) stderr


def test_status_json_of_a_finished_sweep(tmp_path, write_spec, gs, cluster_file):
    spec = write_spec(tmp_path, "js", datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"mode": ["ok", "raise"]}}])
    assert gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)[0] == 1
    rc, out, err = gs("status", tmp_path / "results-js", "--json")
    state = json.loads(out)
    assert rc == 1 == state["exit_code"] and state["done"] == 1 and state["in_use"] is None
    assert [f["error"].split(":")[0] for f in state["failed"]] == ["RuntimeError"]
    assert all(not tasks for tasks in state["pending"].values())


def test_a_key_another_client_holds_does_not_stand_in_for_a_task(tmp_path, write_spec, gs, cluster, cluster_file):
    """Two sweeps on one long-lived cluster may share a task (same hash, other results folder); the
    scheduler hands a key it still holds back to whoever submits it, so a run whose task keys did
    not name the run took the other sweep's outcome and stored nothing (CI: done 0, 1 pending)."""
    spec = write_spec(tmp_path, "held", datasets=[{"generator": "list", "params": {"n": 1024}}],
                      kernels=[{"name": "test.flaky", "params": {"mode": ["ok", "raise"]}}])
    plan = sweep.load(spec)
    with Client(cluster.scheduler_address, set_as_default=False) as other:
        held = [other.submit(dict, task=t.hash, status="ok", error=None, stored=False, key=t.key, pure=False)
                for t in plan.tasks]
        other.gather(held)
        assert gs("run", spec, "--no-report", "--cluster", "test", "--cluster-file", cluster_file)[0] == 1
    state = store.status(plan.results)
    assert [t.params["mode"] for t in state["done"]] == ["ok"] and not state["pending"]
    assert [t.params["mode"] for t, _ in state["failed"].values()] == ["raise"]


def test_sizes_take_one_syntax_everywhere(tmp_path, gs, write_spec):
    rc, out, err = gs("generate", "list", "--n", "1_024", "--part-rows", "2^9", "--out", tmp_path / "a",
                      "--no-progress")
    assert rc == 0 and err == "" and "n = 1,024, 2 parts" in out
    spec = write_spec(tmp_path, "sizes", datasets=[{"generator": "list", "params": {"n": ["1K", "2^11", "4e3"]}}],
                      kernels=["listrank.sequential"])
    assert sorted(d.params["n"] for d in sweep.load(spec).datasets) == [1024, 2048, 4000]


def test_a_non_terminal_gets_whole_progress_lines(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main(["generate", "list", "--n", "5000", "--part-rows", "1K", "--out", str(tmp_path / "l")])
    err = capsys.readouterr().err
    assert "\r" not in err and "generate list: 5/5 parts" in err and len(err.splitlines()) <= 4


def test_a_terminal_gets_one_line_rewritten_and_notes_above_it():
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    screen = Terminal()
    bar = Progress("sweep", 2, "tasks", stream=screen)
    bar.step()
    bar.note("failed: x: boom")
    bar.step(extra=", 1 failed")
    text = screen.getvalue()
    assert text.count("\n") == 2 and "\r\x1b[Kfailed: x: boom\n" in text
    assert text.endswith("2/2 tasks, 1 failed (0.0 s)\n")


# --- report readability -------------------------------------------------------------------------

def test_phase_colours_do_not_repeat_past_ten():
    for count in (3, 10, 11, 20, 35):
        colours = figures.phase_colours([f"P{i}" for i in range(count)])
        assert len({tuple(c) for c in colours.values()}) == count


def test_the_params_column_is_compact():
    params = '{"blocks": null, "p": null, "packing": 64, "threads": 256}'
    assert report.compact_params(params) == "packing=64 threads=256"
    assert report.compact_params("{}") == ""


def test_phase_bars_keep_their_labels_whole():
    summary = pd.DataFrame([{"phase": phase, "n": 1 << 20, "median_ms": 1.0, "kernel": "listrank.random-splitter",
                             "params": json.dumps(params), **{f"param_{k}": v for k, v in params.items()},
                             "generator": "list", "dataset": "list_n=1048576"}
                            for params in ({"packing": 48, "splitters": "even"}, {"packing": 64, "splitters": "random"})
                            for phase in [f"RS{i}" for i in range(12)] + ["total"]])
    fig = overview.fig_phases(summary)
    [axes] = fig.axes[:1]
    assert [t.get_rotation() for t in axes.get_yticklabels()] == [0, 0]
    label = "listrank.random-splitter packing=48 splitters=even · list n=1048576"
    assert axes.get_yticklabels()[0].get_text() == label


def test_rates_above_a_ceiling_are_marked_and_explained():
    summary = pd.DataFrame({"pct_copy_ceiling": [50.0, 708.0], "ceiling_table_bytes": [64 << 20] * 2})
    shown, note = report._over_ceiling(summary, ["pct_copy_ceiling"])
    assert list(shown["pct_copy_ceiling"]) == ["50", "708*"]
    assert "1 phases run above 100% of a ceiling" in note and "a table of 64 MiB" in note and "cache" in note
    assert report._over_ceiling(summary.iloc[:1], ["pct_copy_ceiling"])[1] == ""
