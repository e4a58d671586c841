"""The document prior: lean on what a candidate's whole document is about, when the
question's words pin no passage.

A paraphrased question ("how do I get the subsidy for commuting by bus?") shares few words
with its page, and a section-bounded chunk may not say what its page is about. Each
document has a vector of its title, outline and first chunk (``ingest.index.chunk_context.
document_text``); a candidate moves by how near the question its document's vector is,
standardised among the candidates.

Two things decide how far:
- the question's words: scaled by ``(1 - c)²``, c being the largest share of the
  question's idf mass one candidate holds. A question that shares its words with a
  passage keeps its order; a paraphrase leans on its page's topic.
- the document's length: the vector reads a document's start and outline, which speaks
  for a short page and for little of a long book. Scaled by ``√min(1, SPAN / chunks)``.

The constants were chosen on the SQuAD tuning split and the handbook paraphrases
(docs/retrieval.md, "The document prior").
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

from graph.retrieval.scored import Candidate
from ingest.document_parts import DocumentVector

WEIGHT = 3.0
"""How far one standard deviation of document similarity moves a candidate, for a question
none of whose words a passage holds, in a short document; in the units of Docent's fusion,
whose scores are z-scores (``graph.retrieval.fusion.adaptive``)."""
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
    """Add the prior to each candidate's ``fused`` score (in place); ``read`` gives the
    vectors of the documents asked for (read only when the prior has weight). Candidates
    whose document has no vector (not filled yet) are left as they are. The keywords are
    for the benchmark's variants; search uses the constants."""
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
