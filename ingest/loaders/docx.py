"""Word (.docx): paragraphs and table rows in reading order, headings from styles.

Streamed, each paragraph dropped once its text is out, so memory stays bounded. Text in
content controls, hyperlinks, fields and text boxes counts; deleted revisions and field
codes do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

from ingest.document_parts import Page
from ingest.loaders.base import Document, HeadingTrail, ParagraphPages
from ingest.loaders.errors import NO_TEXT, UnreadableFile
from ingest.loaders.package import PackageError, damaged, open_package

_KIND = "Word"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_HEADING_NAME = re.compile(r"heading\s*(\d)", re.I)
_TEXT = {f"{W}t": None, f"{W}tab": "\t", f"{W}br": "\n", f"{W}cr": "\n", f"{W}noBreakHyphen": "-"}


class DocxDocument(Document):
    """A Word document; its pages are blocks of paragraphs (Word has no fixed pages)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        with open_package(path, _KIND) as package:
            try:
                self._part = package.related("", "officeDocument") or "word/document.xml"
                if not package.has(self._part):
                    raise KeyError(self._part)
                styles = package.related(self._part, "styles")
                self._levels = _heading_levels(package.parse(styles)) if styles else {}
            except KeyError as exc:
                raise damaged(_KIND, "its main document part is missing") from exc
            except PackageError as exc:
                raise damaged(_KIND, type(exc).__name__) from exc

    def pages(self) -> Iterator[Page]:
        layout = ParagraphPages(HeadingTrail())
        with open_package(self.path, _KIND) as package:
            try:
                for text, level in _paragraphs(package.events(self._part), self._levels):
                    if (page := layout.add(text, level)) is not None:
                        yield page
            except PackageError as exc:
                raise damaged(_KIND, f"{type(exc).__name__}: {exc}"[:120]) from exc
        if (page := layout.finish()) is not None:
            yield page
        if not layout.seen_text:
            raise UnreadableFile(NO_TEXT.format(kind="Word document"))


def _paragraphs(
    events: Iterable[tuple[str, ET.Element]], levels: dict[str, int]
) -> Iterator[tuple[str, int | None]]:
    """(text, heading level or None) for each paragraph and table row, in order."""
    cells: list[list[str]] = []  # paragraphs of each open table cell, innermost last
    rows: list[list[str]] = []  # cells of each open table row
    fallback = depth = 0
    body: ET.Element | None = None
    for event, elem in events:
        tag = elem.tag
        if event == "start":
            depth += 1
            if tag == _FALLBACK:
                fallback += 1  # an older copy of what the Choice beside it holds
            elif tag == f"{W}body":
                body = elem
            elif tag == f"{W}tr" and not fallback:
                rows.append([])
            elif tag == f"{W}tc" and not fallback:
                cells.append([])
            continue
        depth -= 1
        if tag == _FALLBACK:
            fallback -= 1
            elem.clear()
        elif fallback:
            continue
        elif tag == f"{W}p":
            text, level = _text(elem), _level(elem, levels)
            elem.clear()  # so an enclosing paragraph (text boxes) does not repeat it
            if cells:
                cells[-1].append(text)
            elif text.strip():
                yield text, level
        elif tag == f"{W}tc" and cells:
            cell = " ".join(p.strip() for p in cells.pop() if p.strip())
            if rows:
                rows[-1].append(cell)
        elif tag == f"{W}tr" and rows:
            line = " | ".join(cell for cell in rows.pop() if cell)
            if cells:
                cells[-1].append(line)
            elif line:
                yield line, None
        if depth == 2 and body is not None:
            body.clear()  # everything read so far; keeps memory flat


def _text(paragraph: ET.Element) -> str:
    return "".join(_TEXT[e.tag] or e.text or "" for e in paragraph.iter() if e.tag in _TEXT)


def _level(paragraph: ET.Element, levels: dict[str, int]) -> int | None:
    props = paragraph.find(f"{W}pPr")
    if props is None:
        return None
    outline = props.find(f"{W}outlineLvl")
    if outline is not None:
        return _outline_level(outline)
    style = props.find(f"{W}pStyle")
    return levels.get(style.get(f"{W}val") or "") if style is not None else None


def _outline_level(outline: ET.Element) -> int | None:
    value = outline.get(f"{W}val") or ""
    return int(value) + 1 if value.isdigit() and int(value) < 9 else None


def _heading_levels(styles: ET.Element) -> dict[str, int]:
    """Heading level (0 for Title) of each paragraph style, following ``basedOn`` chains."""
    direct: dict[str, int | None] = {}
    based_on: dict[str, str] = {}
    for style in styles.iter(f"{W}style"):
        if style.get(f"{W}type") != "paragraph":
            continue
        style_id = style.get(f"{W}styleId") or ""
        name_elem = style.find(f"{W}name")
        name = (name_elem.get(f"{W}val") or "") if name_elem is not None else ""
        outline = style.find(f"{W}pPr/{W}outlineLvl")
        if name.lower() == "title":
            direct[style_id] = 0
        elif match := _HEADING_NAME.fullmatch(name.strip()):
            direct[style_id] = int(match.group(1))
        elif outline is not None:
            direct[style_id] = _outline_level(outline)
        parent = style.find(f"{W}basedOn")
        if parent is not None:
            based_on[style_id] = parent.get(f"{W}val") or ""
    levels: dict[str, int] = {}
    for style_id in set(direct) | set(based_on):
        current: str | None = style_id
        for _ in range(10):  # basedOn chains are short; a loop must not hang us
            level = direct.get(current) if current is not None else None
            if level is not None:
                levels[style_id] = level
                break
            current = based_on.get(current) if current is not None else None
    return levels
