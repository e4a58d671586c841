"""Opening a PDF with pypdf: the header, passwords and AES, and broken cross-references."""

from __future__ import annotations

import io
from typing import IO, Any, cast

from pypdf import PasswordType, PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError

from ingest.loaders.errors import (
    EMPTY_FILE,
    NEEDS_AES,
    NOT_A_PDF,
    PASSWORD_PROTECTED,
    UnreadableFile,
    damaged_pdf,
)

_HEADER_WINDOW = 1024  # the spec lets "%PDF-" come anywhere in the first kilobyte
_END_OF_FILE = b"\nstartxref\n0\n%%EOF\n"


def open_pdf(fh: io.BufferedReader) -> PdfReader:
    """A pypdf reader for ``fh``, decrypted if it has no password; else UnreadableFile."""
    head = fh.read(_HEADER_WINDOW)
    if not head.strip():
        raise UnreadableFile(EMPTY_FILE)
    if b"%PDF-" not in head:
        raise UnreadableFile(NOT_A_PDF)
    fh.seek(0)
    try:
        reader = _reader(fh)
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise UnreadableFile(PASSWORD_PROTECTED)
    except UnreadableFile:
        raise
    except DependencyError as exc:
        raise UnreadableFile(NEEDS_AES) from exc
    except FileNotDecryptedError as exc:
        raise UnreadableFile(PASSWORD_PROTECTED) from exc
    except RecursionError as exc:
        raise damaged_pdf("its structure loops on itself") from exc
    except Exception as exc:  # pypdf raises many types on broken files
        raise damaged_pdf(exc) from exc
    return reader


def _reader(fh: io.BufferedReader) -> PdfReader:
    """A reader for ``fh``; a file without a cross-reference table is read by object scan
    (pypdf scans only after a ``startxref`` pointer, so one pointing nowhere is appended)."""
    try:
        return PdfReader(fh)
    except PdfReadError as first:
        fh.seek(0)
        try:
            return PdfReader(cast(IO[Any], _WithTail(fh, _END_OF_FILE)))
        except Exception:
            raise first from None


class _WithTail(io.RawIOBase):
    """A read-only view of a file with a few bytes appended."""

    def __init__(self, fh: io.BufferedReader, tail: bytes) -> None:
        super().__init__()
        self._fh = fh
        self._tail = tail
        self._size = fh.seek(0, io.SEEK_END)
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos}.get(whence, self._size + len(self._tail))
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        count = 0
        if self._pos < self._size:
            self._fh.seek(self._pos)
            count = self._fh.readinto(view[: min(len(view), self._size - self._pos)]) or 0
        if self._pos + count >= self._size and count < len(view):
            at = self._pos + count - self._size
            chunk = self._tail[at : at + len(view) - count]
            view[count : count + len(chunk)] = chunk
            count += len(chunk)
        self._pos += count
        return count
