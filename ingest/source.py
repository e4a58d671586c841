"""The one place the pipeline reaches the loaders: ``open_source`` and ``chunk_stream``.

The loaders take a path (``open_document(path) -> LoadedDocument`` with ``page_count``,
lazy ``pages()`` and ``close()``), so a new file is read twice: once to hash it, once to
parse it (from the page cache). The pipeline checks afterwards that the file did not
change in between, so chunks always belong to the sha256 they are filed under.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ingest.chunker import PageChunk, chunk_pages
from ingest.loaders import (
    SUPPORTED_SUFFIXES,
    LoadedDocument,
    UnreadableFile,
    UnsupportedFile,
    is_supported,
    open_document,
)
from ingest.types import Page

__all__ = [
    "SUPPORTED_SUFFIXES",
    "LoadedDocument",
    "UnreadableFile",
    "UnsupportedFile",
    "chunk_stream",
    "is_supported",
    "open_source",
]


def open_source(path: Path) -> LoadedDocument:
    """Open ``path`` for lazy reading; raises UnsupportedFile/UnreadableFile (OSError as is)."""
    return open_document(path)


def chunk_stream(pages: Iterable[Page], size: int, overlap: int) -> Iterator[PageChunk]:
    """Chunks of the pages, pulling a page only when its chunks are wanted."""
    return chunk_pages(pages, size, overlap)
