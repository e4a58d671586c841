"""A comparison's table, built by Docent from the notes, never by the model: a small model asked for
a table breaks the separator row, repeats rows and cites one file's page for another's words. A row
per topic (per document when topics are few), a column per document."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from graph.whole import reading_prompts

MAX_ROWS = 14
MAX_POINTS = 3
"""Points in one cell; a topic a document says more about keeps its first three."""
MAX_POINT_CHARS = 320
TOPIC_WORDS = 5
"""A line's text before its first colon is a topic only when it is this short."""

_ITEM = re.compile(r"^\s*(?:(?:[-*+•]|\d{1,2}[.)]|#{1,6})\s+)+")
"""A list item's mark, a Markdown heading's (a 1.5B model copies the page's headings), or both."""
_MARKDOWN_HEADING = re.compile(r"^\s*(?:[-*+•]\s+)?#{1,6}\s")
"""A heading copied with the citation the prompt asks of every line: "## About PPL [1]"."""
_INLINE_HEADING = re.compile(r"\n|(?<=[.!?\]])[ \t]+(?=#{1,6} )")
"""A line's end, or a heading the model ran on after a statement ("… child [1]. ## About PPL")."""
_BOLD = re.compile(r"\*\*|__")
_LINK = re.compile(r"\[([^\]\[]+)\]\([^)\s]+\)")
_TOPIC_WORD = re.compile(r"^topic\s*:\s*", re.IGNORECASE)
"""The prompt's own word, copied by a model that takes the template literally."""
_LEADING_CITES = re.compile(r"^((?:\[\d+\]\s*)+)(.+)$")
_CITE = re.compile(r"\[\d+\]")
_WORD = re.compile(r"[^\W_]+")
_SMALL = frozenset("a an the of and or for to in on its their".split())


@dataclass(frozen=True)
class Point:
    """One statement of one document's notes, its labels already source numbers."""

    column: int
    """Which document (the table's column) it comes from."""
    topic: str | None
    text: str


@dataclass
class Row:
    """One row of the table: a topic (or a document), and each column's points."""

    label: str
    key: frozenset[str]
    cells: list[list[Point]]


@dataclass(frozen=True)
class Placed:
    """Where a point's text sits in the table's Markdown."""

    point: Point
    start: int
    end: int


@dataclass(frozen=True)
class Table:
    """The table's Markdown and where each point is in it."""

    text: str
    placed: tuple[Placed, ...]


def points_of(note: str, column: int, page: int | None = None) -> list[Point]:
    """The points of one note with their topics; in a one-page note (``page``), a point that cites
    nothing cites that page.

    Small models write "- Topic: what it says [3]" in their own ways (the word "Topic:", the topic
    on its own line, bold numbered items, the citation first); a short line without a stop or a
    citation heads the lines below it.
    """
    points: list[Point] = []
    topic: str | None = None
    heading: str | None = None
    for line in _INLINE_HEADING.split(note):
        body = _TOPIC_WORD.sub("", _BOLD.sub("", _ITEM.sub("", line)).strip()).strip()
        if not body or body.startswith("|"):
            continue
        head, colon, rest = body.partition(":")
        if colon and _is_topic(head):
            if not rest.strip():
                _heading(points, column, topic, heading)
                topic = heading = head.strip()
                continue
            topic, body = head.strip(), rest.strip()
        elif _is_heading(body) or (_MARKDOWN_HEADING.match(line) and _is_topic(_uncited(body))):
            _heading(points, column, topic, heading)
            topic = heading = _uncited(body)
            continue
        heading = None
        points.append(Point(column, topic, _cell_text(_cites_last(body))))
    _heading(points, column, topic, heading)
    return [_cited(p, page) for p in points if p.text]


def _cited(point: Point, page: int | None) -> Point:
    if page is None or _CITE.search(point.text):
        return point
    text = point.text
    stop = text[-1] if text.endswith((".", "!", "?")) else ""
    return replace(point, text=f"{text.removesuffix(stop)} [{page}]{stop}")


def _heading(points: list[Point], column: int, topic: str | None, heading: str | None) -> None:
    """A heading with no point under it was a point: keep it as one."""
    if heading is not None:
        points.append(Point(column, topic, _cell_text(heading)))


def _is_topic(head: str) -> bool:
    return 0 < len(head.split()) <= TOPIC_WORDS and "[" not in head


def _is_heading(line: str) -> bool:
    return len(line.split()) <= TOPIC_WORDS + 1 and not line.endswith((".", "!", "?", "]"))


def _uncited(text: str) -> str:
    return _CITE.sub("", text).strip()


