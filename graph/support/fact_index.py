"""A checkable fact as a text writes it, and what one passage can vouch for."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

FactKind = Literal["number", "date", "code", "name"]

ACRONYM_PREFIX = "acr:"
_ACRONYM = re.compile(r"[A-Z]{2,6}")


@dataclass(frozen=True)
class Fact:
    """A number, date, code or name as written in a text, with its normalised key."""

    kind: FactKind
    text: str
    start: int
    end: int
    key: str
    """Numbers ``num:1500000``, ``num:15%``; dates ``date:2021-03-03``, ``date:--03``;
    codes ``code:b52``; names the stems of their distinctive words, space-separated."""


@dataclass
class FactIndex:
    """What one passage can vouch for: its fact keys and the stems of all its words."""

    text: str = ""
    """The passage, citation marks blanked: facts' offsets point into it."""
    keys: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    facts: list[Fact] = field(default_factory=list)
    """Its own facts in reading order, names included, for saying what it has instead."""
    spans: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)
    """Where each key is: (start, end, every key the text there can match)."""

    def has(self, fact: Fact) -> bool:
        """Whether the passage states ``fact`` (a name: its distinctive words, in any case)."""
        return holds(fact, self.keys, self.words)

    def keys_between(self, start: int, end: int) -> set[str]:
        """The keys of the facts written within ``text[start:end]``."""
        return set().union(*(found for s, e, found in self.spans if start <= s and e <= end))


def holds(fact: Fact, keys: Collection[str], words: Collection[str]) -> bool:
    """Whether a text with these keys and words states ``fact``; a name needs at least half its
    final words: "Tesla" names "Nikola Tesla", "Black's Law" is not "Black's Air Force"."""
    if fact.kind != "name":
        return fact.key in keys
    if _ACRONYM.fullmatch(fact.text) and f"{ACRONYM_PREFIX}{fact.text.lower()}" in words:
        return True  # "AAA" for "American Automobile Association"
    parts = fact.key.split()
    ending = 0
    while ending < len(parts) and parts[-1 - ending] in words:
        ending += 1
    return 2 * ending >= len(parts)


def free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``text[start:end]`` overlaps none of the facts found so far (``taken``)."""
    return all(end <= s or start >= e for s, e in taken)
