"""Gathering candidates: the dense and keyword pools, with each scored by both searches."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from graph.retrieval.ports import DenseIndex, KeywordSearch
from graph.retrieval.types import Candidate, Key
from ingest.types import Chunk


def gather(
    query: str,
    vector: Sequence[float],
    dense: DenseIndex,
    keyword: KeywordSearch,
    pool: int,
    doc_ids: Collection[str] | None = None,
    extra: Sequence[Key] = (),
) -> list[Candidate]:
    """The union of both searches' top ``pool`` (plus ``extra`` keys), every one with both
    scores: a chunk only one search found still gets its exact score from the other.

    Only keys and scores: no text is read here (see ``load``).
    """
    found: dict[Key, Candidate] = {}
    for rank, (key, score) in enumerate(dense.nearest(vector, pool, doc_ids), start=1):
        found[key] = Candidate(key, dense=score, dense_rank=rank)
    scores = keyword.search(query, doc_ids)
    keyword_top = {(h.doc_id, h.index): h for h in scores.top(pool)}
    missing = [k for k in dict.fromkeys([*keyword_top, *extra]) if k not in found]
    if missing:
        # Cosine from the stored vectors: the store's own score, without another search.
        stored = dense.vectors(missing)
        if stored:
            keys = [k for k in missing if k in stored]
            matrix = np.asarray([stored[k] for k in keys], dtype=np.float32)
            cosines = matrix @ np.asarray(vector, dtype=np.float32)
            for key, cosine in zip(keys, cosines.tolist(), strict=True):
                found[key] = Candidate(key, dense=cosine)
    lookup = scores.lookup([k for k in found if k not in keyword_top])
    for key, candidate in found.items():
        scored = keyword_top.get(key) or lookup.get(key)
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
