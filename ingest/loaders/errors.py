"""Why a file cannot be read, in words a person can act on."""

from __future__ import annotations

EMPTY_FILE = "file is empty"
BINARY_CONTENT = "not a text file (binary content): check that its extension matches what it holds"
PASSWORD_PROTECTED = "password-protected PDF: remove the password and save a copy"
NEEDS_AES = (
    "encrypted with AES, which needs the 'cryptography' package: reinstall Docent's dependencies"
)
NO_TEXT_LAYER = "no text layer (scanned image); OCR is off (DOCENT_OCR=off)"
NO_TEXT_DRAWN = (
    "no text in this PDF: its pages are blank or draw their letters as shapes (OCR reads"
    " only pages that hold images)"
)
NO_TEXT_READ = "no text found, even by OCR: its pages are blank, or pictures without words"
UNREAD_SCRIPT = (
    "its text is in a script the built-in OCR cannot read (it reads Latin, Greek, Chinese"
    " and Japanese letters)"
)
OCR_OFF = "image files are read by OCR, which is off (DOCENT_OCR=off)"
OLD_SCANNED = (
    "no text layer (scanned image); OCR is not enabled",
    "no text in this PDF: its pages are blank or draw their letters as shapes; OCR is not enabled",
)
"""How files that needed OCR ended before Docent had it: retried once when it does."""
NO_PAGES = "empty PDF: it has no pages"
NOT_A_PDF = "not a PDF (it does not start like one): check the file's extension"
DAMAGED_PDF = "damaged PDF"
REPAIR_PDF = "opening it in a PDF viewer and saving a copy may repair it"
LOCKED_OFFICE = (
    "password-protected or old-format {kind} file: save it as an unprotected {suffix} and try again"
)
DAMAGED_OFFICE = "damaged {kind} file ({detail}): open it and save a new copy"
DRM_EBOOK = "copy-protected (DRM) e-book: Docent can only read e-books without DRM"
NO_TEXT = "no text to index in this {kind}"
_BOMB = "it may be a decompression bomb, made to exhaust memory"
TOO_EXPANDED = "this {kind} file expands to more than {limit} when opened (part {part}): " + _BOMB
MANY_ELEMENTS = (
    "this {kind} file has more than {limit:,} XML elements in one part (part {part}),"
    " more than any real document: " + _BOMB
)
LONG_TEXT = (
    "this {kind} file has a run of more than {limit:,} characters without any markup"
    " (part {part}), more than any real paragraph: " + _BOMB
)

_DETAIL_MAX = 120


class UnreadableFile(Exception):
    """The file is a supported type but yields no text; ``reason`` says why, for a person."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def detail(exc: BaseException) -> str:
    """A library's error message, on one line and short enough for a status column."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "…"


def damaged_pdf(exc: BaseException | str) -> UnreadableFile:
    """The error for a PDF whose structure pypdf cannot follow."""
    what = exc if isinstance(exc, str) else detail(exc)
    return UnreadableFile(f"{DAMAGED_PDF}: {what}; {REPAIR_PDF}")
