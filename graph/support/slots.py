"""Where a number stands: a span states a sentence's number only next to what the sentence says
about it ("3%" of "The case fatality rate was 3%" is not stated by "…was 2%, and 3% of cases were
severe").

An item's context is its clause's content words nearby, weighed 1, 1/2, 1/3… by distance and bounded
by the next number of its kind. The number stands where one of its occurrences agrees with the
sentence at least ``1 / RIVAL_MARGIN`` as well as any rival (a number of its kind the sentence does
not say) does; when nothing agrees, it stands unless its words sit elsewhere in the occurrence's
sentence (a paraphrase shares no words; a number said of something else does).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from graph.support.fact_index import Fact, FactIndex
from graph.support.facts import index_passage
from graph.support.words import content_terms

CONTEXT_WORDS = 4
"""Content words on each side of an item that say what it is the number of."""
CONTEXT_CHARS = 100
RIVAL_MARGIN = 1.5
"""How much better a rival's context must agree to take the slot: a paraphrase moves words around,
so a near tie stays with the number the span has."""
_CLAUSE_END = re.compile(
    r";(?![ \t]*[^;:\n]{1,40}:[ \t])|[!?]|\.(?=\s)|\n[ \t]*\n"
    r"|\n(?=[ \t]*(?:[-*•|]|\d{1,3}[.)][ \t]|[^;:\n]{1,40}:[ \t]))"
    r"|,\s+(?:and|but|while|whereas|although|though|yet)\b",
    re.IGNORECASE,
)
"""What ends a clause: a sentence's stop, ";", a blank line, a list item or table row, a
spreadsheet's row ("City: Oslo; Population: 709000", whose ";" parts one row's cells), or
a comma and a conjunction ("2%, while 3% of cases…")."""


@dataclass(frozen=True)
class Placement:
    """Whether a span states a number where the sentence says it, and what it has there instead."""

    holds: bool
    instead: Fact | None = None


@dataclass(frozen=True)
class Context:
    """The words next to an item, nearest first on each side, and the text they are from."""

    before: list[str]
    after: list[str]
    start: int
    end: int

    @property
    def words(self) -> dict[str, float]:
        """Each word by its weight: 1, 1/2, 1/3… by its distance from the item."""
        weights: dict[str, float] = {}
        for side in (self.before, self.after):
            for rank, word in enumerate(side, start=1):
                weights[word] = max(weights.get(word, 0.0), 1 / rank)
        return weights

    def nearest(self) -> tuple[str | None, str | None]:
        """The words right before and after the item: a column's name, a unit ("euros")."""
        return (self.before[0] if self.before else None, self.after[0] if self.after else None)


def context(text: str, start: int, end: int, others: Collection[tuple[int, int]] = ()) -> Context:
    """The content words next to ``text[start:end]`` in its clause, bounded by ``others``."""
    low = max(0, start - CONTEXT_CHARS)
    high = min(len(text), end + CONTEXT_CHARS)
    for s, e in others:
        if e <= start:
            low = max(low, e)
        elif s >= end:
            high = min(high, s)
    low, high = _clause(text, start, end, low, high)
    before = content_terms(text[low:start])[::-1][:CONTEXT_WORDS]
    after = content_terms(text[end:high])[:CONTEXT_WORDS]
    return Context(before, after, low, high)


def _clause(text: str, start: int, end: int, low: int, high: int) -> tuple[int, int]:
    """``low`` and ``high`` moved in to the ends of the clause of ``text[start:end]``."""
    ends = list(_CLAUSE_END.finditer(text, low, start))
    if ends:
        low = ends[-1].end()
    stop = _CLAUSE_END.search(text, end, high)
    return low, stop.start() if stop else high


def agreement(one: Context, other: Context, leave: Collection[str] = ()) -> float:
    """How well two contexts agree: the products of shared words' weights, half across the item
    ("60,000 notes" vs "notes in 10,000"); words in ``leave`` not at all."""
    total = 0.0
    for mine, same, across in (
        (one.before, other.before, other.after),
        (one.after, other.after, other.before),
    ):
        for rank, word in enumerate(mine, start=1):
            if word in leave:
                continue
            if word in same:
                total += (1 / rank) / (same.index(word) + 1)
            elif word in across:
                total += 0.5 * (1 / rank) / (across.index(word) + 1)
    return total


