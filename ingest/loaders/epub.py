"""EPUB: the spine's chapters in reading order, each streamed through the HTML reader
(ebooklib loads the whole book into memory). The book's title heads every heading path.
"""

from __future__ import annotations

import codecs
import logging
import posixpath
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

from ingest.document_parts import Page
from ingest.loaders.base import Document, HeadingTrail
from ingest.loaders.errors import DRM_EBOOK, NO_TEXT, UnreadableFile
from ingest.loaders.limits import CappedPart
from ingest.loaders.markup import declared_encoding, html_pages
from ingest.loaders.package import Package, PackageError, damaged, open_package

log = logging.getLogger(__name__)

_KIND = "e-book"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_ENC = "{http://www.w3.org/2001/04/xmlenc#}"
_CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html"})
_FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)
_READ_BYTES = 1 << 16


class EpubDocument(Document):
    """An e-book; pages are blocks of its chapters (a chapter never shares a page)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        with open_package(path, _KIND) as package:
            try:
                container = package.parse("META-INF/container.xml")
                rootfile = container.find(f"{_CONTAINER}rootfiles/{_CONTAINER}rootfile")
                opf_name = rootfile.get("full-path", "") if rootfile is not None else ""
                opf = package.parse(opf_name)
            except KeyError as exc:
                raise damaged(_KIND, "its table of contents (OPF) is missing") from exc
            except PackageError as exc:
                raise damaged(_KIND, type(exc).__name__) from exc
            self.title = (opf.findtext(f"{_OPF}metadata/{_DC}title") or "").strip()
            self._chapters = _spine(opf, posixpath.dirname(opf_name))
            if _encrypted(package) & set(self._chapters):
                raise UnreadableFile(DRM_EBOOK)

    def pages(self) -> Iterator[Page]:
        trail = HeadingTrail(self.title)
        offset = 0
        seen_text = False
        with open_package(self.path, _KIND) as package:
            for chapter in self._chapters:
                try:
                    with package.open(chapter) as stream:
                        for page in html_pages(_decoded(stream), trail, offset):
                            seen_text = seen_text or bool(page.text.strip())
                            offset = page.offset + len(page.text)
                            yield page
                except KeyError:
                    log.info("%s: chapter %s is listed but missing", self.path.name, chapter)
                except PackageError as exc:
                    raise damaged(_KIND, f"{chapter}: {type(exc).__name__}") from exc
        if not seen_text:
            raise UnreadableFile(NO_TEXT.format(kind="e-book"))


def _spine(opf: ET.Element, folder: str) -> list[str]:
    """The chapters' part names in reading order."""
    items = {
        item.get("id"): item
        for item in opf.iterfind(f"{_OPF}manifest/{_OPF}item")
        if item.get("media-type") in _CHAPTER_TYPES
    }
    chapters: list[str] = []
    for ref in opf.iterfind(f"{_OPF}spine/{_OPF}itemref"):
        item = items.get(ref.get("idref"))
        href = item.get("href") if item is not None else None
        if href:
            name = posixpath.normpath(posixpath.join(folder, href.split("#")[0]))
            if name not in chapters:
                chapters.append(name)
    return chapters


def _encrypted(package: Package) -> set[str]:
    """Parts encrypted for DRM (font obfuscation, which every reader undoes, excluded)."""
    try:
        root = package.parse("META-INF/encryption.xml")
    except KeyError:
        return set()
    found: set[str] = set()
    for data in root.iter(f"{_ENC}EncryptedData"):
        method = data.find(f"{_ENC}EncryptionMethod")
        reference = data.find(f"{_ENC}CipherData/{_ENC}CipherReference")
        algorithm = method.get("Algorithm") if method is not None else None
        if reference is not None and algorithm not in _FONT_OBFUSCATION:
            found.add(posixpath.normpath(reference.get("URI") or ""))
    return found


def _decoded(stream: CappedPart) -> Iterator[str]:
    """A chapter's text: XHTML is UTF-8 unless it declares otherwise."""
    head = stream.read(_READ_BYTES)
    encoding = declared_encoding(head) or "utf-8"
    if encoding == "utf-8":
        encoding = "utf-8-sig"  # drops a byte-order mark, which would read as text
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    raw = head
    while raw:
        if text := decoder.decode(raw):
            yield text
        raw = stream.read(_READ_BYTES)
    if tail := decoder.decode(b"", final=True):
        yield tail
