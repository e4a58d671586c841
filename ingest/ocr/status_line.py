"""What a document's status line says about the pages OCR read ("4 pages read with low
confidence", "pages 501–3000 left out"): low-confidence pages are still indexed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingest.document_parts import Page

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
    limit: int | None = None
    """How many pages of a file OCR reads at most (DOCENT_OCR_MAX_PAGES)."""
    left_out: list[int] = field(default_factory=list)
    """The numbers of the pages left out for that limit, in order."""

    def add(self, page: Page) -> None:
        """Count ``page`` (a page not read by OCR counts for nothing)."""
        if page.ocr is None:
            return
        if page.ocr.left_out:
            if page.number is not None:
                self.left_out.append(page.number)
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
        if self.left_out:
            limit = f" {self.limit}" if self.limit is not None else ""
            parts.append(
                f"{_numbered(self.left_out)} left out: OCR reads at most{limit} pages of a"
                " file (raise DOCENT_OCR_MAX_PAGES to read more)"
            )
        return "; ".join(parts) or None


def _pages(count: int) -> str:
    return "1 page" if count == 1 else f"{count} pages"


_RANGES_SHOWN = 6
"""Runs of page numbers a note lists before it says how many more there are."""


def _numbered(numbers: list[int]) -> str:
    """'page 7', 'pages 501–3000', 'pages 4, 6–9 and 12' (runs past the sixth counted)."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    shown = [f"{a}" if a == b else f"{a}–{b}" for a, b in runs[:_RANGES_SHOWN]]
    hidden = sum(b - a + 1 for a, b in runs[_RANGES_SHOWN:])
    if hidden:
        shown.append(f"{_pages(hidden)} more")
    label = "page" if len(numbers) == 1 else "pages"
    if len(shown) == 1:
        return f"{label} {shown[0]}"
    return f"{label} {', '.join(shown[:-1])} and {shown[-1]}"
