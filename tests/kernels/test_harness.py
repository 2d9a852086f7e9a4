"""The harness over list-ranking kernels: tidy rows per (rep, phase), a total, verification."""

import dataclasses
import tracemalloc

import numpy as np
import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.datasets.reader import read
from graphsweep.datasets.writer import write_arrays
from graphsweep.kernels import harness, registry
from graphsweep.kernels.contract import Kernel
from graphsweep.kernels.listrank import LISTRANK, ListInput, sequential


@pytest.fixture
def dataset(tmp_path, make_list):
    return write_arrays(tmp_path / "list", kind="list", n=5000, columns={"succ": make_list(5000, seed=9)},
                        generator={"name": "random_list", "params": {"n": 5000}, "seed": 9})


def test_rows_per_rep_and_phase(dataset):
    result = harness.run("listrank.random-splitter", dataset, backend="cpu", reps=3, warmup=1, p=50)
    assert result.verified is True
    phases = ["total", "RS1", "RS2", "RS3", "RS4", "RS5"]
    assert sorted({r["phase"] for r in result.rows}) == sorted(phases)
    assert len(result.rows) == 3 * len(phases)
    total = next(r for r in result.rows if r["phase"] == "total" and r["rep"] == 0)
    parts = [r for r in result.rows if r["phase"] != "total" and r["rep"] == 0]
    assert total["bytes_written"] == sum(r["bytes_written"] for r in parts) > 0
    assert total["ms"] >= max(r["ms"] for r in parts)
    rs4 = next(r for r in parts if r["phase"] == "RS4")
    assert rs4["calls"] == 2 + 6                     # init, 6 jump rounds for 50 splitters, inclusive
    assert result.stats["sublists"]["sublists"] == 50
    summary = {s["phase"]: s for s in result.summary()}
    assert summary["RS3"]["reps"] == 3 and summary["RS3"]["min_ms"] <= summary["RS3"]["mean_ms"]
    assert list(result.seconds) == ["prepare", "warmup", "timed", "stats", "verify"]
    assert all(s >= 0 for s in result.seconds.values())
    assert result.seconds["timed"] >= sum(r["ms"] for r in result.rows if r["phase"] == "total") / 1e3


def test_best_alias_resolves(dataset):
    target = registry.ALIASES["listrank.best"][0]
    assert harness.run("listrank.best", dataset, backend="cpu", reps=1, warmup=0).kernel == target


def test_wrong_output_is_reported_not_raised(dataset, monkeypatch):
    def off_by_one(inp, params, timer):
        return sequential.run_cpu(inp, params, timer) + 1
    broken = Kernel(name="listrank.broken", problem=LISTRANK, summary="test", cpu=off_by_one)
    monkeypatch.setattr(registry, "get", lambda name: broken)
    result = harness.run("listrank.broken", dataset, backend="cpu", reps=1, warmup=0)
    assert result.verified is False and "rank[tail" in result.verify_error


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_an_output_equal_to_a_verified_one_of_a_unique_answer_is_compared_not_verified(dataset, backend):
    """A list has one ranking: on the same loaded list, a second kernel's ranks equal to the first's
    (which the verifier passed) are verified by the comparison and name that kernel; each kernel's
    first output is verified as ever when nothing was kept before it."""
    data = read(dataset, backend=backend)
    first = harness.run("listrank.wyllie", data, backend=backend, reps=1, warmup=0)
    assert first.verified is True and "verified_as" not in first.instance_stats[0]
    second = harness.run("listrank.random-splitter", data, backend=backend, reps=1, warmup=0)
    assert second.verified is True and second.instance_stats[0]["verified_as"] == "listrank.wyllie"
    fresh = harness.run("listrank.random-splitter", read(dataset, backend=backend), backend=backend, reps=1, warmup=0)
    assert fresh.verified is True and "verified_as" not in fresh.instance_stats[0]


def test_an_output_that_differs_from_the_verified_one_is_verified_even_in_the_same_buffer(dataset, monkeypatch):
    """The kept output is a copy: a kernel that hands back one buffer and writes wrong ranks into it
    on its next run is caught by the verifier, not passed by comparing the buffer with itself."""
    buffer = {}

    def reused(inp, params, timer):
        rank = sequential.run_cpu(inp, params, timer)
        if "rank" in buffer:
            buffer["rank"][:] = rank + 1       # wrong, in the buffer the first run returned
        else:
            buffer["rank"] = rank
        return buffer["rank"]
    kernel = Kernel(name="listrank.reused", problem=LISTRANK, summary="test", cpu=reused)
    monkeypatch.setattr(registry, "get", lambda name: kernel)
    data = read(dataset)
    assert harness.run("listrank.reused", data, backend="cpu", reps=1, warmup=0).verified is True
    again = harness.run("listrank.reused", data, backend="cpu", reps=1, warmup=0)
    assert again.verified is False and "rank[tail" in again.verify_error


