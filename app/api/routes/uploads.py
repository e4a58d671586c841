"""Uploads: how much one upload may send, and its multipart body read as it arrives.
Starlette's form parser would spool every file to the system's temp folder before the route
runs; here each file's bytes go straight from the socket to ``DocumentService.add``."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

if TYPE_CHECKING:
    from app.settings import Settings

UPLOAD_PATH = "/api/documents"
FILES_PER_REQUEST = 10
"""One request may carry this many files at the per-file limit (more, smaller ones fit)."""
FRAMING = 1 << 20
"""Room for the multipart boundaries and part headers on top of the files themselves."""
BLOCK = 1 << 18
"""File bytes are handed on (and written) in blocks of about this size."""
MAX_FIELD_BYTES = 4096
"""The most a plain form field (``folder``) may hold."""


def upload_body_cap(settings: Settings) -> int:
    """The largest body ``POST /api/documents`` accepts (each file is capped on its own)."""
    return FILES_PER_REQUEST * (settings.server.max_upload_mb << 20) + FRAMING


class MultipartError(ValueError):
    """The body is not the multipart/form-data it claims to be; the message says how."""


@dataclass
class Part:
    """One part of the body: a form field, or a file when it has a ``filename``."""

    name: str
    filename: str | None
    _reader: _Reader = field(repr=False)
    _ended: bool = False

    async def blocks(self) -> AsyncIterator[bytes]:
        """The part's bytes as they arrive, in blocks of about ``BLOCK``."""
        buffer = bytearray()
        while not self._ended:
            kind, data = await self._reader.next_event()
            if kind == "data":
                buffer += data
                if len(buffer) >= BLOCK:
                    yield bytes(buffer)
                    buffer.clear()
            elif kind == "end":
                self._ended = True
            else:  # the body stopped in the middle of this part: no half files
                raise MultipartError(f"The body ended in the middle of the part '{self.name}'.")
        if buffer:
            yield bytes(buffer)

    async def text(self) -> str:
        """A plain field's value (at most ``MAX_FIELD_BYTES``)."""
        value = bytearray()
        async for block in self.blocks():
            value += block
            if len(value) > MAX_FIELD_BYTES:
                raise MultipartError(f"{self.name}: longer than {MAX_FIELD_BYTES} bytes.")
        return _decode(bytes(value))

    async def skip(self) -> None:
        """Read past whatever of the part is left."""
        async for _ in self.blocks():
            pass


async def read_parts(content_type: str, body: AsyncIterator[bytes]) -> AsyncGenerator[Part]:
    """The parts of a multipart/form-data ``body``, each readable before the next arrives
    (what the caller leaves unread of a part is skipped)."""
    kind, options = parse_options_header(content_type)
    if kind != b"multipart/form-data" or not options.get(b"boundary"):
        raise MultipartError("files: send the files as multipart/form-data (field `files`).")
    reader = _Reader(options[b"boundary"], body)
    while True:
        event, _ = await reader.next_event()
        if event == "finish":
            return
        if event == "eof":
            raise MultipartError("The body ended before its closing boundary.")
        if event != "begin":
            continue
        part = await reader.part_head()
        yield part
        await part.skip()


class _Reader:
    """Feeds the push parser from the body and queues what it reports, on demand."""

    def __init__(self, boundary: bytes, body: AsyncIterator[bytes]) -> None:
        self._body = aiter(body)
        self._events: deque[tuple[str, bytes]] = deque()
        self._exhausted = False
        self._header = [b"", b""]
        try:
            self._parser = MultipartParser(
                boundary,
                {
                    "on_part_begin": lambda: self._events.append(("begin", b"")),
                    "on_header_field": self._on_header_field,
                    "on_header_value": self._on_header_value,
                    "on_header_end": self._on_header_end,
                    "on_headers_finished": lambda: self._events.append(("headers", b"")),
                    "on_part_data": self._on_data,
                    "on_part_end": lambda: self._events.append(("end", b"")),
                    "on_end": lambda: self._events.append(("finish", b"")),
                },
            )
        except FormParserError as error:
            raise MultipartError(f"Invalid multipart body: {error}") from error

    def _on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header[0] += data[start:end]

    def _on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header[1] += data[start:end]

    def _on_header_end(self) -> None:
        name, value = self._header
        self._events.append(("header:" + name.decode("latin-1").lower(), value))
        self._header = [b"", b""]

    def _on_data(self, data: bytes, start: int, end: int) -> None:
        self._events.append(("data", bytes(data[start:end])))

    async def next_event(self) -> tuple[str, bytes]:
        """The parser's next event; ``eof`` once the body has run out."""
        while not self._events:
            if self._exhausted:
                return ("eof", b"")
            try:
                chunk = await anext(self._body)
            except StopAsyncIteration:
                self._exhausted = True
                continue
            try:
                self._parser.write(chunk)
            except FormParserError as error:
                raise MultipartError(f"Invalid multipart body: {error}") from error
        return self._events.popleft()

    async def part_head(self) -> Part:
        """The headers of the part just begun, as a Part ready to read."""
        disposition = b""
        while True:
            event, value = await self.next_event()
            if event == "header:content-disposition":
                disposition = value
            elif event == "headers":
                break
            elif not event.startswith("header:"):
                raise MultipartError("The body ended inside a part's headers.")
        _, options = parse_options_header(disposition)
        if b"name" not in options:
            raise MultipartError('Every part needs a Content-Disposition with a "name".')
        filename = options.get(b"filename")
        return Part(
            name=_decode(options[b"name"]),
            filename=None if filename is None else _decode(filename),
            _reader=self,
        )


def _decode(raw: bytes) -> str:
    """Browsers send UTF-8 names; anything else is read as Latin-1, as Starlette does."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")
