"""A "which" or "what" question asks for a thing; an answer whose span names that thing
and which names none of it answers another question, however true and cited."""

from __future__ import annotations

import pytest

from graph.support import SourcePassage, SupportCheck
from graph.support.asked_for import asked_for
from models.embeddings import MiniLMEmbedder

DUST = SourcePassage(
    1,
    "NASA's CALIPSO satellite has measured the amount of dust transported by wind from the "
    "Sahara to the Amazon: an average 182 million tons of dust are windblown out of the "
    "Sahara each year, over the Atlantic Ocean (some dust falls into the Atlantic), then "
    "27.7 million tons of dust fall over the Amazon basin. The dust feeds the forest.",
    "amazon.md",
    "amazon.md",
)
BASIN = "Which basin does the dust fall over into?"
CHURCH = SourcePassage(
    1,
    "Today, the UMC is generally considered one of the more moderate and tolerant "
    "denominations with respect to race and gender. Comparatively, the UMC stands to the "
    "right of liberal groups such as the United Church of Christ and the Episcopal Church.",
    "methodism.md",
    "methodism.md",
)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("Which basin does the dust fall over into?", {"basin"}),
        ("On what English calendar is Luther commemorated?", {"english", "calendar"}),
        ("Mackinder and Ratzel were what kind of geographers?", {"geograph"}),
        ("What country's schools have strict codes of behavior?", {"countri"}),
        ("What is the concern with vectored vaccines?", set()),
        ("What caused the ground loop near Belen, New Mexico?", set()),
    ],
)
def test_what_a_question_asks_for(question: str, wanted: set[str]) -> None:
    assert asked_for(question) == wanted


@pytest.mark.parametrize(
    ("answer", "addresses"),
    [
        # True and cited, but the Atlantic is no basin: the span names the Amazon basin.
        ("The dust falls over into the Atlantic Ocean [1].", False),
        ("The dust falls over the Amazon basin [1].", True),
        ("The Amazon basin [1].", True),
    ],
)
def test_an_answer_naming_another_thing_than_asked_does_not_address_it(
    minilm: MiniLMEmbedder, answer: str, addresses: bool
) -> None:
    check = SupportCheck([DUST], minilm, question=[BASIN])
    support = check.check(answer)
    assert support[0].verdict == "supported"
    assert check.addresses_question(support) is addresses


def test_only_the_span_sentence_that_says_the_question_names_what_is_asked(
    minilm: MiniLMEmbedder,
) -> None:
    """The churches of the second sentence are not what the first one calls moderate."""
    question = "Today, which church is generally considered one of the more moderate denominations?"
    check = SupportCheck([CHURCH], minilm, question=[question])
    assert check.addresses_question(check.check("The UMC [1]."))


PLAYOFFS = SourcePassage(
    1,
    "The Panthers beat the Seattle Seahawks in the divisional round, running up a 31–0 "
    "halftime lead and then holding off a comeback attempt to win 31–24. The Panthers then "
    "blew out the Arizona Cardinals in the NFC Championship Game, 49–15, racking up 487 "
    "yards and forcing seven turnovers.",
    "super_bowl.md",
    "super_bowl.md",
)
PRIOR = (
    "What was the score of the last game the Carolina Panthers played prior to the NFC "
    "Championship?"
)


@pytest.mark.parametrize(
    ("answer", "addresses"),
    [
        # The NFC Championship's own score, not the one of the game before it.
        (
            "The Carolina Panthers played a game against the Arizona Cardinals in the NFC "
            "Championship Game, which resulted in a score of 49-15 [1].",
            False,
        ),
        ("The Panthers beat the Seattle Seahawks 31–24 in the divisional round [1].", True),
        ("Before the NFC Championship, the Panthers beat the Seahawks 31–24 [1].", True),
    ],
)
def test_the_value_of_the_thing_a_question_counts_from_is_not_its_answer(
    minilm: MiniLMEmbedder, answer: str, addresses: bool
) -> None:
    check = SupportCheck([PLAYOFFS], minilm, question=[PRIOR])
    support = check.check(answer)
    assert support[0].verdict == "supported"
    assert check.addresses_question(support) is addresses
