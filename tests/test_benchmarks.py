"""The benchmarks' printers: each prints its ratio table from a sweep's results folder, here a tiny
CPU sweep over every alias's problem (and the published APSP sweep), as a user runs them."""

import re
import runpy
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).parents[1]
BENCHMARKS = REPO / "benchmarks"


def run_sweep(folder: Path, name: str, workers: int = 1, **spec) -> Path:
    """Run the sweep ``spec`` (datasets, kernels, reps...) on the CPU with ``workers`` workers; its
    results folder."""
    from graphsweep.pipeline.cli import main
    spec = {"name": name, "results": str(folder / "results"), "data": str(folder / "data"), "backend": "cpu", **spec}
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec))
    (folder / "cluster.yaml").write_text(yaml.safe_dump({"profiles": {"one": {"kind": "local-cpu", "options": {
        "n_workers": workers, "threads_per_worker": 1, "dashboard_address": ":0"}}}}))
    with pytest.raises(SystemExit) as done:
        main(["run", str(folder / "spec.yaml"), "--cluster", "one", "--cluster-file", str(folder / "cluster.yaml"),
              "--no-report", "--no-progress"])
    assert done.value.code == 0
    return folder / "results"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A CPU run of list ranking, CC, BFS and the GAP kernels on small graphs (one worker)."""
    return run_sweep(tmp_path_factory.mktemp("printers"), "printers", reps=2, warmup=0, roots=2, roots_seed=1,
                     datasets=[{"generator": "list", "params": {"n": [4096, 8192]}},
                               {"generator": "rmat", "params": {"scale": 8, "edge_factor": 8}}],
                     kernels=["listrank.best", "listrank.wyllie", "cc.best", "cc.hook-compress", "bfs.best",
                              {"name": "bfs.best", "params": {"direction": "top-down"}}, "pagerank.best",
                              "pagerank.pull", "bc.best", "bc.brandes", "tc.best",
                              {"name": "tc.search", "params": {"lanes": 4}}])


def printed(capsys, monkeypatch, script: str, *args) -> str:
    """What ``python3 benchmarks/SCRIPT ARGS`` prints."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr(sys, "argv", [script, *map(str, args)])
    runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
    return capsys.readouterr().out


def test_floors_judge_every_alias_by_the_floors_stamped_on_its_rows(results, capsys, monkeypatch):
    out = printed(capsys, monkeypatch, "floors.py", results)
    judged = {line.split(" · ")[0]: line for line in out.splitlines() if " · " in line and "(printers)" in line}
    assert set(judged) == {"listrank.best", "cc.best", "bfs.best", "pagerank.best", "bc.best", "tc.best"}
    assert "chase+store" in judged["listrank.best"] and " copy " in judged["cc.best"]
    assert all(" model " in judged[a] for a in ("pagerank.best", "bc.best", "tc.best"))
    assert "*" not in out           # every row carries the ceilings its problem is judged by


def test_gap_prints_each_alias_beside_its_variants(results, capsys, monkeypatch):
    out = printed(capsys, monkeypatch, "gap.py", results)
    for alias, kernel in (("pagerank.best", "pagerank.blocked"), ("bc.best", "bc.batched"), ("tc.best", "tc.search")):
        assert f"--- {alias} ({kernel})" in out and f"1.00x {alias}" in out
    assert "tc.search lanes=4" in out and "pagerank.pull " in out and "x floor" in out
    assert "it." in out and "x streamed floor" in out          # PageRank: per iteration, against streamed bytes
    # BC per root: bc.best's (bc.batched's) run of its 2 roots at once halved, beside bc.brandes's run of one
    bc = out.split("--- bc.best")[1].split("---")[0]
    assert "bc.batched" in bc and "bc.brandes" in bc


