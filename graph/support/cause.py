"""A sentence that gives a cause its span doesn't: "loss of control due to the damage".

The NTSB report says "the pilot's loss of directional control during landing resulting in
a ground loop", and elsewhere "Aircraft Damage: Substantial". A 1.5B model wrote "The
probable cause was the pilot's loss of directional control due to the aircraft's
substantial damage": every word is in the passage, so the score is high, but the cause is
the model's own, with effect and cause the wrong way round. A cause the sentence names
must stand in the span with what it caused, in one sentence or two in a row; when it
doesn't, the sentence is partly supported, with the cause named as what the passage
doesn't say.
"""

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
    """The cause ``sentence`` gives ("due to the aircraft's substantial damage") when no
    sentence of ``span`` (or two in a row) names it together with what it caused, with the
    span's own causal phrase, if any, as what it says instead; None when the span ties the
    two together or the sentence gives no cause."""
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
