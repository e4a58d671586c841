"""SQuAD articles laid out as pages, printed twice: as a typed PDF, and as a scan of it.

The layout is made here, with every line's place in the article kept, so a question's
answer (a character offset in the article) has a page in both versions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.scans import FONT, image_pdf, page_image

LINE_CHARS = 80
LINES_PER_PAGE = 40
TEXT_PX = 24
"""11 pt at 150 dpi."""


@dataclass
class Layout:
    """An article's pages (lists of lines) and where each line starts in the article."""

    pages: list[list[str]]
    starts: list[list[int]]

    def page_of(self, offset: int) -> int | None:
        """The 1-based page holding character ``offset`` of the article."""
        found = None
        for number, starts in enumerate(self.starts, start=1):
            if starts and starts[0] <= offset:
                found = number
        return found


def article_pages(path: Path) -> Layout:
    text = path.read_text(encoding="utf-8")
    lines: list[tuple[int, str]] = []
    position = 0
    for block in text.split("\n\n"):
        start = text.index(block, position)
        position = start + len(block)
        lines.extend(_wrap(block, start))
        lines.append((position, ""))
    pages: list[list[str]] = []
    starts: list[list[int]] = []
    for at in range(0, len(lines), LINES_PER_PAGE):
        part = lines[at : at + LINES_PER_PAGE]
        pages.append([line for _, line in part])
        starts.append([start for start, line in part if line])
    return Layout(pages, starts)


def _wrap(block: str, offset: int) -> list[tuple[int, str]]:
    """Greedy word wrap of one paragraph, each line with its start in the article."""
    out: list[tuple[int, str]] = []
    line_start, line = offset, ""
    for match in re.finditer(r"\S+", block):
        word, at = match.group(), offset + match.start()
        if line and len(line) + 1 + len(word) > LINE_CHARS:
            out.append((line_start, line))
            line = ""
        if not line:
            line_start, line = at, word
        else:
            line = f"{line} {word}"
    if line:
        out.append((line_start, line))
    return out


def typed_pdf(path: Path, pages: list[list[str]]) -> None:
    from fpdf import FPDF

    pdf = FPDF(format="A4", unit="pt")
    pdf.add_font("DejaVu", fname=FONT)
    pdf.set_font("DejaVu", size=11)
    step = TEXT_PX * 1.6 * 72 / 150
    for lines in pages:
        pdf.add_page()
        for n, line in enumerate(lines):
            if line:
                pdf.text(110 * 72 / 150, (120 + TEXT_PX) * 72 / 150 + n * step, line)
    pdf.output(str(path))


def scanned_pdf(path: Path, pages: list[list[str]]) -> None:
    """As a scanner leaves a printout: 150 dpi, turned by a degree, with speckles."""
    images = [
        page_image(lines, text_size=TEXT_PX, rotate=0.8 if n % 2 else -0.6, speckle=0.002, seed=n)
        for n, lines in enumerate(pages)
    ]
    image_pdf(path, images, dpi=150)
