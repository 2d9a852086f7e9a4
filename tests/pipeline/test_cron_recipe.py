"""docs/cron.md's nightly.sh, run as cron would run it (a `mail` that files what it is sent):
a refused run mails what it printed; a clean first night mails nothing; a night slower than the
last good one mails the comparison.  Its watch.sh, polling status, submits an interrupted sweep
again and waits for it."""

import os
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import yaml

from graphsweep.pipeline import store, sweep

ROOT = Path(__file__).parents[2]
VENV = Path(sys.prefix)
MAIL = '#!/bin/sh\nn=$(ls "$MAILBOX" | wc -l)\n{ echo "subject: $2"; cat; } > "$MAILBOX/$n.txt"\n'


def nightly_script() -> str:
    text = (ROOT / "docs" / "cron.md").read_text()
    return re.search(r"`nightly.sh`:\n\n```bash\n(.*?)```", text, re.S).group(1)


def slow_down(results: Path, factor: float) -> None:
    """Scale every stored kernel time of ``results`` by ``factor`` (outcome metadata kept)."""
    for path in store.finished(results).values():
        table = pq.read_table(path)
        column = table.schema.get_field_index("ms")
        table = table.set_column(column, "ms", pc.multiply(table["ms"], factor))
        pq.write_table(table, path)


@pytest.mark.skipif(not (VENV / "bin" / "activate").is_file(), reason="needs a virtual environment to activate")
def test_the_nightly_recipe_mails_refusals_and_slowdowns(tmp_path):
    (tmp_path / "nightly.sh").write_text(nightly_script())
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "listrank-time-vs-n.yaml").write_text(yaml.safe_dump({
        "name": "listrank-time-vs-n", "backend": "cpu", "reps": 5, "warmup": 1,
        "datasets": [{"generator": "list", "params": {"n": [4096, 8192]}}],
        "kernels": ["listrank.sequential", "listrank.wyllie"]}))
    bin_dir, mailbox = tmp_path / "bin", tmp_path / "mailbox"
    bin_dir.mkdir()
    mailbox.mkdir()
    (bin_dir / "mail").write_text(MAIL)
    (bin_dir / "mail").chmod(0o755)
    env = {**os.environ, "GRAPHSWEEP_VENV": str(VENV), "MAILBOX": str(mailbox),
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}

    def night():
        done = subprocess.run(["bash", "nightly.sh"], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        return done.returncode, sorted(p.read_text() for p in mailbox.iterdir())

    tonight = tmp_path / "results" / f"nightly-{date.today():%Y-%m-%d}"
    tonight.parent.mkdir()
    tonight.write_text("")  # a results path that is a file: refused before any work, no log
    rc, mails = night()
    assert rc == 2 and len(mails) == 1
    assert mails[0].startswith(f"subject: graphsweep nightly {date.today():%Y-%m-%d}: exit 2\n")
    assert f"graphsweep: error: {tonight}: is a file, not a results directory" in mails[0]
    tonight.unlink()
    shutil.rmtree(mailbox)
    mailbox.mkdir()

    rc, mails = night()  # the first good night: nothing to compare with, no mail
    assert rc == 0 and mails == []
    last_week = tonight.with_name("nightly-2000-01-01")
    tonight.rename(last_week)
    slow_down(last_week, 0.1)  # last week's kernels took a tenth of the time: tonight is 10x slower
    rc, mails = night()
    assert rc == 1 and len(mails) == 1
    assert mails[0].startswith("subject: graphsweep nightly ") and "slower than nightly-2000-01-01" in mails[0]
    # (Microsecond tasks can swing tenfold on a loaded machine; the mail is the point here.)
    assert re.search(r"4 tasks compared \(threshold 10%\): [1-4] regressed", mails[0]), mails[0]


def watch_script() -> str:
    text = (ROOT / "docs" / "cron.md").read_text()
    return re.search(r"`watch.sh SPEC RESULTS CLUSTER`.*?```bash\n(.*?)```", text, re.S).group(1)


def test_the_watch_loop_submits_an_interrupted_sweep_again_and_waits_for_it(tmp_path, write_spec, cluster_file):
    (tmp_path / "watch.sh").write_text(watch_script())
    shutil.copy(cluster_file, tmp_path / "cluster.yaml")   # profile 'test': the long-lived cluster
    spec = write_spec(tmp_path, "watched", kernels=["listrank.sequential"])
    plan = sweep.load(spec)
    store.init(plan, resume=False)   # what an interrupted run leaves: claimed, nothing running, tasks pending
    env = {**os.environ, "POLL_S": "0.2", "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "watch.sh", str(spec), str(plan.results), "test"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "submitted 2 tasks" in done.stdout and len(store.submissions(plan.results)) == 1
    assert len(store.status(plan.results)["done"]) == 2
