"""Why a request about documents can't be met; each names what to do, and its API code."""

from __future__ import annotations

from ingest.disk import DiskFull


class DocumentError(Exception):
    """A request about documents that cannot be met; the message says what to do."""

    code = "invalid_request"


class DocumentNotFound(DocumentError):
    code = "document_not_found"


class UnsupportedType(DocumentError):
    code = "unsupported_type"


class FileTooLarge(DocumentError):
    code = "file_too_large"


class BadFileName(DocumentError):
    code = "bad_file_name"


class NoSpace(DocumentError):
    """The disk a file was to be written to is full; nothing of the upload stays."""

    code = "disk_full"

    def __init__(self, full: DiskFull) -> None:
        super().__init__(str(full))
        self.path = full.path