def place(
    fact: Fact,
    said: str,
    said_facts: Sequence[Fact],
    index: FactIndex,
    pieces: Sequence[tuple[int, int]],
) -> Placement:
    """Whether ``pieces`` of a passage state ``fact`` of ``said`` next to what it says of it."""
    kind = _kind(fact.key)
    alike = [(f.start, f.end) for f in said_facts if f is not fact and _kind(f.key) == kind]
    said_context = context(said, fact.start, fact.end, alike)
    mine = said_context.words
    text = index.text
    items = [
        (s, e, k)
        for s, e, k in index.spans
        if any(a <= s and e <= b for a, b in pieces) and any(_kind(x) == kind for x in k)
    ]
    found = [(s, e) for s, e, k in items if fact.key in k]
    if not found:
        return Placement(False)
    if not mine:
        return Placement(True)  # nothing is said of the number but the number
    home = [(a, b) for a, b in pieces if any(a <= s < b for s, _ in found)]
    bounds = [(s, e) for s, e, _ in items]

    def near(start: int, end: int) -> Context:
        return context(text, start, end, [b for b in bounds if b != (start, end)])

    keys = index_passage(said).keys  # the coarser keys of its dates too
    other_kinds = {_kind(f.key) for f in said_facts if f is not fact} - {kind, "code"}

    def gap(one: tuple[int, int], other: tuple[int, int]) -> int:
        return max(other[0] - one[1], one[0] - other[1])

    def said_of_another(rival: Fact, region: Context) -> bool:
        """Whether the rival goes with another number: "2% in 2020" is no rival of "in 2021, 3%"."""
        mine = (rival.start, rival.end)
        return any(
            region.start <= s
            and e <= region.end
            and gap((s, e), mine) > 0
            and _kind(min(k)) in other_kinds
            and not k & keys
            and all(gap((s, e), mine) < gap((s, e), b) for b in bounds if gap(b, mine) > 0)
            for s, e, k in index.spans
        )

    rivals = [
        (f, region)
        for f in index.facts
        if f.kind in ("number", "date")
        and f.key not in keys
        and _kind(f.key) == kind
        and any(a <= f.start and f.end <= b for a, b in pieces)
        and not any(s < f.end and f.start < e for s, e in found)
        and not said_of_another(f, region := near(f.start, f.end))
    ]
    regions = [near(s, e) for s, e in found]
    # A word right next to every candidate tells none of them apart: a unit ("euros"
    # after each amount), a column's name ("Population: " before each row's value).
    nearest = [c.nearest() for c in regions + [r for _, r in rivals]]
    befores, afters = {b for b, _ in nearest}, {a for _, a in nearest}
    shared = {w for side in (befores, afters) if len(side) == 1 for w in side if w}
    leave = shared if rivals else set()
    own = max(agreement(said_context, c, leave) for c in regions)
    best = max(rivals, key=lambda pair: agreement(said_context, pair[1], leave), default=None)
    rival = agreement(said_context, best[1], leave) if best is not None else 0.0
    if best is not None and rival > 0 and rival > RIVAL_MARGIN * own:
        return Placement(False, best[0])
    if own > 0:
        return Placement(True)
    # Nothing agrees: a paraphrase ("In 1884, …" for "… in 1884"), unless the words said
    # of the number stand in another clause of its sentence, and none in its own.
    own_clause: set[str] = set()
    rest: set[str] = set()
    for s, e in found:
        a, b = next((a, b) for a, b in home if a <= s < b)
        low, high = _clause(text, s, e, a, b)
        own_clause |= set(content_terms(text[low:high]))
        rest |= set(content_terms(text[a:low] + " " + text[high:b]))
    said_of = set(mine)
    return Placement(bool(said_of & own_clause) or not said_of & rest)


def _kind(key: str) -> str:
    """What a number counts, roughly (share, year or date, decade, amount): like for like only."""
    if key.startswith("date:"):
        return "time"
    if not key.startswith("num:"):
        return "code"
    value = key.removeprefix("num:")
    if value.endswith("%"):
        return "share"
    if value.endswith("s"):
        return "decade"
    try:
        number = Decimal(value)
    except InvalidOperation:
        return "amount"
    if number == number.to_integral_value() and 1000 <= number <= 2100:
        return "time"
    return "amount"
