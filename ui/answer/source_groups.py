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
    cited_pages: list[int] = field(default_factory=list)
    cited: bool = False
    """Whether the answer cites any of its passages (unmarked ones, streamed before the
    answer is done, count as cited)."""
    confidence: float | None = None
    """Set when some of its passages were read by OCR: the lowest of their confidences."""

    @property
    def scanned(self) -> bool:
        """Whether some of its passages were read by OCR from a scan or a picture."""
        return self.confidence is not None

    @property
    def pages_label(self) -> str:
        # A chip names the pages the answer cites; the passages it only read show in its tooltip.
        pages = self.cited_pages if self.cited_pages else self.pages
        if not pages:
            return ""
        word = "p." if len(pages) == 1 else "pp."
        return f"{word} {page_runs(pages)}"


def page_runs(pages: list[int]) -> str:
    """ "4, 9" or "1–66": three pages or more in a row said as a range (a whole document
    read has every page among its sources)."""
    runs: list[list[int]] = []
    for page in pages:
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    said = []
    for run in runs:
        said += [f"{run[0]}–{run[-1]}"] if len(run) > 2 else [str(p) for p in run]
    return ", ".join(said)


def group_sources(sources: list[dict[str, Any]]) -> list[SourceGroup]:
    """Sources grouped by file, cited files first, else in order; pages sorted, once each."""
    groups: dict[str, SourceGroup] = {}
    for source in sources:
        path = source.get("path") or source.get("file") or "?"
        group = groups.setdefault(path, SourceGroup(source.get("file") or path, path))
        group.numbers.append(int(source["n"]))
        cited = bool(source.get("cited", True))
        group.cited = group.cited or cited
        if source.get("ocr"):
            confidence = float(source.get("ocr_confidence") or 0.0)
            group.confidence = min(confidence, group.confidence or 1.0)
        page = source.get("page")
        if page is not None and page not in group.pages:
            group.pages.append(int(page))
        if page is not None and cited and page not in group.cited_pages:
            group.cited_pages.append(int(page))
    for group in groups.values():
        group.pages.sort()
        group.cited_pages.sort()
    return sorted(groups.values(), key=lambda g: not g.cited)


def middle_ellipsis(name: str, limit: int = 32) -> str:
    """Shorten a long name in the middle, keeping its start and its extension readable."""
    if len(name) <= limit:
        return name
    keep = limit - 1
    tail = max(keep // 3, min(len(name) - name.rfind("."), keep // 2) if "." in name else 0)
    head = keep - tail
    return f"{name[:head].rstrip()}…{name[-tail:].lstrip()}"


def file_icon(path: str) -> str:
    """The icon a file or folder (ending in "/") shows with in the window."""
    if path.endswith("/"):
        return "folder"
    return "picture_as_pdf" if path.lower().endswith(".pdf") else "description"
