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


def checked(support: Sequence[SentenceSupportPublic]) -> list[SentenceSupportPublic]:
    """The sentences that were checked: not those with nothing to check ("Thanks!")."""
    return [s for s in support if s.get("verdict") in CHECKED]


def contradicts(sentence: SentenceSupportPublic) -> bool:
    """Whether the passage says something else in the sentence's place ("120, not 150";
    "cannot transfer, not can transfer"): the sentence is wrong, not merely unfound."""
    return sentence.get("verdict") == "partly" and bool(sentence.get("found"))


def summary(support: Sequence[SentenceSupportPublic]) -> str:
    """The line under a checked answer: what is wrong first, then how much was found."""
    support = checked(support)
    total = len(support)
    found = sum(s.get("verdict") == "supported" for s in support)
    wrong = sum(contradicts(s) for s in support)
    partly = sum(s.get("verdict") == "partly" for s in support) - wrong
    unfound = sum(s.get("verdict") == "unsupported" for s in support)
    noun = "sentence" if total == 1 else "sentences"
    if not wrong and not unfound:
        line = f"{found} of {total} {noun} found in the sources"
        return line + (f" ({partly} only in part)" if partly else "")
    problems = []
    if wrong:
        if support and contradicts(support[0]) and wrong == 1:
            problems.append("The first sentence contradicts the sources")
        else:
            verb = "contradicts" if wrong == 1 else "contradict"
            problems.append(f"{_count(wrong, 'sentence')} {verb} the sources")
    if unfound:
        problems.append(
            f"{_count(unfound, 'sentence')} not found in the sources"
            if not problems
            else f"{unfound} not found"
        )
    if partly:
        problems.append(f"{partly} only in part")
    return " · ".join([*problems, f"{found} of {total} found"])


def worrying(support: Sequence[SentenceSupportPublic]) -> bool:
    """Whether a sentence of the answer contradicts the sources: the line then warns."""
    return any(contradicts(s) for s in checked(support))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
