"""Shapes that flow through retrieval: candidates with every score, and passages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph.trace_records import CandidateScores
from ingest.document_parts import Chunk

Key = tuple[str, int]
"""A chunk's identity in every index: (document key, chunk index)."""


@dataclass
class Candidate:
    """One chunk either search found, with each stage's scores; its text is read only if needed."""

    key: Key
    dense: float | None = None
    """Cosine similarity to the query (None: the store has no vector for it)."""
    dense_rank: int | None = None
    """1-based rank in the dense list; None when beyond the pool."""
    bm25: float = 0.0
    bm25_rank: int | None = None
    coverage: float = 0.0
    """Share of the query's idf mass the chunk contains (0..1)."""
    fused: float = 0.0
    proximity: float | None = None
    """Share of the query's idf mass in the chunk's best sentence (shown candidates only)."""
    final: float | None = None
    """Fused score moved by proximity: the order shown when no reranker runs."""
    sentence: float | None = None
    """The query cosine of the best sentence of the passage it leads (``sentence_order`` only)."""
    rerank: float | None = None
    chunk: Chunk | None = None
    left_out: str | None = None
    """Why no passage was made around it ("not in the top 6"), for the trace; None if it leads."""
    source: int | None = None
    """The number of the source its passage became. Written by the retriever node."""

    @property
    def text(self) -> str:
        """The chunk's text ("" while it is not loaded)."""
        return self.chunk.text if self.chunk is not None else ""

    def loaded(self) -> Chunk:
        """The chunk, which the caller has made sure is loaded."""
        if self.chunk is None:
            raise LookupError(f"chunk {self.key} is not loaded")
        return self.chunk

    def scores(self) -> CandidateScores:
        """Why it was retrieved, for the trace and the API."""
        return {
            "dense": _round(self.dense),
            "dense_rank": self.dense_rank,
            "bm25": _round(self.bm25),
            "bm25_rank": self.bm25_rank,
            "fused": _round(self.fused),
            "proximity": _round(self.proximity),
            "sentence": _round(self.sentence),
            "rerank": _round(self.rerank),
        }


@dataclass
class Passage:
    """Contiguous text of one page run: hit chunks with their neighbours, merged."""

    doc_id: str
    path: str
    file: str
    page: int | None
    start: int
    end: int
    text: str
    score: float
    hits: list[Candidate] = field(default_factory=list)
    """The candidates this passage was built around, best first."""
    paths: list[str] = field(default_factory=list)
    """Every path with this document's content (identical files); ``path`` is the first."""
    ocr_confidence: float | None = None
    """Its page was read by OCR, with this mean confidence (None: the file's own text)."""

    def scores(self) -> dict[str, Any]:
        return dict[str, Any](self.hits[0].scores()) if self.hits else {}


@dataclass
class Retrieval:
    """What a search produced: the passages, every candidate, and what to tell the user."""

    passages: list[Passage]
    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)
    """Status lines such as "reranker unavailable: kept the search order"."""
    full_documents: bool = False
    answerable: bool = True


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)
