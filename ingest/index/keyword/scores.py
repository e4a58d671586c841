"""One query's BM25 scores over a snapshot of the keyword index: its top, and any chunk's."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ingest.index.keyword.segments import Segment


@dataclass(frozen=True)
class KeywordHit:
    """A chunk's BM25 score and 1-based rank for one query (rank None: no term matched)."""

    doc_id: str
    index: int
    score: float
    rank: int | None
    coverage: float
    """Share of the query's idf mass the chunk contains, 0..1 (unknown terms count too)."""


class KeywordScores:
    """Scores of every row of the segments a search saw, laid end to end."""

    def __init__(
        self,
        segments: Sequence[Segment],
        lives: Sequence[npt.NDArray[np.bool_]],
        scores: npt.NDArray[np.float32],
        matched: npt.NDArray[np.float32],
        total_idf: float,
    ) -> None:
        self._segments = list(segments)
        self._lives = list(lives)
        self._scores = scores
        self._matched = matched
        self._offsets = np.cumsum([0] + [s.rows for s in segments])
        self._total_idf = total_idf

    def _hits(self, rows: npt.NDArray[np.int64], ranks: Sequence[int | None]) -> list[KeywordHit]:
        """The hits of global ``rows``, found without a Python loop over the index."""
        if not len(rows):
            return []
        part = np.searchsorted(self._offsets, rows, side="right") - 1
        local = rows - self._offsets[part]
        coverage = (
            np.minimum(1.0, self._matched[rows] / self._total_idf)
            if self._total_idf
            else np.zeros(len(rows))
        )
        out = []
        for i, row in enumerate(rows.tolist()):
            segment = self._segments[int(part[i])]
            at = int(local[i])
            out.append(
                KeywordHit(
                    segment.doc_ids[int(segment.row_doc[at])],
                    int(segment.chunk_index[at]),
                    float(self._scores[row]),
                    ranks[i],
                    float(coverage[i]),
                )
            )
        return out

    def top(self, k: int) -> list[KeywordHit]:
        """The ``k`` best chunks with a score above zero, best first."""
        scores = self._scores
        if k <= 0 or not len(scores):
            return []
        k = min(k, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        best = best[scores[best] > 0]
        return self._hits(best.astype(np.int64), list(range(1, len(best) + 1)))

    def lookup(self, keys: Collection[tuple[str, int]]) -> dict[tuple[str, int], KeywordHit]:
        """Score and rank of particular chunks (doc id, chunk index), e.g. dense-only finds."""
        found: list[tuple[tuple[str, int], int]] = []
        for doc_id, index in set(keys):
            for part, segment in enumerate(self._segments):
                span = segment.doc_range(doc_id)
                if span is None or not self._lives[part][span[0]]:
                    continue  # a dead copy: the live one is in another segment
                rows = np.nonzero(segment.chunk_index[span[0] : span[1]] == index)[0]
                if len(rows):
                    row = int(self._offsets[part]) + span[0] + int(rows[0])
                    found.append(((doc_id, index), row))
                break
        if not found:
            return {}
        rows = np.asarray([row for _, row in found], dtype=np.int64)
        return {
            key: hit
            for (key, _), hit in zip(found, self._hits(rows, self._ranks(rows)), strict=True)
        }

    def _ranks(self, rows: npt.NDArray[np.int64]) -> list[int | None]:
        """1 + how many rows score above each of ``rows`` (None for a score of zero)."""
        wanted = self._scores[rows]
        positive = wanted[wanted > 0]
        if not len(positive):
            return [None] * len(rows)
        # Only rows above the lowest wanted score can outrank any: sort just those.
        above = np.sort(self._scores[self._scores > positive.min()])
        higher = len(above) - np.searchsorted(above, wanted, side="right")
        return [int(h) + 1 if s > 0 else None for h, s in zip(higher, wanted, strict=True)]