def test_bad_parameter_is_refused(dataset):
    with pytest.raises(ParameterError, match="unknown parameter 'q'"):
        harness.run("listrank.wyllie", dataset, backend="cpu", q=3)
    with pytest.raises(ParameterError, match="not one of 48, 64"):
        harness.run("listrank.random-splitter", dataset, backend="cpu", packing=32)


def test_a_resolved_kernel_is_run_as_it_comes(dataset, monkeypatch):
    # a sweep's task brings its kernel, looked up, and its parameters, coerced as the spec was read:
    # the harness neither looks it up nor coerces them again; by name it does both, once
    kernel = registry.get("listrank.best")
    resolved = harness.Resolved("listrank.best", kernel, kernel.resolve_params({"sublist": 64}))
    looked, coerced = [], []
    get, resolve_params = registry.get, Kernel.resolve_params
    monkeypatch.setattr(registry, "get", lambda name: looked.append(name) or get(name))
    monkeypatch.setattr(Kernel, "resolve_params", lambda k, given: coerced.append(k.name) or resolve_params(k, given))
    result = harness.run(resolved, dataset, backend="cpu", reps=1, warmup=0)
    assert (looked, coerced) == ([], []) and result.kernel == kernel.name and result.params == resolved.params
    assert result.params is not resolved.params and result.verified
    by_name = harness.run("listrank.best", dataset, backend="cpu", reps=1, warmup=0, sublist="64")
    assert (looked, coerced) == (["listrank.best"], [kernel.name]) and by_name.params == result.params
    with pytest.raises(TypeError, match="comes with its parameters"):
        harness.run(resolved, dataset, backend="cpu", sublist=64)


def test_an_instance_that_does_several_runs_counts_their_elements(dataset, monkeypatch):
    # Problem.covers: the rows of an instance doing k of its problem's runs at once (BC's group of
    # roots) say k and count k times the elements; an instance of one run keeps the task's
    problem = dataclasses.replace(LISTRANK, instances=lambda inp, params, count, seed: [{"k": 3}, {"k": 1}],
                                  covers=lambda instance: instance["k"])
    covered = Kernel(name="listrank.covered", problem=problem, summary="test", cpu=sequential.run_cpu)
    monkeypatch.setattr(registry, "get", lambda name: covered)
    result = harness.run("listrank.covered", dataset, backend="cpu", reps=2, warmup=0)
    assert result.elements == 5000 and result.verified
    first = [r for r in result.rows if r["instance"] == 0]
    assert first and all((r["covers"], r["elements"]) == (3, 15000) for r in first)
    assert all("covers" not in r and "elements" not in r for r in result.rows if r["instance"] == 1)
    assert next(s for s in result.summary() if s["phase"] == "total")["elements"] == (15000 + 5000) / 2
    assert LISTRANK.runs_in({}) == 1 and problem.runs_in({"k": 3}) == 3


def test_scan_on_ordered_dataset(tmp_path):
    n = 3000
    path = write_arrays(tmp_path / "ordered", kind="list", n=n,
                        columns={"succ": np.minimum(np.arange(n) + 1, n - 1).astype(np.int32)},
                        generator={"name": "ordered_list", "params": {"n": n}, "seed": 0})
    result = harness.run("listrank.scan", path, backend="cpu", reps=2, warmup=1)
    assert result.verified and (result.output["rank"] == n - 1 - np.arange(n)).all()


def test_warmup_on_the_problems_sample(dataset, monkeypatch):
    from graphsweep.kernels import listrank
    monkeypatch.setattr(listrank, "SAMPLE_NODES", 1000)
    seen = []

    def ranked(inp, params, timer):
        seen.append(inp.n)
        return sequential.run_cpu(inp, params, timer)
    kernel = Kernel(name="listrank.seen", problem=LISTRANK, summary="test", cpu=ranked)
    monkeypatch.setattr(registry, "get", lambda name: kernel)
    result = harness.run("listrank.seen", dataset, backend="cpu", reps=2, warmup=2, warmup_sample=True)
    assert seen == [1000, 1000, 5000, 5000] and result.verified is True
    seen.clear()
    harness.run("listrank.seen", dataset, backend="cpu", reps=1, warmup=1)
    assert seen == [5000, 5000]


def _compiling_kernel(monkeypatch, seconds: float) -> None:
    """``listrank.compiles``: list ranking whose first run in the process "compiles a module" — it
    takes ``seconds`` more and changes what ``first_run_marks`` watches."""
    import time
    modules = [0]

    def ranked(inp, params, timer):
        if modules[0] == 0:
            time.sleep(seconds)
            modules[0] += 1
        return sequential.run_cpu(inp, params, timer)
    kernel = Kernel(name="listrank.compiles", problem=LISTRANK, summary="test", cpu=ranked)
    monkeypatch.setattr(registry, "get", lambda name: kernel)
    monkeypatch.setattr(harness, "first_run_marks", lambda backend: modules[0])


def test_a_first_rep_that_compiled_is_run_again_and_its_seconds_recorded(dataset, monkeypatch):
    # the first timed rep "compiles a module" (what first_run_marks watches changes, 0.2 s): run
    # again, and its seconds recorded apart (first_run_s) so that an estimate does not learn them
    _compiling_kernel(monkeypatch, 0.2)
    result = harness.run("listrank.compiles", dataset, backend="cpu", reps=2, warmup=0)
    assert 0.2 <= result.first_run_s <= result.seconds["warmup"]
    assert len([r for r in result.rows if r["phase"] == "total"]) == 2
    assert harness.run("listrank.compiles", dataset, backend="cpu", reps=2, warmup=0).first_run_s == 0.0


def test_a_warm_up_that_compiled_records_what_it_took_beyond_the_runs(dataset, monkeypatch):
    # a later parameter set's warm-up compiles its module (0.3 s) before the timed reps: what the
    # warm-ups took beyond as many runs is a first-run cost too (first_run_s), not the task's own
    # (gap-suite's second estimate on an H200 was 2.1x the run, from a warm run that compiled so)
    _compiling_kernel(monkeypatch, 0.3)
    result = harness.run("listrank.compiles", dataset, backend="cpu", reps=3, warmup=2)
    assert 0.25 <= result.first_run_s <= result.seconds["warmup"]
    again = harness.run("listrank.compiles", dataset, backend="cpu", reps=3, warmup=2)
    assert again.first_run_s == 0.0


def test_nvrtc_compilations_count_as_compile_seconds(monkeypatch):
    # CuPy's own kernels (a sort in a verifier, a reduction) compile through NVRTC outside
    # graphsweep's modules: on a fresh H200 they were most of a gap-suite run's first tasks, and
    # an estimate learned them as the tasks' own seconds
    import time
    import types

    def compile_on_a_miss(*args, **kwargs):
        time.sleep(0.2)
        return "ptx", {}
    compiler = types.SimpleNamespace(_compile_using_nvrtc_no_warning=compile_on_a_miss)
    monkeypatch.setattr(harness, "_nvrtc", {"seconds": 0.0, "timed": set(), "looked": True})
    harness._time_nvrtc(compiler)
    harness._time_nvrtc(compiler)              # once per module: not timed twice
    before = harness.compile_seconds()
    assert compiler._compile_using_nvrtc_no_warning("source") == ("ptx", {})
    assert 0.2 <= harness.compile_seconds() - before < 0.4