def test_gap_puts_bc_per_root_whatever_roots_a_run_covers():
    import pandas as pd
    gap = runpy.run_path(str(BENCHMARKS / "gap.py"))
    rows = pd.DataFrame({"kernel": ["bc.brandes", "bc.batched"], "median_ms": [10.0, 20.0], "instances": [4, 1],
                         "stat_roots": [float("nan"), 4.0], "bytes_read": [100.0, 400.0], "bytes_written": [0.0, 0.0],
                         "random_accesses": [8.0, 32.0], "elements": [1000, 4000]})
    per_root = gap["per_root"](rows)
    assert per_root["median_ms"].tolist() == [10.0, 5.0] and per_root["roots"].tolist() == [4.0, 4.0]
    assert per_root["bytes_read"].tolist() == [100.0, 100.0] and per_root["elements"].tolist() == [1000, 1000]
    assert (per_root["median_ms"] * per_root["roots"]).tolist() == [40.0, 20.0]       # a GAPBS trial's


def test_bfs_and_components_tables(results, capsys, monkeypatch):
    out = printed(capsys, monkeypatch, "bfs.py", results, "--levels")
    assert "1.00x bfs.best" in out and "direction=top-down" in out and "us per level" in out
    assert "listrank" not in out
    out = printed(capsys, monkeypatch, "components.py", results)
    assert "1.00x cc.best" in out and "cc.hook-compress" in out and "listrank" not in out
    out = printed(capsys, monkeypatch, "cc_families.py", results)
    assert "1.00x cc.best  chose cc.sampled-union-find" in out and "listrank" not in out
    assert "fastest other cc.hook-compress" in out


def test_pipeline_shares_come_from_the_run_and_its_log(results, capsys, monkeypatch):
    out = printed(capsys, monkeypatch, "pipeline.py", results)
    wall = next(float(line.split()[-1]) for line in out.splitlines() if "sweep wall s" in line)
    assert wall > 0 and "timed-rep share" in out and "load GB/s" in out
    assert "outside the harness" in out and "harness outside reps" in out     # history.wall_shares
    # a second run's folder (here the same one): its plan against what ran, from the run's log
    out = printed(capsys, monkeypatch, "pipeline.py", results, results)
    assert "plan against run" in out and "planned" in out and "estimates that missed most" in out


def test_apsp_crossover_of_the_published_sweep(capsys, monkeypatch):
    out = printed(capsys, monkeypatch, "apsp.py", REPO / "docs" / "results" / "apsp")
    crossover = out.split("crossover")[1].splitlines()[2:]
    assert len(crossover) == 9
    n, degree, *_, rep_over_blocked, _ = crossover[0].split()
    assert (n, degree) == ("1024", "6") and float(rep_over_blocked) < 1     # repeated SSSP wins when sparse


def test_the_link_table_never_prints_a_run_faster_than_its_floor_as_a_ratio():
    # bfs.emogi on a host-placed R-MAT 29 (H200): "0.66x its floor", its floor the lines each row
    # read (stat_line_bytes) at the sequential zero-copy rate; 88.5 GB "over the link" in 546 ms.
    link = runpy.run_path(str(BENCHMARKS / "link.py"))
    row = {"kernel": "bfs.emogi", "ceiling_h2d_gbps": 55.0, "ceiling_mapped_sequential_gbps": 45.0,
           "stat_line_bytes": 88.5e9 * 45 / 55 / 0.66, "bytes_link": 25e9}
    floor_ms, what = link["link_floor"](row)        # the bytes that crossed, at the link's fastest rate
    assert floor_ms == pytest.approx(25e9 / 55e9 * 1e3) and what == "bytes over the link at its fastest rate"
    assert link["against_floor"](546.0, floor_ms) == "   1.20x"
    floor_ms, _ = link["link_floor"]({**row, "bytes_link": 88.5e9})
    assert link["against_floor"](546.0, floor_ms) == ("BELOW FLOOR (0.34x): the byte model counts bytes that did "
                                                      "not cross the link")
    assert link["against_floor"](0.97 * floor_ms, floor_ms) == "   0.97x"      # within the link's noise (5%)
    assert link["against_floor"](546.0, float("nan")).strip() == "-"


