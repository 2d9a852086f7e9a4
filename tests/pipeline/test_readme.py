"""Every command of README.md's Examples runs, in order, as written — sizes scaled down so the
suite stays fast (a list of 2^15 nodes for 2^26, R-MAT scale 9 for 22, 2 reps for 20; the sweep
a copy of sweeps/listrank-time-vs-n.yaml with lists of 2^10 … 2^13 nodes, its kernels and patterns
unchanged).  `submit` is the alternative to `run`, so it starts from an empty results folder;
the nights that `compare` compares are copies of the sweep's results.
The reports are written without their figures (rendering them takes ~9 s a report; test_run
renders a whole report in Chromium).  The two set-up commands are what CI (.ci/run) runs on a
fresh clone."""

import re
import shlex
import shutil
from pathlib import Path

import yaml

from graphsweep.pipeline import report

ROOT = Path(__file__).parents[2]
# Option values scaled down; every other argument is the README's.
SCALED = {"--n": "2^15", "--scale": "9", "--part-rows": "4K", "--reps": "2"}
# sweeps/listrank-time-vs-n.yaml's sizes, 2^20 … 2^30 (every exponent for random lists, every
# second for ordered ones), mapped to 2^10 … 2^13; the sizes its CPU baselines' patterns name too.
SWEEP_SIZES = {"{pow2: [20, 30]}": "{pow2: [10, 13]}", "{pow2: [20, 30, 2]}": "{pow2: [10, 13]}",
               "1048576": "1024", "4194304": "2048", "16777216": "4096", "67108864": "8192"}


def readme_examples() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    section = re.search(r"\n## Examples\n(.*?)\n## ", text, re.S).group(1)
    lines = [line for block in re.findall(r"```sh\n(.*?)```", section, re.S) for line in block.splitlines()]
    return [argv for argv in (shlex.split(line, comments=True) for line in lines) if argv]


def scaled(argv: list[str]) -> list[str]:
    return [SCALED.get(argv[i - 1], arg) if i else arg for i, arg in enumerate(argv)]


def test_every_readme_example_runs(tmp_path, gs, cluster, monkeypatch, wait_for):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(report, "figures", lambda summary, rows=None: [])
    (tmp_path / "sweeps").mkdir()
    text = (ROOT / "sweeps" / "listrank-time-vs-n.yaml").read_text()
    for big, small in SWEEP_SIZES.items():
        assert big in text, big
        text = text.replace(big, small)
    (tmp_path / "sweeps" / "listrank-time-vs-n.yaml").write_text(text)
    (tmp_path / "roadNet-CA.txt").write_text("# Directed graph (each unordered pair of nodes is saved once)\n"
                                             "# FromNodeId\tToNodeId\n0\t1\n0\t2\n1\t3\n3\t0\n5\t4\n")
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(
        {"profiles": {"shared": {"kind": "address", "address": cluster.scheduler_address}}}))
    examples = readme_examples()
    assert len(examples) == 21 and all(argv[0] == "graphsweep" for argv in examples)
    for argv in examples:
        args = scaled(argv[1:])
        results = tmp_path / "results" / "listrank-time-vs-n"
        if args[0] == "submit":
            shutil.rmtree(results)
        if args[0] == "compare":  # two nights of the sweep: copies of its results
            for night in args[1:]:
                shutil.copytree(results, night)
        rc, out, err = gs(*args)
        assert rc == 0, f"{shlex.join(argv)}: exit {rc}\n{err[-3000:]}"
        if args[0] == "submit":  # until no task runs or waits (exit 3); then all done
            wait_for(lambda: gs("status", "results/listrank-time-vs-n")[0] != 3, timeout=300,
                     what="the submitted sweep")
            rc, out, err = gs("status", "results/listrank-time-vs-n")
            assert rc == 0, out + err
    assert (tmp_path / "results" / "listrank-time-vs-n" / "report.html").is_file()
    assert {"labels.parquet", "d.parquet"} <= {p.name for p in tmp_path.iterdir()}
