"""How the indexer cuts, paces and bounds files: one object its parts read live."""

from __future__ import annotations

from dataclasses import dataclass

PLACES = 6
"""Files read or embedded at once, by default (and so the parser processes needed)."""
WAITING_PER_PLACE = 4
"""Worker tasks per place: the rest run files that wait for their write (a few seconds)."""


@dataclass
class IndexOptions:
    """The indexer's knobs, with the app's defaults."""

    chunk_size: int = 1000
    chunk_overlap: int = 150
    max_file_bytes: int = 200 << 20
    """Files larger than this end ``error`` unread."""
    time_budget: float = 900.0
    """Seconds a file may take to index; it ends ``error`` past them."""
    workers: int = PLACES
    """Files read or embedded at once."""
    ocr_page_seconds: float = 60.0
    """Seconds a file in the OCR lane's budget grows for each page OCR may read."""
    ocr_max_pages: int = 500
    settle_seconds: float = 0.2
    """How long a fresh file must keep its size and mtime to count as written."""
    retry_seconds: float = 1.0
    """The first wait before a busy file is tried again; each retry waits longer."""
    max_retries: int = 10
    gc_delay: float = 5.0
    """Idle seconds before unused contents are collected."""
    space_retry_seconds: float = 5.0
    """How often the full disk is looked at again."""

    def threads(self, *, ocr: bool) -> int:
        """Worker tasks, and so threads, files may need at once (``ocr``: with the OCR lane)."""
        return (self.workers + (1 if ocr else 0)) * WAITING_PER_PLACE
