"""A sentence that pairs the items of a passage's "respectively" the wrong way round: "four
expansion stages are known as triple expansion" has every word of "three or four stages… triple and
quadruple expansion engines respectively", so it scores high."""

from __future__ import annotations

import re

from graph.support.polarity import Flip
from graph.support.words import content_terms

_PAIR = re.compile(r"(?=\b([\w-]+),? (?:and|or) ([\w-]+)\b)", re.IGNORECASE)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)


def paired_wrongly(sentence: str, span: str) -> Flip | None:
    """The span's "respectively" item ``sentence`` pairs wrongly and the one paired there, or None;
    the lists are the clause's first "X and Y" and the last before "respectively"."""
    said = set(content_terms(sentence))
    for end in _RESPECTIVELY.finditer(span):
        start = max(span.rfind(".", 0, end.start()), span.rfind(";", 0, end.start())) + 1
        pairs = [m.groups() for m in _PAIR.finditer(span, start, end.start())]
        if len(pairs) < 2:
            continue
        words = [*pairs[0], *pairs[-1]]
        terms = [_term(w) for w in words]
        if None in terms or len(set(terms)) < 4:
            continue
        first, second = (terms[0], terms[1]), (terms[2], terms[3])
        for one, other, names in ((first, second, words[2:]), (second, first, words[:2])):
            for i in (0, 1):
                j = 1 - i
                if one[i] in said and other[j] in said and other[i] not in said:
                    return Flip(_as_written(names[j], sentence), names[i])
    return None


def _term(word: str) -> str | None:
    terms = content_terms(word)
    return terms[0] if len(terms) == 1 else None


def _as_written(word: str, sentence: str) -> str:
    """``word`` as ``sentence`` writes it ("Triple"), so a reader finds it there."""
    found = re.search(rf"\b{re.escape(word)}\b", sentence, re.IGNORECASE)
    return found.group(0) if found is not None else word
