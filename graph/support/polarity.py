"""A sentence that says the opposite of its span ("you can transfer it" where the passage says "you
cannot"): the words agree, so the score is high, but a reader must see it. Only a verb's negation
within ``REACH`` words counts; "no" and "without" are left alone ("had no fuel" is how a passage
says "ran out of fuel")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graph.support.words import content_terms

REACH = 3
"""Words from a negation to the word it turns around ("may not be used": three)."""
_NEGATION = re.compile(
    r"\b(?:not|never|cannot|can['’]t|won['’]t|\w+n['’]t)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_ANSWER_PARTICLE = re.compile(r"\s*[,.!;:]")
"""What follows a "not" that stands alone ("Why not?") rather than negating a word."""
_NEGATIVE_WORDS = re.compile(
    r"\b(?:forbid|forbidden|prohibit\w*|ban(?:ned)?|illegal|disallow\w*|prevent\w*|"
    r"restrict\w*|not|never|\w+n['’]t|cannot)\b",
    re.IGNORECASE,
)
"""A question that asks of a prohibition ("Is smoking forbidden?"): its yes is a "not"."""


@dataclass(frozen=True)
class Flip:
    """What the sentence says and what its span says instead ("can transfer", "cannot transfer")."""

    said: str
    instead: str


def flipped(sentence: str, span: str) -> Flip | None:
    """The first word both say, one negated and the other never, or None."""
    said_plain, said_negated = _uses(sentence)
    span_plain, span_negated = _uses(span)
    for term, (start, end) in said_plain.items():
        if term in span_negated and term not in span_plain and term not in said_negated:
            s, e = span_negated[term]
            return Flip(_phrase(sentence, start, end), span[s:e])
    for term, (start, end) in said_negated.items():
        if term in span_plain and term not in span_negated and term not in said_plain:
            s, e = span_plain[term]
            return Flip(sentence[start:end], _phrase(span, s, e))
    return None


_PARTICLE = re.compile(r"\W*(yes|no)\b\s*[,.!;:—–-]", re.IGNORECASE)


def answers_wrongly(question: Sequence[str], sentence: str, span: str) -> Flip | None:
    """A "Yes" or "No" opening ``sentence`` that its span contradicts ("Yes, you cannot transfer
    it"), or a "No" where the passage plainly says what was asked."""
    particle = _PARTICLE.match(sentence)
    if particle is None or not question or _NEGATIVE_WORDS.search(" ".join(question)):
        return None
    asked_plain, asked_negated = _uses(" ".join(question))
    span_plain, span_negated = _uses(span)
    said = particle.group(1)
    for term in asked_plain:
        if term in asked_negated:
            continue
        if not _is_verb_like(term, question):
            continue
        if said.lower() == "yes" and term in span_negated and term not in span_plain:
            s, e = span_negated[term]
            return Flip(said, f"no ({span[s:e]})")
        if said.lower() == "no" and term in span_plain and term not in span_negated:
            s, e = span_plain[term]
            return Flip(said, f"yes ({_phrase(span, s, e)})")
    return None


def _is_verb_like(term: str, question: Sequence[str]) -> bool:
    """Whether ``term`` is the first content word after a yes-or-no question's auxiliary."""
    for text in question:
        words = [w for w in _WORD.findall(text) if content_terms(w)]
        if words and content_terms(words[0])[0] == term:
            return True
    return False


def _uses(text: str) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Each content term said plainly and each said negated, with where."""
    plain: dict[str, tuple[int, int]] = {}
    negated: dict[str, tuple[int, int]] = {}
    negations = [m for m in _NEGATION.finditer(text) if not _ANSWER_PARTICLE.match(text, m.end())]
    for word in _WORD.finditer(text):
        terms = content_terms(word.group(0))
        if not terms or _NEGATION.fullmatch(word.group(0)):
            continue
        before = [m for m in negations if m.end() <= word.start()]
        negation = before[-1] if before else None
        if negation is not None and _within_reach(text[negation.end() : word.start()]):
            negated.setdefault(terms[0], (negation.start(), word.end()))
        else:
            plain.setdefault(terms[0], (word.start(), word.end()))
    return plain, negated


def _within_reach(between: str) -> bool:
    """Whether the words between a negation and a word carry nothing of their own ("not yet")."""
    words = _WORD.findall(between)
    return (
        len(words) < REACH
        and not any(content_terms(w) for w in words)
        and not re.search(r"[,.;:!?]", between)
    )


def _phrase(text: str, start: int, end: int) -> str:
    """A plain word with the little word before it ("can transfer", "is eligible")."""
    before = list(_WORD.finditer(text, 0, start))
    if (
        before
        and text[before[-1].end() : start].strip() == ""
        and not content_terms(before[-1].group(0))
    ):
        return text[before[-1].start() : end]
    return text[start:end]
