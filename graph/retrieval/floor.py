"""The relevance floor: whether anything found is about the question at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.retrieval.types import Candidate

CALIBRATED_RELEVANCE = 0.45
"""The 2nd percentile (0.452) of ``relevance`` over answerable tuning questions (300 SQuAD,
31 handbook paraphrases; ``bench/retrieval_eval.py`` prints it again). So about one
answerable question in fifty is wrongly told "not found": the price of refusing about half
of the unanswerable ones. Measured with all-MiniLM-L6-v2; another embedding model has
another cosine scale and would need its own bar."""


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
