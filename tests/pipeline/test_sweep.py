"""Sweep specs: grid expansion, task identity, and one clear error per fault."""

import pytest
import yaml

from graphsweep.datasets import write_arrays
from graphsweep.core.errors import ParameterError
from graphsweep.pipeline import sweep


def spec(**top):
    base = {"name": "s", "results": "/tmp/never-used", "datasets": [{"generator": "list", "params": {"n": 1024}}],
            "kernels": [{"name": "listrank.sequential"}]}
    return {**base, **top}


def test_grid_expands_dataset_by_dataset():
    plan = sweep.expand(spec(
        datasets=[{"generator": "list", "params": {"n": {"pow2": [10, 14, 2]}}, "seed": [1, 2]}],
        kernels=[{"name": "listrank.sequential"},
                 {"name": "listrank.wyllie", "params": {"threads": {"range": [128, 384, 128]}}}]))
    assert [d.params["n"] for d in plan.datasets] == [1024, 1024, 4096, 4096, 16384, 16384]
    assert [d.seed for d in plan.datasets[:2]] == [1, 2]
    assert len(plan.tasks) == 6 * (1 + 3)
    # consecutive tasks share a dataset: each dataset's tasks form one run in the plan
    order = [t.dataset.id for t in plan.tasks]
    assert all(order[i * 4:(i + 1) * 4] == [plan.datasets[i].id] * 4 for i in range(6))
    assert [t.params["threads"] for t in plan.tasks[1:4]] == [128, 256, 384]
    assert [t.index for t in plan.tasks] == list(range(len(plan.tasks)))
    assert len({t.hash for t in plan.tasks}) == len(plan.tasks)
    assert len({t.key for t in plan.tasks}) == len(plan.tasks)


def test_task_hash_is_stable_and_names_what_matters():
    a, b = sweep.expand(spec()), sweep.expand(spec(name="other", results="/tmp/elsewhere"))
    assert a.tasks[0].hash == b.tasks[0].hash  # where results go does not change what a task is
    assert sweep.expand(spec(reps=3)).tasks[0].hash != a.tasks[0].hash
    # defaults are filled in, so spelling out a default is the same task
    c = sweep.expand(spec(kernels=[{"name": "listrank.wyllie"}]))
    d = sweep.expand(spec(kernels=[{"name": "listrank.wyllie", "params": {"threads": 256}}]))
    assert c.tasks[0].hash == d.tasks[0].hash


# Dataset ids and cc.best task hashes as they were before the generators took permute_ids (main at
# 82fd3f9): a parameter an identity leaves out at its default renames no dataset and no task.
BEFORE_PERMUTE_IDS = [
    ("list-graph", {"n": 100}, "list-graph_n=100_seed=3", "c0bb79a2e807c0e9"),
    ("tree", {"n": 100}, "tree_n=100_seed=3", "3875901a1b114fa5"),
    ("recursive-tree", {"n": 100}, "recursive-tree_n=100_seed=3", "c461d72fd1282d5e"),
    ("density", {"m": 100}, "density_m=100_seed=3", "c1c9995bbf7ac496"),
    ("uniform", {"n": 100}, "uniform_n=100_seed=3", "971f944107e5d5df"),
    ("scale-free", {"n": 100}, "scale-free_n=100_seed=3", "af5628e6198b23f2"),
    ("rmat", {"scale": 5}, "rmat_scale=5_seed=3", "4f892adaeeed6bc7"),
    ("grid", {"rows": 10, "cols": 10}, "grid_rows=10_cols=10_seed=3", "6ed450965a3d2241"),
]


@pytest.mark.parametrize("generator,params,name,task", BEFORE_PERMUTE_IDS)
def test_permute_ids_at_its_default_leaves_names_and_hashes_as_they_were(generator, params, name, task):
    def planned(**extra):
        return sweep.expand(spec(data="/tmp/d", kernels=["cc.best"],
                                 datasets=[{"generator": generator, "params": {**params, **extra}, "seed": 3}]))

    for plan in (planned(), planned(permute_ids=False)):
        assert (plan.datasets[0].id, plan.tasks[0].hash) == (name, task)
        assert plan.datasets[0].path == f"/tmp/d/{name}" and "permute_ids" not in plan.datasets[0].params
    permuted = planned(permute_ids=True)
    assert permuted.datasets[0].id == name.replace("_seed=3", "_permute_ids=True_seed=3")
    assert permuted.datasets[0].params["permute_ids"] is True and permuted.tasks[0].hash != task


