"""Which sentences of a text a check reads and judges, and the result for one it does not."""

from __future__ import annotations

import re

from graph.support.sentences import Sentence
from graph.support.verdicts import SentenceSupport, Verdict
from graph.support.windows import plain
from graph.support.words import checkable_terms

_ANY_WORD = re.compile(r"\w")


def is_said(sentence: Sentence) -> bool:
    """Whether a sentence is said: not a heading, a lead-in ending in ":" or a rule."""
    text = sentence.text.rstrip("*_ ")
    return not sentence.heading and not text.endswith(":") and bool(_ANY_WORD.search(text))


def is_claim(sentence: Sentence) -> bool:
    """Whether a sentence is said and holds a content word that is not small talk ("Thanks!")."""
    return is_said(sentence) and bool(checkable_terms(plain(sentence.text.rstrip("*_ "))))


def not_judged(sentence: Sentence, verdict: Verdict) -> SentenceSupport:
    """A sentence with nothing to check (``none``) or left unchecked (``unchecked``)."""
    return SentenceSupport(sentence.text, sentence.start, sentence.end, verdict, 0.0)
