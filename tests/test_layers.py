"""The layers of docs/ARCHITECTURE.md, held: what each package may import.

Imports are read from the source (every ``import``, at any depth: inside functions and under
``TYPE_CHECKING`` too, since an import hidden in a function is still a dependency).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "desks", "appliance", "vision", "web", "voice", "hardware")
ADAPTERS = ("vision", "web", "voice", "hardware")
ENGINE_MAY_USE = {
    "companion.game",
    "companion.chance",
    "companion.seat_input",
    "companion.json_file",
    "companion.played",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def imported(module: str) -> set[str]:
    """The project's modules that ``module`` imports, at any depth."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES}


GRAPH = {module: imported(module) for module in MODULES}


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def cycles() -> Iterator[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(v: str) -> Iterator[list[str]]:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                yield from visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                yield sorted(component)

    for v in GRAPH:
        if v not in index:
            yield from visit(v)


def test_the_graph_sees_the_packages_and_their_imports() -> None:
    assert len(MODULES) > 100
    assert "companion.game" in GRAPH["companion.games.sages.engine"]
    assert "vision.frame_source" in GRAPH["vision.throws"]


def test_no_module_imports_itself_back_through_others() -> None:
    assert list(cycles()) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if in_package(m, "companion")))
def test_the_core_imports_no_adapter_desk_or_appliance(module: str) -> None:
    above = ("desks", "appliance", *ADAPTERS)
    assert {m for m in GRAPH[module] if any(in_package(m, p) for p in above)} == set()


@pytest.mark.parametrize("package", ["desks", *ADAPTERS])
def test_nothing_but_the_appliance_imports_the_appliance(package: str) -> None:
    users = {
        (module, m)
        for module in MODULES
        if in_package(module, package)
        for m in GRAPH[module]
        if in_package(m, "appliance")
    }
    assert users == set()


@pytest.mark.parametrize("module", sorted(m for m in MODULES if in_package(m, "companion.games")))
def test_an_engine_uses_only_the_games_and_the_core_it_needs(module: str) -> None:
    outside = {m for m in GRAPH[module] if not in_package(m, "companion.games")}
    assert outside <= ENGINE_MAY_USE


@pytest.mark.parametrize("adapter", ["vision", "voice", "hardware"])
def test_a_device_adapter_knows_no_game(adapter: str) -> None:
    rules = {
        (module, m)
        for module in MODULES
        if in_package(module, adapter)
        for m in GRAPH[module]
        if in_package(m, "companion.games") or in_package(m, "companion.moderator")
    }
    assert rules == set()
