"""The tasks a parser process runs: module-level functions the pool names in ``Start``.

Reading a document is the one there is; OCR would be another function beside it.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path, PosixPath, WindowsPath
from typing import IO, Any

from ingest.loaders import UnreadableFile, open_document

PAGE_CHARS = 8 << 20
"""Most characters one page may hand to the app. Pages cut from a stream are about a
megabyte; a single slide or PDF page past this is built to fill the app's memory."""


def read_document(path: str, data: bytes | None) -> Iterator[Any]:
    """The document's page count (None when unknown up front), then its pages.

    ``data`` is the file's bytes when the app read them already: the file is then parsed
    from those, never read again, so its pages belong to the bytes the app hashed.
    """
    source = Path(path) if data is None else HeldPath.holding(Path(path), data)
    with open_document(source) as document:
        yield document.page_count
        for page in document.pages():
            if len(page.text) > PAGE_CHARS:
                where = f"page {page.number}" if page.number is not None else "a part"
                raise UnreadableFile(
                    f"{where} of this file holds more than {PAGE_CHARS:,} characters of text,"
                    " more than any real page: it may be a file made to exhaust memory"
                )
            yield page


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
