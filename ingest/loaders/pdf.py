"""PDF through pypdf, one page at a time from the open file, blank pages included.

AES and CFF fonts need ``pypdf[crypto,fonts]``. A page whose text layer is missing or
useless while it draws an image is a scan, read by the ``PageReader`` (empty with OCR
off); pages with good text are never OCR'd.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError

from ingest.document_parts import Page, PageOcr, Section
from ingest.loaders.base import Document, HeadingTrail
from ingest.loaders.errors import (
    NEEDS_AES,
    NO_PAGES,
    NO_TEXT_DRAWN,
    NO_TEXT_LAYER,
    NO_TEXT_READ,
    PASSWORD_PROTECTED,
    UNREAD_SCRIPT,
    UnreadableFile,
    damaged_pdf,
)
from ingest.loaders.pdf_log import PypdfLog
from ingest.loaders.pdf_open import open_pdf
from ingest.loaders.pdf_scans import is_scanned
from ingest.ocr.page_reader import PageReader
from ingest.ocr.render import PdfPages

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

_OUTLINE_DEPTH = 6
_OUTLINE_MAX = 5000
_CACHE_PAGES = 64
"""pypdf keeps every object it has parsed; let it go this often, so a long PDF's memory
stays flat (shared fonts are parsed again, a small price)."""


class PdfDocument(Document):
    """An open PDF: structure checked and password tried on open, text read per page."""

    def __init__(self, path: Path, ocr: PageReader | None = None) -> None:
        super().__init__(path)
        self._ocr = ocr
        self._rendered: PdfPages | None = None
        self._log = PypdfLog(path.name)
        self._file: io.BufferedReader | None = path.open("rb")
        try:
            with self._log:
                self._reader = open_pdf(self._file)
                self.page_count = _count_pages(self._reader)
                self._outline = _outline(self._reader)
        except BaseException:
            self.close()
            raise
        self._first = 1
        self._seen_text = False

    def resume_at(self, first: int, seen_text: bool) -> None:
        """Begin ``pages()`` at page ``first`` (see ``Resumable``); the pages before it only
        have their bookmarks followed, so later headings are as a whole reading gives them."""
        self._first, self._seen_text = max(first, 1), seen_text

    def pages(self) -> Iterator[Page]:
        if self._file is None:
            raise ValueError(f"{self.path.name} is closed")
        had_text, has_images, unread = self._seen_text, False, False
        first_error: BaseException | None = None
        trail = HeadingTrail()
        for number in range(1, min(self._first, (self.page_count or 0) + 1)):
            for level, title in self._outline.get(number, []):
                trail.enter(level, title)
        try:
            for number in range(self._first, (self.page_count or 0) + 1):
                with self._log:
                    text, error = _extract(self._reader, number)
                    draws = is_scanned(self._reader.pages[number - 1], text)
                has_images = has_images or draws
                ocr: PageOcr | None = None
                if draws and self._ocr is not None:
                    read = self._ocr.read(partial(self._render, number))
                    text, ocr = read.text, read.page_ocr()
                    unread = unread or read.unread
                if text.strip():
                    had_text = True
                first_error = first_error or error
                if number % _CACHE_PAGES == 0:
                    self._reader.resolved_objects.clear()
                sections = _place(self._outline.get(number, []), text, trail)
                yield Page(number=number, text=text, sections=sections, ocr=ocr)
        finally:
            self.close()
        if not had_text:
            if first_error is not None:
                raise damaged_pdf(first_error)
            if unread:
                raise UnreadableFile(UNREAD_SCRIPT)
            if has_images and self._ocr is not None:
                raise UnreadableFile(NO_TEXT_READ)
            raise UnreadableFile(NO_TEXT_LAYER if has_images else NO_TEXT_DRAWN)

    def _render(self, number: int) -> Image.Image:
        """Page ``number`` drawn for OCR (PDFium opens the file on the first call)."""
        if self._rendered is None:
            self._rendered = PdfPages(self.path.open("rb"))
        return self._rendered.render(number)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._rendered is not None:
            self._rendered.close()
            self._rendered = None


def _count_pages(reader: PdfReader) -> int:
    try:
        count = len(reader.pages)
    except RecursionError as exc:
        raise damaged_pdf("its page tree loops on itself") from exc
    except Exception as exc:
        raise damaged_pdf(exc) from exc
    if count == 0:
        raise UnreadableFile(NO_PAGES)
    return count


def _extract(reader: PdfReader, number: int) -> tuple[str, BaseException | None]:
    """One page's text, or "" and the error that stopped it; one bad page costs only itself."""
    try:
        text = reader.pages[number - 1].extract_text()
    except DependencyError as exc:
        raise UnreadableFile(NEEDS_AES) from exc
    except FileNotDecryptedError as exc:
        raise UnreadableFile(PASSWORD_PROTECTED) from exc
    except RecursionError as exc:
        log.info("page %d: its drawing loops on itself", number)
        return "", exc
    except Exception as exc:
        log.info("page %d: text extraction failed: %r", number, exc)
        return "", exc
    return text.replace("\x00", ""), None


def _outline(reader: PdfReader) -> dict[int, list[tuple[int, str]]]:
    """The bookmarks on each page: page number -> [(level, title)], in outline order."""
    found: dict[int, list[tuple[int, str]]] = {}

    def walk(items: list[Any], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                if level < _OUTLINE_DEPTH:
                    walk(item, level + 1)
                continue
            number = reader.get_destination_page_number(item)
            title = str(getattr(item, "title", "") or "")
            if number is not None and number >= 0 and title.strip():
                found.setdefault(number + 1, []).append((level, title))
            if sum(len(entries) for entries in found.values()) >= _OUTLINE_MAX:
                raise StopIteration

    try:
        walk(reader.outline, 1)
    except StopIteration:
        pass
    except Exception as exc:  # a broken outline costs the headings, not the text
        log.info("outline unreadable: %r", exc)
    return found


def _place(entries: list[tuple[int, str]], text: str, trail: HeadingTrail) -> tuple[Section, ...]:
    """Sections for a page's bookmarks, each where its title first appears in the text (else
    the top of the page), so text above it stays under the previous heading."""
    sections: list[Section] = []
    position = 0
    for level, title in entries:
        found = text.find(title.strip(), position)
        position = found if found >= 0 else position
        sections.append(trail.section(position, level, title))
    return tuple(sections)
