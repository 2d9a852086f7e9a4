"""Fixtures: the weighted test graphs and SciPy reference of the SSSP tests (one file for both)."""

import importlib.util
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def wg():
    path = Path(__file__).parents[1] / "sssp" / "weighted_graphs.py"
    spec = importlib.util.spec_from_file_location("apsp_weighted_graphs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
