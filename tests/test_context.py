"""Chunks that know where they are: the embedder gets each chunk's title and heading path,
while the stored text and its offsets stay as they were."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from ingest.index.chunk_context import (
    Outline,
    context_of,
    document_text,
    embedded_text,
    text_for_vector,
    title_of,
)
from ingest.index.keyword.index import KeywordIndex
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from tests.fakes.search import make_chunk
from tests.ingest_parts import IngestParts, ingest_parts
from tests.running import eventually

PAGE = """---
title: Paid parental leave
---

Some intro words.

## Eligibility

You qualify after twelve months of federal service.

## How to apply

Send the form to your supervisor.
"""


def test_context_is_the_title_then_the_heading_path() -> None:
    chunk = make_chunk("leave/paid-parental-leave.md", None, "You qualify after a year.")
    assert title_of("Super_Bowl_50.md") == "Super Bowl 50"
    assert context_of(chunk) == "paid parental leave"
    under = replace(chunk, heading="Paid parental leave > Eligibility")
    # The path already begins with the title: it is not said twice.
    assert context_of(under) == "Paid parental leave > Eligibility"
    assert embedded_text(under) == "Paid parental leave > Eligibility: You qualify after a year."
    other = replace(chunk, file="notes.md", heading="Leave policy > Parental leave")
    assert context_of(other) == "notes > Leave policy > Parental leave"
    assert text_for_vector(other, 1) == other.text  # the old kind of vector: text alone


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[IngestParts]:
    with ingest_parts(tmp_path) as made:
        yield made


@pytest.fixture
async def indexer(parts: IngestParts) -> AsyncIterator[Indexer]:
    made = Indexer(parts.docs, parts.registry, [parts.store], parts.embedder)
    yield made
    await made.stop()


async def test_the_embedder_reads_the_heading_path_and_the_store_keeps_the_text(
    parts: IngestParts, indexer: Indexer
) -> None:
    (parts.docs / "parental.md").write_text(PAGE)
    await indexer.index_all()

    embedded = [text for call in parts.embedder.calls for text in call]
    outline = "parental > Paid parental leave > Eligibility > How to apply: Some intro words."
    assert embedded == [
        "Paid parental leave: Some intro words.",
        "Paid parental leave > Eligibility: ## Eligibility\n\n"
        "You qualify after twelve months of federal service.",
        "Paid parental leave > How to apply: ## How to apply\n\nSend the form to your supervisor.",
        outline,  # the document's own vector: its title, its outline, its first chunk
    ]
    key = parts.key("parental.md")
    assert key is not None
    stored = parts.store.document_vectors([key])[key]
    assert stored.chunks == 3
    assert list(stored.vector) == pytest.approx(parts.embedder.embed([outline])[0], abs=1e-6)
    chunks = parts.store.document_chunks(key)
    assert chunks and all(not c.text.startswith("Paid parental leave") for c in chunks)
    # Citations and highlights read these spans: they are the file's own characters.
    for chunk in chunks:
        assert PAGE[chunk.start : chunk.end] == chunk.text
    eligibility = next(c for c in chunks if "twelve months" in c.text)
    assert eligibility.heading == "Paid parental leave > Eligibility"
    assert (
        eligibility.text == "## Eligibility\n\nYou qualify after twelve months of federal service."
    )


def test_an_outline_gathered_batch_by_batch_reads_as_the_whole_document() -> None:
    headings = ["Guide", "Guide > Start", "Guide > Start", "Guide > Pay", "Guide > Start", "Annex"]
    chunks = [
        replace(make_chunk("docs/travel_guide.md", None, f"part {i}", i), heading=h)
        for i, h in enumerate(headings)
    ]
    outline = Outline()
    for batch in (chunks[:1], chunks[1:4], chunks[4:]):
        outline.add(batch)

    assert outline.text() == document_text(chunks)
    assert outline.text() == "travel guide > Guide > Start > Pay > Annex: part 0"
    assert Outline().text() is None
    long = [replace(c, heading=f"Heading number {c.index} " * 5) for c in chunks * 3]
    assert len(document_text(long).split(": part 0")[0]) == 400  # room left for the text


async def test_documents_indexed_before_document_vectors_get_theirs_when_idle(
    parts: IngestParts,
) -> None:
    (parts.docs / "parental.md").write_text(PAGE)
    first = Indexer(parts.docs, parts.registry, [parts.store], parts.embedder)
    await first.index_all()
    await first.stop()
    key = parts.key("parental.md")
    assert key is not None
    # as an older version left the library: the chunks stored, no document vector
    parts.store._write(lambda _chunks, documents: documents.delete(ids=[key]))
    assert parts.store.documents_without_vector() == {key}

    again = Indexer(
        parts.docs,
        parts.registry,
        [parts.store],
        parts.embedder,
        options=IndexOptions(gc_delay=0.05),
    )
    await again.start()
    try:
        assert await again.scan() == 0  # nothing changed, so no file is read again
        await eventually(lambda: not parts.store.documents_without_vector(), what="filled")
    finally:
        await again.stop()
    stored = parts.store.document_vectors([key])[key]
    assert stored.chunks == 3
    expected = document_text(parts.store.document_chunks(key))
    assert list(stored.vector) == pytest.approx(parts.embedder.embed([expected])[0], abs=1e-6)


def test_the_keyword_index_reads_the_text_alone() -> None:
    # Headings as a keyword field lowered the handbook's R@1 at every weight measured
    # (docs/retrieval.md): a chunk is found by its words, not by its place.
    index = KeywordIndex()
    under = make_chunk("leave.md", None, "You qualify after twelve months.", 0)
    index.replace_document("id-a", [replace(under, heading="Parental leave > Eligibility")])
    index.replace_document("id-b", [make_chunk("misc.md", None, "Eligibility rules for prizes.")])

    assert [h.doc_id for h in index.search("parental eligibility").top(5)] == ["id-b"]
    assert [h.doc_id for h in index.search("twelve months").top(5)] == ["id-a"]
