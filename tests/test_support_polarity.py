"""A sentence that says the opposite of its span: the words agree, one "not" turns it
around, and the check says so."""

from __future__ import annotations

from graph.support import SourcePassage, verify
from graph.support.polarity import Flip, answers_wrongly, flipped
from tests.fakes.embedder import FakeEmbedder

LEAVE = SourcePassage(
    1,
    "You cannot transfer unused annual leave to another agency. Unused leave is paid out "
    "when you leave federal service.",
    "leave.pdf",
    "hr/leave.pdf",
    3,
)


def test_a_wrong_yes_is_marked_with_what_the_passage_says() -> None:
    answer = (
        "Yes, you can transfer unused annual leave to another agency [1]. Unused leave is "
        "paid out when you leave federal service [1]."
    )
    wrong, right = verify(answer, [LEAVE], FakeEmbedder())
    assert wrong.verdict == "partly"
    assert (wrong.missing, wrong.found) == (("can transfer",), {"can transfer": "cannot transfer"})
    assert right.verdict == "supported"
    (same,) = verify(
        "No, you cannot transfer unused annual leave to another agency.", [LEAVE], FakeEmbedder()
    )
    assert same.verdict == "supported"


def test_a_yes_that_the_rest_of_the_sentence_and_its_source_deny_is_marked() -> None:
    """What the real model wrote: "Yes, you cannot transfer …" to "Can I transfer …?"."""
    question = ["Can I transfer unused annual leave to another agency?"]
    (wrong,) = verify(
        "Yes, you cannot transfer unused annual leave to another agency [1].",
        [LEAVE],
        FakeEmbedder(),
        question=question,
    )
    assert (wrong.verdict, wrong.missing, wrong.found) == (
        *("partly", ("Yes",), {"Yes": "no (cannot transfer)"}),
    )
    (right,) = verify(
        "No, you cannot transfer unused annual leave to another agency [1].",
        [LEAVE],
        FakeEmbedder(),
        question=question,
    )
    assert right.verdict == "supported"
    # A question about a prohibition is answered yes with a "not".
    assert (
        answers_wrongly(
            ["Is smoking forbidden?"], "Yes, you must not smoke.", "You must not smoke."
        )
        is None
    )


def test_which_words_a_negation_turns_around() -> None:
    assert flipped("Contractors are eligible.", "Contractors are not eligible.") == Flip(
        "are eligible", "not eligible"
    )
    assert flipped("The card may not be used at home.", "The card may be used at home.") == Flip(
        "not be used", "be used"
    )
    # A "not" of another word, and "no" for "ran out of", turn nothing around.
    assert flipped("It is not cheap but it is reliable.", "It is reliable.") is None
    assert flipped("The stations ran out of fuel.", "The stations had no fuel.") is None
