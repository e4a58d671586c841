"""The document prior: a candidate moves by how near the question its document's vector (title,
outline, first chunk) is, scaled by ``(1 - c)²`` (c: the best candidate's share of the question's
idf) so agreeing words keep their order, and by ``√min(1, SPAN / chunks)`` since the vector speaks
little for a long book. Measured in docs/retrieval.md, "The document prior"."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

from graph.retrieval.scored import Candidate
from ingest.document_parts import DocumentVector

WEIGHT = 3.0
"""How far one standard deviation of document similarity moves a candidate (in the z-score units of
``graph.retrieval.fusion.adaptive``), at full weight."""
SHYNESS = 2.0
"""The power of ``1 - coverage``: how fast the prior steps aside as the words agree."""
SPAN = 8
"""Chunks a document's vector speaks for fully; past that its weight falls as √(SPAN/n)."""


def lean_on_documents(
    candidates: Sequence[Candidate],
    query: Sequence[float],
    read: Callable[[Collection[str]], Mapping[str, DocumentVector]],
    *,
    weight: float = WEIGHT,
    shyness: float = SHYNESS,
    span: float = SPAN,
) -> None:
    """Add the prior to each candidate's ``fused`` score in place; ``read`` is called only when the
    prior has weight, and candidates without a document vector stay as they are."""
    scale = weight * (1.0 - max((c.coverage for c in candidates), default=1.0)) ** shyness
    if scale <= 0 or len(candidates) < 2:
        return
    documents = read({c.key[0] for c in candidates})
    have = [c for c in candidates if c.key[0] in documents]
    if len(have) < 2:
        return
    q = np.asarray(query, dtype=np.float32)
    cosine = np.asarray(
        [float(np.asarray(documents[c.key[0]].vector, dtype=np.float32) @ q) for c in have]
    )
    spread = float(cosine.std())
    if spread <= 1e-9:
        return
    for c, z in zip(have, ((cosine - cosine.mean()) / spread).tolist(), strict=True):
        chunks = max(1, documents[c.key[0]].chunks)
        c.fused += scale * min(1.0, span / chunks) ** 0.5 * z
