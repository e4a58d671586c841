"""Data shapes shared by the ingest pipeline and its readers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

HEADING_SEPARATOR = " > "
"""How a heading path is joined (``Chunk.heading``, cut by the chunker)."""


class DocStatus(StrEnum):
    """Where a document is in the pipeline."""

    QUEUED = "queued"
    INDEXING = "indexing"
    READY = "ready"
    ERROR = "error"


@dataclass(frozen=True)
class Section:
    """Where a heading's section begins, and the headings above it, outermost first."""

    start: int
    """Position in its page's coordinates: ``page.text[start - page.offset]`` (see Page)."""
    path: tuple[str, ...]


@dataclass(frozen=True)
class PlacedLine:
    """A line OCR read, and where it sits on its page: its four corners, clockwise from the
    text's top left, as fractions of the page's size from its top left (slant kept)."""

    text: str
    corners: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class PageOcr:
    """How a page read by OCR was read."""

    confidence: float | None
    """Mean recognition confidence of its characters (0..1); None when nothing was read."""
    unread: bool = False
    """It holds text in a script the bundled models do not read (its text is then "")."""
    lines: tuple[PlacedLine, ...] = ()
    """The lines read, where they are on the page."""
    left_out: bool = False
    """Not read: the file had as many pages read by OCR as one may (its text is then "")."""


@dataclass(frozen=True)
class Page:
    """Text of one page; ``number`` is 1-based for paged formats, None otherwise.

    Positions on a page (chunk spans, section starts) count characters from the start of
    the document's text when ``number`` is None, and from the start of the page otherwise:
    position ``p`` is ``text[p - offset]``. A file read in blocks yields one Page per block,
    each with the ``offset`` of its first character.
    """

    number: int | None
    text: str
    offset: int = 0
    sections: tuple[Section, ...] = ()
    """Headings that begin on this page, in order; earlier pages' headings still apply."""
    ocr: PageOcr | None = None
    """Set when the page's text was read by OCR (None: the file's own text)."""


@dataclass(frozen=True)
class Chunk:
    """A piece of a document, with everything a citation needs.

    ``doc_id`` is the content key (see ``ingest.keys``), so identical files share their
    chunks; ``path`` and ``file`` are where the content was first seen. Readers take the
    current paths from the registry (``Registry.paths_for_keys``), which a rename updates.
    """

    doc_id: str
    path: str
    """Path relative to the documents folder, with forward slashes."""
    file: str
    page: int | None
    index: int
    start: int
    """Character span of ``text`` inside its page's text."""
    end: int
    text: str
    sha256: str
    heading: str = ""
    """The heading path above the chunk, e.g. "Setup > Install"; "" where there is none."""
    ocr_confidence: float | None = None
    """Its page was read by OCR, with this mean recognition confidence (0..1); None for
    text the file holds as text."""

    @property
    def ocr(self) -> bool:
        """Whether the chunk's text was read by OCR."""
        return self.ocr_confidence is not None


@dataclass(frozen=True)
class Hit:
    """A chunk returned by a search, with its relevance (higher is better)."""

    chunk: Chunk
    score: float
    paths: tuple[str, ...] = ()
    """Every current path with this content (identical files); ``chunk.path`` is the first."""


@dataclass(frozen=True)
class DocumentRecord:
    """One row of the document registry."""

    id: str
    path: str
    status: DocStatus
    pages: int | None
    chunks: int
    error: str | None
    updated_at: str
    sha256: str | None
    content_key: str | None = None
    """The content whose chunks answer for this path now (None: nothing searchable)."""
    size: int | None = None
    mtime_ns: int | None = None
    """The file's size and mtime when ``sha256`` was taken: unchanged means not re-read."""
    retry: bool = True
    """False for errors the file's bytes cause: not retried until the bytes change."""
    note: str | None = None
    """What a person should know about a ready document, e.g. "4 pages read with low
    confidence"; None when nothing."""


@dataclass(frozen=True)
class DocumentVector:
    """A document's vector and how many chunks it has (the document prior's weight)."""

    vector: Sequence[float]
    chunks: int
