"""Which kernel meets which dataset in a sweep (kind, capabilities, `datasets` patterns), the
roots of single-source problems, and how reduce summarises per-step, input and per-root rows."""

import numpy as np
import pandas as pd
import pytest

from graphsweep.datasets import write_arrays
from graphsweep.core.errors import ParameterError
from graphsweep.kernels import registry, throughput
from graphsweep.kernels.contract import Kernel, Param, Problem
from graphsweep.kernels.graph import graph_input, root_instances
from graphsweep.pipeline import reduce as reducer
from graphsweep.pipeline import sweep

SOURCE = Problem(name="toy-source", dataset_kind="graph", prepare=graph_input, verify=lambda i, p, o: {},
                 outputs=("dist",), requires=frozenset({"weighted"}), element="edge",
                 elements=lambda inp: inp.m, instances=root_instances)
TOYS = {k.name: k for k in (
    Kernel(name="toy.sssp", problem=SOURCE, summary="test", cpu=lambda i, p, t: np.zeros(i.n),
           params={"root": Param(None, minimum=0)}),
    Kernel(name="toy.cc", summary="test", cpu=lambda i, p, t: np.zeros(i.n),
           problem=Problem(name="toy-cc", dataset_kind="graph", prepare=graph_input, verify=lambda i, p, o: {},
                           outputs=("label",), requires=frozenset({"undirected"}))))}


@pytest.fixture(autouse=True)
def toys(monkeypatch):
    real = registry.get
    monkeypatch.setattr(registry, "get", lambda name: TOYS.get(name) or real(name))


def spec(**top):
    base = {"name": "s", "results": "/tmp/never-used",
            "datasets": [{"generator": "uniform", "params": {"n": 64, "weights": ["none", "1:9"]}},
                         {"generator": "list", "params": {"n": 64}},
                         {"generator": "ordered-list", "params": {"n": 64}}],
            "kernels": ["toy.sssp", "toy.cc", "listrank.scan", "listrank.sequential"]}
    return {**base, **top}


def test_pairs_follow_capabilities_and_the_rest_are_noted():
    plan = sweep.expand(spec())
    pairs = {(t.dataset.generator, t.dataset.params.get("weights"), t.kernel) for t in plan.tasks}
    assert pairs == {("uniform", "none", "toy.cc"), ("uniform", "1:9", "toy.cc"), ("uniform", "1:9", "toy.sssp"),
                     ("list", None, "listrank.sequential"), ("ordered-list", None, "listrank.sequential"),
                     ("ordered-list", None, "listrank.scan")}
    notes = {(d.split("_")[0], k): why for d, k, why in plan.skipped}
    assert notes[("uniform", "toy.sssp")] == "toy.sssp needs a weighted graph, and this is an undirected, unweighted graph"
    assert notes[("list", "listrank.scan")] == "listrank.scan needs an ordered list, and this is a list"
    assert notes[("list", "toy.cc")] == "toy.cc needs an undirected graph, and this is a list"
    assert notes[("uniform", "listrank.sequential")].startswith("listrank.sequential needs a list dataset")
    text = plan.describe()
    assert "skipped (" in text and "toy.sssp on uniform_n=64_weights=none_seed=1: toy.sssp needs a weighted graph" in text
    assert sweep.SweepPlan.from_json(plan.to_json()).skipped == plan.skipped


def test_kernel_datasets_patterns():
    plan = sweep.expand(spec(kernels=[{"name": "listrank.sequential", "datasets": "ordered-*"}]))
    assert [t.dataset.generator for t in plan.tasks] == ["ordered-list"]
    plan = sweep.expand(spec(kernels=[{"name": "listrank.sequential", "datasets": ["list_n=64_seed=1"]}]))
    assert [t.dataset.generator for t in plan.tasks] == ["list"]
    with pytest.raises(ParameterError, match=r"kernels\[0\].datasets: expected a dataset id"):
        sweep.expand(spec(kernels=[{"name": "listrank.sequential", "datasets": []}]))
    with pytest.raises(ParameterError, match="expands to no tasks \\(toy.sssp needs a weighted graph"):
        sweep.expand(spec(datasets=[{"generator": "uniform", "params": {"n": 64}}], kernels=["toy.sssp"]))


def test_path_datasets_use_their_manifest(tmp_path, make_list):
    write_arrays(tmp_path / "d", kind="graph", n=4, columns={"src": [0, 1], "dst": [1, 2]}, directed=True,
                 source={"test": 1})
    with pytest.raises(ParameterError, match="toy.cc needs an undirected graph, and this is a directed, unweighted"):
        sweep.expand(spec(datasets=[{"path": str(tmp_path / "d")}], kernels=["toy.cc"]))
    write_arrays(tmp_path / "w", kind="graph", n=4, columns={"src": [0, 1], "dst": [1, 2], "weight": [3, 4]},
                 weighted=True, source={"test": 1})
    plan = sweep.expand(spec(datasets=[{"path": str(tmp_path / "w")}], kernels=["toy.cc", "toy.sssp"]))
    assert [t.kernel for t in plan.tasks] == ["toy.cc", "toy.sssp"] and not plan.skipped


def test_roots_and_seed_are_part_of_single_source_tasks_only():
    one = sweep.expand(spec(roots=4, roots_seed=9))
    by_kernel = {t.kernel: t for t in one.tasks}
    assert (by_kernel["toy.sssp"].roots, by_kernel["toy.sssp"].roots_seed) == (4, 9)
    assert (by_kernel["toy.cc"].roots, by_kernel["toy.cc"].roots_seed) == (None, 0)
    other = {t.kernel: t for t in sweep.expand(spec(roots=8, roots_seed=9)).tasks}
    assert other["toy.sssp"].hash != by_kernel["toy.sssp"].hash
    assert other["toy.cc"].hash == by_kernel["toy.cc"].hash
    with pytest.raises(ParameterError, match="s.yaml: roots: 0 is below the minimum 1"):
        sweep.expand(spec(roots=0), source="s.yaml")


def test_the_old_top_level_seed_is_the_roots_seed_with_a_warning():
    with pytest.warns(FutureWarning, match="s.yaml: seed: deprecated at the top level; write 'roots_seed'"):
        old = sweep.expand(spec(roots=4, seed=9), source="s.yaml")
    new = sweep.expand(spec(roots=4, roots_seed=9))
    assert [t.hash for t in old.tasks] == [t.hash for t in new.tasks]    # the same tasks, the same result files
    with pytest.raises(ParameterError, match="s.yaml: seed: give the roots' seed once, as 'roots_seed'"):
        sweep.expand(spec(roots=4, seed=9, roots_seed=9), source="s.yaml")
    written = old.to_json()
    for task in written["tasks"]:                      # a plan.json from before the rename
        task["seed"] = task.pop("roots_seed")
    assert [t.roots_seed for t in sweep.SweepPlan.from_json(written).tasks] == [t.roots_seed for t in new.tasks]


