"""Loaders: turn a file into pages of text, or say in plain words why they cannot.

``open_document(path)`` picks a loader by the file's suffix (``LOADERS``, the one list of
supported types) and returns a LoadedDocument: ``page_count`` when the format knows it up
front, and ``pages()``, which reads the file lazily, a page at a time, so memory stays
bounded whatever the file's size. Checks that are cheap (empty file, wrong password,
binary content, a missing part) fail in ``open_document``; what only reading the whole
file can tell (no text at all, a scan) fails at the end of ``pages()``. Both raise
UnreadableFile with a reason a person can act on; OSError (missing file, permission
denied) passes through untouched so the caller can tell "try again later" from "this
file is broken".

The app never calls these in its own process: ``ingest.parsing`` runs them in parser
processes with a memory limit, and a package's parts are read under the limits of
``ingest.loaders.limits``, so a file built to exhaust memory fails with a reason too.

Positions: on a paged format (PDF, slides) each page counts from 0; elsewhere a page is
a block of the document's text and ``page.offset`` is where it starts, so a span
``(start, end)`` on a page is ``page.text[start - page.offset : end - page.offset]``.
Text-like formats (.txt, .md, .rst) keep the file's own characters, so there a span is
a position in the decoded file; the others (PDF, HTML, CSV, Office, EPUB) count in the
text Docent extracts.

OCR: ``open_document(path, ocr)`` takes a ``PageReader`` (``ingest.ocr.page_reader``) that
reads page images; a scanned PDF page and every picture file go to it, and their pages
say so (``Page.ocr``). None means OCR is off: scanned pages are empty, pictures fail
saying OCR is off. Spreadsheets are pages too: one per sheet (``sheets``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Protocol

from ingest.document_parts import Page
from ingest.loaders.docx import DocxDocument
from ingest.loaders.epub import EpubDocument
from ingest.loaders.errors import (
    BINARY_CONTENT,
    EMPTY_FILE,
    NO_TEXT_DRAWN,
    NO_TEXT_LAYER,
    NOT_A_PDF,
    PASSWORD_PROTECTED,
    UnreadableFile,
)
from ingest.loaders.images import IMAGE_SUFFIXES, ImageDocument
from ingest.loaders.markup import HtmlDocument
from ingest.loaders.pdf import PdfDocument
from ingest.loaders.pptx import PptxDocument
from ingest.loaders.sheets import SHEET_SUFFIXES, SheetDocument
from ingest.loaders.tabular import CsvDocument
from ingest.loaders.text import MarkdownDocument, RstDocument, TextDocument
from ingest.ocr.page_reader import PageReader

__all__ = [
    "BINARY_CONTENT",
    "EMPTY_FILE",
    "IMAGE_SUFFIXES",
    "LOADERS",
    "NO_TEXT_DRAWN",
    "NO_TEXT_LAYER",
    "NOT_A_PDF",
    "PASSWORD_PROTECTED",
    "SUPPORTED_SUFFIXES",
    "LoadedDocument",
    "UnreadableFile",
    "UnsupportedFile",
    "is_supported",
    "load",
    "needs_ocr",
    "open_document",
    "supported_kinds",
]


class LoadedDocument(Protocol):
    """A file opened for reading (see the module docstring for what each part promises)."""

    page_count: int | None
    """Known up front for PDF and slides; None where pages are blocks of a stream."""

    def pages(self) -> Iterator[Page]:
        """The pages in order, read lazily; may end by raising UnreadableFile."""
        ...

    def close(self) -> None:
        """Let go of the file; for a reader that stops before the last page."""
        ...

    def __enter__(self) -> LoadedDocument: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


Loader = Callable[[Path, PageReader | None], LoadedDocument]
"""Opens a file; the PageReader reads page images (None: OCR is off)."""


def _text_only(kind: Callable[[Path], LoadedDocument]) -> Loader:
    """A loader for a format that never holds page images."""
    return lambda path, ocr: kind(path)


LOADERS: dict[str, Loader] = {
    ".pdf": PdfDocument,
    ".txt": _text_only(TextDocument),
    ".md": _text_only(MarkdownDocument),
    ".markdown": _text_only(MarkdownDocument),
    ".rst": _text_only(RstDocument),
    ".csv": _text_only(CsvDocument),
    ".html": _text_only(HtmlDocument),
    ".htm": _text_only(HtmlDocument),
    ".docx": _text_only(DocxDocument),
    ".pptx": _text_only(PptxDocument),
    ".epub": _text_only(EpubDocument),
    **dict.fromkeys(sorted(SHEET_SUFFIXES), _text_only(SheetDocument)),
    **dict.fromkeys(sorted(IMAGE_SUFFIXES), ImageDocument),
}
"""The loader for each lower-case suffix: the one list of what Docent reads."""

SUPPORTED_SUFFIXES: frozenset[str] = frozenset(LOADERS)
"""Lower-case suffixes ``open_document`` understands; the window, the API and docs read it."""


def supported_kinds() -> str:
    """The supported suffixes, as a person reads them: ".bmp, .csv, … and .xlsx"."""
    kinds = sorted(SUPPORTED_SUFFIXES)
    return f"{', '.join(kinds[:-1])} and {kinds[-1]}"


class UnsupportedFile(Exception):
    """The file's type is not one Docent reads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(
            f"{path.name}: unsupported file type. Docent reads {supported_kinds()} files"
        )


def is_supported(path: Path) -> bool:
    """Whether ``open_document`` handles this file's suffix."""
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def open_document(path: Path, ocr: PageReader | None = None) -> LoadedDocument:
    """Open ``path`` with the loader for its suffix, page images read by ``ocr`` (None:
    OCR is off); raises UnsupportedFile or UnreadableFile."""
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        raise UnsupportedFile(path)
    if path.stat().st_size == 0:
        raise UnreadableFile(EMPTY_FILE)
    return loader(path, ocr)


def needs_ocr(path: Path) -> bool:
    """Whether every page of such a file is a picture, read only by OCR."""
    return path.suffix.lower() in IMAGE_SUFFIXES


def load(path: Path, ocr: PageReader | None = None) -> list[Page]:
    """Every page of ``path`` in a list: for callers that have not moved to streaming yet.

    Holds the whole document in memory; the indexer should iterate ``open_document``.
    """
    with open_document(path, ocr) as document:
        return list(document.pages())
