"""How much retrieval looks at and hands on, shared by the retriever and its searches."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.retrieval.floor import Floor


@dataclass(frozen=True)
class RetrievalSettings:
    """How much to look at and how much to hand on."""

    top_k: int = 6
    """Passages the generator gets."""
    pool: int = 50
    """Chunks each search contributes before fusion."""
    rerank_candidates: int = 30
    """Fused chunks the reranker reorders."""
    sentence_order: bool = False
    """Without a reranker, order the top passages by their best sentence: better first passages,
    about 0.2 s more a search."""
    max_passage_chars: int = 2_400
    context_chars: int = 12_000
    """Mentioned files up to this size in all are given whole (full-document mode)."""
    floor: Floor = field(default_factory=Floor)
