"""A checked answer's sentences as the window marks them, and what it says about them.

The check gives offsets in the answer's Markdown, the window needs them in its HTML: markers
(private-use characters) put at each range's ends before rendering become one ``<span>`` per
piece of text inside an element (ui/answer/markdown.py), so the HTML stays well nested.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.check_line import contradicts
from app.records import CHECKED, SentenceSupportPublic

OPEN = "\ue000"
CLOSE = "\ue001"
_DIGIT = 0xE010
MARKERS = re.compile("\ue000([\ue010-\ue019]+)|\ue001")
ANY_MARKER = re.compile("[\ue000-\ue01f]")
_SYNTAX = "*_| \t"
"""What a range's markers go inside of: before emphasis marks a marker stops Markdown reading
them as emphasis; after a table row's last pipe it adds a cell."""


@dataclass(frozen=True)
class Wrap:
    """Wrap ``text[start:end]`` (offsets in the Markdown) in ``open`` … ``close``."""

    start: int
    end: int
    open: str
    close: str


def with_markers(text: str, wraps: Sequence[Wrap]) -> str:
    """``text`` with numbered markers at each wrap's ends (old ones dropped); no overlaps."""
    text = ANY_MARKER.sub("\ufffd", text)  # never taken for ours
    out: list[str] = []
    at = 0
    for index, wrap in sorted(enumerate(wraps), key=lambda pair: pair[1].start):
        start, end = wrap.start, wrap.end
        if start < at or end <= start or end > len(text):
            continue  # overlapping or out of range: left unmarked
        while start < end and text[start] in _SYNTAX:
            start += 1
        while end > start and text[end - 1] in _SYNTAX:
            end -= 1
        number = "".join(chr(_DIGIT + int(d)) for d in str(index))
        out += [text[at:start], OPEN, number, text[start:end], CLOSE]
        at = end
    out.append(text[at:])
    return "".join(out)


def pieces(content: str, env: dict[str, Any]) -> Iterator[tuple[str, int | None]]:
    """``content`` (one text token) cut at its markers: each piece with the wrap it is in,
    if any; ``env["inside"]`` carries the open wrap from one token to the next."""
    at = 0
    for marker in MARKERS.finditer(content):
        if marker.start() > at:
            yield content[at : marker.start()], env.get("inside")
        digits = marker.group(1)
        env["inside"] = int("".join(str(ord(c) - _DIGIT) for c in digits)) if digits else None
        at = marker.end()
    if at < len(content):
        yield content[at:], env.get("inside")


def claim_wraps(support: Sequence[SentenceSupportPublic]) -> list[Wrap]:
    """A span per checked sentence (none for verdict ``none``), classed by its verdict and
    saying why when unsupported; ``data-s`` is its place in ``support`` (a click opens it)."""
    wraps = []
    for index, sentence in enumerate(support):
        verdict = str(sentence.get("verdict", ""))
        if verdict not in CHECKED:
            continue  # nothing to check in it ("Thanks!"): shown as plain text
        classes = f"docent-claim docent-claim-{verdict}"
        if contradicts(sentence):
            classes += " docent-claim-contradicts"
        attributes = f'class="{classes}" data-s="{index}"'
        reason = why(sentence)
        if reason:
            attributes += f' data-why="{html.escape(reason)}"'
        wraps.append(
            Wrap(int(sentence["start"]), int(sentence["end"]), f"<span {attributes}>", "</span>")
        )
    return wraps


def why(sentence: SentenceSupportPublic) -> str:
    """What the window says of a sentence the sources don't fully support ("" if they do)."""
    verdict = sentence.get("verdict")
    if verdict == "supported":
        return ""
    if verdict == "unsupported" or not sentence.get("source"):
        return "Not found in the sources."
    found: dict[str, str] = sentence.get("found") or {}
    said = [f"{found[item]}, not {item}" for item in sentence.get("missing", []) if item in found]
    lacking = [item for item in sentence.get("missing", []) if item not in found]
    parts = []
    if said:
        parts.append("The passage says " + "; ".join(said))
    if lacking:
        names = ", ".join(lacking)
        parts.append(("it doesn't mention " if parts else "The passage doesn't mention ") + names)
    return "; ".join(parts) + "." if parts else "Only partly found in the sources."
