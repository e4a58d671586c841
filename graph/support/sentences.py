"""Split text into sentences with their offsets, for Markdown answers and for passages.

Not pysbd: it took 15 ms per 1,000 characters here (five times the whole check's budget for one
turn's passages), knows no Markdown blocks, and has had no release since 2021. A sentence never
crosses a block (blank line, list item, heading, quote, table row); a single line break is a soft
wrap; citation marks after the stop stay with the sentence (``in 1856. [1] He``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Sentence:
    """One sentence: ``text == source[start:end]``, without list or heading markers."""

    start: int
    end: int
    text: str
    heading: bool = False
    """A Markdown heading: a title, not a claim."""


# A line that starts a block, and the marker to leave out of the sentence.
_BLOCK_MARKER = re.compile(
    r"[ \t]{0,3}(?:"
    r"(?P<heading>#{1,6})[ \t]+"
    r"|>[ \t]?"
    r"|[-*+•][ \t]+(?:\[[ xX]\][ \t]+)?"
    r"|\d{1,3}[.)][ \t]+"
    r"|(?P<table>\|)"
    r")"
)
_RULE = re.compile(r"[ \t]*(?:[-*_][ \t]*){3,}$")
"""A thematic break (``---``): no text at all."""
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
"""A code fence's opening or closing line: the code between states nothing to check."""

# A possible end: the stops, then closers (quotes, brackets, emphasis), then citation
# marks such as [1] or [2, 3], then the space that must follow.
_END = re.compile(
    r"(?:\.{3}|…|[.!?]+)"
    r"[\"'”’»)\]*_]*"
    r"(?:[ \t]*\[\d{1,3}(?:[ \t]*[,;–-][ \t]*\d{1,3})*\])*"
    r"(?=\s)"
)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_NEXT_WORD = re.compile(r"\s*[\"'“‘(\[*_]*([^\W\d_]+|\d)?")

TITLES = frozenset(
    "mr mrs ms mx dr prof st sr jr rev fr gen col lt capt sgt maj cmdr adm gov sen rep pres "
    "hon mt ft ed eds cf vs ca approx est dept univ".split()
)
"""Abbreviations that a sentence seldom ends on: a name or more words follow."""
NUMBERED = frozenset(
    "no nos fig figs vol vols pp ch sec art op jan feb mar apr jun jul aug sep sept oct nov "
    "dec".split()
)
"""Abbreviations before a number or a code ("No. 5", "No. A-11", "Jan. 2020"); before a
word, a sentence ends."""
ENDERS = frozenset("etc al inc ltd co corp bros plc".split())
"""Abbreviations that often end a sentence too: they end one before a sentence opener."""
OPENERS = frozenset(
    "a an the this that these those it its he she they we i you there here in on at for "
    "after before during when while since but however yet so then thus also although "
    "though if as by from with his her their our my some many most all each both no "
    "not one two three".split()
)
"""Words that start sentences far more often than they follow "U.S." or "Inc." in one."""


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of ``text`` in order, each with its character offsets in ``text``."""
    sentences: list[Sentence] = []
    for start, end, heading in _blocks(text):
        if heading:
            sentences.append(Sentence(start, end, text[start:end], True))
            continue
        for s, e in _split_block(text, start, end):
            sentences.append(Sentence(s, e, text[s:e]))
    return sentences


def _blocks(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_heading) of each block's text, markers left out, ends trimmed."""
    blocks: list[tuple[int, int, bool]] = []
    open_start: int | None = None
    open_end = 0

    def close() -> None:
        nonlocal open_start
        if open_start is not None:
            _append_trimmed(blocks, text, open_start, open_end, False)
        open_start = None

    position = 0
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        line_start, position = position, position + len(line)
        body = line.rstrip("\r\n")
        line_end = line_start + len(body)
        opening = _FENCE.match(body)
        if fence is not None or opening is not None:
            close()
            if fence is None and opening is not None:
                fence = opening.group(1)
            elif fence is not None and body.strip().startswith(fence[0] * len(fence)):
                fence = None  # the closing fence
            continue
        if not body.strip() or _RULE.match(body):
            close()
            continue
        marker = _BLOCK_MARKER.match(body)
        if marker is not None and not _is_number_start(marker):
            close()
            content = line_start + marker.end()
            if marker.group("heading"):
                _append_trimmed(blocks, text, content, line_end, True)
                continue
            if marker.group("table"):
                _append_trimmed(blocks, text, line_start + marker.start("table"), line_end, False)
                continue
            open_start, open_end = content, line_end
            continue
        if open_start is None:
            open_start = line_start
        open_end = line_end
    close()
    return blocks


def _is_number_start(marker: re.Match[str]) -> bool:
    """ "1984. That year..." wrapped onto a new line is text, not item 1984 of a list."""
    token = marker.group(0).strip()
    return token[:-1].isdigit() and len(token) > 3


def _append_trimmed(
    blocks: list[tuple[int, int, bool]], text: str, start: int, end: int, heading: bool
) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if heading:
        end = len(text[start:end].rstrip("# \t")) + start  # "## Title ##"
    if end > start:
        blocks.append((start, end, heading))


def _split_block(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans inside one block."""
    spans: list[tuple[int, int]] = []
    begin = start
    for match in _END.finditer(text, start, end):
        if _is_boundary(text, match, end):
            spans.append((begin, match.end()))
            begin = match.end()
    spans.append((begin, end))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def _is_boundary(text: str, match: re.Match[str], block_end: int) -> bool:
    stop = match.group(0)
    if match.end() >= block_end:
        return False  # the block's end closes the sentence anyway
    following = _NEXT_WORD.match(text, match.end(), block_end)
    next_word = following.group(1) if following else None
    if next_word is None:
        return True  # "." then "[" or "**" or an emoji: a new sentence or element
    if next_word[0].islower():
        return False  # "approx. half", "vs. them", "e.g. in"
    if stop[0] in "!?…" or stop.startswith("..."):
        return True
    before = _WORD_BEFORE.search(text, max(0, match.start() - 24), match.start())
    if before is None:
        return True  # "1856. He", "(see above). The"
    word = before.group(1)
    bare = word.rstrip(".").lower()
    if len(word) == 1 and word.isupper():
        return False  # an initial: "J. R. R. Tolkien"
    if "." in word.rstrip("."):  # "U.S", "e.g", "Ph.D", "a.m"
        if bare in ("e.g", "i.e"):
            return False
        return next_word.lower() in OPENERS
    if bare in TITLES:
        return False
    if bare in NUMBERED:  # "No. 5", "No. A-11", "Fig. 3b": a number or a code follows
        code = re.match(r"\S*", text[following.start(1) :]) if following else None
        return not (next_word.isdigit() or (code and any(c.isdigit() for c in code.group(0))))
    if bare in ENDERS:
        return next_word.lower() in OPENERS
    return True
