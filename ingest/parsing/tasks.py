"""The tasks a parser process runs: module-level functions the pool names in ``Start``.

``ocr`` mode: "off" (scanned pages empty), "defer" (the first page that needs OCR raises
NeedsOcr), or "read" (the OCR lane's worker, whose models stay loaded between files).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PosixPath, WindowsPath
from typing import IO, Any, Literal

from ingest.document_parts import Page
from ingest.loaders import UnreadableFile, open_document
from ingest.loaders.base import Resumable
from ingest.ocr.page_reader import CappedReader, DeferredReader, PageReader, ReaderFactory

PAGE_CHARS = 8 << 20
"""Most characters one page may hand to the app. Pages cut from a stream are about a
megabyte; a single slide or PDF page past this is built to fill the app's memory."""


OcrMode = Literal["off", "defer", "read"]
"""How ``read_document`` treats page images (see the module docstring)."""

_readers: dict[ReaderFactory, PageReader] = {}
"""This process's OCR reader, once it has read a page (its models stay loaded)."""


@dataclass(frozen=True)
class ScanPlan:
    """How the OCR lane's worker reads a file."""

    reader: ReaderFactory
    """Makes the reader (once per worker: the real one loads its models)."""
    first_page: int = 1
    """The pages before this one were read before and kept: they are skipped unread."""
    seen_text: bool = False
    """Whether those pages held any text."""
    ocr_pages: int | None = None
    """How many more pages OCR may read (None: no limit); later ones are left out."""


def read_document(path: str, ocr: OcrMode, data: bytes | None) -> Iterator[Any]:
    """The document's page count (None when unknown up front), then its pages; given
    ``data``, the file is parsed from those bytes (the ones the app hashed)."""
    with open_document(_source(path, data), _page_reader(ocr)) as document:
        yield document.page_count
        yield from _checked(document.pages())


def read_scan(path: str, plan: ScanPlan, data: bytes | None) -> Iterator[Any]:
    """``read_document`` for the OCR lane: its page count, then its pages from
    ``plan.first_page`` on, read by ``plan.reader`` within ``plan.ocr_pages``."""
    reader = _made(plan.reader)
    if plan.ocr_pages is not None:
        reader = CappedReader(reader, plan.ocr_pages)
    with open_document(_source(path, data), reader) as document:
        yield document.page_count
        if isinstance(document, Resumable):
            document.resume_at(plan.first_page, plan.seen_text)
        for page in _checked(document.pages()):
            if page.number is None or page.number >= plan.first_page:
                yield page  # (a document that cannot skip reads its kept pages again)


def _source(path: str, data: bytes | None) -> Path:
    return Path(path) if data is None else HeldPath.holding(Path(path), data)


def _checked(pages: Iterable[Page]) -> Iterator[Page]:
    for page in pages:
        if len(page.text) > PAGE_CHARS:
            where = f"page {page.number}" if page.number is not None else "a part"
            raise UnreadableFile(
                f"{where} of this file holds more than {PAGE_CHARS:,} characters of text,"
                " more than any real page: it may be a file made to exhaust memory"
            )
        yield page


PREVIEW_SIDE = 2000
"""Longest side of a picture shown in the viewer (pixels)."""


def preview_frame(path: str, frame: int, data: bytes | None) -> Iterator[Any]:
    """Frame ``frame`` (0-based) of a picture as PNG within PREVIEW_SIDE (browsers show no TIFF)."""
    from PIL import Image

    from ingest.loaders.images import frame_count, open_picture, refuse_past_limit

    with Path(path).open("rb") as handle:
        image = open_picture(handle)
        image.seek(min(max(frame, 0), frame_count(image) - 1))
        refuse_past_limit(image)
        shown = image.convert("RGB")
        shown.thumbnail((PREVIEW_SIDE, PREVIEW_SIDE), Image.Resampling.LANCZOS)
        out = io.BytesIO()
        shown.save(out, "PNG")
    yield out.getvalue()  # the file is closed by now, while the worker waits


def _page_reader(mode: OcrMode) -> PageReader | None:
    if mode == "off":
        return None
    if mode == "defer":
        return DeferredReader()
    from ingest.ocr.reader import RapidReader

    return _made(RapidReader)


def _made(factory: ReaderFactory) -> PageReader:
    """The reader ``factory`` makes, made once in this process."""
    if factory not in _readers:
        _readers.clear()  # one reader's models at a time
        _readers[factory] = factory()
    return _readers[factory]


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
