"""No module of graphsweep imports, however indirectly, one that imports it back — whether at
top level or inside a function, where a cycle only hides until someone moves an import.  The
graph is read from the sources (every ``import`` and ``from ... import`` of a graphsweep module),
so the test needs no GPU and fails naming the modules of each cycle."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules() -> dict:
    """name -> (path, is a package's __init__) for every module of the project."""
    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    found = {}
    for package, folder in dirs.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            init = parts[-1] == "__init__"
            found[".".join([package, *(parts[:-1] if init else parts)])] = (path, init)
    return found


def imports(name: str, path: Path, init: bool, known: dict) -> set:
    """The project modules ``name`` imports (a name imported from a package counts as the
    submodule when there is one by that name, else as the package)."""
    here = name.split(".") if init else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_back():
    known = modules()
    graph = {name: imports(name, path, init, known) for name, (path, init) in known.items()}
    assert len(known) > 50 and sum(map(len, graph.values())) > 100      # the sources were read
    assert cycles(graph) == []


def test_the_packages_import_one_way():
    """core <- datasets <- kernels <- generators <- pipeline: no package imports one above it, and
    core imports no other."""
    known = modules()
    package = {name: ".".join(name.split(".")[:2]) for name in known}
    graph = {p: set() for p in set(package.values())}
    for name, (path, init) in known.items():
        graph[package[name]] |= {package[t] for t in imports(name, path, init, known)} - {package[name]}
    assert cycles(graph) == []
    assert graph["graphsweep.core"] == set() and graph["graphsweep.datasets"] == {"graphsweep.core"}
    assert "graphsweep.pipeline" not in graph["graphsweep.kernels"]


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


IMPORT_EACH = """
import importlib, sys, traceback
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "graphsweep" or m.startswith("graphsweep.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failed.append(name + ": " + traceback.format_exc().strip().splitlines()[-1])
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


def test_every_module_imports_first():
    """Each module imported first, as a fresh interpreter would (the project's modules dropped from
    ``sys.modules`` before each; a cycle that an import order hides fails here with the module
    that starts it)."""
    import subprocess
    import sys
    names = sorted(name for name in modules() if not name.endswith("__main__"))
    out = subprocess.run([sys.executable, "-c", IMPORT_EACH, *names], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
