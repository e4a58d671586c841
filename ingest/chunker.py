"""Chunker: split pages into overlapping pieces that never cross a page.

Every chunk keeps its page number and its character span, so that
``page.text[chunk.start:chunk.end] == chunk.text`` always holds; citations rely on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ingest.types import Page

# Where a chunk may end, best first. Each pattern's match end is the cut point.
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*\s|[。！？]")
_LINE = re.compile(r"\n")
_SPACE = re.compile(r"\s")
_BREAKS = (_PARAGRAPH, _SENTENCE, _LINE, _SPACE)

_MIN_FILL = 0.5
"""A chunk is cut at a boundary only if it keeps at least this share of ``size``."""


@dataclass(frozen=True)
class PageChunk:
    """A piece of one page: ``text`` is exactly ``page.text[start:end]``."""

    page: int | None
    start: int
    end: int
    text: str


def chunk_pages(pages: Sequence[Page], size: int = 1000, overlap: int = 150) -> list[PageChunk]:
    """Split each page into chunks of at most ``size`` characters sharing ``overlap``."""
    if size <= 0:
        raise ValueError(f"chunk size must be positive, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"chunk overlap must be in [0, {size}), got {overlap}")
    chunks: list[PageChunk] = []
    for page in pages:
        chunks.extend(_chunk_text(page, size, overlap))
    return chunks


def _chunk_text(page: Page, size: int, overlap: int) -> list[PageChunk]:
    text = page.text
    n = len(text)
    chunks: list[PageChunk] = []
    start = _skip_space(text, 0, n)
    while start < n:
        limit = start + size
        end = n if limit >= n else _cut(text, start, limit)
        lo, hi = start, end
        while hi > lo and text[hi - 1].isspace():
            hi -= 1
        if hi > lo:
            chunks.append(PageChunk(page=page.number, start=lo, end=hi, text=text[lo:hi]))
        if end >= n:
            break
        start = _skip_space(text, _next_start(text, start, end, overlap), n)
    return chunks


def _cut(text: str, start: int, limit: int) -> int:
    """The best end for a chunk starting at ``start`` and ending by ``limit``."""
    floor = start + max(1, int((limit - start) * _MIN_FILL))
    for pattern in _BREAKS:
        best = -1
        for match in pattern.finditer(text, floor, limit):
            best = match.end()
        if best > floor:
            return best
    return limit


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    """Back up ``overlap`` characters from ``end``, then forward to a word start."""
    candidate = max(end - overlap, start + 1)
    if candidate <= 0 or text[candidate - 1].isspace():
        return candidate
    space = _SPACE.search(text, candidate, end)
    # No space inside the overlap (one long word, or CJK text): cut mid-word.
    return space.end() if space else candidate


def _skip_space(text: str, pos: int, n: int) -> int:
    while pos < n and text[pos].isspace():
        pos += 1
    return pos
