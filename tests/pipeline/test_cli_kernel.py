"""``graphsweep kernel``: the per-phase table, JSON, saved output, exit codes."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.format import sha256_file
from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import registry
from graphsweep.kernels.contract import Kernel
from graphsweep.kernels.listrank import LISTRANK
from graphsweep.pipeline.cli_kernel import kernel


@pytest.fixture
def dataset(tmp_path, make_list):
    return write_arrays(tmp_path / "list", kind="list", n=4000, columns={"succ": make_list(4000, seed=2)},
                        generator={"name": "random_list", "params": {"n": 4000}, "seed": 2})


def test_list():
    out = CliRunner().invoke(kernel, ["--list"])
    assert out.exit_code == 0
    for name in ("listrank.wyllie", "listrank.random-splitter", "listrank.best", "listrank.scan"):
        assert name in out.output


def test_json_and_saved_output(dataset, tmp_path):
    save = tmp_path / "rank.parquet"
    out = CliRunner().invoke(kernel, ["listrank.helman-jaja", str(dataset), "--backend", "cpu", "--reps", "2",
                                      "--warmup", "0", "--param", "limit=64", "--save-output", str(save), "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["verified"] is True and doc["params"]["limit"] == 64 and doc["stats"]["depth"] >= 1
    phases = {p["phase"]: p for p in doc["phases"]}
    assert {"total", "HJ1", "HJ2", "base", "expand"} <= set(phases)
    assert phases["HJ2"]["gbps"] > 0 and phases["HJ2"]["reps"] == 2
    assert doc["ceilings"]["backend"] == "cpu"
    rank = pq.read_table(save).column("rank").to_numpy()
    assert sorted(rank) == list(range(4000))


def test_table(dataset):
    out = CliRunner().invoke(kernel, ["listrank.wyllie", str(dataset), "--backend", "cpu", "--reps", "2"])
    assert out.exit_code == 0, out.output
    assert "PJ2" in out.output and "verification: passed" in out.output


def test_verification_failure_exits_1(dataset, monkeypatch):
    def off_by_one(inp, params, timer):
        return registry.get("listrank.sequential").cpu(inp, params, timer) + 1
    broken = Kernel(name="listrank.broken", problem=LISTRANK, summary="test", cpu=off_by_one)
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda name: broken if name == "listrank.broken" else real_get(name))
    out = CliRunner().invoke(kernel, ["listrank.broken", str(dataset), "--backend", "cpu", "--reps", "1"],
                             standalone_mode=False)
    assert out.return_value == 1


@pytest.mark.parametrize("args,message", [
    (["listrank.wyllie", "DATA", "--param", "threads"], "expected NAME=VALUE"),
    (["listrank.wyllie", "DATA", "--param", "q=1"], "unknown parameter 'q'"),
    (["listrank.nope", "DATA"], "unknown kernel"),
    (["listrank.wyllie"], "needs NAME and DATASET"),
])
def test_bad_input_is_a_graphsweep_error(dataset, args, message):
    out = CliRunner().invoke(kernel, [str(dataset) if a == "DATA" else a for a in args] + ["--backend", "cpu"])
    assert isinstance(out.exception, ParameterError) and out.exception.exit_code == 2
    assert message in str(out.exception)


def test_the_phase_table_is_aligned_and_prints_no_nan(tmp_path):
    from graphsweep.generators import generate
    graph = generate("uniform", tmp_path / "g", seed=3, params={"n": "3000", "degree": "4"}, progress=False)
    out = CliRunner().invoke(kernel, ["bfs.best", str(graph), "--backend", "cpu", "--reps", "2", "--warmup", "0",
                                      "--roots", "2"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("phase "))
    table = lines[start:next(i for i in range(start, len(lines)) if ":" in lines[i])]
    # Long phase names (queue-to-bitmap, csr (input)) widen the first column; every row is as long as the header.
    assert any(line.startswith("queue-to-bitmap ") for line in table) or any("(input)" in line for line in table)
    assert len({len(line) for line in table}) == 1 and "nan" not in out.output
    assert table[-2].split()[-1] != "-" and all(line.split()[-1] == "-" for line in table[1:-2])


def test_a_part_whose_sha256_differs_is_refused_in_one_line_naming_it(dataset, tmp_path, gs, make_list):
    other = write_arrays(tmp_path / "other", kind="list", n=4000, columns={"succ": make_list(4000, seed=3)},
                         generator={"name": "random_list", "params": {"n": 4000}, "seed": 3})
    part = json.loads((dataset / "manifest.json").read_text())["parts"][0]["path"]
    recorded = json.loads((dataset / "manifest.json").read_text())["parts"][0]["sha256"]
    (dataset / part).write_bytes((other / part).read_bytes())   # a valid list of the same size, not this one
    rc, out, err = gs("kernel", "listrank.sequential", dataset, "--backend", "cpu", "--reps", "1", "--warmup", "0")
    assert rc == 2 and out == "" and err.splitlines() == [
        f"graphsweep: error: {dataset / part}: sha256 is {sha256_file(dataset / part)}, the manifest records "
        f"{recorded} (the part is corrupt or was replaced)"]
    rc, out, err = gs("kernel", "listrank.sequential", dataset, "--backend", "cpu", "--reps", "1", "--warmup", "0",
                      "--no-checksums")
    assert rc == 0 and "verification: passed" in out, err


def test_a_phase_over_the_links_ceiling_is_a_warning_naming_kernel_phase_rate_and_ceiling(dataset, monkeypatch):
    # bfs.emogi's rows once claimed 162 GB/s over a link measured at 55 GB/s, printed as a fraction of its floor.
    from graphsweep.pipeline import cli_kernel

    def claims_the_link(inp, params, timer):
        with timer.phase("over-link", link=10**12):           # a terabyte over the link in no time
            pass
        return registry.get("listrank.sequential").cpu(inp, params, timer)
    linky = Kernel(name="listrank.linky", problem=LISTRANK, summary="test", cpu=claims_the_link)
    real_get, real_ceilings = registry.get, cli_kernel.ceilings
    monkeypatch.setattr(registry, "get", lambda name: linky if name == "listrank.linky" else real_get(name))
    monkeypatch.setattr(cli_kernel, "ceilings", lambda backend: {**real_ceilings(backend), "h2d_gbps": 50.0})
    out = CliRunner().invoke(kernel, ["listrank.linky", str(dataset), "--backend", "cpu", "--reps", "2",
                                      "--warmup", "0"])
    assert out.exit_code == 0, out.output
    warnings = out.stderr.splitlines()          # the phase, and the run's total that holds its bytes
    assert [re.fullmatch(r"graphsweep: warning: listrank\.linky: phase (\S+) moved \d+\.\d GB/s over the host "
                         r"link, above its measured ceiling of 50\.0 GB/s by more than the ceiling's noise "
                         r"\(5%\): the byte model counts bytes that did not cross the link", line).group(1)
            for line in warnings] == ["over-link", "total"], warnings
    header = next(line for line in out.stdout.splitlines() if line.startswith("phase "))
    assert header.split()[-4:] == ["link", "GB/s", "%", "link"] and ", host link 50.0 GB/s" in out.stdout


# --- a partitioned kernel's local workers (issue 34) ------------------------------------------------

@pytest.fixture
def graph(tmp_path):
    from graphsweep.generators import generate
    return generate("rmat", tmp_path / "g", seed=1, params={"scale": "6"}, progress=False)


def test_partitions_beyond_the_workers_this_machine_can_start_are_refused_before_any_work(graph, gs, monkeypatch):
    """The issue's 2-core machine: partitions=64 started local workers, printed 65 tracebacks and ran
    for minutes; it is one line, before the dataset is read, as a sweep refuses it."""
    from graphsweep.core import gpu
    from graphsweep.core.errors import GraphsweepError
    from graphsweep.kernels import harness
    monkeypatch.setattr(gpu, "available", lambda: False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    began = []

    def run(*args, **kwargs):
        began.append("run")
        raise GraphsweepError("the kernel ran")
    from graphsweep.pipeline import cli_kernel
    real_manifest = cli_kernel.read_manifest

    def read_manifest(dataset):
        began.append("read")
        return real_manifest(dataset)
    monkeypatch.setattr(cli_kernel, "read_manifest", read_manifest)
    monkeypatch.setattr(harness, "run", run)
    rc, out, err = gs("kernel", "cc.distributed", graph, "--param", "partitions=64")
    assert rc == 2 and out == "" and err.splitlines() == [
        f"graphsweep: error: cc.distributed on {graph}: parameter 'partitions': 64 slices, but this machine has 2 "
        "workers to start (one per core; --param scheduler=ADDRESS slices over a running cluster's workers)"]
    assert began == []
    rc, out, err = gs("kernel", "cc.distributed", graph, "--param", "partitions=2")   # as many as the cores: run
    assert rc == 2 and err.splitlines() == ["graphsweep: error: the kernel ran"] and began == ["read", "run"]


# A close of the local workers that times out once (a cluster slow to go), in a process of its own:
# what reaches stderr after the results, and the exit handler's traceback, are the point.
CLOSE_TIMES_OUT = """
import sys
from distributed import LocalCluster
really_close = LocalCluster.close
def close_too_slowly_once(self, *args, **kwargs):
    really_close(self, *args, **kwargs)
    if not getattr(LocalCluster, "timed_out", False):
        LocalCluster.timed_out = True
        raise TimeoutError("closing took too long")
