"""Small files that open into huge ones: the five of issue 21's audit, built on the fly.

Each is written in streaming chunks (zipfile compresses as it goes), so building one
needs a few megabytes whatever it expands to. The default sizes are the audit's.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
P_NS = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
R_NS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
_RELS = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"'
_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CHUNK = 1 << 20


def rels_part(*targets: tuple[str, str]) -> str:
    """A relationships part linking to each (type, target)."""
    links = "".join(
        f'<Relationship Id="rId{n}" Type="{_TYPE}/{kind}" Target="{target}"/>'
        for n, (kind, target) in enumerate(targets, 1)
    )
    return f"<Relationships {_RELS}>{links}</Relationships>"


def _repeat(
    package: zipfile.ZipFile, name: str, head: str, unit: str, count: int, tail: str
) -> None:
    """Write part ``name`` as ``head + unit * count + tail``, a megabyte at a time."""
    block = unit.encode() * max(1, _CHUNK // len(unit))
    per_block = len(block) // len(unit)
    with package.open(name, "w", force_zip64=True) as part:
        part.write(head.encode())
        left = count
        while left >= per_block:
            part.write(block)
            left -= per_block
        part.write(unit.encode() * left + tail.encode())


def _package(path: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9)


def docx_long_text(path: Path, chars: int = 1536 << 20) -> Path:
    """A Word file whose one ``<w:t>`` holds ``chars`` letters (1.5 GB in 1.5 MB)."""
    with _package(path) as package:
        package.writestr("_rels/.rels", rels_part(("officeDocument", "word/document.xml")))
        head = f"<w:document {_W}><w:body><w:p><w:r><w:t>"
        _repeat(package, "word/document.xml", head, "a", chars, "</w:t></w:r></w:p></w:body>")
    return path


def docx_many_styles(path: Path, count: int = 6_000_000) -> Path:
    """A Word file whose styles part lists ``count`` styles."""
    with _package(path) as package:
        package.writestr("_rels/.rels", rels_part(("officeDocument", "word/document.xml")))
        package.writestr("word/_rels/document.xml.rels", rels_part(("styles", "styles.xml")))
        package.writestr(
            "word/document.xml",
            f"<w:document {_W}><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body>"
            "</w:document>",
        )
        unit = '<w:style w:type="paragraph"/>'
        _repeat(package, "word/styles.xml", f"<w:styles {_W}>", unit, count, "</w:styles>")
    return path


def pptx_many_shapes(path: Path, count: int = 3_000_000) -> Path:
    """A presentation whose one slide holds ``count`` shapes."""
    with _package(path) as package:
        package.writestr("_rels/.rels", rels_part(("officeDocument", "ppt/presentation.xml")))
        slides = rels_part(("slide", "slides/slide1.xml"))
        package.writestr("ppt/_rels/presentation.xml.rels", slides)
        package.writestr(
            "ppt/presentation.xml",
            f'<p:presentation {P_NS} {R_NS}><p:sldIdLst><p:sldId id="256" r:id="rId1"/>'
            "</p:sldIdLst></p:presentation>",
        )
        head = f"<p:sld {P_NS}><p:cSld><p:spTree>"
        tail = "</p:spTree></p:cSld></p:sld>"
        shape = '<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/></p:nvSpPr></p:sp>'
        _repeat(package, "ppt/slides/slide1.xml", head, shape, count, tail)
    return path


def epub_many_items(path: Path, count: int = 6_000_000) -> Path:
    """An e-book whose package file (OPF) lists ``count`` items."""
    with _package(path) as package:
        package.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        package.writestr(
            "META-INF/container.xml",
            '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
            '<rootfiles><rootfile full-path="content.opf"/></rootfiles></container>',
        )
        head = '<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest>'
        unit = '<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>'
        tail = '</manifest><spine><itemref idref="c"/></spine></package>'
        _repeat(package, "content.opf", head, unit, count, tail)
    return path


def csv_wide_row(path: Path, fields: int = 33_000_000) -> Path:
    """A CSV file whose one line holds ``fields`` fields (99 MB by default)."""
    block = b"ab," * (_CHUNK // 3)
    per_block = _CHUNK // 3
    with path.open("wb") as fh:
        left = fields
        while left >= per_block:
            fh.write(block)
            left -= per_block
        fh.write(b"ab," * left + b"\n")
    return path


BOMBS: dict[str, Callable[[Path], Path]] = {
    "long-text.docx": docx_long_text,
    "many-styles.docx": docx_many_styles,
    "many-shapes.pptx": pptx_many_shapes,
    "many-items.epub": epub_many_items,
    "wide-row.csv": csv_wide_row,
}
"""The audit's five files by name, each with the builder that writes it."""


def build_bombs(folder: Path) -> list[Path]:
    """Write all five into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return [build(folder / name) for name, build in BOMBS.items()]
