"""What OCR hands around: lines found on an image, a page's text, and the reader Protocol.

A reader gets a way to draw the page, so one that will not read never renders; the typed
lane's ``DeferredReader`` raises NeedsOcr, so it never waits on OCR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ingest.document_parts import PageOcr, PlacedLine

if TYPE_CHECKING:
    from PIL import Image


class NeedsOcr(Exception):
    """A page of this file has no usable text: the file is read again in the OCR lane."""


@dataclass(frozen=True)
class Line:
    """One line of text: its corners (clockwise from the text's top left), text, confidence."""

    points: tuple[tuple[float, float], ...]
    text: str
    score: float


@dataclass(frozen=True)
class Lines:
    """What an image holds: its lines, and the page's turn (degrees clockwise; 90: top down)."""

    lines: list[Line]
    rotation: int
    width: int
    height: int


@dataclass(frozen=True)
class OcrText:
    """What OCR made of one page image."""

    text: str
    """The page's text in reading order ("" when none, or when it was not read)."""
    confidence: float | None
    """Mean recognition confidence of its characters (0..1); None when nothing was read."""
    unread: bool = False
    """Text was there, in a script the bundled models do not read."""
    lines: tuple[PlacedLine, ...] = ()
    """The lines the text was made of, placed on the page."""
    left_out: bool = False
    """Not read: the file's pages read by OCR reached their limit."""

    def page_ocr(self) -> PageOcr:
        """How the page was read, as its ``Page`` carries it."""
        return PageOcr(self.confidence, self.unread, self.lines, self.left_out)


class PageReader(Protocol):
    """Reads the text of a page image."""

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        """The text of the image ``draw()`` returns."""
        ...


class DeferredReader:
    """Reads nothing: a page that needs OCR sends the file to the OCR lane."""

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        raise NeedsOcr()


ReaderFactory = Callable[[], PageReader]
"""Makes the OCR worker's reader (once per worker process): a module-level class or
function, since it crosses to the worker by name."""


class CappedReader:
    """Reads ``limit`` pages with ``reader``, then leaves every later page out unread."""

    def __init__(self, reader: PageReader, limit: int) -> None:
        self._reader = reader
        self._left = limit

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        if self._left <= 0:  # never drawn: a page left out costs nothing
            return OcrText("", None, left_out=True)
        self._left -= 1
        return self._reader.read(draw)
