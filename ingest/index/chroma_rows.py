"""How a chunk is stored as a Chroma row: its id, metadata and text, and back again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ingest.document_parts import Chunk
from ingest.keys import chunk_id

NO_PAGE = -1  # Chroma rejects None in metadata
TEXT_KEY = "text"
"""The metadata key that holds a chunk's text: as a document, Chroma would build a trigram
index Docent never queries, a third of each write's CPU. Older collections keep texts as
documents; every read takes either."""
OCR_KEY = "ocr_confidence"
"""Metadata of a chunk read by OCR: its page's mean recognition confidence."""


@dataclass(frozen=True)
class ChromaRecord:
    """One chunk as Chroma stores it."""

    id: str
    vector: list[float]
    text: str
    metadata: dict[str, str | int | float]


def chunk_metadata(chunk: Chunk) -> dict[str, str | int | float]:
    """A chunk's place and provenance as Chroma metadata (its text is added on write)."""
    meta: dict[str, str | int | float] = {
        "doc_id": chunk.doc_id,
        "path": chunk.path,
        "file": chunk.file,
        "page": NO_PAGE if chunk.page is None else chunk.page,
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "sha256": chunk.sha256,
        "heading": chunk.heading,
    }
    if chunk.ocr_confidence is not None:  # absent: the file's own text (Chroma has no null)
        meta[OCR_KEY] = chunk.ocr_confidence
    return meta


def chunk_from(meta: Mapping[str, Any], document: str | None = None) -> Chunk:
    """The chunk a row holds; its text from the metadata, or the row's document if older."""
    text = meta.get(TEXT_KEY)
    page = int(meta["page"])
    return Chunk(
        doc_id=str(meta["doc_id"]),
        path=str(meta["path"]),
        file=str(meta["file"]),
        page=None if page == NO_PAGE else page,
        index=int(meta["index"]),
        start=int(meta["start"]),
        end=int(meta["end"]),
        text=str(text) if text is not None else document or "",
        sha256=str(meta["sha256"]),
        heading=str(meta.get("heading", "")),
        ocr_confidence=float(meta[OCR_KEY]) if OCR_KEY in meta else None,
    )


def chunks_from(page: Mapping[str, Any]) -> list[Chunk]:
    """The chunks of a Chroma ``get`` result that included documents and metadatas."""
    texts, metas = page["documents"] or [], page["metadatas"] or []
    return [chunk_from(meta, text) for text, meta in zip(texts, metas, strict=True)]


def chroma_records(
    doc_id: str, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
) -> list[ChromaRecord]:
    """One record per chunk, with its vector, ready to upsert."""
    return [
        ChromaRecord(chunk_id(doc_id, chunk.index), list(vector), chunk.text, chunk_metadata(chunk))
        for chunk, vector in zip(chunks, vectors, strict=True)
    ]


def row_id(key: tuple[str, int]) -> str:
    """The Chroma id of chunk ``(content key, index)``."""
    return f"{key[0]}:{key[1]}"


def row_key(chunk_id: str) -> tuple[str, int]:
    """``(content key, index)`` of a Chroma id."""
    doc_id, index = chunk_id.rsplit(":", 1)
    return doc_id, int(index)