def test_no_benchmark_imports_a_sibling_script():
    """What benchmarks share lives in the package (graphsweep.pipeline.ratios, kernels.cc.ecl_cc):
    a script run from anywhere imports nothing from the folder it sits in."""
    import ast
    siblings = {p.stem for p in BENCHMARKS.glob("*.py")}
    for script in sorted(BENCHMARKS.glob("*.py")):
        for node in ast.walk(ast.parse(script.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            assert not {name.split(".")[0] for name in names} & siblings, f"{script.name} imports {names}"


def test_sssp_road_prints_the_grids_against_the_target_and_tuned_near_far(tmp_path, capsys, monkeypatch):
    road = run_sweep(tmp_path, "road", reps=1, warmup=0, roots=2, roots_seed=1,
                     datasets=[{"generator": "grid", "params": {"rows": 24, "cols": 24, "keep": 0.8,
                                                                "weights": "1:30"}},
                               {"generator": "uniform", "params": {"n": 300, "degree": 6, "weights": "1:10"}}],
                     kernels=["sssp.best", "sssp.near-far", {"name": "sssp.near-far", "params": {"delta": [4, 64]},
                                                             "datasets": ["grid_*"]}])
    out = printed(capsys, monkeypatch, "sssp_road.py", road)
    grid = [line for line in out.splitlines() if line.startswith("grid_")]
    ratios = lambda line: re.findall(r"\d+\.\d+x", line)  # noqa: E731
    assert len(grid) == 4 and all(len(ratios(line)) == 2 for line in grid)      # against 30 ms and tuned near-far
    assert "sssp.near-far delta=4" in out and "sssp.near-far delta=64" in out
    best = next(line for line in grid if "sssp.best" in line)
    assert best.rstrip().endswith(("sssp.near-far", "sssp.strips", "renamed by BFS"))     # what it chose
    uniform = [line for line in out.splitlines() if line.startswith("uniform_")]
    assert len(uniform) == 2 and all(len(ratios(line)) == 1 and " - " in line for line in uniform)


def test_sssp_road_bucket_chains_sum_each_roots_busiest_steps():
    """The GPU's per-bucket rows (the CPU twin has none): a root's busiest steps summed, the median
    over roots, at the run's mean step, against the buckets' time; rows without them left out."""
    import pandas as pd
    chains = runpy.run_path(str(BENCHMARKS / "sssp_road.py"))["bucket_chains"]
    steps = [{"task": "strips", "instance": i, "rep": 0, "step": b, "ms": 0.05 * (b + 1) * (i + 1),
              "step_steps": 10 * (b + 1) * (i + 1)} for i in range(3) for b in range(3)]
    rows = pd.DataFrame(steps + [{"task": "strips", "instance": 0, "rep": 0, "step": None, "ms": 9.0},
                                 {"task": "near-far", "instance": 0, "rep": 0, "step": 0, "ms": 1.0}])
    total = pd.DataFrame({"task": ["strips", "near-far"], "stat_us_per_step": [4.0, float("nan")]})
    out = chains(rows, total)
    assert out["task"].tolist() == ["strips"]          # near-far's step rows carry no busiest steps
    r = out.iloc[0]
    assert (r["buckets"], r["busiest"], r["bucket_ms"]) == (3, 120, pytest.approx(0.6))   # the median root's
    assert r["chain_ms"] == pytest.approx(0.48) and r["share"] == pytest.approx(0.8)
    assert chains(rows.drop(columns="step_steps"), total).empty


def test_best_rules_print_each_rules_choice_against_its_axis(results, capsys, monkeypatch):
    out = printed(capsys, monkeypatch, "best_rules.py", results)
    assert "--- tc.search: the rule's lanes against the axis" in out
    rows = [line for line in out.splitlines() if line.startswith("rmat_")]
    assert len(rows) == 1 and "4: " in rows[0]              # the fixture's axis: lanes 4 beside the rule's
    rule, ms, best, best_ms, ratio = rows[0].split()[1:6]
    assert int(best) == 4 and float(ratio) > 0 and float(ms) > 0    # (ms printed to 0.01: no ratio check here)


def test_listrank_prints_each_variant_against_both_chase_floors(results, capsys, monkeypatch):
    out = printed(capsys, monkeypatch, "listrank.py", results)
    rows = [line for line in out.splitlines() if "x listrank.best" in line]
    assert len(rows) == 4 and sum("1.00x listrank.best" in line for line in rows) == 2     # two lists, two kernels
    assert all("x chase floor" in line and "x chase+store floor" in line for line in rows)
    assert "listrank.wyllie" in out and "cc." not in out


def test_partitioned_prints_each_k_beside_the_one_device_kernel_with_the_cost_model(tmp_path, capsys, monkeypatch):
    """benchmarks/partitioned.py over a partitioned sweep on two CPU workers: the one-device bfs.best
    beside bfs.distributed at K = 1 and 2 and a variant, the partition's facts (the link measured
    when it was built) for each K, the model from them, every run verified."""
    folder = run_sweep(tmp_path, "partitioned", workers=2, reps=1, warmup=0, roots=2, roots_seed=1,
                       datasets=[{"generator": "rmat", "params": {"scale": 8, "edge_factor": 8}, "store": "memory"}],
                       kernels=["bfs.best", {"name": "bfs.distributed", "params": {"partitions": [1, 2]}},
                                {"name": "bfs.distributed", "params": {"partitions": [2], "alpha": 8}}])
    out = printed(capsys, monkeypatch, "partitioned.py", folder)
    assert out.count("K = 1 (none)") == 1 and out.count("K = 2 (dask): all-reduce bus bandwidth") == 1
    lines = {("alpha=8" in line, int(line.split()[-13])): line.split() for line in out.splitlines()
             if line.startswith("bfs.distributed")}
    assert sorted(lines) == [(False, 1), (False, 2), (True, 2)]
    for line in lines.values():
        ms, single, model = float(line[-12]), float(line[-11]), float(line[-4])
        assert ms > 0 and single > 0 and model > 0
    assert out.count("GTEPS") == 3 and out.count("roots ") == 3 and "NOT VERIFIED" not in out


def test_generate_prints_what_each_run_generated(results, capsys, monkeypatch):
    """benchmarks/generate.py over the printers' sweep: a row per dataset its run generated (two
    lists and an R-MAT graph, written to disk), rows and parts from the manifest; a folder whose
    run generated nothing says so."""
    out = printed(capsys, monkeypatch, "generate.py", results)
    table = {line.split()[1]: line.split() for line in out.splitlines()[1:]}
    assert set(table) == {"n=4096_seed=1", "n=8192_seed=1", "edge_factor=8_scale=8_seed=1"}
    assert table["n=8192_seed=1"][4] == "8,192" and table["edge_factor=8_scale=8_seed=1"][4] == "2,048"
    assert all(float(row[-1]) > 0 and float(row[-2]) > 0 for row in table.values())
    (results.parent / "nothing").mkdir(exist_ok=True)
    assert "no generation recorded" in printed(capsys, monkeypatch, "generate.py", results.parent / "nothing")


PRINTERS = sorted(p.name for p in BENCHMARKS.glob("*.py") if p.name != "sssp_road_floor.py")


@pytest.mark.parametrize("script", PRINTERS)
def test_a_printer_given_a_folder_without_results_says_so_in_one_line(script, tmp_path, capsys, monkeypatch):
    with pytest.raises(SystemExit) as done:
        printed(capsys, monkeypatch, script, tmp_path / "missing")
    err = capsys.readouterr().err
    assert done.value.code == 2 and "Traceback" not in err
    assert err.startswith(f"{script}: error: ") and str(tmp_path / "missing") in err and err.count("\n") == 1
