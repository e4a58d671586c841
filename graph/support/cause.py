"""A sentence that gives a cause its span doesn't. A 1.5B model wrote "loss of directional control
due to the aircraft's substantial damage" over an NTSB report that says no such thing: every word is
in the passage, so the score is high. A named cause must stand with its effect in the span."""

from __future__ import annotations

import re

from graph.support.polarity import Flip
from graph.support.words import content_terms

_BECAUSE = re.compile(
    r"\b(?:due to|because of|because|caused by|as a result of|resulting from|owing to|"
    r"on account of|brought about by)\b",
    re.IGNORECASE,
)
_CAUSAL = re.compile(
    r"\b(?:due to|because(?: of)?|caused by|as a result of|result(?:ing|ed|s)? (?:in|from)|"
    r"owing to|led to|leading to|causing|caused)\b[^.;,]*",
    re.IGNORECASE,
)
"""A causal phrase of the span, to name what it says instead."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE_END = re.compile(r"[.;,!?]|\s(?:and|but|while|whereas|which)\s|\[\d")


def cause_not_stated(sentence: str, span: str) -> Flip | None:
    """The cause ``sentence`` gives when no sentence (or pair) of ``span`` ties it to its effect,
    with the span's own causal phrase as what it says instead; None otherwise."""
    connective = _BECAUSE.search(sentence)
    if connective is None:
        return None
    rest = sentence[connective.end() :]
    end = _CLAUSE_END.search(rest)
    cause = set(content_terms(rest[: end.start()] if end is not None else rest))
    effect = set(content_terms(sentence[: connective.start()]))
    if not cause or not effect:
        return None
    said = [set(content_terms(part)) for part in _SENTENCE_END.split(span)]
    joined = [*said, *(a | b for a, b in zip(said, said[1:], strict=False))]
    if any(terms & cause and terms & effect for terms in joined):
        return None
    own = _CAUSAL.search(span)
    phrase = (connective.group(0) + (rest[: end.start()] if end is not None else rest)).strip()
    return Flip(phrase, own.group(0).strip() if own is not None else "")
