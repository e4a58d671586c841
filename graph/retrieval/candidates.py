"""Gathering candidates: the dense and keyword pools, with each scored by both searches."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from graph.retrieval.ports import DenseIndex, KeywordSearch
from graph.retrieval.types import Candidate, Key


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
    scores: a chunk only one search found still gets its exact score from the other."""
    found: dict[Key, Candidate] = {}
    for rank, hit in enumerate(dense.query_vector(vector, pool, doc_ids), start=1):
        key = (hit.chunk.doc_id, hit.chunk.index)
        found[key] = Candidate(hit.chunk, dense=hit.score, dense_rank=rank)
    scores = keyword.search(query, doc_ids)
    keyword_top = {(h.doc_id, h.index): h for h in scores.top(pool)}
    missing = [k for k in list(keyword_top) + list(extra) if k not in found]
    if missing:
        q = np.asarray(vector, dtype=np.float32)
        for chunk, vec in dense.get_chunks(list(dict.fromkeys(missing)), vectors=True):
            cosine = float(np.dot(q, np.asarray(vec, dtype=np.float32))) if vec else None
            found[(chunk.doc_id, chunk.index)] = Candidate(chunk, dense=cosine)
    lookup = scores.lookup([k for k in found if k not in keyword_top])
    for key, candidate in found.items():
        scored = keyword_top.get(key) or lookup.get(key)
        if scored is not None:
            candidate.bm25 = scored.score
            candidate.bm25_rank = scored.rank
            candidate.coverage = scored.coverage
    return list(found.values())
