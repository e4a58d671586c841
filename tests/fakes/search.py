"""Chunks for tests that build a library by hand."""

from __future__ import annotations

from ingest.document_parts import Chunk


def make_chunk(
    path: str, page: int | None, text: str, index: int = 0, *, doc_id: str | None = None
) -> Chunk:
    """A chunk whose span is its whole text; the sha256 is derived from the doc id."""
    doc_id = doc_id or f"id-{path}"
    return Chunk(
        doc_id=doc_id,
        path=path,
        file=path.rsplit("/", 1)[-1],
        page=page,
        index=index,
        start=0,
        end=len(text),
        text=text,
        sha256=f"sha-{doc_id}",
    )
