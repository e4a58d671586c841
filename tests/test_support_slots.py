"""A number is supported only where its span says it of the same thing: "3%" elsewhere in the
passage, or said of another quantity, does not support "the fatality rate was 3%"."""

from __future__ import annotations

import pytest

from graph.support import SourcePassage, verify
from tests.fakes.embedder import FakeEmbedder


def check(passage: str, sentence: str) -> tuple[str, tuple[str, ...], dict[str, str]]:
    """The verdict on ``sentence`` against one passage, its missing items and what the
    passage says in their place."""
    (result,) = verify(
        sentence, [SourcePassage(1, passage, "report.pdf", "report.pdf", 2)], FakeEmbedder()
    )
    return result.verdict, result.missing, result.found


OUTBREAK = (
    "The case fatality rate was about 2%, and 3% of cases were severe enough to need a "
    "hospital bed."
)
# Text read from a PDF without full stops: one long piece, as the check cuts it.
OUTBREAK_PDF = (
    "Outbreak report 2021 Case fatality rate 2 % among confirmed cases in the region during "
    "the period studied while 3 % of the contacts traced developed symptoms within two weeks"
)
YEARS = "In 2020 the case fatality rate was 2% and in 2021 3%."
TABLE = "| Status | Count |\n|---|---|\n| Open cases | 14 |\n| Closed cases | 9 |"
AMOUNTS = "Revenue reached 12 million euros in 2023, while costs came to 3 million euros."
OTHER_CLAUSE = "The case fatality rate stayed low; 3% of contacts developed symptoms."
# A spreadsheet as Docent reads it: a line per row, each value with its column's name.
ROWS = "City: Oslo; Population: 709000\nCity: Bergen; Population: 285000\n"


@pytest.mark.parametrize(
    ("passage", "wrong", "instead"),
    [
        (OUTBREAK, "The case fatality rate was around 3% [1].", {"3%": "2%"}),
        (OUTBREAK_PDF, "The case fatality rate was around 3% [1].", {"3%": "2 %"}),
        (YEARS, "In 2020 the fatality rate was 3% [1].", {"3%": "2%"}),
        (TABLE, "There are 9 open cases [1].", {"9": "14"}),
        (AMOUNTS, "Costs were 12 million euros [1].", {"12 million": "3 million"}),
        (OTHER_CLAUSE, "The case fatality rate was 3% [1].", {}),
        (ROWS, "Bergen has a population of 709000 [1].", {"709000": "285000"}),
        (
            "Each disk stores up to 60,000 notes in 10,000 events per track.",
            "One disk holds 10,000 notes [1].",
            {"10,000": "60,000"},
        ),
    ],
)
def test_a_number_the_span_says_of_something_else_is_not_supported(
    passage: str, wrong: str, instead: dict[str, str]
) -> None:
    verdict, missing, found = check(passage, wrong)
    assert verdict == "partly"
    assert missing == tuple(instead) or (not instead and len(missing) == 1)
    assert found == instead  # what the window says: "2%, not 3%"


@pytest.mark.parametrize(
    ("passage", "right"),
    [
        (OUTBREAK, "The case fatality rate was around 2% [1]."),
        (OUTBREAK, "About 3% of cases were severe [1]."),
        (OUTBREAK_PDF, "Around 3% of the contacts traced developed symptoms [1]."),
        (YEARS, "In 2021 the fatality rate was 3% [1]."),
        (YEARS, "The case fatality rate was 2% in 2020 [1]."),
        (TABLE, "There are 14 open cases [1]."),
        (AMOUNTS, "Costs came to 3 million euros [1]."),
        (AMOUNTS, "Revenue reached 12 million euros in 2023 [1]."),
        (OTHER_CLAUSE, "3% of contacts developed symptoms [1]."),
        (ROWS, "Oslo has a population of 709000 [1]."),
        (ROWS, "The population of Bergen is 285000 [1]."),
        # A time moved to the sentence's other end is the same fact.
        (
            "In 1996, the BBC applied for a trade mark on the police box design, and in "
            "1998 the Patent Office ruled in its favour.",
            "The BBC applied for a trade mark on the police box design in 1996 [1].",
        ),
    ],
)
def test_the_same_numbers_said_of_their_own_things_stay_supported(passage: str, right: str) -> None:
    assert check(passage, right) == ("supported", (), {})


def test_a_number_inside_a_range_is_not_supported() -> None:
    verdict, _, _ = check(
        "Symptoms usually appear 4-7 days after exposure.", "The symptoms arise in 5.8 days [1]."
    )
    assert verdict != "supported"
