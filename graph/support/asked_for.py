"""What a "which"/"what" question asks for, and whether an answer names it: "The dust falls into the
Atlantic Ocean [1]" is true and cited, but its span names the basin asked for (the Amazon) and the
answer does not. Also: an answer that gives the value said of the reference point ("the last game
prior to the NFC Championship") rather than of what came before it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.support.fact_index import Fact, holds
from graph.support.facts import GENERIC, sentence_facts
from graph.support.sentences import split_sentences
from graph.support.slots import context
from graph.support.verdicts import CHECKED, SentenceSupport
from graph.support.windows import plain
from graph.support.words import content_terms

_ASKS_FOR = re.compile(
    r"\b(?:which|what)\s+((?:[\w'’-]+\s+){0,3}?)"
    r"(?:is|was|are|were|do|does|did|has|have|had|can|could|will|would|should|may|might)\b",
    re.IGNORECASE,
)
_RELATIVE = re.compile(
    r"\b(?:prior\s+to|before|after|following|preceding)\s+(?:the\s+|a\s+|an\s+)?"
    r"((?:[\w'’-]+ ?){1,4})",
    re.IGNORECASE,
)
_SAYS_WHEN = re.compile(
    r"\b(?:prior|before|after|following|preceding|earlier|later|previous|next)\b", re.I
)
_KIND_OF = re.compile(r"\b(?:which|what)\s+(?:kind|kinds|type|types|sort|sorts)\s+of\s+(\w+)", re.I)
_NEXT_BEFORE = re.compile(r"([\w'’-]+) +$")
_NEXT_AFTER = re.compile(r" +([\w'’-]+)")
"""The word right next to a name, nothing but spaces between: not "century, Robert"."""
_POSSESSIVE = re.compile(r"(?<=\w)['’]s?\b")


def asked_for(question: str) -> set[str]:
    """The terms of what a "which"/"what" question asks for ("basin" in "Which basin…"); empty when
    it asks for no such thing ("What is...")."""
    kind = _KIND_OF.search(question)
    if kind is not None:
        return set(content_terms(kind.group(1)))
    match = _ASKS_FOR.search(question)
    if match is None:
        return set()
    # "What country's schools...": the country is asked for, not the schools.
    phrase = _POSSESSIVE.split(match.group(1))[0]
    return set(content_terms(phrase))


def names_another(question: Sequence[str], support: Sequence[SentenceSupport]) -> bool:
    """Whether the answer's spans name what the question asks for and the answer names none."""
    if not question:
        return False
    wanted = asked_for(question[0])
    asked = set(content_terms(question[0]))
    claims = [s for s in support if s.verdict in CHECKED]
    if not wanted or not claims:
        return False
    said = {t for s in claims for t in content_terms(plain(s.text))}
    named = [
        fact
        for s in claims
        if s.source is not None
        for sentence in _most_asked(s.source.text, asked)
        for fact in _called(sentence, wanted)
        if not set(fact.key.split()) <= asked
    ]
    return bool(named) and not any(holds(fact, (), said) for fact in named)


def _most_asked(span: str, asked: set[str]) -> list[str]:
    """The sentences of a span that say the most of the question."""
    sentences = [s.text for s in split_sentences(span)]
    counts = [len(asked & set(content_terms(s))) for s in sentences]
    return [s for s, n in zip(sentences, counts, strict=True) if n == max(counts, default=0)]


def _called(sentence: str, wanted: set[str]) -> list[Fact]:
    """The names in ``sentence`` that say what is wanted or stand next to a word that does ("Amazon"
    of "Amazon basin"); not a descriptor such as "Western"."""
    out = []
    for fact in sentence_facts(sentence):
        if fact.kind != "name" or all(w.lower() in GENERIC for w in fact.text.split()):
            continue
        inside = set(content_terms(fact.text))
        before = _NEXT_BEFORE.search(sentence, 0, fact.start)
        after = _NEXT_AFTER.match(sentence, fact.end)
        around = {t for m in (before, after) if m is not None for t in content_terms(m.group(1))}
        if (inside | around) & wanted:
            out.append(fact)
    return out


def gives_the_reference(question: Sequence[str], support: Sequence[SentenceSupport]) -> bool:
    """Whether the question asks for something before or after another thing and the answer, saying
    nothing of before or after, gives a number next to that other thing's words."""
    relative = _RELATIVE.search(question[0]) if question else None
    if relative is None:
        return False
    other = set(content_terms(relative.group(1)))
    for claim in support:
        text = plain(claim.text)
        if claim.verdict not in CHECKED or _SAYS_WHEN.search(text):
            continue
        values = [f for f in sentence_facts(text) if f.kind in ("number", "date")]
        for fact in values:
            bounds = [(f.start, f.end) for f in values if f is not fact]
            near = context(text, fact.start, fact.end, bounds)
            if other & set(near.before + near.after):
                return True
    return False
