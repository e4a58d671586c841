"""Limits on what a part of a zip package may expand into, checked while it is read.

The parser process's memory limit stops a bomb in the end; these stop the known shapes
early, with a reason naming the part. Inflated bytes are counted as read, never taken
from the zip's header; expat itself refuses entity-expansion bombs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO
from xml.etree import ElementTree as ET

from ingest.closing import Closing
from ingest.loaders.errors import LONG_TEXT, MANY_ELEMENTS, TOO_EXPANDED, UnreadableFile

PART_BYTES = 256 << 20
"""Most bytes one part may inflate to; the parts of real documents hold tens of megabytes
at most, since pictures and fonts are parts of their own and are never read."""
PART_ELEMENTS = 250_000
"""Most elements in a part parsed whole (styles, relationships, a slide, an e-book's
package file); real ones hold a few thousand."""
TEXT_CHARS = 1 << 20
"""Longest run of text between two tags; a paragraph of a real document is far shorter."""
_FEED_BYTES = 1 << 16


class CappedPart(Closing):
    """A part's stream that refuses to give more than ``limit`` bytes in all."""

    def __init__(self, stream: IO[bytes], part: str, kind: str, limit: int = PART_BYTES) -> None:
        self._stream = stream
        self._left = limit
        self.part = part
        self.kind = kind
        self.limit = limit

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all that is left when negative), as a file's ``read``."""
        # One byte past the limit is enough to know it was passed.
        wanted = self._left + 1 if size is None or size < 0 else min(size, self._left + 1)
        data = self._stream.read(wanted)
        self._left -= len(data)
        if self._left < 0:
            limit = f"{self.limit >> 20} MB" if self.limit >= 1 << 20 else f"{self.limit:,} bytes"
            raise UnreadableFile(TOO_EXPANDED.format(kind=self.kind, limit=limit, part=self.part))
        return data

    def close(self) -> None:
        self._stream.close()


class _CountingBuilder(ET.TreeBuilder):
    """Builds the tree as TreeBuilder does, counting elements and each run of text (and
    with ``events``, recording them as ``iterparse`` would)."""

    def __init__(
        self,
        part: str,
        kind: str,
        max_elements: int | None,
        events: list[tuple[str, ET.Element]] | None = None,
    ) -> None:
        super().__init__()
        self._part = part
        self._kind = kind
        self._max_elements = max_elements
        self._elements = 0
        self._text = 0
        self.events = events

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        self._elements += 1
        self._text = 0
        if self._max_elements is not None and self._elements > self._max_elements:
            raise UnreadableFile(
                MANY_ELEMENTS.format(kind=self._kind, limit=self._max_elements, part=self._part)
            )
        element = super().start(tag, attrs)
        if self.events is not None:
            self.events.append(("start", element))
        return element

    def end(self, tag: str) -> ET.Element:
        self._text = 0
        element = super().end(tag)
        if self.events is not None:
            self.events.append(("end", element))
        return element

    def data(self, data: str) -> None:
        self._text += len(data)
        if self._text > TEXT_CHARS:
            raise UnreadableFile(
                LONG_TEXT.format(kind=self._kind, limit=TEXT_CHARS, part=self._part)
            )
        super().data(data)


def parse_whole(stream: CappedPart, max_elements: int = PART_ELEMENTS) -> ET.Element:
    """The root of a part parsed whole; refuses more than ``max_elements`` elements."""
    parser = ET.XMLParser(target=_CountingBuilder(stream.part, stream.kind, max_elements))
    while chunk := stream.read(_FEED_BYTES):
        parser.feed(chunk)
    root: ET.Element = parser.close()
    return root


def stream_events(stream: CappedPart) -> Iterator[tuple[str, ET.Element]]:
    """("start" | "end", element) as ``iterparse`` gives them; no run of text past
    ``TEXT_CHARS``, and the reader clears what it has read."""
    events: list[tuple[str, ET.Element]] = []
    parser = ET.XMLParser(target=_CountingBuilder(stream.part, stream.kind, None, events))
    while chunk := stream.read(_FEED_BYTES):
        parser.feed(chunk)
        yield from events
        events.clear()
    parser.close()
    yield from events
