"""PowerPoint (.pptx): one page per slide, titled by its title placeholder, notes after.

A slide without a title gets an empty heading path, never the previous slide's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

from ingest.document_parts import Page, Section
from ingest.loaders.base import Document
from ingest.loaders.errors import NO_TEXT, UnreadableFile
from ingest.loaders.package import PackageError, damaged, open_package

_KIND = "PowerPoint"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_TITLES = frozenset({"title", "ctrTitle"})


class PptxDocument(Document):
    """A presentation; ``page_count`` is its number of slides."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        with open_package(path, _KIND) as package:
            try:
                main = package.related("", "officeDocument") or "ppt/presentation.xml"
                targets = package.relationships(main)
                slide_ids = package.parse(main).iterfind(f"{P}sldIdLst/{P}sldId")
                self._slides = [targets[s.get(f"{R}id") or ""][1] for s in slide_ids]
            except KeyError as exc:
                raise damaged(_KIND, "a slide or the presentation part is missing") from exc
            except PackageError as exc:
                raise damaged(_KIND, type(exc).__name__) from exc
        self.page_count = len(self._slides)

    def pages(self) -> Iterator[Page]:
        seen_text = False
        with open_package(self.path, _KIND) as package:
            for number, part in enumerate(self._slides, start=1):
                try:
                    title, blocks = _slide_text(package.parse(part))
                    notes_part = package.related(part, "notesSlide")
                    if notes_part is not None:
                        blocks += _slide_text(package.parse(notes_part), notes=True)[1]
                except PackageError as exc:
                    raise damaged(_KIND, f"slide {number}: {type(exc).__name__}") from exc
                text = "\n\n".join(block for block in [title, *blocks] if block)
                seen_text = seen_text or bool(text.strip())
                path = (title,) if title else ()
                yield Page(number=number, text=text, sections=(Section(0, path),))
        if not seen_text:
            raise UnreadableFile(NO_TEXT.format(kind="presentation"))


def _slide_text(root: ET.Element, notes: bool = False) -> tuple[str, list[str]]:
    """The slide's title and other text blocks in shape order (on a notes page, its body)."""
    title = ""
    blocks: list[str] = []
    tree = root.find(f"{P}cSld/{P}spTree")
    for shape in _shapes(tree) if tree is not None else ():
        placeholder = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        kind = placeholder.get("type", "body") if placeholder is not None else None
        if notes and kind != "body":
            continue
        if shape.tag == f"{P}graphicFrame":
            blocks.extend(_table_rows(shape))
            continue
        body = shape.find(f"{P}txBody")
        text = "\n".join(_paragraphs(body)) if body is not None else ""
        if kind in _TITLES and not title:
            title = " ".join(text.split())
        elif text:
            blocks.append(text)
    return title, blocks


def _shapes(tree: ET.Element) -> Iterator[ET.Element]:
    """Text-bearing shapes and tables, groups opened, newer alternative content chosen."""
    for child in tree:
        if child.tag in (f"{P}sp", f"{P}graphicFrame"):
            yield child
        elif child.tag == f"{P}grpSp":
            yield from _shapes(child)
        elif child.tag == f"{_MC}AlternateContent":
            choice = child.find(f"{_MC}Choice")
            if choice is not None:
                yield from _shapes(choice)


def _paragraphs(body: ET.Element) -> Iterator[str]:
    for paragraph in body.iter(f"{A}p"):
        parts = [
            "\n" if elem.tag == f"{A}br" else (elem.text or "")
            for elem in paragraph.iter()
            if elem.tag in (f"{A}t", f"{A}br")
        ]
        if text := "".join(parts).strip():
            yield text


def _table_rows(frame: ET.Element) -> Iterator[str]:
    for row in frame.iter(f"{A}tr"):
        cells = [" ".join(_paragraphs(cell)) for cell in row.iter(f"{A}tc")]
        if line := " | ".join(cell for cell in cells if cell):
            yield line
