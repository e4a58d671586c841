"""Context around hits: each hit with its ±1 neighbours on the page, merged so no text reaches the
generator twice; and a whole document's pages rebuilt from its chunks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graph.retrieval.scored import Candidate, Key, Passage
from ingest.document_parts import Chunk

PageKey = tuple[str, int | None]


def neighbour_keys(hits: Iterable[Candidate]) -> list[Key]:
    """Keys of the chunks just before and after each hit."""
    keys: list[Key] = []
    for hit in hits:
        doc_id, index = hit.key
        keys += [(doc_id, index - 1), (doc_id, index + 1)]
    return [k for k in dict.fromkeys(keys) if k[1] >= 0]


@dataclass
class PageText:
    """What is known of one page's text, from the chunks seen on it."""

    pieces: dict[int, str] = field(default_factory=dict)

    def add(self, chunk: Chunk) -> None:
        self.pieces.setdefault(chunk.start, chunk.text)

    def text(self, start: int, end: int) -> str:
        """The page's text in [start, end); gaps (whitespace the chunker skipped) are spaces."""
        out = [" "] * (end - start)
        for at, text in self.pieces.items():
            lo, hi = max(at, start), min(at + len(text), end)
            if lo < hi:
                out[lo - start : hi - start] = text[lo - at : hi - at]
        return "".join(out)


def _window(hit: Chunk, before: Chunk | None, after: Chunk | None, limit: int) -> tuple[int, int]:
    """The hit's span widened into its neighbours, at most ``limit`` characters in all."""
    start, end = hit.start, hit.end
    room = max(0, limit - (end - start))
    left_have = start - before.start if before else 0
    right_have = after.end - end if after else 0
    left = min(left_have, room // 2)
    right = min(right_have, room - left)
    left = min(left_have, room - right)
    if end - start > limit:  # a chunk longer than the limit (a big chunk size setting)
        return start, start + limit
    return start - left, end + right


def expand(
    hits: Sequence[Candidate],
    neighbours: Iterable[Chunk],
    limit: int,
    score_of: dict[Key, float],
) -> list[Passage]:
    """Passages around ``hits`` (best first), overlapping ones merged, each ≤ ``limit`` chars."""
    near = {(c.doc_id, c.index): c for c in neighbours}
    pages: dict[PageKey, PageText] = {}
    passages: list[Passage] = []
    for hit in hits:
        chunk = hit.loaded()
        page_key = (chunk.doc_id, chunk.page)
        page = pages.setdefault(page_key, PageText())
        before = near.get((chunk.doc_id, chunk.index - 1))
        after = near.get((chunk.doc_id, chunk.index + 1))
        before = before if before and before.page == chunk.page else None
        after = after if after and after.page == chunk.page else None
        for piece in (before, chunk, after):
            if piece is not None:
                page.add(piece)
        start, end = _window(chunk, before, after, limit)
        _place(passages, hit, page_key, start, end, limit, score_of[hit.key])
    passages = _without_overlaps(passages)
    for passage in passages:
        passage.text = pages[(passage.doc_id, passage.page)].text(passage.start, passage.end)
    return passages


def _without_overlaps(passages: list[Passage]) -> list[Passage]:
    """A merge can grow a passage into another on its page: trim the later one."""
    dropped: list[Passage] = []
    last: Passage | None = None
    for passage in sorted(passages, key=lambda p: (p.doc_id, str(p.page), p.start)):
        if last is not None and (last.doc_id, last.page) == (passage.doc_id, passage.page):
            if passage.start < last.end:
                passage.start = last.end
                if passage.end <= passage.start:
                    last.hits.extend(passage.hits)
                    dropped.append(passage)
                    continue
        last = passage
    return [p for p in passages if not any(p is d for d in dropped)]


def _place(
    passages: list[Passage],
    hit: Candidate,
    page_key: PageKey,
    start: int,
    end: int,
    limit: int,
    score: float,
) -> None:
    """Merge the window into a passage it touches, or clip it to what none holds yet."""
    chunk = hit.loaded()
    same = [p for p in passages if (p.doc_id, p.page) == page_key]
    for passage in same:
        if start <= passage.end and passage.start <= end:
            lo, hi = min(start, passage.start), max(end, passage.end)
            if hi - lo <= limit:
                passage.start, passage.end = lo, hi
                passage.hits.append(hit)
                return
    for passage in same:
        if passage.start <= chunk.start and chunk.end <= passage.end:
            passage.hits.append(hit)  # the hit is already shown whole
            return
    for passage in same:  # too long to merge: keep only what no passage holds
        if start < passage.end and passage.start < end:
            if passage.start <= start:
                start = passage.end
            else:
                end = passage.start
    if end <= start:
        return
    passages.append(
        Passage(
            doc_id=chunk.doc_id,
            path=chunk.path,
            file=chunk.file,
            page=chunk.page,
            start=start,
            end=end,
            text="",
            score=score,
            hits=[hit],
            ocr_confidence=chunk.ocr_confidence,
        )
    )


def whole_pages(chunks: Sequence[Chunk], limit: int) -> list[Passage]:
    """A document's text rebuilt from its chunks, page by page, cut into ≤ ``limit`` pieces."""
    out: list[Passage] = []
    by_page: dict[int | None, list[Chunk]] = {}
    for chunk in chunks:
        by_page.setdefault(chunk.page, []).append(chunk)
    for page, members in by_page.items():
        known = PageText()
        for c in members:
            known.add(c)
        start, end = min(c.start for c in members), max(c.end for c in members)
        text = known.text(start, end)
        for at in range(0, len(text), limit):
            first = members[0]
            out.append(
                Passage(
                    doc_id=first.doc_id,
                    path=first.path,
                    file=first.file,
                    page=page,
                    start=start + at,
                    end=min(end, start + at + limit),
                    text=text[at : at + limit],
                    score=1.0,
                    ocr_confidence=first.ocr_confidence,
                )
            )
    return out
