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
    """The keyword search's part of the candidates: it needs no query vector, so it can
    run while the query is being embedded."""

    scores: KeywordScores
    top: dict[Key, KeywordHit]
    wanted: list[Key]
    """The keyword top and the extra keys, in that order: the chunks the dense search
    may not find, whose cosine then comes from their stored vectors."""
    stored: Mapping[Key, Sequence[float]]


def keyword_side(
    query: str,
    dense: DenseIndex,
    keyword: KeywordSearch,
    pool: int,
    doc_ids: Collection[str] | None = None,
    extra: Sequence[Key] = (),
) -> KeywordSide:
    """The keyword top ``pool`` (plus ``extra`` keys) with their stored vectors, read in
    one call (those the dense search also finds are read for nothing, but the read is
    off the turn's path: it overlaps the query's embedding)."""
    scores = keyword.search(query, doc_ids)
    top = {(h.doc_id, h.index): h for h in scores.top(pool)}
    wanted = list(dict.fromkeys([*top, *extra]))
    return KeywordSide(scores, top, wanted, dense.vectors(wanted) if wanted else {})


def combine(
    vector: Sequence[float], nearest: Sequence[tuple[Key, float]], side: KeywordSide
) -> list[Candidate]:
    """The union of the dense search's ``nearest`` keys and the keyword side, every one
    with both scores: a chunk only one search found still gets its exact score from the
    other. Only keys and scores: no text is read here (see ``load``)."""
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
    """Read the texts of ``candidates`` that lack them, and of the ``also`` keys, in one
    call to the store; returns every chunk read by key (a gone chunk is simply absent)."""
    wanted = [c.key for c in candidates if c.chunk is None] + list(also)
    chunks = {(c.doc_id, c.index): c for c in dense.get_chunks(list(dict.fromkeys(wanted)))}
    for c in candidates:
        if c.chunk is None:
            c.chunk = chunks.get(c.key)
    return chunks
