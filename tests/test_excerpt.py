"""The part of a passage shown when no model can answer: what bears on the question."""

from __future__ import annotations

from graph.excerpt import excerpt
from tests.test_graph import HANDBOOK


def test_a_short_passage_is_shown_whole() -> None:
    assert excerpt("  The key is under the mat.  ", "where is the key") == (
        "The key is under the mat."
    )


def test_a_long_passage_is_cut_to_its_sentences_with_the_questions_words() -> None:
    shown = excerpt(HANDBOOK, "When is the fire alarm tested?", limit=200)
    assert shown.startswith("… ") and len(shown) <= 200 + 4
    assert "The fire alarm is tested every Monday at ten." in shown
    assert "Elm Street" not in shown


def test_sentences_far_apart_are_joined_by_an_ellipsis_in_their_order() -> None:
    shown = excerpt(HANDBOOK, "canteen hours and the archive key", limit=300)
    canteen = shown.index("The canteen opens at eight")
    key = shown.index("The spare key to the archive room")
    assert canteen < key and " … " in shown[canteen:key]


def test_one_long_sentence_is_cut_round_the_questions_words() -> None:
    long = "Items listed: " + ", ".join(f"item {i}" for i in range(300)) + ", and the red lamp."
    shown = excerpt(long, "red lamp", limit=120)
    assert "red lamp" in shown and shown.startswith("… ") and len(shown) <= 130


def test_no_words_in_common_gives_the_opening() -> None:
    shown = excerpt(HANDBOOK, "zebra", limit=150)
    assert shown.startswith("The facilities handbook") and shown.endswith("…")
