"""The relevance floor: whether anything found is about the question at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.retrieval.types import Candidate


@dataclass(frozen=True)
class Floor:
    """Below both bars nothing is relevant: the best chunk is neither close in meaning
    (cosine) nor holds enough of the query's rare terms (idf-weighted coverage)."""

    dense: float = 0.30
    coverage: float = 0.50

    def passes(self, candidates: Sequence[Candidate]) -> bool:
        """True when some candidate clears either bar."""
        best_dense = max((c.dense for c in candidates if c.dense is not None), default=0.0)
        best_coverage = max((c.coverage for c in candidates), default=0.0)
        return best_dense >= self.dense or best_coverage >= self.coverage
