"""RapidReader: reads page images with the bundled models, in the OCR lane's worker."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import TYPE_CHECKING

from ingest.document_parts import PlacedLine
from ingest.ocr.layout import reading_text
from ingest.ocr.page_reader import Line, Lines, OcrText
from ingest.ocr.script import is_read, plausible_share

if TYPE_CHECKING:
    from PIL import Image

    from ingest.ocr.engine import RapidOcrEngine

UNREAD_SHARE = 0.5
"""A page whose text is less than half lines the models know was not read."""
UNREAD_LINES = 3
"""Fewer lines than this not read are specks on a picture, not a page in another script."""


class RapidReader:
    """Reads page images with the bundled models (loaded once per worker process)."""

    def __init__(self, threads: int = 1) -> None:
        self._threads = threads
        self._engine: RapidOcrEngine | None = None

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        import numpy as np

        from ingest.ocr.engine import RapidOcrEngine

        if self._engine is None:
            self._engine = RapidOcrEngine(self._threads)
        image = draw()
        pixels = np.asarray(image.convert("RGB"))
        image.close()
        try:
            return judge(self._engine.lines(pixels))
        finally:
            del pixels
            _give_back()


def _give_back() -> None:
    """Return the page's freed buffers to the system: glibc keeps freed heap, and a worker
    reading pages of different sizes grew to 1.1 GB where one page needs 0.6 to 0.9."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to trim
        return
    libc.malloc_trim(0)


def judge(found: Lines) -> OcrText:
    """The page's text from its lines, and whether it was read at all."""
    read = [line for line in found.lines if is_read(line)]
    seen = sum(len(line.text) for line in found.lines)
    kept = sum(len(line.text) for line in read)
    text = reading_text(found, read) if read else ""
    if kept < UNREAD_SHARE * seen or plausible_share(text) < UNREAD_SHARE:
        unread = len(found.lines) - len(read) >= UNREAD_LINES
        return OcrText("", None, unread=unread)
    if not read:
        return OcrText("", None)
    confidence = sum(line.score * len(line.text) for line in read) / kept
    return OcrText(text, round(confidence, 4), lines=placed(found, read))


def placed(found: Lines, lines: list[Line]) -> tuple[PlacedLine, ...]:
    """``lines`` with their corners as fractions of the image (the page as shown)."""

    def share(value: float, whole: int) -> float:
        return round(min(max(value / max(whole, 1), 0.0), 1.0), 4)

    return tuple(
        PlacedLine(
            line.text,
            tuple((share(x, found.width), share(y, found.height)) for x, y in line.points),
        )
        for line in lines
    )
