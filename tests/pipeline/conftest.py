"""Fixtures of the pipeline tests: the test.flaky kernel, one CPU LocalCluster per module, specs.

The cluster's workers are spawned with GRAPHSWEEP_KERNEL_MODULES and PYTHONPATH naming
gs_testkernel (beside this file), so they know test.flaky like this process does.
"""

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from graphsweep.kernels import registry

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def test_kernels():
    """test.flaky in the registry of this process and of every process started meanwhile."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHSWEEP_KERNEL_MODULES", "gs_testkernel")
    mp.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))
    mp.syspath_prepend(str(HERE))
    registry._kernels.clear()  # reloaded with the test module on next use
    yield
    mp.undo()
    registry._kernels.clear()


@pytest.fixture(scope="module")
def cluster(test_kernels):
    from distributed import LocalCluster
    # HOST=1 as the kernel tasks of a CPU sweep hold it (two workers on one host: timings are not the point here)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0", processes=True,
                      resources={"HOST": 1}) as c:
        yield c


@pytest.fixture(scope="module")
def cluster_file(cluster, tmp_path_factory) -> Path:
    """Profiles 'test' (the module's cluster) and local-cpu (small, no fixed dashboard port)."""
    path = tmp_path_factory.mktemp("profiles") / "cluster.yaml"
    path.write_text(yaml.safe_dump({"profiles": {
        "test": {"kind": "address", "address": cluster.scheduler_address},
        "local-cpu": {"kind": "local-cpu", "options": {"n_workers": 2, "threads_per_worker": 1,
                                                    "dashboard_address": ":0"}}}}))
    return path


def _write_spec(folder: Path, name: str = "t", *, kernels, datasets=None, **top) -> Path:
    """A sweep spec in ``folder`` over small generated lists (2^10 and 2^11 nodes by default)."""
    spec = {"name": name, "results": str(folder / f"results-{name}"), "data": str(folder.parent / "data"),
            "reps": 2, "warmup": 0, "datasets": datasets or [{"generator": "list", "params": {"n": [1024, 2048]}}],
            "kernels": kernels, **top}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def _wait_for(condition, timeout=60.0, what="condition"):
    """Poll ``condition`` until it holds, or fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _gs(*args) -> tuple[int, str, str]:
    """``graphsweep ARGS`` in this process: (exit code, stdout, stderr)."""
    from graphsweep.pipeline.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
            rc = 0
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def _gs_process(*args, **kwargs) -> subprocess.Popen:
    """``graphsweep ARGS`` as its own process (for interrupting it, or for an embedded cluster)."""
    # Ctrl-C as at a terminal, even when this suite was started where SIGINT is ignored (a job put
    # in the background by a script): the child would inherit the ignoring and never see it.
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from graphsweep.pipeline.cli import main; sys.argv[0] = 'graphsweep'; main()")
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.fixture(scope="session")
def write_spec():
    return _write_spec


@pytest.fixture(scope="session")
def gs():
    return _gs


@pytest.fixture(scope="session")
def wait_for():
    return _wait_for


@pytest.fixture
def gs_process():
    return _gs_process
