"""What a document's status line says about the pages OCR read.

A page whose mean recognition confidence is under ``LOW_CONFIDENCE`` is still indexed (a
search may well find it), but its text is likely to hold misread words, and the person
should know: "4 pages read with low confidence". Any page OCR read is counted in the line
("scanned: 3 pages read by OCR"), as the source chip marks its passages "scanned". A page
in a script the models do not read is not indexed, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.types import Page

LOW_CONFIDENCE = 0.85
"""Mean confidence under which a page's OCR text is likely to hold misread words (clean
print reads at 0.97 to 0.99)."""


@dataclass
class OcrTally:
    """Counts the pages of one document as they are read."""

    read: int = 0
    """Pages read by OCR."""
    low: int = 0
    """Of those, read with low confidence."""
    unread: int = 0
    """Pages holding text in a script the models do not read."""

    def add(self, page: Page) -> None:
        """Count ``page`` (a page not read by OCR counts for nothing)."""
        if page.ocr is None:
            return
        self.read += 1
        if page.ocr.unread:
            self.unread += 1
        elif page.ocr.confidence is not None and page.ocr.confidence < LOW_CONFIDENCE:
            self.low += 1

    def note(self) -> str | None:
        """The status line's words, or None when there is nothing to say."""
        parts = []
        if self.read > self.unread:  # its words came from pictures: some may be misread
            parts.append(f"scanned: {_pages(self.read - self.unread)} read by OCR")
        if self.low:
            parts.append(f"{_pages(self.low)} read with low confidence")
        if self.unread:
            parts.append(
                f"{_pages(self.unread)} could not be read (a script the built-in OCR does not know)"
            )
        return "; ".join(parts) or None


def _pages(count: int) -> str:
    return "1 page" if count == 1 else f"{count} pages"
