"""A sentence that pairs the items of a passage's "respectively" the wrong way round is
partly supported, with the item the passage pairs there named."""

from __future__ import annotations

import pytest

from graph.support import SourcePassage, SupportCheck
from graph.support.respectively import paired_wrongly
from models.embeddings import MiniLMEmbedder

SPAN = (
    "Such engines use either three or four expansion stages and are known as triple and "
    "quadruple expansion engines respectively."
)
ENGINES = SourcePassage(
    1,
    "A multiple-expansion engine expands the steam in stages. " + SPAN,
    "steam_engine.md",
    "steam_engine.md",
)
FOUR = "What are engines using four expansion stages known as?"


@pytest.mark.parametrize(
    ("sentence", "said", "instead"),
    [
        (
            "Engines using four expansion stages are triple expansion engines.",
            "triple",
            "quadruple",
        ),
        ("Engines with three stages are known as quadruple engines.", "quadruple", "triple"),
        ("Triple expansion engines use four stages.", "Triple", "quadruple"),
        ("Engines using four stages are quadruple expansion engines.", None, None),
        (SPAN, None, None),
    ],
)
def test_a_pairing_is_read_from_respectively(
    sentence: str, said: str | None, instead: str | None
) -> None:
    flip = paired_wrongly(sentence, SPAN)
    assert (flip.said, flip.instead) == (said, instead) if flip else said is None


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("Triple expansion engines [1].", "partly"),
        ("Quadruple expansion engines [1].", "supported"),
    ],
)
def test_a_bare_answer_pairing_wrongly_is_partly(
    minilm: MiniLMEmbedder, answer: str, verdict: str
) -> None:
    check = SupportCheck([ENGINES], minilm, question=[FOUR])
    (result,) = check.check(answer)
    assert result.verdict == verdict
    if verdict == "partly":
        assert result.missing == ("Triple",)
        assert result.found == {"Triple": "quadruple"}