def test_reduce_keeps_steps_and_inputs_apart_and_averages_rates_harmonically():
    base = {"sweep": "s", "dataset": "g", "generator": "rmat", "n": 100, "m": 1000, "elements": 1000,
            "kernel": "toy.sssp", "params": "{}", "backend": "gpu", "device": "H200", "verified": True,
            "error": None, "bytes_read": 8000, "bytes_written": 0, "random_accesses": 0, "calls": 1,
            "ceiling_copy_gbps": 4000.0, "task": "t1"}
    rows = []
    for instance, ms in enumerate([1.0, 2.0, 4.0]):      # three roots, two reps each
        for rep in range(2):
            rows.append({**base, "stage": "kernel", "phase": "total", "step": None, "instance": instance,
                         "rep": rep, "ms": ms, "stat_levels": 3 + instance})
        rows.append({**base, "stage": "kernel", "phase": "total", "step": 0, "instance": instance, "rep": 1,
                     "ms": 99.0})
    rows.append({**base, "stage": "input", "phase": "csr", "step": None, "instance": None, "rep": 0, "ms": 5.0})
    summary = reducer.summarize(pd.DataFrame(rows)).set_index(["stage", "phase"])
    total = summary.loc[("kernel", "total")]
    assert total["reps"] == 6 and total["mean_ms"] == pytest.approx(7 / 3)      # per-step row left out
    rates = [1000 / (ms / 1e3) / 1e9 for ms in (1.0, 2.0, 4.0)]
    assert total["instances"] == 3 and total["gelems_hmean"] == pytest.approx(throughput.harmonic_mean(rates))
    assert total["gelems_min"] == pytest.approx(min(rates)) and total["gelems_max"] == pytest.approx(max(rates))
    assert total["stat_levels"] == pytest.approx(4.0)
    # rates from the median of the timed runs (2 ms), the one time the report and figures use
    assert total["median_ms"] == 2.0 and total["gbps"] == pytest.approx(8000 / (2 / 1e3) / 1e9)
    assert total["ns_per_element"] == pytest.approx(2e6 / 1000)
    assert total["pct_copy_ceiling"] == pytest.approx(100 * total["gbps"] / 4000)
    csr = summary.loc[("input", "csr")]
    assert csr["reps"] == 1 and csr["mean_ms"] == 5.0


def test_throughput_rates():
    r = throughput.rates(2.0, 4e9, 1e6, 2e6, {"copy_gbps": 4000.0, "gather_gelems": 40.0, "chase_gsteps": 10.0})
    assert r["gbps"] == pytest.approx(2000) and r["pct_copy_ceiling"] == pytest.approx(50)
    assert r["random_per_s"] == pytest.approx(5e8) and r["pct_gather_ceiling"] == pytest.approx(1.25)
    assert r["pct_chase_ceiling"] == pytest.approx(5) and r["gelems_per_s"] == pytest.approx(1.0)
    assert r["ns_per_element"] == pytest.approx(1.0)
    assert np.isnan(throughput.rates(1.0, 0, 0, 1)["random_per_s"])
    assert np.isnan(throughput.harmonic_mean([])) and throughput.harmonic_mean([1.0, 4.0]) == pytest.approx(1.6)


def test_a_rate_over_the_links_ceiling_is_flagged_in_rows_summary_and_report_table():
    from graphsweep.pipeline.figures.rates import table_over_ceiling
    ceilings = {"h2d_gbps": 55.0}
    # bfs.emogi on a host-placed R-MAT 29: 88.5 GB over the link in 546 ms, against 55 GB/s
    assert throughput.rates(546.0, 0, 0, 1, ceilings, link_bytes=88.5e9)["over_ceiling"] == "link"
    assert throughput.rates(546.0, 0, 0, 1, ceilings, link_bytes=56.0 * 0.546e9)["over_ceiling"] is None  # noise
    assert throughput.rates(546.0, 0, 0, 1, {}, link_bytes=88.5e9)["over_ceiling"] is None    # no ceiling known
    base = {"sweep": "s", "dataset": "rmat-29", "n": 2**29, "m": 2**29 * 20, "elements": 2**29 * 20,
            "kernel": "bfs.emogi", "params": "{}", "backend": "gpu", "placement": "host", "verified": True,
            "error": None, "bytes_read": 0, "bytes_written": 0, "random_accesses": 0, "calls": 1, "step": None,
            "instance": 0, "stage": "kernel", "ceiling_h2d_gbps": 55.0, "task": "t1"}
    rows = pd.DataFrame([{**base, "phase": phase, "rep": rep, "ms": ms, "bytes_link": link}
                         for rep in range(3) for phase, ms, link in (("level", 546.0, 88.5e9),
                                                                      ("stream", 1600.0, 86e9))])
    summary = reducer.summarize(rows)
    flags = summary.set_index("phase")["over_ceiling"]
    assert flags["level"] == "link" and pd.isna(flags["stream"])      # 53.8 GB/s: under the ceiling
    flagged = table_over_ceiling(summary)
    assert list(flagged["phase"]) == ["level"] and flagged["link_gbps"].iloc[0] == pytest.approx(162, rel=0.01)
    assert table_over_ceiling(reducer.summarize(rows[rows["phase"] == "stream"])) is None


def test_a_rate_over_the_links_ceiling_is_worded_with_kernel_phase_rate_and_ceiling(caplog):
    ceilings = {"h2d_gbps": 55.0}
    # bfs.emogi's level rows on a host-placed R-MAT 29 (88.5 GB in 546 ms), a stream under the ceiling
    rows = [{"phase": "level", **throughput.rates(ms, 0, 0, 1, ceilings, link_bytes=link)}
            for ms, link in ((546.0, 88.5e9), (700.0, 88.5e9))]
    rows.append({"phase": "stream", **throughput.rates(1600.0, 0, 0, 1, ceilings, link_bytes=86e9)})
    assert throughput.over_ceiling_warnings("bfs.emogi", rows, ceilings) == [
        "bfs.emogi: phase level moved 162.1 GB/s over the host link, above its measured ceiling of 55.0 GB/s by "
        "more than the ceiling's noise (5%): the byte model counts bytes that did not cross the link"]
    within = [{"phase": "level", **throughput.rates(1000.0, 0, 0, 1, ceilings, link_bytes=57e9)}]   # 3.6% over
    assert throughput.over_ceiling_warnings("bfs.emogi", within, ceilings) == []
    # the worker logs the same line for the task (its rows name the kernel that ran: bfs.best stood for it)
    from types import SimpleNamespace

    from graphsweep.pipeline import worker
    with caplog.at_level("WARNING", logger="graphsweep.worker"):
        worker._warn_over_ceiling(SimpleNamespace(label="bfs.best on rmat-29", kernel="bfs.best"),
                                  [{**r, "kernel": "bfs.emogi"} for r in rows], ceilings)
    assert [r.getMessage() for r in caplog.records] == [
        "task bfs.best on rmat-29: " + throughput.over_ceiling_warnings("bfs.emogi", rows, ceilings)[0]]


def test_worker_rows_carry_stage_step_instance_and_rates(tmp_path):
    from graphsweep.datasets.reader import Dataset
    from graphsweep.kernels import harness
    from graphsweep.pipeline import worker

    rng = np.random.default_rng(1)
    data = Dataset.in_memory("graph", 50, src=rng.integers(0, 50, 300).astype(np.int32),
                             dst=rng.integers(0, 50, 300).astype(np.int32),
                             weight=rng.integers(1, 9, 300).astype(np.int32))

    def run(inp, params, timer):
        for level in range(3):
            with timer.phase("level", read=400, step=level, info={"frontier": level + 1}):
                pass
        timer.stat("levels", 3)
        return np.zeros(inp.n)

    kernel = Kernel(name="toy.sssp", problem=SOURCE, summary="test", cpu=run, needs=("csr",),
                    params={"root": Param(None, minimum=0)})
    registry_get = registry.get
    try:
        registry.get = lambda name: kernel
        result = harness.run("toy.sssp", data, backend="cpu", reps=2, warmup=0, instances=2, instance_seed=3)
    finally:
        registry.get = registry_get
    plan = sweep.expand(spec(datasets=[{"generator": "uniform", "params": {"n": 64, "weights": "1:9"}}],
                             kernels=["toy.sssp"], roots=2, roots_seed=3))
    timing = {f"{stage}_s": 0.0 for stage in ("load", "prepare", "warmup", "quiet", "timed", "stats", "verify", "kernel",
                                              "task", "ceilings")}
    timing.update(started_at=0.0, compile_s=0.0, first_warmup=False, first_run_s=0.0)
    rows = worker.result_rows(plan.tasks[0], "run", result, {"copy_gbps": 100.0}, timing)
    frame = pd.DataFrame(rows)
    assert set(frame["stage"]) == {"kernel", "input"}
    kernel_rows = frame[(frame["stage"] == "kernel") & frame["step"].isna()]
    assert len(kernel_rows) == 2 * 2 * 2                       # instances x reps x (total, level)
    steps = frame[frame["step"].notna()]
    assert len(steps) == 2 * 3 and set(steps["step_frontier"]) == {1, 2, 3} and set(steps["rep"]) == {1}
    assert set(frame["inst_root"].dropna()) == {i["root"] for i in result.instances}
    assert (frame["elements"] == 300).all() and (frame["stat_levels"].dropna() == 3).all()
    level = kernel_rows[kernel_rows["phase"] == "level"].iloc[0]
    assert level["gbps"] == pytest.approx(1200 / (level["ms"] / 1e3) / 1e9)
    assert set(worker.ROW) <= set(frame.columns)


