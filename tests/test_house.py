"""The shape of the package, held where a change can break it (docs/architecture.md): the layers show in the tree,
imports go one way, no function or class grows past what a reader can hold, benchmark code knows neither pytest nor
HTTP, and the layers below the benchmarks never name one."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_trust"
TOP_MODULES = 15  # modules beside the packages at the top of pytest_trust/
COMPLEXITY = 30  # radon's cyclomatic complexity: D (21-30) at most, never E or F
METHODS = 20  # methods of one class
# Layers that serve every benchmark and must not know one (the importers and the packaged suites may).
GENERIC = ("run", "results", "report", "recording", "endpoint", "data", "cli", "change", "scorers")
BENCHMARK_FREE_OF = ("pytest", "_pytest", "httpx", "openai", "vcr")


def modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules ``name`` imports, wherever the import statement is (a lazy one is an arrow too)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])]) if node.level else node.module
            if not target or not target.startswith("pytest_trust"):
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in known else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
    return found


def graph() -> dict[str, set[str]]:
    found = dict(modules())
    known = set(found)
    return {name: imports(name, path, known) - {name} for name, path in found.items()}


def test_at_most_fifteen_modules_sit_at_the_top():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= TOP_MODULES, top


def test_no_module_imports_one_that_imports_it_back():
    edges = graph()
    seen: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if seen.get(nxt) == 1:
                pytest.fail("import cycle: " + " -> ".join([*path[path.index(nxt):], nxt]))
            if nxt not in seen:
                visit(nxt, [*path, nxt])
        seen[node] = 2

    for name in sorted(edges):
        if name not in seen:
            visit(name, [name])


def test_the_graph_sees_the_imports_it_is_asked_about():
    """The cycle test above can fail: the graph holds a relative, a lazy and a ``from . import`` arrow."""
    edges = graph()
    assert "pytest_trust.results.metrics" in edges["pytest_trust.results.gates"]  # from .metrics import ...
    assert "pytest_trust.cli.scaffold" in edges["pytest_trust.change.command"]  # from ..cli import scaffold
    assert "pytest_trust.cli.commands" in edges["pytest_trust.cli"]  # imported inside main()


def test_no_function_is_above_thirty_in_cyclomatic_complexity():
    radon = pytest.importorskip("radon.complexity")
    over = set()  # a method comes back on its own and inside its class
    for name, path in modules():
        for block in radon.cc_visit(path.read_text(encoding="utf-8")):
            blocks = [block, *getattr(block, "methods", [])]
            over |= {f"{name}:{b.lineno} {b.name} {b.complexity}" for b in blocks if b.complexity > COMPLEXITY}
    assert not over, "split these (docs/architecture.md, 'Rooms with one job'): " + "; ".join(sorted(over))


def test_no_class_holds_more_than_twenty_methods():
    crowded = []
    for name, path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = [f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
                if len(methods) > METHODS:
                    crowded.append(f"{name}.{node.name} ({len(methods)})")
    assert not crowded, crowded


def test_benchmark_code_imports_neither_pytest_nor_http():
    leaks = []
    for name, path in modules():
        if not name.startswith("pytest_trust.benchmarks"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            leaks += [f"{name} imports {n}" for n in names if n.split(".")[0] in BENCHMARK_FREE_OF]
    assert not leaks, leaks


def test_the_generic_layers_name_no_benchmark():
    edges = graph()
    named = [f"{name} -> {target}" for name, targets in edges.items()
             if name.split(".")[1:2] and name.split(".")[1] in GENERIC
             for target in targets
             if target.startswith("pytest_trust.benchmarks.") and target != "pytest_trust.benchmarks.spec"]
    assert not named, named
