"""Sentences the passages do not quite say, made by rule for the support dev set.

A swap replaces one number, year, month or name with another of the same kind taken from
another article (and found in none of the passages given). An article's sentences can
also be borrowed: another article's, the same one with this article's names and years
put in, or one from a part of this article that the passages do not include. Templates
put this article's names and years in relations the article never states.

Items are found by simple patterns of this module's own, not by the checker's
extractors, so the set does not only hold what the checker already knows.
"""

from __future__ import annotations

import random
import re
from typing import Any

from graph.support.sentences import split_sentences
from graph.support.words import STOP

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-2][0-9])\b")
_NUMBER = re.compile(r"(?<![\w.,$])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w]|[.,]\d)")
MONTHS = (
    "January February March April May June July August September October November December"
).split()
_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\b")
_NAME = re.compile(
    r"(?<=[a-z,;] )([A-Z][^\W\d_]{2,}(?: (?:of |de |von )?[A-Z][^\W\d_]+){0,2})(?![\w'-])"
)
_ADJECTIVE = re.compile(r"(?:an|ese|ish|ic)$")
"""Names ending so are often adjectives ("American", "British"): swapped only for another."""

TEMPLATES = (
    "{a} was founded by {b} in {y}.",
    "{a} signed a trade agreement with {b} in {y}.",
    "In {y}, {a} moved its headquarters to {b}.",
    "{a} was first described by {b} in a book published in {y}.",
    "{b} banned {a} after a public vote in {y}.",
    "{a} is named after {b}, a farmer who lived there before {y}.",
    "The population of {a} fell by half after {b} closed its last mine in {y}.",
    "{a} won a gold medal for {b} at the {y} Olympic Games.",
    "{b} sold {a} to a private investor for a record sum in {y}.",
    "A statue of {a} was unveiled in {b} in {y}.",
)


class Pools:
    """Numbers, years and names of each article, to swap in from elsewhere."""

    def __init__(self, by_article: dict[str, list[dict[str, Any]]]) -> None:
        self.years: dict[str, list[str]] = {}
        self.numbers: dict[str, list[str]] = {}
        self.names: dict[str, list[str]] = {}
        self.sentences: dict[str, list[str]] = {}
        self.located: dict[str, list[tuple[str, str]]] = {}
        """Each article's sentences with the text of the paragraph they are in."""
        for title, rows in by_article.items():
            text = "\n\n".join(r["text"] for r in rows)
            self.years[title] = sorted(set(_YEAR.findall(text)))
            self.numbers[title] = sorted(
                {n for n in _NUMBER.findall(text) if not _YEAR.fullmatch(n)}
            )
            found = [n for n in _NAME.findall(text) if _is_name(n)]
            # An entity is named at least twice in its article; a one-off capital is often not.
            self.names[title] = sorted({n for n in found if found.count(n) >= 2})
            self.located[title] = [
                (s.text, r["text"])
                for r in rows
                for s in split_sentences(r["text"])
                if 50 <= len(s.text) <= 250 and s.text[-1] == "."
            ]
            self.sentences[title] = [s for s, _ in self.located[title]]

    def elsewhere(self, pool: dict[str, list[str]], title: str) -> list[str]:
        return [x for other, items in pool.items() if other != title for x in items]


def _is_name(text: str) -> bool:
    first = text.split()[0]
    return first.lower() not in STOP and first not in MONTHS and not text.endswith("day")


def absent(value: str, passages: list[dict]) -> bool:
    plain = value.replace(",", "").lower()
    return all(plain not in p["text"].replace(",", "").lower() for p in passages)


def swap(
    sentence: str,
    title: str,
    passages: list,
    pools: Pools,
    rng: random.Random,
    kinds: tuple[str, ...],
) -> Any:
    """The sentence with one item of ``kinds`` replaced, as (text, kind, was, put in);
    None if nothing fits."""
    options: list[tuple[str, re.Match[str]]] = []
    options += [("year", m) for m in _YEAR.finditer(sentence)]
    options += [("number", m) for m in _NUMBER.finditer(sentence) if not _YEAR.fullmatch(m[0])]
    options += [("month", m) for m in _MONTH.finditer(sentence)]
    options += [("name", m) for m in _NAME.finditer(sentence) if _is_name(m[0])]
    options = [option for option in options if option[0] in kinds]
    rng.shuffle(options)
    for kind, match in options:
        original = match.group(0)
        if kind == "year":
            candidates = [
                y
                for y in pools.elsewhere(pools.years, title)
                if 0 < abs(int(y) - int(original)) <= 80
            ]
        elif kind == "number":
            candidates = [
                n
                for n in pools.elsewhere(pools.numbers, title)
                if len(n) == len(original) and n != original and ("." in n) == ("." in original)
            ]
        elif kind == "month":
            candidates = [m for m in MONTHS if m != original]
        else:
            words = len(original.split())
            adjective = bool(_ADJECTIVE.search(original))
            candidates = [
                n
                for n in pools.elsewhere(pools.names, title)
                if len(n.split()) == words and bool(_ADJECTIVE.search(n)) == adjective
            ]
        candidates = sorted({c for c in candidates if absent(c, passages)})
        if not candidates:
            continue
        new = rng.choice(candidates)
        text = sentence[: match.start()] + new + sentence[match.end() :]
        return text, kind, original, new
    return None


def names_replaced(
    title: str, pools: Pools, rng: random.Random, passages: list
) -> tuple[str, str] | None:
    """A sentence of another article wearing this article's names and years."""
    own_names = [n for n in pools.names[title] if not absent(n, passages)]
    own_years = [y for y in pools.years[title] if not absent(y, passages)]
    for _ in range(30):
        other = rng.choice(sorted(t for t in pools.sentences if t != title))
        sentence = rng.choice(pools.sentences[other])
        names = [m for m in _NAME.finditer(sentence) if _is_name(m[0])]
        if not names or len(own_names) < len(names):
            continue
        picked = rng.sample(own_names, len(names))
        out = sentence
        for match, name in sorted(zip(names, picked, strict=True), key=lambda x: -x[0].start()):
            out = out[: match.start()] + name + out[match.end() :]
        if own_years:
            out = _YEAR.sub(lambda _: rng.choice(own_years), out)
        return out, other
    return None


def template(title: str, pools: Pools, rng: random.Random, passages: list) -> str | None:
    names = [n for n in pools.names[title] if not absent(n, passages)]
    years = [y for y in pools.years[title] if not absent(y, passages)] or pools.years[title]
    if len(names) < 2 or not years:
        return None
    a, b = rng.sample(names, 2)
    return rng.choice(TEMPLATES).format(a=a, b=b, y=rng.choice(years))


def unseen(title: str, pools: Pools, rng: random.Random, passages: list) -> str | None:
    """A sentence of this article from a paragraph the passages do not include."""
    given = {p["text"] for p in passages}
    choices = [s for s, paragraph in pools.located[title] if paragraph not in given]
    return rng.choice(choices) if choices else None
