"""A checked answer's sentences as the window marks them, and what it says about them.

The check gives each sentence's offsets in the answer's Markdown; the window needs them in
the HTML that Markdown becomes. ``with_markers`` puts an invisible marker (a character of
Unicode's private use area) at each range's ends before the Markdown is rendered, and
the renderer (ui/markdown.py) turns the text between them into ``<span>``s, one for each
piece of text inside an element, so a sentence that runs through bold text or a link is
wrapped in several spans and the HTML stays well nested.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.services.chat_record import CHECKED

OPEN = "\ue000"
CLOSE = "\ue001"
_DIGIT = 0xE010
MARKERS = re.compile("\ue000([\ue010-\ue019]+)|\ue001")
ANY_MARKER = re.compile("[\ue000-\ue01f]")
_SYNTAX = "*_| \t"
"""What a range's markers go inside of: emphasis marks ("**Bold** claim": before them, a
marker would stop Markdown reading them as emphasis) and a table row's outer pipes (a
marker after the last one would add a cell, and the table would no longer be one)."""


@dataclass(frozen=True)
class Wrap:
    """Wrap ``text[start:end]`` (offsets in the Markdown) in ``open`` … ``close``."""

    start: int
    end: int
    open: str
    close: str


def with_markers(text: str, wraps: Sequence[Wrap]) -> str:
    """``text`` with a numbered opening marker at each wrap's start and a closing one at its
    end (markers the text already had are dropped); the wraps must not overlap."""
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


def claim_wraps(support: Sequence[dict[str, Any]]) -> list[Wrap]:
    """A span per checked sentence, classed by its verdict, saying why when it is not
    supported; ``data-s`` is its place in ``support`` (a click opens its source). A
    sentence with nothing to check (verdict ``none``) gets none."""
    wraps = []
    for index, sentence in enumerate(support):
        verdict = str(sentence.get("verdict", ""))
        if verdict not in CHECKED:
            continue  # nothing to check in it ("Thanks!"): shown as plain text
        attributes = f'class="docent-claim docent-claim-{verdict}" data-s="{index}"'
        reason = why(sentence)
        if reason:
            attributes += f' data-why="{html.escape(reason)}"'
        wraps.append(
            Wrap(int(sentence["start"]), int(sentence["end"]), f"<span {attributes}>", "</span>")
        )
    return wraps


def why(sentence: dict[str, Any]) -> str:
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


def checked(support: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sentences that were checked: not those with nothing to check ("Thanks!")."""
    return [s for s in support if s.get("verdict") in CHECKED]


def summary(support: Sequence[dict[str, Any]]) -> str:
    """The line under a checked answer: "7 of 8 sentences found in the sources" (of the
    sentences that had something to check)."""
    support = checked(support)
    total = len(support)
    found = sum(s.get("verdict") == "supported" for s in support)
    partly = sum(s.get("verdict") == "partly" for s in support)
    noun = "sentence" if total == 1 else "sentences"
    line = f"{found} of {total} {noun} found in the sources"
    return line + (f" ({partly} only in part)" if partly else "")
