"""An answer that doesn't address its question is told apart from one that does: a true,
cited sentence about something else is marked, not passed."""

from __future__ import annotations

import pytest

from graph.support import SourcePassage, SupportCheck
from models.embeddings import MiniLMEmbedder

VACCINES = [
    SourcePassage(
        1,
        "Vectored vaccines use a harmless virus to carry genes of the pathogen into the body. "
        "The vector virus is often an adenovirus that cannot replicate. Vectored vaccines are "
        "given by injection into the upper arm.",
        "vaccines.md",
        "vaccines.md",
    ),
    SourcePassage(
        2,
        "In immunocompromised people a live vector may replicate and cause disease, so "
        "vectored vaccines built on live viruses are a concern for them. Such patients "
        "should ask their doctor first.",
        "safety.md",
        "safety.md",
    ),
]
QUESTION = "What is the concern with vectored vaccines in immunocompromised people?"


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(
    ("answer", "addresses"),
    [
        # True and cited, but about something else.
        ("Vectored vaccines are given by injection into the upper arm [1].", False),
        ("The live vector may replicate and cause disease in them [2].", True),
        ("In immunocompromised people a live vector may replicate and cause disease [2].", True),
    ],
)
def test_an_answer_about_something_else_is_told_apart(
    minilm: MiniLMEmbedder, answer: str, addresses: bool
) -> None:
    check = SupportCheck(VACCINES, minilm, question=[QUESTION])
    support = check.check(answer)
    assert support[0].verdict == "supported"  # every sentence of it is true
    assert check.addresses_question(support) is addresses


def test_without_a_question_nothing_is_said_of_it(minilm: MiniLMEmbedder) -> None:
    check = SupportCheck(VACCINES, minilm)
    support = check.check("Vectored vaccines are given by injection into the upper arm [1].")
    assert check.addresses_question(support)


@pytest.mark.parametrize("answer", ["[2] [3]", "Sure.", ""])
def test_an_answer_that_claims_nothing_does_not_address_a_question(
    minilm: MiniLMEmbedder, answer: str
) -> None:
    check = SupportCheck(VACCINES, minilm, question=[QUESTION])
    assert not check.addresses_question(check.check(answer))


def test_a_greeting_asks_nothing_so_any_reply_addresses_it(minilm: MiniLMEmbedder) -> None:
    check = SupportCheck(VACCINES, minilm, question=["Hi!"])
    assert check.addresses_question(check.check("Hello!"))


def test_claims_left_unchecked_are_not_taken_for_no_answer(minilm: MiniLMEmbedder) -> None:
    check = SupportCheck(VACCINES, minilm, question=[QUESTION])
    support = check.check("A live vector may replicate and cause disease [2].", claims=0)
    assert [s.verdict for s in support] == ["unchecked"]
    assert check.addresses_question(support)


PANTHERS = [
    SourcePassage(
        1,
        "The Panthers lost their top player, wide receiver Kelvin Benjamin, to an ACL injury in a "
        "preseason game. Even so, the Carolina Panthers had their best regular season in "
        "franchise history.",
        "super_bowl.md",
        "super_bowl.md",
    ),
    SourcePassage(
        2,
        "Carolina suffered a major setback when Thomas Davis, an 11-year veteran who had "
        "already overcome three ACL tears in his career, went down with a broken arm in the "
        "NFC Championship Game.",
        "super_bowl.md",
        "super_bowl.md",
    ),
]
INJURY = "Which player did the Panthers lose to an ACL injury in a preseason game?"


@pytest.mark.parametrize(
    ("answer", "addresses"),
    [
        # The question's words, echoed over a span about another player and game.
        (
            "The Panthers lost to an ACL injury in a preseason game when Thomas Davis went "
            "down with a broken arm in the NFC Championship Game [2].",
            False,
        ),
        ("The Panthers lost Kelvin Benjamin to a torn ACL in the preseason [1].", True),
        ("Kelvin Benjamin [1].", True),
    ],
)
def test_the_questions_words_echoed_over_another_span_do_not_address_it(
    minilm: MiniLMEmbedder, answer: str, addresses: bool
) -> None:
    check = SupportCheck(PANTHERS, minilm, question=[INJURY])
    support = check.check(answer)
    assert check.addresses_question(support) is addresses
