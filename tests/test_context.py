"""Chunks that know where they are: the embedder and the keyword index get each chunk's
title and heading path, while the stored text and its offsets stay as they were."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from ingest.index.context import context_of, embedded_text, text_for_vector, title_of
from ingest.index.keyword.index import KeywordIndex
from ingest.pipeline.indexer import Indexer
from tests.fakes.search import make_chunk
from tests.ingest_parts import IngestParts, ingest_parts

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
    assert embedded == [
        "Paid parental leave: Some intro words.",
        "Paid parental leave > Eligibility: ## Eligibility\n\n"
        "You qualify after twelve months of federal service.",
        "Paid parental leave > How to apply: ## How to apply\n\nSend the form to your supervisor.",
    ]
    key = parts.key("parental.md")
    assert key is not None
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


def test_the_keyword_index_finds_a_chunk_by_its_headings_but_weighs_text_more() -> None:
    index = KeywordIndex()
    under = make_chunk("leave.md", None, "You qualify after twelve months.", 0)
    index.replace_document("id-a", [replace(under, heading="Parental leave > Eligibility")])
    index.replace_document("id-b", [make_chunk("misc.md", None, "Eligibility rules for prizes.")])
    index.replace_document("id-c", [make_chunk("other.md", None, "Nothing of note here.")])

    hits = {h.doc_id: h for h in index.search("parental eligibility").top(5)}
    # Only its headings name "parental": found, with no share of the question in its text.
    assert set(hits) == {"id-a", "id-b"} and hits["id-a"].coverage < 0.5
    text_only = index.search("eligibility").top(5)
    # "eligibility" is in id-b's text and only in id-a's headings: the text ranks first.
    assert [h.doc_id for h in text_only] == ["id-b", "id-a"]
    assert text_only[0].coverage == 1.0 and text_only[1].coverage == 0.0

    index.context_weight = 0.0  # the field off: headings alone find nothing
    assert [h.doc_id for h in index.search("parental").top(5)] == []
