"""A sentence that gives a cause its span doesn't is partly supported, the cause named."""

from __future__ import annotations

import pytest

from graph.support import SourcePassage, SupportCheck
from graph.support.cause import cause_not_stated
from models.embeddings import MiniLMEmbedder

REPORT = SourcePassage(
    1,
    # The NTSB's Belen report (shared corpus), as its PDF's text reads.
    "Probable Cause and Findings\nThe National Transportation Safety Board determines the "
    "probable cause(s) of this accident to be:\nthe pilot's loss of directional control "
    "during landing resulting in a ground loop.\nFindings\nOccurrence #1: LOSS OF CONTROL - "
    "ON GROUND/WATER\nPhase of Operation: LANDING - ROLL\nCrew Injuries: 1 None Aircraft "
    "Damage: Substantial",
    "DEN08CA034Belen.pdf",
    "DEN08CA034Belen.pdf",
    2,
)
SPAN = "the pilot's loss of directional control during landing resulting in a ground loop."


@pytest.mark.parametrize(
    ("sentence", "said", "instead"),
    [
        (
            "The probable cause was the pilot's loss of directional control due to the "
            "aircraft's substantial damage [1].",
            "due to the aircraft's substantial damage",
            "resulting in a ground loop",
        ),
        (
            "The airplane ground looped because of strong crosswinds.",
            "because of strong crosswinds",
            "resulting in a ground loop",
        ),
        ("The ground loop was caused by the pilot's loss of directional control.", None, None),
        ("The airplane ground looped due to a loss of control during landing.", None, None),
        ("The pilot lost directional control during landing.", None, None),
    ],
)
def test_a_cause_must_be_in_the_span(sentence: str, said: str | None, instead: str | None) -> None:
    flip = cause_not_stated(sentence, SPAN)
    assert (flip.said, flip.instead) == (said, instead) if flip else said is None


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_the_belen_answer_with_a_cause_of_its_own_is_partly(minilm: MiniLMEmbedder) -> None:
    """The real model's answer in the window, marked `supported` before."""
    check = SupportCheck(
        [REPORT], minilm, question=["What was the probable cause of the Belen accident?"]
    )
    (wrong,) = check.check(
        "The probable cause was the pilot's loss of directional control due to the "
        "aircraft's substantial damage [1]."
    )
    assert wrong.verdict == "partly"
    assert wrong.missing[0] == "due to the aircraft's substantial damage"
    (right,) = check.check(
        "The probable cause was the pilot's loss of directional control during landing, "
        "resulting in a ground loop [1]."
    )
    assert right.verdict == "supported"
