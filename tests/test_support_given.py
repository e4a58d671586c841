"""What an answer may say without a passage stating it: its sources' file names, their page
labels, and the names the question asked about."""

from __future__ import annotations

from graph.support import SourcePassage, verify
from tests.fakes.embedder import FakeEmbedder

REPORT = SourcePassage(
    n=1,
    file="DEN08CA034Belen.pdf",
    path="ntsb/DEN08CA034Belen.pdf",
    page=2,
    text=(
        "The airplane, an SNJ-7, was substantially damaged during the landing roll. The "
        "pilot's failure to maintain directional control during the landing roll resulted "
        "in a ground loop."
    ),
)
QUESTION = "What caused the ground loop near Belen, New Mexico?"


def test_a_file_name_a_page_and_the_questions_place_are_not_facts_to_find() -> None:
    answer = (
        "According to DEN08CA034Belen.pdf (page 2), near Belen, New Mexico the pilot's failure "
        "to maintain directional control during the landing roll resulted in a ground loop [1]."
    )
    (result,) = verify(answer, [REPORT], FakeEmbedder(), question=[QUESTION])
    assert (result.verdict, result.missing, result.found) == ("supported", (), {})

    # Without the question, its place is a claim the passage doesn't hold; the file name
    # and the page are still no claims.
    (alone,) = verify(answer, [REPORT], FakeEmbedder())
    assert (alone.verdict, alone.missing) == ("partly", ("Belen", "New Mexico"))


def test_a_number_or_code_the_question_names_is_still_checked() -> None:
    (code,) = verify(
        "Yes, the airplane, an SNJ-9, was substantially damaged during the landing roll [1].",
        [REPORT],
        FakeEmbedder(),
        question=["Was the airplane that was damaged an SNJ-9?"],
    )
    assert (code.missing, code.found) == (("SNJ-9",), {"SNJ-9": "SNJ-7"})
    (number,) = verify(
        "During the landing roll 3 airplanes were damaged [1].",
        [REPORT],
        FakeEmbedder(),
        question=["Were 3 airplanes damaged during the landing roll?"],
    )
    assert number.missing == ("3",)
