"""Loaders: turn a file into pages of text, or say in plain words why they cannot.

``load(path)`` returns every page of a PDF, empty ones included, so ``len(pages)`` is the
document's page count; the chunker drops pages without text. Text and Markdown files are
one page whose ``number`` is None; unless the loader rewrites them (Markdown front matter),
their text is the file's text, so character spans are offsets into the file.
"""

from __future__ import annotations

import logging
import re
from io import BytesIO
from pathlib import Path

from pypdf import PasswordType, PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError

from ingest.types import Page

log = logging.getLogger(__name__)

SUPPORTED_SUFFIXES: frozenset[str] = frozenset({".pdf", ".txt", ".md", ".markdown"})
"""Lower-case suffixes ``load`` understands."""

PASSWORD_PROTECTED = "password-protected"
NO_TEXT_LAYER = "no text layer (scanned)"
EMPTY_FILE = "empty file"
CORRUPT_PDF = "corrupt or not a PDF"
NEEDS_AES = "encrypted with AES, which needs the 'cryptography' package to read"

_DETAIL_MAX = 160
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)


class UnsupportedFile(Exception):
    """The file's type is not one Docent reads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        kinds = ", ".join(sorted(SUPPORTED_SUFFIXES))
        super().__init__(f"{path.name}: unsupported file type (Docent reads {kinds})")


class UnreadableFile(Exception):
    """The file is a supported type but yields no text; ``reason`` says why, for a person."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def is_supported(path: Path) -> bool:
    """Whether ``load`` handles this file's suffix."""
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def load(path: Path) -> list[Page]:
    """Read ``path`` into pages; raises UnsupportedFile or UnreadableFile.

    OSError (missing file, permission denied) passes through untouched so the caller
    can tell "try again later" from "this file is broken".
    """
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise UnsupportedFile(path)
    data = path.read_bytes()
    if not data.strip():
        raise UnreadableFile(EMPTY_FILE)
    if suffix == ".pdf":
        return _load_pdf(data)
    text = _decode(data)
    if suffix in {".md", ".markdown"}:
        text = _strip_front_matter(text)
    if not text.strip():
        raise UnreadableFile(EMPTY_FILE)
    return [Page(number=None, text=text)]


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data[:8192]:
        raise UnreadableFile("not a text file (binary content)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", errors="replace")
    # A few stray bytes in a UTF-8 file: keep it UTF-8 rather than garble every accent.
    if text.count("\ufffd") <= len(text) // 1000:
        return text
    # Otherwise a legacy 8-bit file: cp1252 is Latin-1 as Windows writes it (curly quotes).
    return data.decode("cp1252", errors="replace")


def _strip_front_matter(text: str) -> str:
    """Drop YAML front matter; keep its title as a heading, since it names the page."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return text
    body = text[match.end() :].lstrip("\r\n")
    title = _TITLE.search(match.group(1))
    if title is None or body.lstrip().startswith("#"):
        return body
    name = title.group(1).strip("\"'")
    return f"# {name}\n\n{body}"


def _quiet_pypdf() -> None:
    # pypdf logs a warning for every oddity of a broken file; to a user that is noise
    # (the registry gets the reason). Set the "pypdf" logger to DEBUG to see them.
    pypdf_log = logging.getLogger("pypdf")
    if pypdf_log.level == logging.NOTSET:
        pypdf_log.setLevel(logging.ERROR)


def _load_pdf(data: bytes) -> list[Page]:
    _quiet_pypdf()
    try:
        reader = PdfReader(BytesIO(data))  # tries the empty password itself
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise UnreadableFile(PASSWORD_PROTECTED)
        pdf_pages = list(reader.pages)
    except UnreadableFile:
        raise
    except DependencyError as exc:
        raise UnreadableFile(NEEDS_AES) from exc
    except FileNotDecryptedError as exc:
        raise UnreadableFile(PASSWORD_PROTECTED) from exc
    except RecursionError as exc:
        raise UnreadableFile(f"{CORRUPT_PDF}: its structure loops on itself") from exc
    except Exception as exc:  # pypdf raises many types on broken files
        raise UnreadableFile(f"{CORRUPT_PDF}: {_detail(exc)}") from exc
    if not pdf_pages:
        raise UnreadableFile(f"{EMPTY_FILE} (the PDF has no pages)")

    pages: list[Page] = []
    first_error: BaseException | None = None
    for number, pdf_page in enumerate(pdf_pages, start=1):
        try:
            text = pdf_page.extract_text()
        except DependencyError as exc:
            raise UnreadableFile(NEEDS_AES) from exc
        except FileNotDecryptedError as exc:
            raise UnreadableFile(PASSWORD_PROTECTED) from exc
        except Exception as exc:  # one broken page should not cost the whole document
            log.debug("page %d: text extraction failed: %r", number, exc)
            first_error = first_error or exc
            text = ""
        pages.append(Page(number=number, text=text.replace("\x00", "")))

    if not any(page.text.strip() for page in pages):
        if first_error is not None:
            raise UnreadableFile(f"{CORRUPT_PDF}: {_detail(first_error)}")
        raise UnreadableFile(NO_TEXT_LAYER)
    return pages


def _detail(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "…"
