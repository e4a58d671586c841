"""Chunker: split pages into overlapping pieces, streaming, never across a page or section.

``page.text[chunk.start - page.offset : chunk.end - page.offset] == chunk.text`` always
holds; citations rely on it. A heading with nothing under it but its first sub-heading
joins that sub-section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ingest.document_parts import HEADING_SEPARATOR, Page

# Where a chunk may end, best first. Each pattern's match end is the cut point.
_PARAGRAPH = re.compile(r"\n[ \t\r]*\n")
_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*\s|[。！？]")
_LINE = re.compile(r"\n")
_SPACE = re.compile(r"\s")
_BREAKS = (_PARAGRAPH, _SENTENCE, _LINE, _SPACE)

_MIN_FILL = 0.5
"""A chunk is cut at a boundary only if it keeps at least this share of ``size``."""


@dataclass(frozen=True)
class PageChunk:
    """A piece of one page: ``text`` is ``page.text[start - page.offset : end - page.offset]``."""

    page: int | None
    start: int
    end: int
    text: str
    heading: str = ""
    """The heading path above the chunk, e.g. "Setup > Install"; "" where there is none."""
    ocr_confidence: float | None = None
    """Its page was read by OCR, with this mean confidence (None: the file's own text)."""


def chunk_pages(pages: Iterable[Page], size: int = 1000, overlap: int = 150) -> Iterator[PageChunk]:
    """Split each page into chunks of at most ``size`` characters sharing ``overlap``, lazily."""
    if size <= 0:
        raise ValueError(f"chunk size must be positive, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"chunk overlap must be in [0, {size}), got {overlap}")
    return _chunks(pages, size, overlap)


def _chunks(pages: Iterable[Page], size: int, overlap: int) -> Iterator[PageChunk]:
    path: tuple[str, ...] = ()  # headings carry over from one page to the next
    for page in pages:
        text = page.text
        confidence = page.ocr.confidence if page.ocr is not None else None
        for lo, hi, seg_path in _segments(page, path):
            heading = HEADING_SEPARATOR.join(seg_path)
            for start, end in _spans(text, lo, hi, size, overlap):
                yield PageChunk(
                    page=page.number,
                    start=page.offset + start,
                    end=page.offset + end,
                    text=text[start:end],
                    heading=heading,
                    ocr_confidence=confidence,
                )
        if page.sections:
            path = page.sections[-1].path


def _segments(page: Page, path: tuple[str, ...]) -> list[tuple[int, int, tuple[str, ...]]]:
    """The page cut at its sections: (start, end, heading path), in page-local positions."""
    text, n = page.text, len(page.text)
    starts: list[tuple[int, tuple[str, ...], bool]] = [(0, path, False)]
    for section in page.sections:
        at = min(max(section.start - page.offset, 0), n)
        if at == starts[-1][0]:
            starts[-1] = (at, section.path, True)  # a later heading at the same place wins
        else:
            starts.append((at, section.path, True))
    merged: list[tuple[int, int, tuple[str, ...]]] = []
    carry: int | None = None
    for i, (lo, seg_path, is_heading) in enumerate(starts):
        hi = starts[i + 1][0] if i + 1 < len(starts) else n
        following = starts[i + 1][1] if i + 1 < len(starts) else None
        if is_heading and following is not None and _is_under(following, seg_path):
            if _heading_alone(text, lo, hi, seg_path[-1] if seg_path else ""):
                carry = lo if carry is None else carry
                continue
        merged.append((lo if carry is None else carry, hi, seg_path))
        carry = None
    return merged


def _heading_alone(text: str, lo: int, hi: int, heading: str) -> bool:
    """Whether ``text[lo:hi]`` holds its heading and nothing else (markup aside)."""
    if not heading or hi - lo > 4 * len(heading) + 40:
        return False
    body = text[lo:hi].strip()
    return heading in " ".join(body.split()) and len(body) <= 2 * len(heading) + 10


def _is_under(child: tuple[str, ...], parent: tuple[str, ...]) -> bool:
    return len(child) > len(parent) and child[: len(parent)] == parent


def _spans(text: str, lo: int, hi: int, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """Chunk spans inside ``text[lo:hi]``, trimmed of surrounding whitespace."""
    start = _skip_space(text, lo, hi)
    while start < hi:
        limit = start + size
        end = hi if limit >= hi else _cut(text, start, limit)
        left, right = start, end
        while right > left and text[right - 1].isspace():
            right -= 1
        if right > left:
            yield left, right
        if end >= hi:
            break
        start = _skip_space(text, _next_start(text, start, end, overlap), hi)


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


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos
