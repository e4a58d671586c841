"""A fake of where models are downloaded from (Hugging Face for FlashRank): serves zips on a
localhost port, and can hold a download half-way until the test lets it finish."""

from __future__ import annotations

import io
import threading
import zipfile
from pathlib import Path

from tests.fakes.http_base import FakeHandler, ServedFake


def zipped(folder: Path) -> bytes:
    """``folder`` as a zip holding the folder itself, as FlashRank's model zips do."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder.parent).as_posix())
    return out.getvalue()


class _Handler(FakeHandler):
    def do_GET(self) -> None:
        fake: FakeModelHost = self.server.fake
        fake.requests.append(self.path)
        data = fake.files.get(self.path.lstrip("/"))
        if data is None:
            self.send_bytes(404, b"Entry not found", "text/plain")
            return
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/zip")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            half = len(data) // 2 if fake.hold else len(data)
            self.wfile.write(data[:half])
            self.wfile.flush()
            if fake.hold:
                fake.holding.set()
                fake.release.wait(timeout=30)
            self.wfile.write(data[half:])
        except OSError:
            self.close_connection = True


class FakeModelHost(ServedFake):
    """Serves ``files`` (name → bytes) at ``/<name>``; with ``hold``, sends half of a file,
    sets ``holding`` and waits for ``release``."""

    handler = _Handler
    name = "fake model host"

    def __init__(self, files: dict[str, bytes] | None = None, *, hold: bool = False) -> None:
        super().__init__()
        self.files = dict(files or {})
        self.hold = hold
        self.holding = threading.Event()
        self.release = threading.Event()
        self.requests: list[str] = []

    @property
    def source(self) -> str:
        """The reranker's ``source`` pointing here."""
        return self.root + "/{model}.zip"
