"""Which sources an answer cites, and in what order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from graph.state import Source

# [1], [2][3], [1, 2], [1-3], [1–3]; not [a] or [2024 report].
_CITATION = re.compile(r"\[(\d{1,3}(?:\s*(?:,|;|-|–|and)\s*\d{1,3})*)\]")
_RANGE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")


def has_words(answer: str) -> bool:
    """Whether the answer says anything beyond the numbers of its sources."""
    return any(char.isalnum() for char in _CITATION.sub("", answer))


def cited_numbers(answer: str) -> list[int]:
    """Source numbers in the order the answer first cites them."""
    seen: dict[int, None] = {}
    for match in _CITATION.finditer(answer):
        group = match.group(1)
        for low, high in _RANGE.findall(group):
            first, last = int(low), int(high)
            if 0 < last - first < 50:
                for n in range(first, last + 1):
                    seen.setdefault(n, None)
        for number in re.findall(r"\d+", _RANGE.sub(lambda m: m.group(1), group)):
            seen.setdefault(int(number), None)
    return list(seen)


def order_by_citation(sources: Sequence[Source], answer: str) -> list[Source]:
    """Cited sources first, in citation order, then the rest, each marked ``cited``."""
    by_number = {source["n"]: source for source in sources}
    order = [n for n in cited_numbers(answer) if n in by_number]
    cited = [cast(Source, {**by_number[n], "cited": True}) for n in order]
    rest = [cast(Source, {**s, "cited": False}) for s in sources if s["n"] not in order]
    return cited + rest
