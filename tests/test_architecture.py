"""The layout's rules, checked on the code itself: which package may import which, no cycles, no module state, small modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "papersite"
STAGES = ("inputs", "text", "enrich", "render", "publish")
# Data flows one way: a stage may import those before it, never after.
ORDER = ("text", "inputs", "enrich", "render", "publish")
MAX_LINES = 500


def modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports_of(name: str, path: Path) -> set[str]:
    """The papersite modules `name` imports (a `from package import module` counts as the module)."""
    known = modules()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("papersite"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if not base.startswith("papersite"):
                continue
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return found


def graph() -> dict[str, set[str]]:
    return {name: imports_of(name, path) for name, path in modules().items()}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else ""


def test_no_build_stage_imports_the_importer_or_the_dev_server():
    for name, imported in graph().items():
        if package_of(name) in ("ingest", "dev") or name in ("papersite.cli",):
            continue
        bad = sorted(m for m in imported if package_of(m) in ("ingest", "dev"))
        assert not bad, f"{name} imports {bad}"


def test_stage_code_never_imports_the_cache():
    for name, imported in graph().items():
        if package_of(name) in STAGES:
            bad = sorted(m for m in imported if package_of(m) == "incremental")
            assert not bad, f"{name} imports {bad}"


def test_data_flows_one_way_between_stages():
    for name, imported in graph().items():
        here = package_of(name)
        if here not in ORDER:
            continue
        later = ORDER[ORDER.index(here) + 1:]
        bad = sorted(m for m in imported if package_of(m) in later)
        assert not bad, f"{name} ({here}) imports {bad}, a later stage"


def test_no_import_cycles():
    edges = graph()
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges.get(node, ())):
            if target not in edges:
                continue
            if state.get(target) == 1:
                pytest.fail("import cycle: " + " -> ".join(path[path.index(target):] + [target]) if target in path
                            else f"import cycle through {target}")
            if target not in state:
                visit(target, path + [target])
        state[node] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])


def test_no_mutable_module_state():
    for name, path in modules().items():
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in ast.walk(tree):
            assert not isinstance(node, ast.Global), f"{name}:{node.lineno}: global"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("globals", "ContextVar"), f"{name}:{node.lineno}: {node.func.id}()"
        assert "contextvars" not in source, f"{name} uses contextvars"
        assert "os.environ[" not in source and "environ.setdefault" not in source, f"{name} sets the environment"


def test_modules_are_small_and_say_what_they_do():
    for name, path in modules().items():
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= MAX_LINES, f"{name}: {lines} lines"
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert docstring, f"{name} has no docstring"
