"""A stored document as the reader sees it: its pages (``[p12]``, or parts ``[s3]``) from the
store's chunks, grouped into sections. A section may close once half full after a unit whose text
hashes to a chosen residue, so an edit on page 40 moves only nearby boundaries and the other notes
are found in the cache again."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from graph.budget import cut_to, estimate_tokens
from graph.retrieval.expand import whole_pages
from ingest.document_parts import Chunk

UNIT_CHARS = 6_000
"""A page longer than this (or a text without pages) is read in pieces of this size."""
CUT_EVERY = 3
"""About one unit in this many may end a section once it is half full."""


@dataclass(frozen=True)
class Unit:
    """One page (or piece) of a document, with the label the model cites it by."""

    doc_key: str
    path: str
    file: str
    page: int | None
    label: str
    """``p12`` for page 12; ``s3`` for the third piece of a text without pages."""
    start: int
    end: int
    text: str

    @property
    def block(self) -> str:
        """The unit as the model reads it: its label, then its text."""
        return f"[{self.label}]\n{self.text}"

    @cached_property
    def tokens(self) -> int:
        return estimate_tokens(self.block) + 1


@dataclass(frozen=True)
class Section:
    """Consecutive units read in one model call."""

    units: tuple[Unit, ...]

    @cached_property
    def text(self) -> str:
        return "\n\n".join(u.block for u in self.units)

    @cached_property
    def digest(self) -> str:
        """What the section's note is cached by: its text, labels included."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def where(self) -> str:
        """ "pages 4–9" (or "parts 2–3"), for progress and for what was skipped."""
        return span_of(self.units)


@dataclass
class Document:
    """One document being read: where it is now, its content key and its pages."""

    path: str
    key: str
    units: list[Unit]
    sections: list[Section] = field(default_factory=list)


@dataclass
class Note:
    """What was written about one section, with its page labels as the model cited them."""

    document: Document
    section: Section
    text: str


def units_of(chunks: Sequence[Chunk], path: str) -> list[Unit]:
    """The document's text rebuilt from its chunks, in reading order, one unit a page."""
    pieces = whole_pages(sorted(chunks, key=lambda c: c.index), UNIT_CHARS)
    units = []
    for i, piece in enumerate(pieces, start=1):
        label = f"p{piece.page}" if piece.page is not None else f"s{i}"
        units.append(
            Unit(
                piece.doc_id,
                path,
                path.rsplit("/", 1)[-1],
                piece.page,
                label,
                piece.start,
                piece.end,
                piece.text.strip(),
            )
        )
    return [u for u in units if u.text]


def sections_of(units: Sequence[Unit], budget: int) -> list[Section]:
    """``units`` in content-bounded sections of ≤ ``budget`` tokens (a larger unit alone)."""
    sections: list[Section] = []
    current: list[Unit] = []
    used = 0
    for unit in (piece for whole in units for piece in _fitted(whole, budget)):
        if current and used + unit.tokens > budget:
            sections.append(Section(tuple(current)))
            current, used = [], 0
        current.append(unit)
        used += unit.tokens
        if used * 2 >= budget and _may_end(unit):
            sections.append(Section(tuple(current)))
            current, used = [], 0
    if current:
        sections.append(Section(tuple(current)))
    return sections


def _fitted(unit: Unit, budget: int) -> list[Unit]:
    """``unit`` in pieces of at most ``budget`` tokens, each keeping its page's label."""
    pieces: list[Unit] = []
    text = unit.text
    start = unit.start
    room = max(budget - estimate_tokens(f"[{unit.label}]") - 2, 1)
    while estimate_tokens(text) > room:
        head = cut_to(text, room)
        space = head.rfind(" ")
        if space > len(head) // 2:
            head = head[:space]
        pieces.append(_part(unit, start, head))
        start += len(head)
        text = text[len(head) :]
    pieces.append(_part(unit, start, text))
    return [p for p in pieces if p.text.strip()]


def _part(unit: Unit, start: int, text: str) -> Unit:
    return Unit(
        unit.doc_key,
        unit.path,
        unit.file,
        unit.page,
        unit.label,
        start,
        start + len(text),
        text.strip(),
    )


def _may_end(unit: Unit) -> bool:
    digest = hashlib.blake2b(unit.text.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") % CUT_EVERY == 0


def span_of(units: Sequence[Unit]) -> str:
    """How a run of units is named to a person: "page 4", "pages 4–9", "parts 2–3"."""
    if not units:
        return ""
    first, last = units[0], units[-1]
    if first.page is not None and last.page is not None:
        if first.page == last.page:
            return f"page {first.page}"
        return f"pages {first.page}–{last.page}"
    a, b = first.label[1:], last.label[1:]
    return f"part {a}" if a == b else f"parts {a}–{b}"


_LABELS = re.compile(r"\[((?:\s*[ps]\d+\s*[,;]?)+)\]")
_LABEL = re.compile(r"[ps]\d+")


def cite_sources(note: str, numbers: dict[str, int]) -> str:
    """``note`` with unit labels (``[p12, p13]``) as the turn's source numbers (``[4][5]``); labels
    of no unit read are dropped."""

    def replace(match: re.Match[str]) -> str:
        found = [numbers.get(label) for label in _LABEL.findall(match.group(1))]
        return "".join(f"[{n}]" for n in dict.fromkeys(found) if n is not None)

    return _LABELS.sub(replace, note)