def test_a_dataset_made_before_permute_ids_is_still_the_sweeps(tmp_path):
    from graphsweep.generators import generate
    from graphsweep.pipeline.worker import made_already
    grids = {"generator": "grid", "params": {"rows": 8, "cols": 8, "permute_ids": [False, True]}}
    plan = sweep.expand(spec(data=str(tmp_path), kernels=["cc.best"], datasets=[grids]))
    plain, permuted = plan.datasets
    generate("grid", plain.path, seed=1, params={"rows": 8, "cols": 8}, progress=False)
    assert made_already(plain) == {"id": plain.id, "path": plain.path, "error": None}
    assert made_already(permuted) is None


def test_a_sweep_dataset_coerces_its_generator_parameters_once(tmp_path, monkeypatch):
    # The spec's generator parameters are coerced as it is read (they name and identify the dataset);
    # its generation, written by a generation task or made in memory by a kernel task's worker,
    # takes them as they are (#33); called by name (the CLI, the Python API) the generator coerces them
    from distributed import Client, LocalCluster

    from graphsweep.core.params import Param
    from graphsweep.datasets.format import read_manifest
    from graphsweep.generators import generate
    from graphsweep.pipeline import worker
    coerced = []
    coerce = Param.coerce
    monkeypatch.setattr(Param, "coerce", lambda p, name, value: coerced.append((name, value)) or coerce(p, name, value))
    given = {"scale": 6, "edge_factor": 4}
    plan = sweep.expand(spec(data=str(tmp_path / "data"), kernels=["cc.best"],
                             datasets=[{"generator": "rmat", "params": given},
                                       {"generator": "rmat", "params": {**given, "scale": 7}, "store": "memory"}]))
    written, in_memory = plan.datasets
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as one, \
            Client(one) as client:
        assert client.submit(worker.generate_dataset, written, plan.part_rows, "cpu").result()["error"] is None
    data, _ = worker.WorkerState().dataset(in_memory, "cpu")
    assert (coerced.count(("scale", 6)), coerced.count(("scale", 7))) == (1, 1), coerced
    # the same dataset, byte for byte, as the generator called by name makes
    direct = read_manifest(generate("rmat", tmp_path / "direct", seed=1, params=given, progress=False))
    assert coerced.count(("scale", 6)) == 2, coerced
    made = read_manifest(written.path)
    assert (made["generator"], made["parts"]) == (direct["generator"], direct["parts"])
    assert data.manifest["generator"] == {"name": "rmat", "params": in_memory.params, "seed": 1} and data.m == 4 << 7
    with pytest.raises(TypeError, match="given its parameters resolved"):
        generate("rmat", tmp_path / "both", seed=1, params=given, resolved=written.resolved)
    # a plan read back from before the resolved parameters were kept: its identity, resolved again
    from dataclasses import replace
    old = replace(in_memory, resolved=None)
    assert old.generator_params == {"params": in_memory.params}
    assert worker.WorkerState().dataset(old, "cpu")[0].manifest["generator"] == data.manifest["generator"]


def test_plan_round_trips_through_json():
    plan = sweep.expand(spec(kernels=[{"name": "listrank.wyllie", "params": {"threads": [64, 128]}}]))
    again = sweep.SweepPlan.from_json(yaml.safe_load(yaml.safe_dump(plan.to_json())))
    assert again.fingerprint == plan.fingerprint
    assert [t.label for t in again.tasks] == [t.label for t in plan.tasks]


def test_path_datasets_pair_only_with_kernels_of_their_kind(tmp_path, make_list):
    write_arrays(tmp_path / "l", kind="list", n=64, columns={"succ": make_list(64)}, source={"test": 1})
    write_arrays(tmp_path / "g", kind="graph", n=4, columns={"src": [0, 1], "dst": [1, 2]}, source={"test": 1})
    plan = sweep.expand(spec(datasets=[{"path": [str(tmp_path / "l"), str(tmp_path / "g")]}]))
    assert [(t.dataset.id, t.kernel) for t in plan.tasks] == [("l", "listrank.sequential")]


