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
