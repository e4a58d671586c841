"""A PageReader for the OCR worker that needs no model: it reads text written into the
picture's first row of pixels (``tests.scans.coded_page``), at once.

It runs in the OCR worker process, so it reports through files: each page it reads is
one line of ``log`` (its text), and a page whose text holds ``HOLD`` waits until the file
``gate`` exists, so a test can catch a file mid-read. Give it to the app as
``ocr_reader=partial(CodedReader, log, gate)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from ingest.ocr.page_reader import OcrText

HOLD = "HOLD"
"""A page whose text holds this waits for the gate."""
_GATE_PATIENCE = 120.0
"""Seconds a held page waits for its gate before it fails (a test that forgot it)."""


class CodedReader:
    """Implements ``ingest.ocr.page_reader.PageReader`` for pages made by ``coded_page``."""

    def __init__(self, log: Path | None = None, gate: Path | None = None) -> None:
        self.log = log
        self.gate = gate

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        image = draw()
        text = decode(image)
        image.close()
        if HOLD in text and self.gate is not None:
            deadline = time.monotonic() + _GATE_PATIENCE
            while not self.gate.exists():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.gate} never opened")
                time.sleep(0.02)
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as handle:
                handle.write(text + "\n")
        return OcrText(text, 0.97)


def decode(image: Image.Image) -> str:
    """The text ``coded_page`` wrote into ``image``."""
    first_row = image.convert("L").crop((0, 0, image.width, 1)).tobytes()
    return first_row.split(b"\0", 1)[0].decode("utf-8")


def reads(log: Path) -> list[str]:
    """The texts a ``CodedReader`` read, in order."""
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []
