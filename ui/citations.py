"""Sources under an answer: one entry per file, listing the pages cited from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SourceGroup:
    """One file an answer drew on, with the numbers and pages of its passages."""

    file: str
    path: str
    numbers: list[int] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)

    @property
    def pages_label(self) -> str:
        if not self.pages:
            return ""
        word = "p." if len(self.pages) == 1 else "pp."
        return f"{word} {', '.join(str(p) for p in self.pages)}"


def group_sources(sources: list[dict[str, Any]]) -> list[SourceGroup]:
    """Sources grouped by file, in order of first appearance; pages sorted, once each."""
    groups: dict[str, SourceGroup] = {}
    for source in sources:
        path = source.get("path") or source.get("file") or "?"
        group = groups.setdefault(path, SourceGroup(source.get("file") or path, path))
        group.numbers.append(int(source["n"]))
        page = source.get("page")
        if page is not None and page not in group.pages:
            group.pages.append(int(page))
    for group in groups.values():
        group.pages.sort()
    return list(groups.values())


def middle_ellipsis(name: str, limit: int = 32) -> str:
    """Shorten a long name in the middle, keeping its start and its extension readable."""
    if len(name) <= limit:
        return name
    keep = limit - 1
    tail = max(keep // 3, min(len(name) - name.rfind("."), keep // 2) if "." in name else 0)
    head = keep - tail
    return f"{name[:head].rstrip()}…{name[-tail:].lstrip()}"


def source_by_number(sources: list[dict[str, Any]], n: int) -> dict[str, Any] | None:
    return next((s for s in sources if int(s["n"]) == n), None)
