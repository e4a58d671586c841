"""Loaders: turn a file into pages of text, lazily, or say in plain words why they cannot.

Cheap checks (empty, wrong password, binary, a missing part) fail in ``open_document``;
what needs the whole file (no text at all) fails at the end of ``pages()``; both raise
UnreadableFile, while OSError passes through so the caller can tell "try again later" from
"broken". Run only in parser processes (``ingest.parsing``), under a memory limit.

Positions: a paged format's pages count from 0; elsewhere ``page.offset`` is where the
page's block starts, so a span is ``page.text[start - page.offset : end - page.offset]``,
in the decoded file for text formats and in the extracted text for the others.
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
    """Open ``path`` with the loader for its suffix, page images read by ``ocr`` (None: OCR
    off: scanned pages are empty, pictures fail); raises UnsupportedFile or UnreadableFile."""
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
    """Every page of ``path`` in a list, held in memory (the indexer streams instead)."""
    with open_document(path, ocr) as document:
        return list(document.pages())
