"""Rerankers behind the ``Reranker`` protocol.

For now only ``PassThroughReranker``, which keeps the retriever's order. FlashRank comes
later with the full retriever.
"""

from __future__ import annotations

from collections.abc import Sequence


class PassThroughReranker:
    """``Reranker`` that keeps the input order: scores fall from 1.0 but stay above 0.99."""

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, strictly descending, so sorting by score changes nothing."""
        count = len(passages)
        # Stay near 1.0 so that a relevance threshold downstream drops nothing.
        return [1.0 - index / (count * 100) for index in range(count)]
