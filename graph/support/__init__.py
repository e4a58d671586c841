"""Support: checks without a model call that each sentence of an answer says what a given passage
says, and rewrites the answer's citations to match.

    check = SupportCheck(passages, embedder)   # one per answer
    check.prepare()                            # while the model writes (optional)
    support = check.check(answer)              # one SentenceSupport per claim
    cited = correct_citations(answer, support, {p.n: p.file for p in passages})
"""

from graph.support.check import SupportCheck, verify
from graph.support.cite import CitedAnswer, Mark, citation_marks, correct_citations
from graph.support.claims import is_claim
from graph.support.evidence import SupportBars
from graph.support.sentences import Sentence, split_sentences
from graph.support.verdicts import (
    CHECKED,
    SentenceSupport,
    SourcePassage,
    SupportSpan,
    Verdict,
    source_passages,
)

__all__ = [
    "CHECKED",
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
