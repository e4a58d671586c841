"""The one place the pipeline reaches the loaders: ``open_source`` and ``chunk_stream``.

The loaders take a path (``open_document(path) -> LoadedDocument`` with ``page_count``,
lazy ``pages()`` and ``close()``). The pipeline has read and hashed a new file already;
when it kept the bytes, the loader gets a path whose ``open`` serves those bytes, so the
file is read once and its chunks belong to the hashed bytes by construction. Bigger files
(and the zip-based formats, which open their path themselves) are read again from disk,
and the pipeline checks that the file did not change in between.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path, PosixPath, WindowsPath
from typing import IO, Any

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


def open_source(path: Path, data: bytes | None = None) -> LoadedDocument:
    """Open ``path`` for lazy reading, from ``data`` (its bytes, read already) when given;
    raises UnsupportedFile/UnreadableFile (OSError as is)."""
    return open_document(path if data is None else HeldPath.holding(path, data))


if sys.platform == "win32":
    _ConcretePath = WindowsPath
else:
    _ConcretePath = PosixPath


class HeldPath(_ConcretePath):
    """A path whose bytes were read already: ``open("rb")`` serves them from memory."""

    _held: bytes | None = None

    @classmethod
    def holding(cls, path: Path, data: bytes) -> HeldPath:
        held = cls(path)
        held._held = data
        return held

    def open(self, mode: str = "r", *args: Any, **kwargs: Any) -> IO[Any]:  # type: ignore[override]
        if self._held is None or mode != "rb":
            return super().open(mode, *args, **kwargs)
        return io.BytesIO(self._held)  # shares the bytes; nothing is copied


def chunk_stream(pages: Iterable[Page], size: int, overlap: int) -> Iterator[PageChunk]:
    """Chunks of the pages, pulling a page only when its chunks are wanted."""
    return chunk_pages(pages, size, overlap)