LocalCluster.close = close_too_slowly_once
from graphsweep.pipeline.cli import main
sys.argv[0] = "graphsweep"
main()
"""


def test_a_partitioned_kernel_whose_workers_close_too_slowly_exits_0_with_one_warning(graph):
    proc = subprocess.run([sys.executable, "-c", CLOSE_TIMES_OUT, "kernel", "cc.distributed", str(graph), "--backend",
                           "cpu", "--param", "partitions=2", "--reps", "1", "--warmup", "0"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "verification: passed" in proc.stdout, proc.stderr
    assert proc.stderr.splitlines() == ["graphsweep: warning: closing the kernel's local workers: TimeoutError: "
                                        "closing took too long (what was done is kept)"]


def _workers_ignoring_ctrl_c(pid: int) -> list:
    """The worker processes (spawned by multiprocessing) of the process ``pid`` that ignore SIGINT."""
    import psutil
    ignoring = []
    for child in psutil.Process(pid).children():
        try:
            if "spawn_main" not in " ".join(child.cmdline()):
                continue
            status = Path(f"/proc/{child.pid}/status").read_text()
        except (psutil.Error, OSError):   # gone meanwhile
            continue
        mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)
        if mask & (1 << (signal.SIGINT - 1)):
            ignoring.append(child.pid)
    return ignoring


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_during_a_partitioned_kernel_is_one_line(graph, gs_process, wait_for):
    """Ctrl-C reaches the local workers a partitioned kernel started too (one process group, as at a
    terminal): they ignore it, this process closes them, and nothing of Dask's follows the one line."""
    proc = gs_process("kernel", "cc.distributed", graph, "--backend", "cpu", "--param", "partitions=2",
                      "--reps", "100000", "--warmup", "0", start_new_session=True)
    try:
        wait_for(lambda: len(_workers_ignoring_ctrl_c(proc.pid)) == 2 or proc.poll() is not None, timeout=120,
                 what="two local workers ignoring Ctrl-C")
        time.sleep(2)   # the cluster up, the kernel under way
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-3000:]
    assert [line for line in err.splitlines() if line.strip()] == ["graphsweep: interrupted"], err[-3000:]


def test_a_parameter_is_coerced_once(tmp_path, monkeypatch):
    # the command looks its kernel up and coerces --param once, for its checks (the partitions a
    # machine can start) and the run alike
    from graphsweep.core.params import Param
    from graphsweep.generators import driver
    graph = driver.generate("rmat", tmp_path / "rmat", seed=1, params={"scale": 6, "edge_factor": 4}, progress=False)
    coerced = []
    coerce = Param.coerce
    monkeypatch.setattr(Param, "coerce", lambda p, name, value: coerced.append(name) or coerce(p, name, value))
    out = CliRunner().invoke(kernel, ["cc.distributed", str(graph), "--backend", "cpu", "--reps", "1",
                                      "--param", "partitions=1", "--json"])
    assert out.exit_code == 0, out.output
    assert coerced.count("partitions") == 1, coerced
    assert json.loads(out.output.strip().splitlines()[-1])["params"]["partitions"] == 1
