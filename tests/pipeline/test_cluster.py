"""Cluster profiles, and the README's main command on the embedded cluster (CPU here, GPU marked)."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from graphsweep.core import gpu
from graphsweep.core.errors import GraphsweepError
from graphsweep.pipeline import cluster, store

REPO = Path(__file__).parents[2]


def test_builtin_and_file_profiles(tmp_path):
    assert {"local-gpu", "local-cpu"} <= set(cluster.profiles())
    shipped = cluster.profiles(REPO / "cluster.yaml")
    assert {n: p["kind"] for n, p in shipped.items()} == {
        "local-gpu": "local-gpu", "local-gpu-rmm": "local-gpu", "local-cpu": "local-cpu", "shared": "scheduler-file",
        "lab": "address", "slurm": "slurm"}
    assert cluster.resolve("tcp://host:8786")[1] == {"kind": "address", "address": "tcp://host:8786"}
    assert cluster.resolve("sched.json")[1]["kind"] == "scheduler-file"
    assert cluster.is_long_lived(cluster.resolve("lab", REPO / "cluster.yaml")[1])
    assert not cluster.is_long_lived(cluster.resolve("slurm", REPO / "cluster.yaml")[1])


@pytest.mark.skipif(gpu.available(), reason="auto picks local-gpu where there is a GPU")
def test_auto_picks_local_cpu_without_a_gpu():
    name, profile = cluster.resolve("auto")
    assert name == "local-cpu" and profile["kind"] == "local-cpu"


@pytest.mark.parametrize("profiles, message", [
    ({"x": {"kind": "k8s"}},
     "profiles.x.kind: 'k8s' is not one of local-gpu, local-cpu, scheduler-file, address, slurm"),
    ({"x": {"kind": "address", "adress": "tcp://a:1"}}, "profiles.x.adress: unknown key for kind address"),
    ({"x": {"kind": "local-cpu", "options": [1]}}, "profiles.x.options: expected a mapping"),
])
def test_bad_cluster_files_are_one_clear_error(tmp_path, profiles, message):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"profiles": profiles}))
    with pytest.raises(GraphsweepError, match=message.replace(".", r"\.").replace("(", r"\(")):
        cluster.resolve("x", path)


def test_unknown_profile_and_unreachable_scheduler(tmp_path, gs):
    spec = REPO / "pipeline" / "sweeps" / "default.yaml"
    rc, out, err = gs("run", spec, "--cluster", "nosuch", "--results", tmp_path / "r")
    assert rc == 2 and "--cluster: unknown profile 'nosuch' (known: auto, " in err
    rc, out, err = gs("run", spec, "--cluster", str(tmp_path / "gone.json"), "--results", tmp_path / "r2")
    assert rc == 2 and "gone.json does not exist (is the scheduler running?)" in err
    assert err.count("\n") == 1


def _default_sweep(tmp_path, gs_process, *args):
    proc = gs_process("run", "--default", *args, cwd=tmp_path)
    out, err = proc.communicate(timeout=300)
    results = tmp_path / "graphsweep-results" / "default"
    return proc.returncode, out, err, results


def test_the_main_command_runs_the_default_sweep_on_the_embedded_cpu_cluster(tmp_path, gs_process):
    profiles = tmp_path / "cluster.yaml"  # read from the working directory, like a user's
    profiles.write_text(yaml.safe_dump({"profiles": {"local-cpu": {"kind": "local-cpu", "options": {
        "n_workers": 2, "threads_per_worker": 1, "dashboard_address": ":0"}}}}))
    rc, out, err, results = _default_sweep(tmp_path, gs_process, "--cluster", "local-cpu")
    assert rc == 0, err[-3000:]
    assert f"report: {results / 'report.html'}" in out and "dashboard: http" in out
    state = store.status(results)
    assert not state["failed"] and not state["pending"]
    rows = pd.read_parquet(results / "results.parquet")
    assert rows["verified"].all() and set(rows["backend"]) == {"cpu"}
    assert {"cc.select", "bfs.direction-optimizing", "sssp.select"} <= set(rows["kernel"])


@pytest.mark.gpu
def test_the_default_sweep_on_local_gpu(tmp_path, gs_process):
    rc, out, err, results = _default_sweep(tmp_path, gs_process, "--cluster", "local-gpu")
    assert rc == 0, err[-3000:]
    rows = pd.read_parquet(results / "results.parquet")
    assert rows["verified"].all()
    on_gpu = rows[rows["backend"] == "gpu"]
    assert not on_gpu.empty and set(rows.loc[rows["kernel"] == "listrank.wyllie", "backend"]) == {"gpu"}
    assert (on_gpu["ceiling_copy_gbps"] > 100).all()
    assert on_gpu["device"].str.contains("NVIDIA|H100|H200|A100|RTX", regex=True).all()
    total = on_gpu[(on_gpu["phase"] == "total") & on_gpu["kernel"].str.startswith("listrank.")]
    assert (total["pct_copy_ceiling"] < 150).all()
    graph = rows[rows["kernel"].isin(["cc.select", "bfs.direction-optimizing", "sssp.select"])]
    assert set(graph["backend"]) == {"gpu"} and set(graph.loc[graph["stage"] == "input", "phase"]) == {"csr"}
    assert graph.loc[graph["kernel"] == "bfs.direction-optimizing", "instance"].nunique() == 4  # roots: 4


def test_an_option_the_cluster_does_not_take_is_one_clear_error(tmp_path):
    path = tmp_path / "cluster.yaml"
    options = {"n_wrokers": 1, "processes": False, "dashboard_address": ":0"}
    path.write_text(yaml.safe_dump({"profiles": {"x": {"kind": "local-cpu", "options": options}}}))
    with pytest.raises(GraphsweepError, match="profile x: the cluster did not start .*n_wrokers"):
        with cluster.connect("x", path):
            pass


@pytest.mark.gpu
def test_a_graph_generated_in_memory_and_placed_in_host_memory_runs_through_a_sweep_on_local_gpu(tmp_path, gs_process):
    spec = tmp_path / "host.yaml"
    graph = {"generator": "rmat", "params": {"scale": 14, "edge_factor": 8, "weights": "1:40"}, "store": "memory"}
    spec.write_text(yaml.safe_dump({"name": "host", "results": str(tmp_path / "r"), "reps": 2, "warmup": 1,
                                    "roots": 3, "datasets": [graph],
                                    "kernels": [{"name": k, "placement": p} for k in ("cc.best", "bfs.best", "sssp.best")
                                                for p in ("host", "device")]}))
    proc = gs_process("run", spec, "--cluster", "local-gpu", cwd=tmp_path)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    rows = pd.read_parquet(tmp_path / "r" / "results.parquet")
    assert rows["verified"].all() and set(rows["backend"]) == {"gpu"}
    kernels = rows[rows["stage"] == "kernel"].groupby("placement")["kernel"].agg(set)
    assert kernels["host"] == {"cc.streaming", "bfs.emogi", "sssp.near-far"}
    assert kernels["device"] == {"cc.select", "bfs.direction-optimizing", "sssp.select"}
    total = rows[(rows["phase"] == "total") & (rows["stage"] == "kernel")]
    assert (total.loc[total["placement"] == "host", "bytes_link"] > 0).all()
    assert (total.loc[total["placement"] == "device", "bytes_link"] == 0).all()
    assert (total.loc[total["placement"] == "host", "pct_link_ceiling"] > 0).all()
    assert not (tmp_path / "data").exists()     # store: memory writes no dataset


@pytest.mark.parametrize("old, new", [("local-cuda", "local-gpu"), ("local", "local-cpu")])
def test_old_kind_names_are_read_with_a_deprecation_warning(tmp_path, old, new):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"mine": {"kind": old, "options": {"n_workers": 1}}}}))
    with pytest.warns(FutureWarning, match=f"profiles.mine.kind: '{old}' is deprecated; write '{new}'"):
        name, profile = cluster.resolve("mine", path)
    assert name == "mine" and profile == {"kind": new, "options": {"n_workers": 1}}


# --- the local-gpu workers' memory pool ---------------------------------------------------------------

def test_local_gpu_keeps_cupys_pool_and_local_gpu_rmm_asks_for_an_rmm_pool():
    builtin = dict(cluster.config.get("cluster.profiles"))["local-gpu"]["options"]
    shipped = cluster.profiles(REPO / "cluster.yaml")
    assert not set(cluster.RMM_OPTIONS) & (set(builtin) | set(shipped["local-gpu"]["options"]))
    assert shipped["local-gpu-rmm"]["options"]["rmm_pool_size"] == 0.5


def test_an_rmm_pool_where_rmm_is_installed_and_cupys_own_where_it_is_not(monkeypatch, caplog):
    asked = {"rmm_pool_size": 0.5, "rmm_maximum_pool_size": "60GiB", "dashboard_address": ":0"}
    monkeypatch.setattr(cluster.importlib.util, "find_spec", lambda name: object() if name == "rmm" else None)
    # CuPy allocates from the pool and its allocations are tracked (what free device memory counts)
    assert cluster.memory_pool("local-gpu", asked) == {**asked, "rmm_allocator_external_lib_list": ["cupy"],
                                                       "rmm_track_allocations": True}
    mine = {**asked, "rmm_track_allocations": False}
    assert cluster.memory_pool("local-gpu", mine)["rmm_track_allocations"] is False     # the profile's say wins
    assert cluster.memory_pool("local-gpu", {"dashboard_address": ":0"}) == {"dashboard_address": ":0"}
    monkeypatch.setattr(cluster.importlib.util, "find_spec", lambda name: None)
    with caplog.at_level("INFO", "graphsweep.cluster"):
        assert cluster.memory_pool("local-gpu", asked) == {"dashboard_address": ":0"}
    assert "rmm is not installed, so the workers keep CuPy's memory pool (rmm_pool_size not used)" in caplog.text


@pytest.mark.gpu
@pytest.mark.parametrize("options", [{}, {"rmm_pool_size": 0.5}], ids=["cupy", "rmm"])
def test_local_gpu_workers_allocate_from_the_pool_and_count_its_free_blocks_as_free(tmp_path, options):
    """local-gpu with CuPy's pool, and with an RMM pool of half the GPU where rmm is installed (CuPy's
    own pool where it is not): capacity.device_memory follows an allocation and its release, on
    every worker (one per GPU)."""
    import importlib.util
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"gpu": {"kind": "local-gpu",
                                                         "options": {"dashboard_address": ":0", **options}}}}))

    def probe():
        import sys
        import cupy
        from graphsweep.core import capacity
        rmm = sys.modules.get("rmm.allocators.cupy")
        seen = {"rmm": rmm is not None and cupy.cuda.memory.get_allocator() is rmm.rmm_cupy_allocator,
                "before": capacity.device_memory(), "total": capacity.device_memory(total=True)}
        block = cupy.ones(1 << 30, dtype=cupy.uint8)
        seen["during"] = capacity.device_memory()
        del block
        seen["after"] = capacity.device_memory()
        return seen

    with cluster.connect("gpu", path) as client:
        workers = client.run(probe)          # a worker per GPU of the machine
    assert workers
    slack = 64 << 20
    for seen in workers.values():
        assert seen["rmm"] is (bool(options) and importlib.util.find_spec("rmm") is not None)
        if seen["rmm"]:
            assert seen["before"] > 0.45 * seen["total"]        # the pool's free blocks count as free
        assert abs(seen["before"] - seen["during"] - (1 << 30)) < slack
        assert abs(seen["after"] - seen["before"]) < slack


def test_the_free_blocks_of_cupys_pool_or_of_a_tracked_rmm_pool_count_as_free(monkeypatch):
    """datasets.gpu.pool_free_bytes on stand-ins for CuPy and rmm (the GPU test above runs the real ones)."""
    import sys
    from types import SimpleNamespace as NS

    class Upstream:
        def __init__(self, upstream=None):
            self.upstream = upstream

        def get_upstream(self):
            return self.upstream

    class Pool(Upstream):
        def pool_size(self):
            return 1000

    class Tracking(Upstream):
        def get_allocated_bytes(self):
            return 300

    class Statistics(Upstream):
        allocation_counts = NS(current_bytes=100)

    def rmm_cupy_allocator(nbytes):
        raise AssertionError("never called")

    current = {"mr": Tracking(Pool(object()))}
    mr = NS(PoolMemoryResource=Pool, TrackingResourceAdaptor=Tracking, StatisticsResourceAdaptor=Statistics,
            UpstreamResourceAdaptor=Upstream, get_current_device_resource=lambda: current["mr"])
    allocator = {"now": "cupy's own"}
    cupy = NS(cuda=NS(memory=NS(get_allocator=lambda: allocator["now"])),
              get_default_memory_pool=lambda: NS(free_bytes=lambda: 42))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "rmm", NS(mr=mr))
    monkeypatch.setitem(sys.modules, "rmm.allocators.cupy", NS(rmm_cupy_allocator=rmm_cupy_allocator))
    assert gpu.pool_free_bytes() == 42                       # CuPy allocates from its own pool
    allocator["now"] = rmm_cupy_allocator
    assert gpu.pool_free_bytes() == 700                      # RMM's: its size less what is tracked allocated
    current["mr"] = Statistics(Pool(object()))
    assert gpu.pool_free_bytes() == 900
    current["mr"] = Pool(object())
    assert gpu.pool_free_bytes() == 0                        # nothing counts allocations: as full
    current["mr"] = Tracking(object())
    assert gpu.pool_free_bytes() == 0                        # no pool (CUDA's async pool)
