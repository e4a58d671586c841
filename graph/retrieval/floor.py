"""The relevance floor: whether anything found is about the question at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.retrieval.scored import Candidate

CALIBRATED_RELEVANCE = 0.357
"""The lowest per-kind 2nd percentile of ``relevance`` over answerable tuning questions: SQuAD-style
0.493, paraphrased handbook 0.357 (``bench/retrieval_eval.py``). A bar fitted to the easier kind
(0.45) refused one paraphrase in ten; this one refuses no held-out answerable question. Measured
with all-MiniLM-L6-v2: another model needs its own bar."""


def relevance(candidates: Sequence[Candidate]) -> float:
    """How much the best evidence is about the question (0..1): best cosine or coverage."""
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