def test_a_group_of_roots_counts_its_edges_once_per_root_in_rows_summary_and_history(tmp_path):
    """bc.batched's 8 roots in 2 groups of 4: its rows count 4 m edges and cover 4 runs, so its
    G edges/s is per root as bc.brandes's; an estimate's history counts 8 runs of m edges a rep."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from graphsweep.datasets.reader import Dataset
    from graphsweep.kernels import harness
    from graphsweep.pipeline import history, worker

    rng = np.random.default_rng(2)
    data = Dataset.in_memory("graph", 64, src=rng.integers(0, 64, 300).astype(np.int32),
                             dst=rng.integers(0, 64, 300).astype(np.int32))
    result = harness.run("bc.batched", data, backend="cpu", reps=2, warmup=0, instances=8, instance_seed=3)
    [task] = sweep.expand(spec(datasets=[{"generator": "uniform", "params": {"n": 64}}], kernels=["bc.batched"],
                               roots=8, roots_seed=3)).tasks
    timing = {f"{stage}_s": 0.0 for stage in ("load", "prepare", "warmup", "quiet", "timed", "stats", "verify", "kernel",
                                              "task", "ceilings")}
    timing.update(started_at=0.0, compile_s=0.0, first_warmup=False, first_run_s=0.0)
    frame = pd.DataFrame(worker.result_rows(task, "run", result, {"copy_gbps": 100.0}, timing))
    kernel_rows, input_rows = frame[frame["stage"] == "kernel"], frame[frame["stage"] == "input"]
    assert (kernel_rows["elements"] == 4 * 300).all() and (kernel_rows["covers"] == 4).all()
    assert (input_rows["elements"] == 300).all() and input_rows["covers"].isna().all()
    row = kernel_rows.iloc[0]
    assert row["gelems_per_s"] == pytest.approx(4 * 300 / (row["ms"] / 1e3) / 1e9)
    total = reducer.summarize(frame).query("stage == 'kernel' and phase == 'total'").iloc[0]
    assert total["instances"] == 2 and total["elements"] == 4 * 300
    path = tmp_path / "task.parquet"
    pq.write_table(pa.Table.from_pandas(frame.assign(task_s=1.0), preserve_index=False), path)
    [record] = history._task_records(path)
    assert (record.elements, record.runs) == (300, 2 * 8)


def test_memory_check_charges_each_placement_its_own_largest_task(tmp_path):
    from graphsweep.core.capacity import NoRoomError
    from graphsweep.pipeline import estimate

    plan = sweep.expand(spec(results=str(tmp_path / "r"), data=str(tmp_path / "d"),
                             datasets=[{"generator": "list", "params": {"n": [2**30, 2**10]}}],
                             kernels=["listrank.wyllie",
                                      {"name": "listrank.sequential", "datasets": "list_n=1024*"}]))
    # On a GPU host the 2^30 tasks need device memory; the CPU twin only sees the small list.
    estimate.check(plan, has_gpu=True, host_memory=2**30, device_memory=2**40)
    with pytest.raises(NoRoomError, match="need .* of memory for a CPU kernel task on this host, have 1.00 GiB"):
        estimate.check(plan, has_gpu=False, host_memory=2**30, device_memory=None)
