"""What a passage says in the place of a sentence's missing item: "12%", not "15%"."""

from __future__ import annotations

from collections.abc import Sequence

from graph.support.fact_index import Fact, FactIndex
from graph.support.windows import Window
from graph.support.words import content_terms

CONTEXT_WORDS = 3
"""Content words on each side of an item that say which slot it fills."""
_KINDS = {"number": ("number", "date"), "date": ("date", "number")}


def what_it_says(
    missing: Fact, said: str, facts: Sequence[Fact], passage: FactIndex, span: Window
) -> str | None:
    """The span's item of the lacking one's kind in the most similar context, else the passage's."""
    kinds = _KINDS.get(missing.kind, (missing.kind,))
    words = set(content_terms(said))
    keys = {f.key for f in facts}
    candidates = [
        f
        for f in passage.facts
        if f.kind in kinds and f.key not in keys and not _named_in(f, words)
    ]
    inside = [f for f in candidates if span.start <= f.start and f.end <= span.end]
    pool = inside or candidates
    if not pool:
        return None
    before, after = _context(said, missing.start, missing.end)
    text = passage.text

    def fit(fact: Fact) -> tuple[float, int, int]:
        near_before, near_after = _context(text, fact.start, fact.end)
        shared = _shared(before, near_before) + _shared(after, near_after)
        return shared, -kinds.index(fact.kind), -abs(fact.start - span.start)

    return max(pool, key=fit).text


def _named_in(fact: Fact, words: set[str]) -> bool:
    return fact.kind == "name" and any(part in words for part in fact.key.split())


def _context(text: str, start: int, end: int) -> tuple[dict[str, float], dict[str, float]]:
    """The content words next to an item, each weighted 1, 1/2, 1/3 by its distance."""
    before = content_terms(text[max(0, start - 80) : start])[::-1][:CONTEXT_WORDS]
    after = content_terms(text[end : end + 80])[:CONTEXT_WORDS]
    return _weighted(before), _weighted(after)


def _weighted(words: list[str]) -> dict[str, float]:
    weights: dict[str, float] = {}
    for rank, word in enumerate(words, start=1):
        weights.setdefault(word, 1 / rank)
    return weights


def _shared(one: dict[str, float], other: dict[str, float]) -> float:
    return sum(weight * other[word] for word, weight in one.items() if word in other)
