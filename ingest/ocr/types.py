"""What OCR hands around: lines found on an image, a page's text, and the reader Protocol.

A loader that meets a page with no usable text hands a ``PageReader`` a way to draw it
(a callable, so that a reader that will not read never renders). The real reader
(``ingest.ocr.reader.RapidReader``) reads it in the OCR lane's worker; ``DeferredReader``
raises NeedsOcr, which sends the whole file to that lane, so the typed lane never waits
on OCR; no reader at all means OCR is off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ingest.types import PlacedLine

if TYPE_CHECKING:
    from PIL import Image


class NeedsOcr(Exception):
    """A page of this file has no usable text: the file is read again in the OCR lane."""


@dataclass(frozen=True)
class Line:
    """One line of text as found: its corners in the image (clockwise from the text's
    top left), what it says and the recogniser's confidence (0..1)."""

    points: tuple[tuple[float, float], ...]
    text: str
    score: float


@dataclass(frozen=True)
class Lines:
    """What an image holds: its lines, and how far the page was turned (degrees,
    clockwise: 90 means its text runs top to bottom)."""

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


class PageReader(Protocol):
    """Reads the text of a page image."""

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        """The text of the image ``draw()`` returns."""
        ...


class DeferredReader:
    """Reads nothing: a page that needs OCR sends the file to the OCR lane."""

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        raise NeedsOcr()
