"""``open_source``: how the pipeline opens a file to read its pages, in a parser process.

Bytes the pipeline kept when it hashed the file go with the request, so the chunks belong
to the hashed bytes; a bigger file is read again from disk, and checked unchanged after.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ingest.loaders import LoadedDocument
from ingest.parsing import ParserPool
from ingest.parsing.tasks import OcrMode


def open_source(
    path: Path,
    data: bytes | None,
    parsers: ParserPool,
    cancelled: threading.Event | None = None,
    ocr: OcrMode = "off",
) -> LoadedDocument:
    """Open ``path`` (from ``data`` when given) for lazy reading in a worker; raises
    UnsupportedFile/UnreadableFile/NeedsOcr/OSError, or Cancelled (the worker killed)."""
    return parsers.open_document(path, data, cancelled, ocr)