def traced_peak(fn) -> int:
    """Bytes ``fn()`` allocated at its peak through NumPy (tracemalloc sees NumPy's buffers)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", ["listrank.best", "listrank.helman-jaja", "listrank.random-splitter"])
def test_memory_is_flat_in_the_number_of_reps(tmp_path, make_list, name):
    # Each rep's statistics closed over its sub-list arrays, and every rep's timer lived until the
    # rows were read: 2^22 nodes held 0.66 / 1.03 / 2.84 GB at 1 / 5 / 20 reps.
    n = 1 << 16
    path = write_arrays(tmp_path / "list", kind="list", n=n, columns={"succ": make_list(n, seed=3)},
                        generator={"name": "random_list", "params": {"n": n}, "seed": 3})
    data = read(path, backend="cpu")
    harness.run(name, data, backend="cpu", reps=1, warmup=0)     # compiled, and the input checked and cached
    inp = harness.prepared(registry.get(name), data)

    def measured(reps):      # verified each time, not compared with the output an earlier run left
        inp.cache.pop(harness.VERIFIED, None)
        return harness.run(name, data, backend="cpu", reps=reps, warmup=0)
    one, eight = (traced_peak(lambda reps=reps: measured(reps)) for reps in (1, 8))
    assert one > 16 * n and eight < 1.2 * one, (one, eight)


def test_memory_is_flat_in_the_number_of_reps_when_the_byte_model_holds_the_output():
    # bfs.harish counts its levels' sizes from the level array after timing: each rep's byte model
    # held that rep's levels until the rows were read (400K vertices: 14 / 31 MB at 1 / 12 reps).
    from graphsweep.generators import memory
    data = memory.generate("uniform", seed=3, params={"n": 200000, "degree": 3})
    harness.run("bfs.harish", data, backend="cpu", reps=1, warmup=0, root=0)   # compiled, the CSR built
    one, eight = (traced_peak(lambda reps=reps: harness.run("bfs.harish", data, backend="cpu", reps=reps, warmup=0,
                                                             root=0, verify=False))
                  for reps in (1, 8))
    assert one > 4 * 200000 and eight < 1.2 * one, (one, eight)


def test_memory_is_flat_in_reps_where_a_rep_has_not_finished_at_return(monkeypatch):
    # The GPU's bookkeeping on the CPU: a timer whose run may still be working when its call returns
    # (a CUDA timer) cannot settle its byte model then; bfs.harish's held each rep's level array
    # until the rows were read (~4n bytes a rep on the GPU).
    from graphsweep.generators import memory
    from graphsweep.kernels import timing
    monkeypatch.setattr(timing.CpuTimer, "finished_at_return", False)
    data = memory.generate("uniform", seed=3, params={"n": 200000, "degree": 3})
    harness.run("bfs.harish", data, backend="cpu", reps=1, warmup=0, root=0)   # compiled, the CSR built
    one, eight = (traced_peak(lambda reps=reps: harness.run("bfs.harish", data, backend="cpu", reps=reps, warmup=0,
                                                             root=0, verify=False))
                  for reps in (1, 8))
    assert one > 4 * 200000 and eight < 1.25 * one, (one, eight)    # 1.92x before


@pytest.mark.gpu
def test_device_memory_is_flat_in_the_number_of_reps(dataset):
    import cupy
    pool = cupy.get_default_memory_pool()
    held = []
    for reps in (1, 8):
        pool.free_all_blocks()
        harness.run("listrank.best", dataset, backend="gpu", reps=reps, warmup=0)
        held.append(pool.total_bytes())
    assert held[1] <= 1.2 * held[0], held


@pytest.mark.gpu
def test_settling_a_finished_rep_leaves_the_rep_queued_after_it_running():
    # The harness settles rep r - 2's byte model as it queues rep r.  Its callables may read device
    # memory (bfs.direction-optimizing's control blocks); on the runs' stream that read waited for
    # every rep queued since, so each next rep started on an idle GPU, the host's gaps inside its
    # events (R-MAT 22: 0.30 -> 0.40-0.44 ms a root).  Settled beside it, the later rep runs on.
    import cupy
    from graphsweep.kernels import timing
    value = cupy.full(1, 7, dtype=np.int64)
    first = timing.CudaTimer()
    with first.phase("work", read=lambda: int(value.get()[0])):
        value += 1
    spin = cupy.RawKernel(r"""extern "C" __global__ void spin(long long cycles) {
        long long start = clock64(); while (clock64() - start < cycles) {} }""", "spin")
    second = timing.CudaTimer()
    with second.phase("work"):
        spin((1,), (1,), (np.int64(4_000_000_000),))        # a second or two at GPU clocks
    first.settle()
    running = not second._marks[-1][-1].done
    second.finish()
    assert running, "settling the first rep waited for the rep queued after it"
    assert first.rows()[0]["bytes_read"] == 8


@pytest.mark.gpu
def test_first_timed_rep_that_paid_first_run_costs_is_run_again(dataset, monkeypatch):
    import cupy
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()                  # earlier tests' free blocks would serve the first run
    runs = []

    def allocating(inp, params, timer):     # each run holds a block larger than all the pool holds: it grows
        runs.append(cupy.empty(pool.total_bytes() + (64 << 20), dtype=np.uint8))
        return sequential.run_cpu(ListInput(inp.succ.get(), inp.head, inp.tail), params, timer)
    kernel = Kernel(name="listrank.growing", problem=LISTRANK, summary="test", gpu=allocating)
    monkeypatch.setattr(registry, "get", lambda name: kernel)
    result = harness.run("listrank.growing", dataset, backend="gpu", reps=2, warmup=0, verify=False)
    assert len(runs) == 3 and {r["rep"] for r in result.rows} == {0, 1}      # rep 0 once more, rep 1
    assert result.seconds["warmup"] > 0


def test_first_cpu_rep_that_compiled_a_numba_function_is_run_again(dataset, monkeypatch):
    import numba

    @numba.njit
    def shifted(rank):                     # a function this process has not compiled yet: fresh per test
        return rank + 0
    runs = []

    def compiling(inp, params, timer):
        runs.append(harness.numba_compiles()[0])
        return shifted(sequential.run_cpu(inp, params, timer))
    kernel = Kernel(name="listrank.compiling", problem=LISTRANK, summary="test", cpu=compiling)
    monkeypatch.setattr(registry, "get", lambda name: kernel)
    result = harness.run("listrank.compiling", dataset, backend="cpu", reps=2, warmup=0)
    assert len(runs) == 3 and runs[1] == runs[2] > runs[0]       # rep 0 compiled: run once more, then rep 1
    assert {r["rep"] for r in result.rows} == {0, 1} and result.verified
    assert result.seconds["warmup"] > 0
    runs.clear()
    harness.run("listrank.compiling", dataset, backend="cpu", reps=2, warmup=0)
    assert len(runs) == 2                                           # compiled: nothing to run again
