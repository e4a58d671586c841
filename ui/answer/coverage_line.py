"""The line under an answer that says how much of the library it read."""

from __future__ import annotations

from nicegui import ui

from app.records import Coverage


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def coverage_line(coverage: Coverage | None, passages: int) -> str | None:
    """One sentence of ``done``'s coverage and passages read; None when nothing was searched."""
    if not coverage:
        return None
    read = int(coverage.get("documents_read") or 0)
    pages = int(coverage.get("pages_read") or 0)
    matched = coverage.get("documents_matched")
    in_scope = int(coverage.get("documents_in_scope") or 0)
    if coverage.get("whole"):
        total = int(coverage.get("pages_total") or 0)
        if pages < total:  # some sections were not read (a stop, the call budget)
            which = "the document" if read == 1 else _plural(read, "document")
            return f"Read {pages} of the {total} pages of {which}"
        if read == 1:
            return f"Read the whole document ({_plural(pages, 'page')})"
        return f"Read {read} whole documents ({_plural(pages, 'page')})"
    if matched is not None:
        if not matched:
            return f"No match in {_plural(in_scope, 'document')} searched"
        documents = _plural(int(matched), "matching document")
        return f"Read {read} of {documents} ({_plural(pages, 'page')})"
    if not passages:
        return f"Searched {_plural(in_scope, 'document')}; none bore on the question"
    best = "the best passage" if passages == 1 else f"the {passages} best passages"
    return f"Read {best} from {_plural(read, 'document')} ({in_scope} searched)"


def show_coverage(coverage: Coverage | None, passages: int) -> None:
    """The coverage line, if the answer searched."""
    line = coverage_line(coverage, passages)
    if line is not None:
        label = ui.label(line).classes("text-xs docent-muted").mark("coverage")
        label.props('aria-label="How much of the library this answer read"')
