"""Markdown that only shows what it says, for an exported chat a previewer may open (what
it makes inert is in docs/api.md; the window never renders those, a previewer would).

markdown-it finds the constructs as a previewer's parser would (raw HTML on, every link
scheme followed, tables on and off): regular expressions can't tell an image from the same
characters in a code span. Its inline tokens carry no offsets, so each construct is placed
by where its line's text sits in the source. The edited text is parsed again until nothing
is found; what can't be placed has every ``[`` and ``<`` of its block escaped, and a text
still not clean after a few rounds is written whole in a code block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline, autolink, html_inline, image, link
from markdown_it.token import Token

UNSAFE_LINK = re.compile(r"(?:javascript|vbscript|data|file):", re.IGNORECASE)
"""Addresses that run code or read local files instead of going somewhere."""
_IGNORED_IN_SCHEME = re.compile(r"[\x00-\x20\x7f]+")
"""What a browser drops from an address before reading its scheme ("java\tscript:")."""
ROUNDS = 20
"""Edits a nested construct may need (an image inside a link inside a link…)."""

Rule = Callable[[StateInline, bool], bool]


@dataclass(frozen=True)
class _Found:
    """A construct in an inline token's content: ``content[start:end]``."""

    kind: str
    start: int
    end: int
    label: tuple[int, int] = (0, 0)
    """An image's alt text or a link's text, as offsets in the content."""
    address: str = ""


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


class _Previewer(MarkdownIt):
    """markdown-it as a careless previewer: it follows a link of any scheme."""

    def validateLink(self, url: str) -> bool:
        return True


def inert_markdown(text: str) -> str:
    """``text`` with its images as plain text, raw HTML escaped and script links unlinked."""
    # What markdown-it does to the source first, so that offsets agree with its lines.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    for _ in range(ROUNDS):
        edits = [edit for parser in _parsers() for edit in _edits(parser, text)]
        if not edits:
            return text
        text = _apply(text, edits)
    return _code_block(text)


@lru_cache(maxsize=1)
def _parsers() -> tuple[MarkdownIt, ...]:
    """CommonMark, and CommonMark with tables (a cell's pipes split a code span there)."""
    plain = _Previewer("commonmark", {"html": True})
    tables = _Previewer("commonmark", {"html": True}).enable(["table", "strikethrough"])
    for parser in (plain, tables):
        # Nothing is rendered, and text_join would give each inline token a new list of
        # children, which is how a construct found is matched to the token it is in.
        parser.core.ruler.disable("text_join")
        ruler = parser.inline.ruler
        ruler.at("link", _recording("link", link))
        ruler.at("image", _recording("image", image))
        ruler.at("autolink", _recording("autolink", autolink))
        ruler.at("html_inline", _recording("html", html_inline))
    return plain, tables


def _recording(kind: str, rule: Rule) -> Rule:
    """``rule``, noting in the parse's env each construct it makes that must be made inert."""

    def run(state: StateInline, silent: bool) -> bool:
        start, first = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            found = _found(kind, state, start, first)
            if found is not None:
                state.env.setdefault("found", {}).setdefault(id(state.tokens), []).append(found)
        return True

    return run


def _found(kind: str, state: StateInline, start: int, first: int) -> _Found | None:
    made = state.tokens[first:]
    if kind == "html":
        return _Found(kind, start, state.pos)
    if kind == "image":
        token = next(t for t in made if t.type == "image")
        label_end = state.md.helpers.parseLinkLabel(state, start + 1, False)
        return _Found(kind, start, state.pos, (start + 2, label_end), str(token.attrGet("src")))
    address = str(next(t for t in made if t.type == "link_open").attrGet("href"))
    if not UNSAFE_LINK.match(_IGNORED_IN_SCHEME.sub("", address)):
        return None
    if kind == "autolink":
        return _Found(kind, start, state.pos, (start + 1, state.pos - 1), address)
    label_end = state.md.helpers.parseLinkLabel(state, start, True)
    return _Found(kind, start, state.pos, (start + 1, label_end), address)


def _edits(parser: MarkdownIt, text: str) -> Iterator[_Edit]:
    env: dict[str, dict[int, list[_Found]]] = {}
    tokens = parser.parse(text, env)
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    found = env.get("found", {})
    for token in tokens:
        if token.type == "html_block" and token.map:
            first, last = token.map
            yield from _escape(text, starts[first], starts[last - 1] + len(lines[last - 1]), "<")
        elif token.type == "inline" and token.children is not None:
            inside = found.get(id(token.children), [])
            if inside:
                yield from _inline_edits(text, lines, starts, token, inside)


def _inline_edits(
    text: str, lines: list[str], starts: list[int], token: Token, found: list[_Found]
) -> list[_Edit]:
    places = _places(lines, starts, token)
    if places is not None:
        edits = [_made_inert(item, token.content, places) for item in found]
        if all(edit is not None for edit in edits):
            return [edit for edit in edits if edit is not None]
        # A construct split over the lines of a quote or a list: escape its block instead.
        return [_Edit(at, at + 1, "\\" + text[at]) for at in places if _live(text, at, "[<")]
    if token.map is None:
        return []  # found again next round, and in the end written as a code block
    first, last = token.map
    return list(_escape(text, starts[first], starts[last - 1] + len(lines[last - 1]), "[<"))


def _made_inert(item: _Found, content: str, places: list[int]) -> _Edit | None:
    """The edit that makes one construct inert; None when it is not one run of the source."""
    start, end = places[item.start], places[item.end - 1] + 1
    if item.kind == "html":
        return _Edit(start, start + 1, "\\<")
    if end - start != item.end - item.start:
        return None
    label = content[item.label[0] : item.label[1]]
    if item.kind == "image":
        where = _code(item.address)
        shown = f"image: {label} ({where})" if label.strip() else f"image: {where}"
        return _Edit(start, end, shown)
    if item.kind == "autolink":
        return _Edit(start, end, _code(label))
    return _Edit(start, end, label)


def _places(lines: list[str], starts: list[int], token: Token) -> list[int] | None:
    """Where each character of an inline token's content is in the source, or None when
    its lines are not where they should be (a tab expanded in a list, say)."""
    if token.map is None:
        return None
    pieces = token.content.split("\n")
    first = token.map[0]
    if first + len(pieces) > len(lines):
        return None
    places: list[int] = []
    for number, piece in enumerate(pieces):
        line = lines[first + number]
        if number < len(pieces) - 1:  # a line that goes on: the content runs to its end
            at = len(line) - len(piece)
        else:  # the last: a heading's closing hashes or trailing spaces may follow
            kept = line.rstrip()
            at = len(kept) - len(piece) if kept.endswith(piece) else kept.rfind(piece)
        if at < 0 or line[at : at + len(piece)] != piece:
            return None
        base = starts[first + number] + at
        places.extend(range(base, base + len(piece)))
        if number < len(pieces) - 1:
            places.append(starts[first + number] + len(line))
    return places


def _escape(text: str, start: int, end: int, characters: str) -> Iterator[_Edit]:
    for at in range(start, end):
        if _live(text, at, characters):
            yield _Edit(at, at + 1, "\\" + text[at])


def _live(text: str, at: int, characters: str) -> bool:
    """Whether ``text[at]`` is one of ``characters`` and not escaped by a backslash."""
    if text[at] not in characters:
        return False
    before = at
    while before > 0 and text[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 0


def _apply(text: str, edits: list[_Edit]) -> str:
    """``text`` with the edits made; of overlapping ones the outer (first) is kept, and the
    next round finds what it left inside."""
    kept: list[_Edit] = []
    for edit in sorted(edits, key=lambda e: (e.start, -e.end)):
        if not kept or edit.start >= kept[-1].end:
            kept.append(edit)
    out, at = [], 0
    for edit in kept:
        out += [text[at : edit.start], edit.text]
        at = edit.end
    out.append(text[at:])
    return "".join(out)


def _code(text: str) -> str:
    """``text`` as a code span: inert, and shown as it is."""
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def _code_block(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}\n"
