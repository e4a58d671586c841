"""Where a chunk sits: its document's title and heading path, as the embedder is given them.

A paragraph under "Eligibility" rarely says "parental leave", so the embedder reads each
chunk behind its place; stored text and offsets never change, and the keyword index is not
given it (it lowered R@1, docs/retrieval.md). Derived from the chunk's own fields only, so
a collection can be rebuilt from another's chunks, without the files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from ingest.document_parts import HEADING_SEPARATOR, Chunk

VECTOR_TEXT_VERSION = 2
"""What a chunk's vector is made from: 1, its text alone; 2, its context, then its text.
Vectors of the two kinds must never share a collection (see ``ingest.index.vectors``)."""

_SEPARATORS = re.compile(r"[\s_\-.+]+")
_WORD = re.compile(r"\w+")


def title_of(file: str) -> str:
    """A document's title as its file name says it: ``Super_Bowl_50.md`` -> "Super Bowl 50"."""
    stem = PurePosixPath(file).stem if "." in file else file
    return " ".join(_SEPARATORS.split(stem)).strip()


def context_of(chunk: Chunk) -> str:
    """The chunk's place: its file's title (unless the path begins with it), then its path."""
    path = [part for part in chunk.heading.split(HEADING_SEPARATOR) if part]
    title = title_of(chunk.file)
    if title and not (path and _words(title) <= _words(path[0])):
        path.insert(0, title)
    return HEADING_SEPARATOR.join(path)


def embedded_text(chunk: Chunk) -> str:
    """What the embedder reads for a chunk: its context, a colon, then its text."""
    context = context_of(chunk)
    return f"{context}: {chunk.text}" if context else chunk.text


def text_for_vector(chunk: Chunk, version: int) -> str:
    """The text a vector of ``version`` (``VECTOR_TEXT_VERSION``) is made from."""
    return embedded_text(chunk) if version >= 2 else chunk.text


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


_OUTLINE_CHARS = 400
"""How much of a document's outline its vector reads: the embedder keeps 256 tokens, and
the first chunk's words should still fit after the headings."""


class Outline:
    """The chunks ``document_text`` needs of a document streamed a batch at a time."""

    def __init__(self) -> None:
        self.chunks: list[Chunk] = []
        self._headings: set[str] = set()

    def add(self, chunks: Sequence[Chunk]) -> None:
        for chunk in chunks:
            if not self.chunks or chunk.heading not in self._headings:
                self.chunks.append(chunk)
                self._headings.add(chunk.heading)

    def text(self) -> str | None:
        """The document's ``document_text``; None before any chunk."""
        return document_text(self.chunks) if self.chunks else None


def document_text(chunks: Sequence[Chunk]) -> str:
    """A document's vector text: title and outline of ``chunks`` (from its first), first text."""
    headings = dict.fromkeys(
        part for chunk in chunks for part in chunk.heading.split(HEADING_SEPARATOR) if part
    )
    outline = HEADING_SEPARATOR.join([title_of(chunks[0].file), *headings])[:_OUTLINE_CHARS]
    return f"{outline}: {chunks[0].text}"
