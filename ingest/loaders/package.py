"""Zip packages (Word, PowerPoint, EPUB): open them, follow their relationships.

Parts are streamed with zipfile and ElementTree, keeping memory to the part being read
(python-docx and python-pptx load every part, pictures included, before any text).
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO
from xml.etree import ElementTree as ET

from ingest.closing import Closing
from ingest.loaders.errors import DAMAGED_OFFICE, EMPTY_FILE, LOCKED_OFFICE, UnreadableFile
from ingest.loaders.limits import CappedPart, parse_whole, stream_events

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""Compound-file signature: old .doc/.ppt files, and Office files saved with a password."""

PackageError = (zipfile.BadZipFile, KeyError, ET.ParseError, OSError, EOFError, ValueError)
"""What reading a broken package raises (OSError covers zlib and CRC failures)."""


def open_package(path: Path, kind: str) -> Package:
    """``path`` as a package of ``kind``; raises UnreadableFile saying what it is instead."""
    if path.stat().st_size == 0:
        raise UnreadableFile(EMPTY_FILE)
    try:
        return Package(_OwnedZip(path.open("rb")), kind)
    except zipfile.BadZipFile as exc:
        with path.open("rb") as fh:
            signature = fh.read(len(_OLE2))
        if signature == _OLE2 and kind != "e-book":
            suffix = path.suffix.lower()
            raise UnreadableFile(LOCKED_OFFICE.format(kind=kind, suffix=suffix)) from exc
        raise damaged(kind, "not a zip package") from exc


class Package(Closing):
    """A zip package of ``kind`` ("Word", "e-book"…) whose parts are read under the limits
    of ``ingest.loaders.limits``; a part that passes one raises UnreadableFile."""

    def __init__(self, archive: zipfile.ZipFile, kind: str) -> None:
        self._zip = archive
        self.kind = kind

    def has(self, part: str) -> bool:
        """Whether the package holds a part of this name."""
        try:
            self._zip.getinfo(part)
        except KeyError:
            return False
        return True

    def open(self, part: str) -> CappedPart:
        """The part's bytes as a stream; raises KeyError when there is no such part."""
        return CappedPart(self._zip.open(part), part, self.kind)

    def parse(self, part: str) -> ET.Element:
        """A (small) XML part parsed whole; raises KeyError when there is no such part."""
        with self.open(part) as stream:
            return parse_whole(stream)

    def events(self, part: str) -> Iterator[tuple[str, ET.Element]]:
        """A (large) XML part's start and end events, read as they are wanted."""
        with self.open(part) as stream:
            yield from stream_events(stream)

    def relationships(self, part: str) -> dict[str, tuple[str, str]]:
        """The relationships of ``part`` ("" for the package): id -> (type, target part)."""
        folder, name = posixpath.split(part)
        rels_name = posixpath.join(folder, "_rels", f"{name}.rels")
        try:
            root = self.parse(rels_name)
        except KeyError:
            return {}
        found: dict[str, tuple[str, str]] = {}
        for rel in root:
            target = rel.get("Target") or ""
            if rel.get("TargetMode") == "External" or not target:
                continue
            if target.startswith("/"):
                resolved = target.lstrip("/")
            else:
                resolved = posixpath.join(folder, target)
            found[rel.get("Id") or ""] = (rel.get("Type") or "", posixpath.normpath(resolved))
        return found

    def related(self, part: str, rel_type: str) -> str | None:
        """The first part that ``part`` relates to with a type ending in ``/rel_type``."""
        for found_type, target in self.relationships(part).values():
            if found_type.endswith(f"/{rel_type}"):
                return target
        return None

    def close(self) -> None:
        self._zip.close()


class _OwnedZip(zipfile.ZipFile):
    """A zip read from ``path.open()``, closed with it (bytes read already serve from memory)."""

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