@pytest.mark.parametrize("change, message", [
    ({"rep": 3}, "s.yaml: rep: unknown key (allowed: name, results"),
    ({"reps": "many"}, "s.yaml: reps: 'many' is not an integer"),
    ({"reps": 0}, "s.yaml: reps: 0 is below the minimum 1"),
    ({"backend": "tpu"}, "s.yaml: backend: 'tpu' is not one of auto, gpu, cpu"),
    ({"on_failure": "panic"}, "s.yaml: on_failure: 'panic' is not one of continue, stop"),
    ({"verify": "yes"}, "s.yaml: verify: 'yes' is not true or false"),
    ({"kernels": [{"name": "listrank.sequential"}, {"name": "listrank.wyllie", "params": {"threads": "abc"}}]},
     "s.yaml: kernels[1].params.threads: 'abc' is not an integer"),
    ({"kernels": [{"name": "listrank.wyllie", "params": {"treads": 1}}]},
     "s.yaml: kernels[0].params.treads: listrank.wyllie has no such parameter (allowed: blocks, threads)"),
    ({"kernels": [{"name": "listrank.nope"}]}, "s.yaml: kernels[0].name: unknown kernel 'listrank.nope' (known: "),
    ({"kernels": [{"name": "listrank.sequential"}], "backend": "gpu"},
     "s.yaml: kernels[0].name: listrank.sequential has no gpu implementation"),
    ({"datasets": [{"generator": "lists"}]}, "s.yaml: datasets[0].generator: unknown generator 'lists' (known: "),
    ({"datasets": [{"generator": "list", "params": {"n": "big"}}]}, "s.yaml: datasets[0].params.n: 'big' is not an integer"),
    ({"datasets": [{"generator": "list", "params": {"n": {"pow2": [12]}}}]}, "s.yaml: datasets[0].params.n.pow2: expected [lo, hi]"),
    ({"datasets": [{"generator": "list", "params": {"n": {"log": [1, 2]}}}]}, "s.yaml: datasets[0].params.n: a mapping must be one of"),
    ({"datasets": [{"path": "/no/such/dataset"}]}, "s.yaml: datasets[0].path: /no/such/dataset: no such dataset directory"),
    ({"datasets": [{"generator": "list", "path": "x"}]}, "s.yaml: datasets[0]: give exactly one of 'generator' and 'path'"),
    ({"datasets": []}, "s.yaml: datasets: expected a non-empty list"),
])
def test_each_fault_is_one_error_naming_key_and_allowed_values(change, message):
    with pytest.raises(ParameterError) as err:
        sweep.expand(spec(**change), source="s.yaml")
    assert str(err.value).startswith(message), str(err.value)


