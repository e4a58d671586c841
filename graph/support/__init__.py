"""Support: checks, after the answer and without a model call, that each sentence says
what a given passage says."""

from graph.support.check import SupportBars, SupportCheck, is_claim, verify
from graph.support.sentences import Sentence, split_sentences
from graph.support.types import SentenceSupport, SourcePassage, SupportSpan, Verdict

__all__ = [
    "SentenceSupport",
    "Sentence",
    "SourcePassage",
    "SupportBars",
    "SupportCheck",
    "SupportSpan",
    "Verdict",
    "is_claim",
    "split_sentences",
    "verify",
]
