"""``open_source``: how the pipeline opens a file to read its pages.

A file is parsed in a worker process of the ``ParserPool`` (``ingest.parsing``), never in
the app's own: its pages come back one at a time as a LoadedDocument (``page_count``, lazy
``pages()``, ``close()``). The pipeline has read and hashed a new file already; when it
kept the bytes, they go to the worker with the request, so the file is read once and its
chunks belong to the hashed bytes by construction. Bigger files are read again from disk
by the worker, and the pipeline checks that the file did not change in between.
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
    """Open ``path`` for lazy reading in a worker, from ``data`` (its bytes, read already)
    when given, page images treated as ``ocr`` says; raises UnsupportedFile/UnreadableFile
    /NeedsOcr (OSError as is), or Cancelled once ``cancelled`` is set (the worker is then
    killed)."""
    return parsers.open_document(path, data, cancelled, ocr)