def _cites_last(text: str) -> str:
    """ "[2] Meet needs no install." as "Meet needs no install [2]."."""
    found = _LEADING_CITES.match(text)
    if found is None:
        return text
    cites, rest = found.group(1).replace(" ", ""), found.group(2).strip()
    if rest.endswith((".", "!", "?")):
        return f"{rest[:-1]} {cites}{rest[-1]}"
    return f"{rest} {cites}"


def comparison_table(points: Sequence[Point], headers: Sequence[str]) -> Table:
    """The table of ``points``, a column per ``headers``: by topic when documents share them."""
    rows = _by_topic(points, len(headers))
    shared = sum(sum(bool(cell) for cell in row.cells) > 1 for row in rows)
    if rows and shared * 2 >= len(rows):
        return _draw([reading_prompts.COMPARE_HEADER, *headers], rows)
    by_document = _by_document(points, headers)
    return _draw(
        [reading_prompts.COMPARE_DOCUMENT_HEADER, reading_prompts.COMPARE_POINTS_HEADER],
        by_document,
    )


def _by_topic(points: Sequence[Point], columns: int) -> list[Row]:
    """Rows by topic, in the order topics first appear; the same point only once."""
    rows: list[Row] = []
    for point in points:
        key = _key(point.topic or reading_prompts.COMPARE_OTHER)
        row = next((r for r in rows if _same_topic(r.key, key)), None)
        if row is None:
            if len(rows) == MAX_ROWS:
                continue
            row = Row(
                point.topic or reading_prompts.COMPARE_OTHER, key, [[] for _ in range(columns)]
            )
            rows.append(row)
        _add(row.cells[point.column], point)
    return _distinct(rows)


def _draw(head: Sequence[str], rows: Sequence[Row]) -> Table:
    out = "| " + " | ".join(_cell_text(h) for h in head) + " |\n"
    out += "|" + "---|" * len(head) + "\n"
    placed: list[Placed] = []
    for row in rows:
        out += "| " + _cell_text(row.label) + " |"
        for cell in row.cells:
            out += " "
            if not cell:
                out += reading_prompts.COMPARE_EMPTY_CELL
            for index, point in enumerate(cell):
                if len(cell) > 1:
                    out += "• " if index == 0 else " • "
                placed.append(Placed(point, len(out), len(out) + len(point.text)))
                out += point.text
            out += " |"
        out += "\n"
    return Table(out.rstrip("\n"), tuple(placed))


def _by_document(points: Sequence[Point], headers: Sequence[str]) -> list[Row]:
    """A row per document, its points in a cell, each led by its topic."""
    rows = [Row(header, frozenset(), [[]]) for header in headers]
    for point in points:
        text = f"{point.topic}: {point.text}" if point.topic else point.text
        _add(rows[point.column].cells[0], Point(point.column, point.topic, text), MAX_POINTS * 2)
    return rows


def _add(cell: list[Point], point: Point, limit: int = MAX_POINTS) -> None:
    said = {_norm(p.text) for p in cell}
    if len(cell) < limit and _norm(point.text) not in said:
        cell.append(point)


def _distinct(rows: list[Row]) -> list[Row]:
    """Rows whose cells all say what an earlier row says are dropped."""
    out: list[Row] = []
    seen: set[tuple[tuple[str, ...], ...]] = set()
    for row in rows:
        shape = tuple(tuple(_norm(p.text) for p in cell) for cell in row.cells)
        if shape not in seen:
            seen.add(shape)
            out.append(row)
    return out


def _key(topic: str) -> frozenset[str]:
    words = [w.lower() for w in _WORD.findall(topic)]
    kept = [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _SMALL]
    return frozenset(kept or words)


def _same_topic(a: frozenset[str], b: frozenset[str]) -> bool:
    """The same words, or one's all in the other; "Sick leave" and "Annual leave" stay apart."""
    return bool(a and b) and (a <= b or b <= a)


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _cell_text(text: str) -> str:
    """One line that can't break a table (no pipes or breaks, not too long); a copied link keeps its
    words, so a citation can't land in its address."""
    flat = " ".join(_LINK.sub(r"\1", text).replace("|", "/").split())
    if len(flat) > MAX_POINT_CHARS:
        flat = flat[: MAX_POINT_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return flat


def respliced(table: Table, texts: Sequence[str]) -> Table:
    """``table`` with each placed point's text replaced by the checked ``texts``, in order."""
    out: list[str] = []
    placed: list[Placed] = []
    at = 0
    for old, text in zip(table.placed, texts, strict=True):
        out.append(table.text[at : old.start])
        start = sum(map(len, out))
        out.append(text)
        point = Point(old.point.column, old.point.topic, text)
        placed.append(Placed(point, start, start + len(text)))
        at = old.end
    out.append(table.text[at:])
    return Table("".join(out), tuple(placed))
