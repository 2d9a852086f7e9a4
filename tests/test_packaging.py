"""The wheel carries every package and every CUDA source: pyproject.toml lists packages by hand
(package-dir maps the four folders into graphsweep.*), so a new kernels/* package must be added
there, with its .cu files as package data."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent
FOLDERS = {"core": "graphsweep.core", "pipeline": "graphsweep.pipeline", "kernels": "graphsweep.kernels",
           "generators": "graphsweep.generators", "datasets": "graphsweep.datasets"}


def _config():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _packages_on_disk():
    for folder, name in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            yield ".".join([name, *rel.parts]), init.parent


def test_every_package_is_listed():
    listed = set(_config()["packages"])
    missing = sorted(name for name, _ in _packages_on_disk() if name not in listed)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
    assert set(_config()["package-dir"]) == set(FOLDERS.values())


def test_every_cuda_source_is_package_data():
    data = _config()["package-data"]
    for name, folder in _packages_on_disk():
        for ext in ("cu", "cuh"):
            if any(folder.glob(f"*.{ext}")):
                assert f"*.{ext}" in data.get(name, []), f"{name}: *.{ext} missing from package-data"


def test_the_default_run_collects_every_test_file():
    """``python3 -m pytest -q`` (README's and CI's command) reaches every test file: pytest's
    default norecursedirs holds "dist", which once left tests/kernels/dist out of every CI run."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    collected = {line.split("::")[0] for line in out.splitlines() if "::" in line}
    on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")}
    assert on_disk == collected, f"never collected: {sorted(on_disk - collected)}"
