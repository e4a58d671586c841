"""What every loader shares: the document shape, block cutting and heading paths."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from ingest.closing import Closing
from ingest.document_parts import Page, Section

BLOCK_CHARS = 1 << 20
"""About how many characters one streamed Page holds; memory per file is a few of these."""

_BREAKS = (re.compile(r"\n[ \t\r]*\n"), re.compile(r"\n"), re.compile(r"\s"))


class Document(Closing):
    """A file opened for reading; ``pages()`` reads it lazily, ``close()`` lets it go."""

    page_count: int | None = None

    def __init__(self, path: Path) -> None:
        self.path = path

    def pages(self) -> Iterator[Page]:
        """Yield the pages in order; may raise UnreadableFile once the whole file is seen."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the file; the pipeline calls it when it stops reading early."""


@runtime_checkable
class Resumable(Protocol):
    """A document whose reading can pick up at a page (the OCR lane keeps pages read)."""

    def resume_at(self, first: int, seen_text: bool) -> None:
        """Begin ``pages()`` at page ``first`` (1-based), skipping the pages before it
        unread; ``seen_text`` says whether they held any text (a document with none at
        all still fails, saying why)."""
        ...


def cut_point(text: str, target: int) -> int:
    """Where to end a block of ``text`` near ``target``: after a blank line, a line or a space."""
    if len(text) <= target:
        return len(text)
    floor = target // 2
    for pattern in _BREAKS:
        best = -1
        for match in pattern.finditer(text, floor, target):
            best = match.end()
        if best > floor:
            return best
    return target


def cut_blocks(pieces: Iterable[str], target: int = BLOCK_CHARS) -> Iterator[tuple[int, str]]:
    """Regroup decoded pieces into blocks of about ``target`` characters, with their offsets,
    ending at a nearby paragraph or line break (cutting no worse than the chunker would)."""
    offset = 0
    buffer = ""
    for piece in pieces:
        buffer += piece
        while len(buffer) > target:
            cut = cut_point(buffer, target)
            yield offset, buffer[:cut]
            offset += cut
            buffer = buffer[cut:]
    if buffer:
        yield offset, buffer


class HeadingTrail:
    """The path of headings above the current position, outermost first; a document title
    sits at level 0, and an H1 that merely repeats it is not added twice."""

    def __init__(self, title: str | None = None) -> None:
        self._stack: list[tuple[int, str]] = []
        title = _clean(title or "")
        if title:
            self._stack.append((0, title))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._stack)

    def enter(self, level: int, text: str) -> tuple[str, ...]:
        """Record a heading of ``level`` (0 = title, 1 = top heading); return the new path."""
        text = _clean(text)
        if not text:
            return self.path
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        if not (self._stack == [(0, text)] and level == 1):
            self._stack.append((level, text))
        return self.path

    def section(self, start: int, level: int, text: str) -> Section:
        """A Section starting at ``start`` for a heading of ``level``."""
        return Section(start=start, path=self.enter(level, text))


def _clean(text: str) -> str:
    return " ".join(text.split())[:200]


class ParagraphPages:
    """Lays out paragraphs as text separated by blank lines, handing out page-sized blocks."""

    def __init__(self, trail: HeadingTrail, block_chars: int = BLOCK_CHARS) -> None:
        self.trail = trail
        self.block_chars = block_chars
        self.seen_text = False
        self._offset = 0
        self._parts: list[str] = []
        self._size = 0
        self._sections: list[Section] = []

    def add(self, text: str, level: int | None = None) -> Page | None:
        """Append a paragraph (a heading when ``level`` is set); returns a page once full."""
        text = text.strip()
        if not text:
            return None
        if level is not None:
            self._sections.append(self.trail.section(self._offset + self._size, level, text))
        self._parts.append(text + "\n\n")
        self._size += len(text) + 2
        self.seen_text = True
        return self.finish() if self._size >= self.block_chars else None

    def finish(self) -> Page | None:
        """The paragraphs not yet handed out, as a page (None when there are none)."""
        if not self._parts:
            return None
        page = Page(None, "".join(self._parts), self._offset, tuple(self._sections))
        self._offset += self._size
        self._parts, self._size, self._sections = [], 0, []
        return page
