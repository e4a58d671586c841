"""The document prior: a paraphrase leans on what its candidates' documents are about; a
question whose words a passage holds does not, and a long document's outline counts less."""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pytest

from graph.retrieval.prior import SPAN, lean_on_documents
from graph.retrieval.scored import Candidate
from ingest.document_parts import DocumentVector

QUERY = [1.0, 0.0, 0.0]
NEAR = DocumentVector([0.96, 0.28, 0.0], chunks=3)  # about what the question asks
FAR = DocumentVector([0.0, 0.0, 1.0], chunks=3)


def candidates(coverage: float) -> list[Candidate]:
    """The wrong page ahead of the right one, as a paraphrase leaves them."""
    return [
        Candidate(("wrong", 0), fused=1.0, coverage=coverage),
        Candidate(("right", 0), fused=0.8, coverage=coverage),
        Candidate(("wrong", 1), fused=0.5, coverage=coverage),
    ]


def order(found: list[Candidate]) -> list[tuple[str, int]]:
    return [c.key for c in sorted(found, key=lambda c: -c.fused)]


def test_a_paraphrase_is_lifted_toward_the_page_its_question_is_about() -> None:
    found = candidates(coverage=0.1)
    lean_on_documents(found, QUERY, lambda ids: {"wrong": FAR, "right": NEAR})
    assert order(found)[0] == ("right", 0)


def test_words_that_pin_a_passage_keep_the_order_and_nothing_is_read() -> None:
    asked: list[Collection[str]] = []

    def read(ids: Collection[str]) -> dict[str, DocumentVector]:
        asked.append(ids)
        return {"wrong": FAR, "right": NEAR}

    found = candidates(coverage=1.0)
    lean_on_documents(found, QUERY, read)
    assert [c.fused for c in found] == [1.0, 0.8, 0.5]
    assert asked == []
    # Most of the words found in one passage: the prior moves far less than for a paraphrase.
    half, none = candidates(coverage=0.8), candidates(coverage=0.0)
    lean_on_documents(half, QUERY, read)
    lean_on_documents(none, QUERY, read)
    lift = [c.fused - b.fused for c, b in zip(half, candidates(0.8), strict=True)]
    full = [c.fused - b.fused for c, b in zip(none, candidates(0.0), strict=True)]
    assert np.allclose(np.asarray(lift), np.asarray(full) * 0.2**2)


def test_a_long_documents_outline_moves_its_chunks_less() -> None:
    def moved(chunks: int) -> float:
        found = candidates(coverage=0.0)
        near = DocumentVector(NEAR.vector, chunks)
        lean_on_documents(found, QUERY, lambda ids: {"wrong": FAR, "right": near})
        return found[1].fused - 0.8

    assert moved(1) == moved(SPAN) > 0
    assert moved(4 * SPAN) == pytest.approx(moved(SPAN) / 2)


def test_documents_without_a_vector_are_left_as_they_are() -> None:
    found = candidates(coverage=0.0)
    lean_on_documents(found, QUERY, lambda ids: {"right": NEAR})  # one vector: no spread
    assert [c.fused for c in found] == [1.0, 0.8, 0.5]
    found.append(Candidate(("third", 0), fused=0.2))
    lean_on_documents(found, QUERY, lambda ids: {"right": NEAR, "third": FAR})
    assert [c.fused for c in found[::2]] == [1.0, 0.5]  # "wrong" has none: not moved
    assert found[1].fused > 0.8 > 0.2 > found[3].fused
