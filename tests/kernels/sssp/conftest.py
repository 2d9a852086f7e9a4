"""Fixtures: the weighted test graphs and the SciPy reference (weighted_graphs.py, shared with APSP)."""

import importlib.util
from pathlib import Path

import pytest


def load_weighted_graphs():
    spec = importlib.util.spec_from_file_location("sssp_weighted_graphs", Path(__file__).with_name("weighted_graphs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def wg():
    return load_weighted_graphs()
