"""Support: checks, after the answer and without a model call, that each sentence says
what a given passage says, and rewrites the answer's citations to match.

    check = SupportCheck(passages, embedder)   # one per answer
    check.prepare()                            # while the model writes (optional)
    support = check.check(answer)              # one SentenceSupport per claim
    cited = correct_citations(answer, support, [p.n for p in passages])

``verify(text, passages, embedder)`` does the first three in one call, for any text;
``source_passages(state["sources"], state["passages"])`` makes a turn's passages.
"""

from graph.support.check import SupportBars, SupportCheck, is_claim, verify
from graph.support.cite import CitedAnswer, Mark, citation_marks, correct_citations
from graph.support.sentences import Sentence, split_sentences
from graph.support.types import (
    SentenceSupport,
    SourcePassage,
    SupportSpan,
    Verdict,
    source_passages,
)

__all__ = [
    "CitedAnswer",
    "Mark",
    "SentenceSupport",
    "Sentence",
    "SourcePassage",
    "SupportBars",
    "SupportCheck",
    "SupportSpan",
    "Verdict",
    "citation_marks",
    "correct_citations",
    "is_claim",
    "source_passages",
    "split_sentences",
    "verify",
]
