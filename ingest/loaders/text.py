"""Plain text, Markdown and reStructuredText, read as streams of blocks.

A page is a block of about a megabyte, exactly the decoded file's text at ``offset``.
Markdown front matter is skipped and its title heads every heading path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ingest.document_parts import Page, Section
from ingest.loaders.base import BLOCK_CHARS, Document, HeadingTrail, cut_blocks
from ingest.loaders.encoding import HEAD_BYTES, decode_stream, detect, samples
from ingest.loaders.errors import EMPTY_FILE, UnreadableFile

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_NON_SPACE = re.compile(r"\S")


class TextDocument(Document):
    """A text file; subclasses find headings in it line by line."""

    def __init__(self, path: Path, block_chars: int = BLOCK_CHARS) -> None:
        super().__init__(path)
        self.block_chars = block_chars
        with path.open("rb") as fh:
            size = path.stat().st_size
            windows = samples(fh, size)
            self.encoding = detect(windows)
        if size <= HEAD_BYTES and not windows[0].decode(self.encoding, "replace").strip():
            raise UnreadableFile(EMPTY_FILE)

    def pages(self) -> Iterator[Page]:
        seen_text = False
        with self.path.open("rb") as fh:
            blocks = cut_blocks(decode_stream(fh, self.encoding), self.block_chars)
            for offset, text in blocks:
                page = self._page(offset, text)
                seen_text = seen_text or _NON_SPACE.search(page.text) is not None
                yield page
        if not seen_text:
            raise UnreadableFile(EMPTY_FILE)

    def _page(self, offset: int, text: str) -> Page:
        return Page(number=None, text=text, offset=offset)


class MarkdownDocument(TextDocument):
    """Markdown: front matter skipped, ATX and setext headings kept as Sections."""

    def _page(self, offset: int, text: str) -> Page:
        sections: list[Section] = []
        if offset == 0:
            self._scanner = _MarkdownHeadings(HeadingTrail())
            match = _FRONT_MATTER.match(text)
            if match is not None:
                title = _TITLE.search(match.group(1))
                trail = HeadingTrail(title.group(1).strip("\"'") if title else None)
                self._scanner = _MarkdownHeadings(trail)
                offset, text = match.end(), text[match.end() :]
                if trail.path:  # the title heads what comes before the first heading
                    sections.append(Section(offset, trail.path))
        sections += self._scanner.scan(text, offset)
        return Page(number=None, text=text, offset=offset, sections=tuple(sections))


class RstDocument(TextDocument):
    """reStructuredText: titles (underlined, optionally overlined) kept as Sections."""

    def _page(self, offset: int, text: str) -> Page:
        if offset == 0:
            self._scanner = _RstHeadings(HeadingTrail())
        sections = self._scanner.scan(text, offset)
        return Page(number=None, text=text, offset=offset, sections=tuple(sections))


def _lines(text: str, offset: int) -> Iterator[tuple[int, str]]:
    """Each line's position and text without its line ending."""
    for match in _LINE.finditer(text):
        yield offset + match.start(), match.group().rstrip("\r\n")


_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_NOT_PARAGRAPH = re.compile(r" {0,3}(?:[-*+>|]|\d+[.)])(?:\s|$)|    |\t")
_SETEXT_MAX = 200
"""Longer "paragraphs" above a --- line are text followed by a rule, not a heading."""


class _MarkdownHeadings:
    """CommonMark's heading rules, enough for real files: fences hide what they hold."""

    def __init__(self, trail: HeadingTrail) -> None:
        self.trail = trail
        self.fence: str | None = None
        self.paragraph: tuple[int, str] | None = None

    def scan(self, text: str, offset: int) -> list[Section]:
        found: list[Section] = []
        for start, line in _lines(text, offset):
            if self.fence is not None:
                closing = line.strip()
                if closing.startswith(self.fence) and not closing.strip(self.fence[0]):
                    self.fence = None
                continue
            if fence := _FENCE.match(line):
                self.fence, self.paragraph = fence.group(1), None
                continue
            if atx := _ATX.fullmatch(line):
                found.append(self.trail.section(start, len(atx.group(1)), atx.group(2) or ""))
                self.paragraph = None
            elif self.paragraph is not None and (setext := _SETEXT.fullmatch(line)):
                level = 1 if setext.group(1)[0] == "=" else 2
                para_start, para = self.paragraph
                if len(para) <= _SETEXT_MAX:
                    found.append(self.trail.section(para_start, level, para))
                self.paragraph = None
            elif not line.strip() or (self.paragraph is None and _NOT_PARAGRAPH.match(line)):
                self.paragraph = None
            elif self.paragraph is None:
                self.paragraph = (start, line.strip())
            elif len(self.paragraph[1]) <= _SETEXT_MAX:  # longer ones cannot be headings
                self.paragraph = (self.paragraph[0], f"{self.paragraph[1]} {line.strip()}")
        return sorted(found, key=lambda section: section.start)


_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+[ \t]*")


class _RstHeadings:
    """Section titles: a line underlined (maybe overlined) by punctuation; levels follow the
    order in which adornment styles first appear."""

    def __init__(self, trail: HeadingTrail) -> None:
        self.trail = trail
        self.styles: list[tuple[str, bool]] = []
        self.overline: tuple[int, str] | None = None
        self.title: tuple[int, str, bool] | None = None  # start, text, overlined
        self.in_paragraph = False

    def scan(self, text: str, offset: int) -> list[Section]:
        found: list[Section] = []
        for start, line in _lines(text, offset):
            adornment = _ADORNMENT.fullmatch(line)
            if adornment and self.title is not None and self._underlines(line, self.title[1]):
                title_start, title, overlined = self.title
                style = (adornment.group(1), overlined)
                if style not in self.styles:
                    self.styles.append(style)
                found.append(self.trail.section(title_start, self.styles.index(style) + 1, title))
                self.title = self.overline = None
                self.in_paragraph = False
            elif not line.strip():
                self.title = self.overline = None
                self.in_paragraph = False
            elif adornment and not self.in_paragraph:
                self.overline = (start, adornment.group(1))
            elif self.in_paragraph or (line[0].isspace() and self.overline is None):
                self.title = None  # a paragraph's second line, or indented text
                self.in_paragraph = True
            else:
                over = self.overline
                self.title = (over[0] if over else start, line.strip(), over is not None)
                self.overline = None
                self.in_paragraph = True
        return found

    @staticmethod
    def _underlines(line: str, title: str) -> bool:
        return len(line.rstrip()) >= min(len(title), 3)
