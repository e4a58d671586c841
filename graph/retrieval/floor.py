"""The relevance floor: whether anything found is about the question at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.retrieval.scored import Candidate

CALIBRATED_RELEVANCE = 0.357
"""The lowest, over the kinds of answerable tuning questions, of each kind's 2nd percentile
of ``relevance``: SQuAD-style questions 0.493, paraphrased handbook questions 0.357
(``bench/retrieval_eval.py`` prints them again). Paraphrases share few words with their
page and sit lower, and a bar fitted to the easier kind (0.45) refused one in ten of them;
at this bar no held-out answerable question is refused, and the unanswerable questions
refused are those nothing in the library is near (5 of the 32 written to sit close to it).
Measured with all-MiniLM-L6-v2; another embedding model has another cosine scale and would
need its own bar."""


def relevance(candidates: Sequence[Candidate]) -> float:
    """How much the best evidence found is about the question, 0..1: the higher of the best
    cosine (close in meaning) and the best coverage (holds the query's rare terms)."""
    best_dense = max((c.dense for c in candidates if c.dense is not None), default=0.0)
    best_coverage = max((c.coverage for c in candidates), default=0.0)
    return max(best_dense, best_coverage)


@dataclass(frozen=True)
class Floor:
    """Below ``relevance`` nothing found answers the question."""

    relevance: float = CALIBRATED_RELEVANCE

    def passes(self, candidates: Sequence[Candidate]) -> bool:
        """True when the candidates are relevant enough to show."""
        return relevance(candidates) >= self.relevance
