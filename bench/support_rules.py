"""Paraphrases by rule, for the support dev set: what a model does to a sentence it copies.

Each rule keeps the meaning and every number, date and name: passive to active voice,
an opening or closing phrase moved, a parenthesis or a clause between commas dropped,
and words replaced from a small synonym table.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

PARTICIPLES = {
    "built": "built",
    "written": "wrote",
    "made": "made",
    "won": "won",
    "led": "led",
    "held": "held",
    "taken": "took",
    "given": "gave",
    "begun": "began",
    "sold": "sold",
    "bought": "bought",
    "drawn": "drew",
    "known": "knew",
    "seen": "saw",
    "chosen": "chose",
    "beaten": "beat",
    "brought": "brought",
    "fought": "fought",
    "taught": "taught",
    "shown": "showed",
}
SYNONYMS = {
    "began": "started",
    "begin": "start",
    "started": "began",
    "large": "big",
    "largest": "biggest",
    "important": "significant",
    "significant": "considerable",
    "approximately": "about",
    "purchased": "bought",
    "bought": "purchased",
    "built": "constructed",
    "constructed": "built",
    "created": "made",
    "received": "got",
    "several": "a number of",
    "many": "numerous",
    "major": "main",
    "located": "situated",
    "often": "frequently",
    "frequently": "often",
    "usually": "typically",
    "typically": "usually",
    "attempted": "tried",
    "tried": "attempted",
    "allowed": "permitted",
    "permitted": "allowed",
    "required": "needed",
    "needed": "required",
    "increased": "grew",
    "decreased": "fell",
    "reduced": "cut",
    "established": "set up",
    "famous": "well-known",
    "called": "named",
    "named": "called",
    "area": "region",
    "region": "area",
    "ended": "finished",
    "completed": "finished",
    "primary": "main",
    "difficult": "hard",
    "rapidly": "quickly",
    "quickly": "rapidly",
    "despite": "in spite of",
    "because": "since",
    "although": "though",
    "almost": "nearly",
    "nearly": "almost",
    "mostly": "largely",
    "largely": "mostly",
    "helped": "assisted",
    "used": "employed",
    "uses": "employs",
    "using": "employing",
    "modern": "contemporary",
    "ancient": "old",
    "huge": "enormous",
    "enormous": "huge",
    "however": "yet",
    "produced": "made",
    "considered": "regarded",
    "described": "portrayed",
    "include": "comprise",
    "includes": "comprises",
    "included": "comprised",
    "consists": "is made up",
    "remains": "stays",
    "became": "turned into",
    "showed": "demonstrated",
    "main": "chief",
    "small": "little",
    "big": "large",
    "believed": "thought",
    "particularly": "especially",
    "especially": "particularly",
}
_PASSIVE = re.compile(
    r"^(?P<x>[A-Z][^,]*?) (?:was|were) (?P<verb>[a-z]+ed|"
    + "|".join(PARTICIPLES)
    + r") (?P<mid>(?:in|on|during) [^,]+? )?by (?P<y>(?:the )?[A-Z][\w.'-]*"
    r"(?: (?:[A-Z][\w.'-]*|of|de|the))*)(?P<rest>[^A-Za-z].*)$"
)
_OPENING = re.compile(
    r"^(?P<prep>In|During|By|After|Before|Since|On|At|From|Following) (?P<phrase>[^,]{3,40}), "
    r"(?P<rest>.+?)(?P<stop>[.!?])$"
)
_CLOSING = re.compile(
    r"^(?P<rest>[A-Z].+?) (?P<prep>in|during|by) (?P<phrase>(?:the )?(?:\d{4}s?|"
    r"(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December) \d{4}|the \w+ century))(?P<stop>[.!?])$"
)
_PARENTHESIS = re.compile(r" \([^()]{1,120}\)")
_CLAUSE = re.compile(
    r", (?:which|who|whose|where) [^,;]{3,120},(?= (?:is|was|were|are|has|had|have|became|"
    r"remains|remained|lies|lay|runs|ran) )"
)
"""A clause between the subject and its verb: "The city, which lies on X, is ..." """
_NOT_OPENING = frozenset("which who whose where when while during and but or however".split())

_SEPARATOR = re.compile(r"(?:[,;:]|\s[–—])\s")
"""Where a clause ends: a comma, a semicolon, a colon or a dash, then a space."""

_SUBORDINATE = frozenset(
    "in when where while if as although because since after before which who whose that "
    "including such".split()
)
"""A clause opening so leans on the rest of its sentence: no answer says it alone."""

Rule = Callable[[str], str | None]


def _lower_start(text: str) -> str:
    return "the" + text[3:] if text.startswith("The ") else text


def _upper_start(text: str) -> str:
    return text[0].upper() + text[1:]


def passive_to_active(sentence: str) -> str | None:
    """ "X was founded in 1850 by Y." → "Y founded X in 1850." """
    match = _PASSIVE.match(sentence)
    if not match:
        return None
    verb = PARTICIPLES.get(match["verb"], match["verb"])
    mid = f" {match['mid'].strip()}" if match["mid"] else ""
    return f"{_upper_start(match['y'])} {verb} {_lower_start(match['x'])}{mid}{match['rest']}"


def move_opening(sentence: str) -> str | None:
    """ "In 1850, X did Y." → "X did Y in 1850." """
    match = _OPENING.match(sentence)
    if not match or match["rest"].split()[0].lower() in _NOT_OPENING:
        return None
    rest = _upper_start(match["rest"])
    return f"{rest} {match['prep'].lower()} {match['phrase']}{match['stop']}"


def move_closing(sentence: str) -> str | None:
    """ "X did Y in 1850." → "In 1850, X did Y." """
    match = _CLOSING.match(sentence)
    if not match or "," in match["rest"][-3:]:
        return None
    rest = _lower_start(match["rest"])
    return f"{_upper_start(match['prep'])} {match['phrase']}, {rest}{match['stop']}"


def drop_parenthesis(sentence: str) -> str | None:
    out = _PARENTHESIS.sub("", sentence, count=1)
    return out if out != sentence else None


def drop_clause(sentence: str) -> str | None:
    out = _CLAUSE.sub("", sentence, count=1)
    return out if out != sentence else None


STRUCTURE: tuple[tuple[str, Rule], ...] = (
    ("passive_to_active", passive_to_active),
    ("move_opening", move_opening),
    ("move_closing", move_closing),
    ("drop_parenthesis", drop_parenthesis),
    ("drop_clause", drop_clause),
)


def synonyms(sentence: str, rng: random.Random, most: int = 2) -> tuple[str, int]:
    """Up to ``most`` words replaced from the table; the count replaced."""
    words = [m for m in re.finditer(r"[A-Za-z]+", sentence) if m[0].lower() in SYNONYMS]
    picked = sorted(rng.sample(words, min(most, len(words))), key=lambda m: -m.start())
    for match in picked:
        new = SYNONYMS[match[0].lower()]
        if match[0][0].isupper():
            new = _upper_start(new)
        sentence = sentence[: match.start()] + new + sentence[match.end() :]
    return sentence, len(picked)


def trim_to_answer(sentence: str, answer: str) -> str | None:
    """Only the clause that holds the answer, as a short answer states it: "By the end of
    the embargo in March 1974, the price of oil had risen to nearly $12; US prices were
    higher." → "The price of oil had risen to nearly $12." """
    at = sentence.find(answer)
    if at < 0:
        return None
    bounds = [0] + [m.end() for m in _SEPARATOR.finditer(sentence)] + [len(sentence) + 2]
    for start, end in zip(bounds, bounds[1:], strict=False):
        if start <= at < end:
            clause = sentence[start:end].strip(" ,;:–—.")
            first, _, rest = clause.partition(" ")
            if first.lower() in ("and", "but", "while", "though", "whereas"):
                clause, first = rest, rest.partition(" ")[0]
            whole = clause.count("(") == clause.count(")") and clause.count('"') % 2 == 0
            opener = first.lower() not in _SUBORDINATE and not first.endswith("ed")
            if whole and opener and len(clause.split()) >= 5 and clause != sentence.rstrip("."):
                return _upper_start(clause) + "."
            return None
    return None


def paraphrase(
    sentence: str, rng: random.Random, *, rules: int = 2, words: int = 2
) -> tuple[str, list[str]]:
    """The sentence reworded by up to ``rules`` structural rules and ``words`` synonyms."""
    applied = []
    structure = list(STRUCTURE)
    rng.shuffle(structure)
    for name, rule in structure:
        out = rule(sentence)
        if out is not None:
            sentence = out
            applied.append(name)
        if len(applied) == rules:
            break
    sentence, replaced = synonyms(sentence, rng, words)
    if replaced:
        applied.append(f"synonyms:{replaced}")
    return sentence, applied
