"""Gathering candidates: the dense and keyword pools, with each scored by both searches."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from graph.retrieval.ports import DenseIndex, KeywordSearch
from graph.retrieval.scored import Candidate, Key
from ingest.document_parts import Chunk
from ingest.index.keyword.scores import KeywordHit, KeywordScores


@dataclass(frozen=True)
class KeywordSide:
    """The keyword search's part: needing no query vector, it runs while the query is embedded."""

    scores: KeywordScores
    top: dict[Key, KeywordHit]
    wanted: list[Key]
    """The keyword top, then the extra keys: chunks the dense search may miss, whose cosine comes
    from their stored vectors."""
    stored: Mapping[Key, Sequence[float]]


def keyword_side(
    query: str,
    dense: DenseIndex,
    keyword: KeywordSearch,
    pool: int,
    doc_ids: Collection[str] | None = None,
    extra: Sequence[Key] = (),
) -> KeywordSide:
    """The keyword top ``pool`` (plus ``extra`` keys) with their stored vectors, in one read; some
    are read for nothing, but off the turn's path, beside the query's embedding."""
    scores = keyword.search(query, doc_ids)
    top = {(h.doc_id, h.index): h for h in scores.top(pool)}
    wanted = list(dict.fromkeys([*top, *extra]))
    return KeywordSide(scores, top, wanted, dense.vectors(wanted) if wanted else {})


def combine(
    vector: Sequence[float], nearest: Sequence[tuple[Key, float]], side: KeywordSide
) -> list[Candidate]:
    """The union of the dense ``nearest`` keys and the keyword side, each with both scores; no text
    is read here (see ``load``)."""
    found: dict[Key, Candidate] = {}
    for rank, (key, score) in enumerate(nearest, start=1):
        found[key] = Candidate(key, dense=score, dense_rank=rank)
    # Cosine from the stored vectors: the store's own score, without another search.
    keys = [k for k in side.wanted if k not in found and k in side.stored]
    if keys:
        matrix = np.asarray([side.stored[k] for k in keys], dtype=np.float32)
        cosines = matrix @ np.asarray(vector, dtype=np.float32)
        for key, cosine in zip(keys, cosines.tolist(), strict=True):
            found[key] = Candidate(key, dense=cosine)
    lookup = side.scores.lookup([k for k in found if k not in side.top])
    for key, candidate in found.items():
        scored = side.top.get(key) or lookup.get(key)
        if scored is not None:
            candidate.bm25 = scored.score
            candidate.bm25_rank = scored.rank
            candidate.coverage = scored.coverage
    return list(found.values())


def load(
    dense: DenseIndex, candidates: Sequence[Candidate], also: Sequence[Key] = ()
) -> dict[Key, Chunk]:
    """Read the missing texts of ``candidates`` and ``also`` in one read; gone ones are absent."""
    wanted = [c.key for c in candidates if c.chunk is None] + list(also)
    chunks = {(c.doc_id, c.index): c for c in dense.get_chunks(list(dict.fromkeys(wanted)))}
    for c in candidates:
        if c.chunk is None:
            c.chunk = chunks.get(c.key)
    return chunks
