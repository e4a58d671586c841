"""Zip packages (Word, PowerPoint, EPUB): open them, follow their relationships.

These formats are zip files of XML parts. Reading the parts we need as streams, with the
standard library's zipfile and ElementTree, keeps memory to the part being read: the
python-docx and python-pptx object models load every part of the package, pictures
included, before giving back any text. ElementTree's expat refuses entity-expansion
bombs (billion laughs) on the Pythons we support.
"""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from typing import IO
from xml.etree import ElementTree as ET

from ingest.loaders.errors import DAMAGED_OFFICE, EMPTY_FILE, LOCKED_OFFICE, UnreadableFile

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""Compound-file signature: old .doc/.ppt files, and Office files saved with a password."""

PackageError = (zipfile.BadZipFile, KeyError, ET.ParseError, OSError, EOFError, ValueError)
"""What reading a broken package raises (OSError covers zlib and CRC failures)."""


def open_package(path: Path, kind: str) -> zipfile.ZipFile:
    """``path`` as a zip; raises UnreadableFile saying what it is instead."""
    if path.stat().st_size == 0:
        raise UnreadableFile(EMPTY_FILE)
    try:
        return _OwnedZip(path.open("rb"))
    except zipfile.BadZipFile as exc:
        with path.open("rb") as fh:
            signature = fh.read(len(_OLE2))
        if signature == _OLE2 and kind != "e-book":
            suffix = path.suffix.lower()
            raise UnreadableFile(LOCKED_OFFICE.format(kind=kind, suffix=suffix)) from exc
        raise damaged(kind, "not a zip package") from exc


class _OwnedZip(zipfile.ZipFile):
    """A zip read from the file object ``path.open`` gives, which it closes with itself.

    Opening through ``path`` (not its name) lets a caller that has read the bytes already
    serve them from memory, so a scan reads each file once.
    """

    def __init__(self, source: IO[bytes]) -> None:
        self._source = source
        try:
            super().__init__(source)
        except BaseException:
            source.close()
            raise

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._source.close()


def damaged(kind: str, detail: str) -> UnreadableFile:
    """The error for a package whose parts are missing or unreadable."""
    return UnreadableFile(DAMAGED_OFFICE.format(kind=kind, detail=detail))


def relationships(package: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """The relationships of ``part`` ("" for the package): id -> (type, target part name)."""
    folder, name = posixpath.split(part)
    rels_name = posixpath.join(folder, "_rels", f"{name}.rels")
    try:
        root = parse(package, rels_name)
    except KeyError:
        return {}
    found: dict[str, tuple[str, str]] = {}
    for rel in root:
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        resolved = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
        found[rel.get("Id") or ""] = (rel.get("Type") or "", posixpath.normpath(resolved))
    return found


def related(package: zipfile.ZipFile, part: str, kind: str) -> str | None:
    """The first part that ``part`` relates to with a type ending in ``/kind``."""
    for rel_type, target in relationships(package, part).values():
        if rel_type.endswith(f"/{kind}"):
            return target
    return None


def parse(package: zipfile.ZipFile, part: str) -> ET.Element:
    """A whole (small) XML part; raises KeyError when the package has no such part."""
    with package.open(part) as stream:
        return ET.parse(stream).getroot()
