"""Verification references kept beside a stored dataset (``reference_store``): a later process —
another worker of the sweep, a later run — reads what one computed, never another dataset's, another
backend's or a changed verifier's; a folder that cannot be written or a damaged file only means
computing again."""

import json

import numpy as np
import pytest

from graphsweep.datasets.reader import Dataset, read
from graphsweep.generators import driver
from graphsweep.kernels import checks, harness, reference_store
from graphsweep.kernels.bc import verify as bc_verify
from graphsweep.kernels.graph import from_edges


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Two small R-MAT datasets on disk (seeds 1 and 2)."""
    folder = tmp_path_factory.mktemp("stored")
    return [driver.generate("rmat", folder / f"rmat-{seed}", seed=seed, params={"scale": 7, "edge_factor": 4},
                            progress=False) or folder / f"rmat-{seed}" for seed in (1, 2)]


def fresh_input(path):
    """The graph input of a fresh read of ``path``, as another process would make it."""
    data = read(path)
    inp = harness.prepared(harness.registry.get("bc.brandes"), data)
    assert reference_store.STORE in inp.cache
    return inp


def counted(value):
    calls = []

    def compute():
        calls.append(1)
        return value
    return compute, calls


def test_another_process_reads_the_reference_one_computed(stored):
    compute, calls = counted((np.arange(5.0), np.int64(7), 3, [1.5, None]))
    first = checks.reference(fresh_input(stored[0]), ("test", "value"), compute)
    again = checks.reference(fresh_input(stored[0]), ("test", "value"), compute)
    assert len(calls) == 1
    assert again[0].tolist() == first[0].tolist() and again[0].dtype == np.float64
    assert again[1] == 7 and isinstance(again[1], np.int64) and again[2:] == (3, [1.5, None])
    assert isinstance(again, tuple)
    kept = list((stored[0] / reference_store.FOLDER).glob("*.npz"))
    assert kept and not list((stored[0] / reference_store.FOLDER).glob(".partial-*"))


def test_another_dataset_key_or_verifier_computes_its_own(stored, monkeypatch):
    compute, calls = counted(np.ones(3))
    checks.reference(fresh_input(stored[0]), ("test", "own"), compute)
    checks.reference(fresh_input(stored[1]), ("test", "own"), compute)          # another dataset
    checks.reference(fresh_input(stored[0]), ("test", "own", 2), compute)       # another key
    assert len(calls) == 3
    monkeypatch.setattr(reference_store, "_source_digest", lambda compute: "a changed verifier")
    checks.reference(fresh_input(stored[0]), ("test", "own"), compute)
    assert len(calls) == 4
    monkeypatch.undo()
    checks.reference(fresh_input(stored[0]), ("test", "own"), compute)          # the first one's file
    assert len(calls) == 4


def test_a_damaged_file_is_computed_again_and_replaced(stored):
    inp = fresh_input(stored[1])
    store = inp.cache[reference_store.STORE]
    compute, calls = counted(np.arange(4))
    checks.reference(inp, ("test", "damaged"), compute)
    store.path(("test", "damaged"), compute).write_bytes(b"not an npz")
    assert checks.reference(fresh_input(stored[1]), ("test", "damaged"), compute).tolist() == [0, 1, 2, 3]
    assert checks.reference(fresh_input(stored[1]), ("test", "damaged"), compute).tolist() == [0, 1, 2, 3]
    assert len(calls) == 2


def test_a_folder_that_cannot_be_written_only_means_computing(stored, tmp_path):
    inp = fresh_input(stored[0])
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder would be")
    inp.cache[reference_store.STORE] = reference_store.ReferenceStore(blocked / "refs", {"parts": [1]}, "cpu")
    compute, calls = counted(np.zeros(2))
    assert checks.reference(inp, ("test", "blocked"), compute).tolist() == [0.0, 0.0]
    assert len(calls) == 1


def test_a_dict_or_an_answer_past_the_bound_is_not_kept_on_disk(stored):
    compute, calls = counted({"a": 1})
    checks.reference(fresh_input(stored[1]), ("test", "dict"), compute)
    checks.reference(fresh_input(stored[1]), ("test", "dict"), compute)
    inp = fresh_input(stored[1])
    big, big_calls = counted(np.zeros(checks.REFERENCE_VECTORS * inp.n + 1))
    checks.reference(inp, ("test", "big"), big)
    checks.reference(fresh_input(stored[1]), ("test", "big"), big)
    assert len(calls) == 2 and len(big_calls) == 2


def test_a_graph_made_in_memory_has_no_store():
    data = Dataset.in_memory("graph", 4, src=np.array([0, 1, 2]), dst=np.array([1, 2, 3]))
    assert reference_store.STORE not in harness.prepared(harness.registry.get("bc.brandes"), data).cache
    assert reference_store.STORE not in from_edges(np.arange(3), np.arange(1, 4), 4).cache


def test_a_second_run_verifies_against_the_first_runs_brandes(stored, monkeypatch):
    calls = []
    brandes = bc_verify.brandes_dependencies
    monkeypatch.setattr(bc_verify, "brandes_dependencies", lambda inp, root: calls.append(root) or brandes(inp, root))
    for _ in range(2):
        res = harness.run("bc.brandes", stored[0], backend="cpu", reps=1, warmup=0, instances=2, instance_seed=5)
        assert res.verified, res.verify_error
    assert len(calls) == 2              # two roots, computed by the first run only
    spec = json.dumps(sorted(p.name for p in (stored[0] / reference_store.FOLDER).glob("*.npz")))
    assert spec.count(".npz") >= 2


def test_a_stored_lists_check_is_read_by_the_next_process(tmp_path, make_list, monkeypatch):
    """list ranking's input check (one list: its head and tail) is kept beside a stored list: a fresh
    read prepares without checking again; a list made in memory, or a changed list (another manifest),
    is checked.  A list the check refuses is refused every time and leaves nothing kept."""
    from graphsweep.datasets import structure
    from graphsweep.datasets.structure import ListStructureError
    from graphsweep.datasets.writer import write_arrays
    succ = make_list(3000, seed=4)
    path = write_arrays(tmp_path / "list", kind="list", n=3000, columns={"succ": succ},
                        generator={"name": "random_list", "params": {"n": 3000}, "seed": 4})
    kernel = harness.registry.get("listrank.wyllie")
    first = harness.prepared(kernel, read(path))
    calls = []
    counts = structure._cpu_counts         # check_list's first pass: counted, the check itself unchanged
    monkeypatch.setattr(structure, "_cpu_counts", lambda succ: calls.append(1) or counts(succ))
    again = harness.prepared(kernel, read(path))
    assert (again.head, again.tail) == (first.head, first.tail) and succ[again.tail] == again.tail and calls == []
    other = write_arrays(tmp_path / "other", kind="list", n=3000, columns={"succ": make_list(3000, seed=5)},
                         generator={"name": "random_list", "params": {"n": 3000}, "seed": 5})
    harness.prepared(kernel, read(other))
    harness.prepared(kernel, Dataset.in_memory("list", 3000, succ=succ))
    assert calls == [1, 1]
    cycle = np.roll(np.arange(3000, dtype=np.int32), 1)
    bad = write_arrays(tmp_path / "cycle", kind="list", n=3000, columns={"succ": cycle},
                       generator={"name": "random_list", "params": {"n": 3000}, "seed": 6})
    for _ in range(2):
        with pytest.raises(ListStructureError, match="cycle"):
            harness.prepared(kernel, read(bad))
    assert not (bad / reference_store.FOLDER).exists()
