"""Single-use links through which the viewer fetches a library file, and the viewer's
scripts. The file is served in process via ``DocumentService.file_path`` (symlinks out
refused) behind an unguessable URL that works once, guarded by the login check."""

from __future__ import annotations

import mimetypes
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO
from urllib.parse import quote

from fastapi.responses import HTMLResponse, Response, StreamingResponse
from nicegui import app

PDF_ROUTE = "/_docent/pdf"
STATIC_ROUTE = "/_docent/static"
"""The viewer's script and PDF.js, from ui/static (the page's CSP: nothing from elsewhere)."""
STATIC = Path(__file__).parents[1] / "static"
LINK_SECONDS = 600.0
"""A link the viewer never opened stops working after this long."""
USED = (
    "<p style='font-family: sans-serif'>This link to the document has been used. "
    "Open the document again from its citation or from the library.</p>"
)


class PdfLinks:
    """Single-use links that serve one PDF of the library, once, to the viewer's frame."""

    def __init__(self) -> None:
        self._links: dict[str, tuple[Path, str, float]] = {}
        self._lock = threading.Lock()

    def make(self, path: Path, name: str) -> str:
        """An unguessable URL ending in ``name`` that serves ``path`` once."""
        token = secrets.token_urlsafe(32)
        now = time.monotonic()
        with self._lock:
            for old in [t for t, (_, _, until) in self._links.items() if until < now]:
                del self._links[old]
            self._links[token] = (path, name, now + LINK_SECONDS)
        return f"{PDF_ROUTE}/{token}/{quote(name)}"

    def serve(self, token: str, name: str) -> Response:
        """The PDF, once; no byte ranges, so the viewer reads it in one request."""
        with self._lock:
            link = self._links.pop(token, None)
        if link is None or link[2] < time.monotonic():
            return HTMLResponse(USED, status_code=404)
        path, shown, _ = link
        try:
            size = path.stat().st_size
            handle = path.open("rb")
        except OSError:
            return HTMLResponse(USED, status_code=404)
        headers = {
            "Content-Disposition": inline_disposition(shown),
            "Content-Length": str(size),
            "Cache-Control": "no-store",
        }
        media = mimetypes.guess_type(shown)[0] or "application/octet-stream"
        return StreamingResponse(_chunks(handle), media_type=media, headers=headers)


def _chunks(handle: BinaryIO) -> Iterator[bytes]:
    with handle:
        while block := handle.read(1 << 16):
            yield block


def inline_disposition(name: str) -> str:
    """``inline`` with the file's name, in ASCII and (RFC 6266) in UTF-8."""
    plain = name.encode("ascii", "replace").decode().replace('"', "'").replace("?", "_")
    return f"inline; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"


_links = PdfLinks()


def file_url(path: Path, name: str) -> str:
    """A single-use URL for ``path`` whose last segment is ``name``."""
    route = f"{PDF_ROUTE}/{{token}}/{{name}}"
    if not any(getattr(r, "path", None) == route for r in app.routes):
        app.add_api_route(route, _links.serve, methods=["GET"], include_in_schema=False)
    serve_static()
    return _links.make(path, name)


def serve_static() -> None:
    """The viewer's scripts and PDF.js, served from the first document opened on."""
    if not any(getattr(r, "path", None) == STATIC_ROUTE for r in app.routes):
        app.add_static_files(STATIC_ROUTE, STATIC)
