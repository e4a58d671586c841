"""HTML to plain text with paragraph breaks, noting where each heading's section starts.

HTMLParser is incremental and forgiving, so a huge page streams in bounded memory; tree
builders (lxml, BeautifulSoup, selectolax) hold the whole document.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser
from pathlib import Path

from ingest.document_parts import Page, Section
from ingest.loaders.base import BLOCK_CHARS, Document, HeadingTrail, cut_point
from ingest.loaders.encoding import decode_stream, detect, samples
from ingest.loaders.errors import NO_TEXT, UnreadableFile

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_PARAGRAPHS = frozenset(
    "p div section article main header footer nav aside blockquote pre table ul ol dl "
    "figure figcaption form fieldset address details summary hr body".split()
) | frozenset(_HEADINGS)
_LINES = frozenset("li tr dt dd br caption option".split())
_CELLS = frozenset({"td", "th"})
_HIDDEN = frozenset("head script style noscript template svg math iframe object canvas".split())
_SPACES = re.compile(r"\s+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([-\w.:]+)""", re.I)
_XML_ENCODING = re.compile(rb"""<\?xml[^>]+encoding\s*=\s*["']([-\w.:]+)""", re.I)


class HtmlText(HTMLParser):
    """Collects the visible text of fed HTML; ``take()`` hands it out a page at a time."""

    def __init__(self, trail: HeadingTrail, offset: int = 0) -> None:
        super().__init__(convert_charrefs=True)
        self.trail = trail
        self._parts: list[str] = []
        self._sections: list[Section] = []
        self._page_start = offset
        self._length = offset  # position of the next character written
        self._written = False
        self._hidden: list[str] = []
        self._pre = 0
        self._breaks = 0  # newlines owed before the next text
        self._cells = 0  # cells written in the current table row
        self._heading: tuple[int, int, list[str]] | None = None  # level, start, words

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # </head> may be left out
            self._hidden = [t for t in self._hidden if t != "head"]
        if tag in _HIDDEN:
            self._hidden.append(tag)
        if self._hidden:
            return
        if tag == "pre":
            self._pre += 1
        if tag in _PARAGRAPHS:
            self._owe(2)
        elif tag in _LINES:
            self._owe(1)
        if tag == "tr":
            self._cells = 0
        elif tag in _CELLS:
            if self._cells and not self._breaks:
                self._write(" | ")
            self._cells += 1
        if tag in _HEADINGS:
            self._heading = (_HEADINGS[tag], -1, [])

    def handle_endtag(self, tag: str) -> None:
        if self._hidden:
            if tag == self._hidden[-1]:
                self._hidden.pop()
            return
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        if tag in _HEADINGS and self._heading is not None:
            level, start, words = self._heading
            self._heading = None
            if start >= 0:
                self._sections.append(self.trail.section(start, level, "".join(words)))
        if tag in _PARAGRAPHS:
            self._owe(2)
        elif tag in _LINES and tag != "br":
            self._owe(1)

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if not self._pre:
            data = _SPACES.sub(" ", data)
            if self._breaks or not self._written or self._ends_with_space():
                data = data.lstrip(" ")
        if data:
            self._write(data)

    def take(self, final: bool = False, target: int = BLOCK_CHARS) -> Page | None:
        """The text written so far as a page, once there is a page's worth (or at the end)."""
        pending = self._length - self._page_start
        if not pending or (not final and pending < target):
            return None
        text = "".join(self._parts)
        cut = len(text) if final else cut_point(text, target)
        start = self._page_start
        sections = tuple(s for s in self._sections if s.start < start + cut)
        self._sections = self._sections[len(sections) :]
        self._parts = [text[cut:]] if cut < len(text) else []
        self._page_start += cut
        return Page(number=None, text=text[:cut], offset=start, sections=sections)

    def _owe(self, newlines: int) -> None:
        if self._written:
            self._breaks = max(self._breaks, newlines)

    def _ends_with_space(self) -> bool:
        return bool(self._parts) and self._parts[-1].endswith(" ")

    def _write(self, text: str) -> None:
        if self._breaks:
            if self._ends_with_space():  # never leave a space dangling before a break
                kept = self._parts[-1].rstrip(" ")
                self._length -= len(self._parts[-1]) - len(kept)
                self._parts[-1] = kept
            self._parts.append("\n" * self._breaks)
            self._length += self._breaks
            self._breaks = 0
        if self._heading is not None:
            level, start, words = self._heading
            self._heading = (level, self._length if start < 0 else start, [*words, text])
        self._parts.append(text)
        self._length += len(text)
        self._written = True


def html_pages(pieces: Iterable[str], trail: HeadingTrail, offset: int = 0) -> Iterator[Page]:
    """Pages of visible text from HTML arriving in pieces; positions continue from ``offset``."""
    parser = HtmlText(trail, offset)
    for piece in pieces:
        parser.feed(piece)
        while (page := parser.take()) is not None:
            yield page
    parser.close()
    if (page := parser.take(final=True)) is not None:
        yield page


def declared_encoding(head: bytes) -> str | None:
    """The encoding an HTML or XHTML file declares for itself, if Python knows it."""
    for pattern in (_META_CHARSET, _XML_ENCODING):
        if match := pattern.search(head[:4096]):
            try:
                return codecs.lookup(match.group(1).decode("ascii")).name
            except (LookupError, UnicodeDecodeError):
                return None
    return None


class HtmlDocument(Document):
    """An HTML file; its headings make the path (``<title>`` often repeats the site name)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        with path.open("rb") as fh:
            windows = samples(fh, path.stat().st_size)
        self.encoding = detect(windows, declared=declared_encoding(windows[0]))

    def pages(self) -> Iterator[Page]:
        seen = False
        with self.path.open("rb") as fh:
            for page in html_pages(decode_stream(fh, self.encoding), HeadingTrail()):
                seen = seen or bool(page.text.strip())
                yield page
        if not seen:
            raise UnreadableFile(NO_TEXT.format(kind="web page"))