def test_unreadable_spec_files(tmp_path):
    with pytest.raises(ParameterError, match="no such sweep spec"):
        sweep.load(tmp_path / "missing.yaml")
    (tmp_path / "bad.yaml").write_text("kernels: [unclosed")
    with pytest.raises(ParameterError, match="bad.yaml:1:19: not valid YAML"):
        sweep.load(tmp_path / "bad.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(ParameterError, match="list.yaml: expected a mapping"):
        sweep.load(tmp_path / "list.yaml")


def test_dry_run_prints_the_plan_and_exit_codes(tmp_path, gs, write_spec):
    path = write_spec(tmp_path, kernels=[{"name": "listrank.wyllie", "params": {"threads": [64, 128]}}])
    rc, out, err = gs("run", path, "--dry-run")
    assert rc == 0, err
    assert "4 tasks over 2 datasets (2 generated)" in out
    assert "listrank.wyllie(threads=128) on list_n=2048_seed=1" in out
    assert not (tmp_path / "results-t").exists()  # a dry run touches nothing
    (tmp_path / "typo.yaml").write_text(path.read_text().replace("reps:", "repz:"))
    rc, out, err = gs("run", tmp_path / "typo.yaml", "--dry-run")
    assert rc == 2 and err.count("\n") == 1 and "typo.yaml: repz: unknown key" in err
    rc, out, err = gs("run", "--dry-run")
    assert rc == 2 and "give a sweep SPEC or --default" in err


def test_default_sweep_and_shipped_sweeps_expand():
    from pathlib import Path

    from graphsweep.pipeline.cli_sweep import DEFAULT_SPEC
    plan = sweep.load(DEFAULT_SPEC)
    assert plan.name == "default" and len(plan.tasks) >= 10
    shipped = sorted((Path(__file__).parents[2] / "sweeps").glob("*.yaml"))
    assert shipped, "sweeps/*.yaml missing"
    for path in shipped:
        assert sweep.load(path).tasks, path


def test_gap_scales_runs_gap_suites_kernels_on_three_sizes_of_its_graphs():
    # the sweep issue #34's scaling is measured on: gap-suite's kernel entries on kron and urand
    # at scales 21, 22 and 23, scale 22 being gap-suite's own graphs (one dataset on disk for both)
    from pathlib import Path
    shipped = Path(__file__).parents[2] / "sweeps"
    scales, suite = sweep.load(shipped / "gap-scales.yaml"), sweep.load(shipped / "gap-suite.yaml")
    assert len(scales.tasks) == 3 * len(suite.tasks) == 156
    assert {t.hash for t in suite.tasks} < {t.hash for t in scales.tasks}
    assert {d.path for d in suite.datasets} < {d.path for d in scales.datasets}
    assert sorted((d.generator, d.params.get("scale", d.params.get("n"))) for d in scales.datasets) == [
        ("rmat", 21), ("rmat", 22), ("rmat", 23), ("uniform", 1 << 21), ("uniform", 1 << 22), ("uniform", 1 << 23)]


def test_cc_families_ships_permuted_twins_and_keeps_its_earlier_tasks():
    from dataclasses import replace
    from pathlib import Path
    plan = sweep.load(Path(__file__).parents[2] / "sweeps" / "cc-families.yaml")
    assert (len(plan.datasets), len(plan.tasks)) == (14, 70)   # as its header says
    permuted = [d for d in plan.datasets if d.params.get("permute_ids")]
    assert sorted(d.generator for d in permuted) == ["density", "grid", "rmat", "uniform"]
    plain = {(d.generator, d.seed, tuple(sorted(d.params.items()))) for d in plan.datasets}
    for d in permuted:   # each the twin of a dataset in generation order
        twin = {k: v for k, v in d.params.items() if k != "permute_ids"}
        assert (d.generator, d.seed, tuple(sorted(twin.items()))) in plain
    # the 50 tasks it had before its permuted twins, their hashes unchanged (fingerprint then)
    earlier = replace(plan, tasks=[t for t in plan.tasks if t.dataset not in permuted])
    assert len(earlier.tasks) == 50 and earlier.fingerprint == "1bd10b8870244d19"


# --- store: memory and placement (graphs larger than the GPU) --------------------------------

def test_a_memory_dataset_is_the_same_dataset_as_its_parquet_twin_and_is_never_written():
    graph = {"generator": "rmat", "params": {"scale": 8}}
    parquet = sweep.expand(spec(datasets=[graph], kernels=["cc.best"]))
    memory = sweep.expand(spec(datasets=[{**graph, "store": "memory"}], kernels=["cc.best"]))
    assert memory.datasets[0].in_memory and not parquet.datasets[0].in_memory
    assert memory.tasks[0].hash == parquet.tasks[0].hash           # the same graph: the same task
    assert memory.datasets[0].path.startswith("<memory:")
    assert "generated datasets go to" not in memory.describe()
    assert "(in memory)" in memory.tasks[0].label


def test_memory_store_of_an_imported_dataset_is_refused_in_one_line(tmp_path):
    path = write_arrays(tmp_path / "g", kind="graph", n=4, columns={"src": [0, 1], "dst": [1, 2]}, source={"test": 1})
    with pytest.raises(ParameterError, match=r"datasets\[0\]\.store: 'memory' regenerates") as err:
        sweep.expand(spec(datasets=[{"path": str(path), "store": "memory"}], kernels=["cc.best"]))
    assert "\n" not in str(err.value)
    with pytest.raises(ParameterError, match=r"store: 'disk' is not one of parquet, memory"):
        sweep.expand(spec(datasets=[{"generator": "rmat", "store": "disk"}], kernels=["cc.best"]))


def test_a_kernel_entry_can_force_a_placement_and_it_is_part_of_the_task():
    graph = [{"generator": "rmat", "params": {"scale": 8}}]
    plain = sweep.expand(spec(datasets=graph, kernels=["cc.best"]))
    host = sweep.expand(spec(datasets=graph, kernels=[{"name": "cc.best", "placement": "host"}]))
    assert host.tasks[0].placement == "host" and plain.tasks[0].placement is None
    assert host.tasks[0].hash != plain.tasks[0].hash and "[placement host]" in host.tasks[0].label
    with pytest.raises(ParameterError, match=r"kernels\[0\]\.placement: 'disk' is not one of device, host"):
        sweep.expand(spec(datasets=graph, kernels=[{"name": "cc.best", "placement": "disk"}]))
    with pytest.raises(ParameterError, match="not a graph kernel"):
        sweep.expand(spec(kernels=[{"name": "listrank.wyllie", "placement": "host"}]))
    with pytest.raises(ParameterError, match="'device' needs a GPU backend"):
        sweep.expand(spec(datasets=graph, backend="cpu", kernels=[{"name": "cc.best", "placement": "device"}]))


def test_the_estimate_places_a_graph_larger_than_the_gpu_in_host_memory_and_writes_no_disk():
    from graphsweep.core.capacity import NoRoomError
    from graphsweep.pipeline import estimate
    big = {"generator": "rmat", "params": {"scale": 29, "edge_factor": 20}, "store": "memory"}
    plan = sweep.expand(spec(datasets=[big], kernels=["cc.best", "bfs.best"], roots=16))
    GiB = 1 << 30
    [cost] = estimate.costs(plan, has_gpu=True, memory=(80 * GiB, 128 * GiB))
    assert cost.placements == ("host",) and cost.disk_bytes == 0 and cost.generate_bytes == 0
    assert 80 * GiB <= cost.host_bytes < 90 * GiB and cost.task_bytes < 40 * GiB
    estimate.check(plan, has_gpu=True, host_memory=128 * GiB, device_memory=80 * GiB)
    with pytest.raises(NoRoomError, match="fits neither the GPU nor the host") as err:
        estimate.check(plan, has_gpu=True, host_memory=64 * GiB, device_memory=80 * GiB)
    assert "\n" not in str(err.value) and "64.00 GiB" in str(err.value)
    forced = sweep.expand(spec(datasets=[{**big, "params": {"scale": 20}}],
                               kernels=[{"name": "cc.best", "placement": "host"}, "bfs.best"]))
    [cost] = estimate.costs(forced, has_gpu=True, memory=(80 * GiB, 128 * GiB))
    assert cost.placements == ("device", "host")


def test_the_estimate_divides_a_graph_sliced_over_k_gpus_and_refuses_what_they_cannot_hold():
    """Issue #31's graph: R-MAT 30 at edge factor 24 (a 192 GiB CSR) over 4 GPUs: about a quarter
    of it per worker, with its rows, the arrays over every vertex and build space.  Four H200s hold
    it; four GPUs of 88 GiB hold the graph together but not a worker's planned slice; two 80 GB GPUs
    not the graph — each refused in one line naming both sizes."""
    from graphsweep.core.capacity import NoRoomError
    from graphsweep.pipeline import estimate
    GiB = 1 << 30
    big = {"generator": "rmat", "params": {"scale": 30, "edge_factor": 24}, "store": "memory"}
    plan = sweep.expand(spec(datasets=[big], kernels=[{"name": "cc.distributed", "params": {"partitions": 4}}]))
    [cost] = estimate.costs(plan, has_gpu=True, memory=(141 * 10**9, 2000 * GiB))
    assert cost.sliced == (4,) and cost.placements == () and cost.host_bytes == 0
    assert 192 * GiB / 4 < cost.task_bytes < 90 * GiB
    estimate.check(plan, has_gpu=True, host_memory=2000 * GiB, device_memory=141 * 10**9)
    with pytest.raises(NoRoomError, match=r"over 4 GPUs: a worker's slice needs 81.80 GiB of GPU memory \(52.80 GiB "
                                          r"of CSR as planned.*a GPU has 88.00 GiB") as err:
        estimate.check(plan, has_gpu=True, host_memory=2000 * GiB, device_memory=88 * GiB)
    assert "\n" not in str(err.value)
    two = sweep.expand(spec(datasets=[big], kernels=[{"name": "cc.distributed", "params": {"partitions": 2}}]))
    with pytest.raises(NoRoomError, match=r"over 2 GPUs: the 2 GPUs together hold 134.11 GiB, the graph needs "
                                          r"268.00 GiB"):
        estimate.costs(two, has_gpu=True, memory=(80 * 10**9, 2000 * GiB))
    lines, _ = estimate.describe(plan, has_gpu=True)
    assert any("sliced over 4 GPUs" in line for line in lines)


def test_one_kernel_run_sliced_over_k_gpus_is_checked_per_worker(monkeypatch):
    """``graphsweep kernel cc.distributed DATASET --param partitions=K`` makes the same check."""
    from graphsweep.core.capacity import NoRoomError
    from graphsweep.kernels import placement
    from graphsweep.pipeline import estimate
    GiB = 1 << 30
    monkeypatch.setattr(placement, "machine_memory", lambda backend: (88 * GiB, 2000 * GiB))
    manifest = {"kind": "graph", "n": 2**30, "m": 24 * 2**30, "index_dtype": "int32"}
    estimate.check_kernel(manifest, on_gpu=True, subject="cc.distributed on big", graph=True, sliced=8)
    with pytest.raises(NoRoomError, match="cc.distributed on big .* over 4 GPUs: a worker's slice needs"):
        estimate.check_kernel(manifest, on_gpu=True, subject="cc.distributed on big", graph=True, sliced=4)


@pytest.mark.parametrize("text, message", [
    ("name: s\nreps: 2\nkernels: [listrank.sequential]\nreps: 3\n",
     "d.yaml:4:1: duplicate key 'reps' (first given at line 2)"),
    ("name: s\nkernels:\n  - name: listrank.wyllie\n    params: {threads: 64, threads: 128}\n",
     "d.yaml:4:27: duplicate key 'threads' (first given at line 4)"),
    ("name: s\nkernels: [listrank.sequential\ndatasets: []\n",
     "d.yaml:3:9: not valid YAML: expected ',' or ']', but got ':' (while parsing a flow sequence at line 2)"),
    ("name: s\n  reps: 2\n",
     "d.yaml:2:7: not valid YAML: mapping values are not allowed here"),
])
def test_a_key_given_twice_and_a_syntax_error_are_one_line_naming_file_line_and_column(tmp_path, text, message):
    (tmp_path / "d.yaml").write_text(text)
    with pytest.raises(ParameterError) as err:
        sweep.load(tmp_path / "d.yaml")
    assert str(err.value) == f"{tmp_path / message}"


def test_checksums_are_a_sweep_key_every_dataset_carries(tmp_path):
    assert all(d.checksums for d in sweep.expand(spec()).datasets)
    plan = sweep.expand(spec(checksums=False))
    assert not any(d.checksums for d in plan.datasets)
    assert plan.tasks[0].hash == sweep.expand(spec()).tasks[0].hash   # not part of what a task is
    with pytest.raises(ParameterError, match="checksums: 'no' is not true or false"):
        sweep.expand(spec(checksums="no"), source="s.yaml")


def test_an_alias_is_asked_for_by_name_and_labels_its_tasks():
    plan = sweep.expand(spec(kernels=["listrank.best", "listrank.wyllie"]))
    best, wyllie = plan.tasks
    assert (best.kernel, best.asked) == ("listrank.recursive-splitter", "listrank.best")
    assert best.label.startswith("listrank.best = listrank.recursive-splitter(") and wyllie.asked is None
    again = sweep.SweepPlan.from_json(yaml.safe_load(yaml.safe_dump(plan.to_json())))
    assert again.tasks[0].asked == "listrank.best" and again.fingerprint == plan.fingerprint
