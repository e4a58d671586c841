"""The import rules of DESIGN.md: arrows point down, nothing imports ui."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = {"app", "graph", "ingest", "models", "ui"}
ALLOWED = {
    "models": set(),
    "ingest": {"models"},
    "graph": {"ingest", "models"},
    "app": {"graph", "ingest", "models"},
    "ui": {"app"},
}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & OURS


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_it_may(package: str) -> None:
    wrong = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) - ALLOWED[package] - {package})
        for path in (ROOT / package).rglob("*.py")
    }
    assert {file: names for file, names in wrong.items() if names} == {}


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


ROOMS = {
    # room: the rooms of the same package it must not import (the flow runs one way)
    "ingest/loaders": ("ingest.pipeline", "ingest.index", "ingest.parsing"),
    "ingest/parsing": ("ingest.pipeline", "ingest.index"),
    "ingest/index": ("ingest.pipeline", "ingest.parsing"),
    "graph/retrieval": ("graph.nodes",),
    "graph/support": ("graph.nodes",),
    "app/services": ("app.api", "app.cli", "app.mcp"),
    "app/mcp": ("app.api", "app.cli"),
    "app/cli": ("app.api",),
    # the API: the guard decides who comes in before any route runs, so it knows no route
    "app/api/guard": ("app.api.routes",),
    # the window: page.py composes the rooms; an answer's parts sit below chat and library
    "ui/answer": ("ui.chat", "ui.library", "ui.dialogs", "ui.page", "ui.starting", "ui.window"),
    "ui/frame": ("ui.chat", "ui.library", "ui.dialogs", "ui.page", "ui.starting", "ui.window"),
    "ui/chat": ("ui.library", "ui.dialogs", "ui.page", "ui.starting", "ui.window"),
    "ui/library": ("ui.chat", "ui.dialogs", "ui.page", "ui.starting", "ui.window"),
    "ui/dialogs": ("ui.chat", "ui.library", "ui.page", "ui.starting", "ui.window"),
}


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_a_room_imports_nothing_downstream_of_it(room: str) -> None:
    wrong = {
        str(path.relative_to(ROOT)): sorted(
            name for name in imported_modules(path) if name.startswith(ROOMS[room])
        )
        for path in (ROOT / room).rglob("*.py")
    }
    assert {file: names for file, names in wrong.items() if names} == {}
