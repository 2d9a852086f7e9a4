"""Helpers shared by the generator tests."""

import pytest

from graphsweep.datasets import read
from graphsweep.generators import generate


@pytest.fixture
def make(tmp_path):
    """make(kind, seed=1, part_rows=..., **params) -> the dataset read back (checked on the way)."""
    counter = iter(range(10**6))

    def run(kind, seed=1, part_rows=1 << 20, client=None, **params):
        path = generate(kind, tmp_path / f"{kind}-{next(counter)}", seed=seed, params=params,
                        part_rows=part_rows, client=client, progress=False)
        return read(path, checksums=True)

    return run

