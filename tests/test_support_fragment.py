"""An answer that is only what was asked for ("Houston, Texas [1].") is checked together
with its question: the passage sentence that says what was asked is its span, and the
name it gives must stand there."""

from __future__ import annotations

import pytest

from graph.support import SourcePassage, SupportCheck
from models.embeddings import MiniLMEmbedder

NASA = SourcePassage(
    1,
    "In 1961 the Space Task Group outgrew its home at Langley. So Gilruth was given "
    "authority to grow his organization into a new NASA center, the Manned Spacecraft "
    "Center (MSC). A site was chosen in Houston, Texas, on land donated by Rice "
    "University, and Administrator Webb announced the conversion on September 19, 1961.",
    "apollo.md",
    "apollo.md",
)
EMBARGO = SourcePassage(
    1,
    "Of the nine members of the European Economic Community, the Netherlands faced a "
    "complete embargo, while the other six faced partial cutbacks. The UK, Germany, Italy, "
    "Switzerland and Norway banned flying, driving and boating on Sundays. The Netherlands "
    "imposed prison sentences for those who used more than their ration of electricity.",
    "oil_crisis.md",
    "oil_crisis.md",
)
SUNDAYS = "Name one country that banned boating, driving and flying on Sundays."


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_a_bare_place_is_the_answer_to_where(minilm: MiniLMEmbedder) -> None:
    check = SupportCheck(
        [NASA], minilm, question=["Where was the Manned Spacecraft Center located?"]
    )
    (result,) = check.check("Houston, Texas [1].")
    assert result.verdict == "supported"
    assert result.source is not None and "Manned Spacecraft Center" in result.source.text
    assert check.addresses_question([result])


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("The Netherlands [1].", "partly"), ("Germany [1].", "supported")],
)
def test_a_bare_name_must_stand_where_the_passage_says_what_was_asked(
    minilm: MiniLMEmbedder, answer: str, verdict: str
) -> None:
    """The passage names the Netherlands, but not among the countries that banned flying."""
    check = SupportCheck([EMBARGO], minilm, question=[SUNDAYS])
    (result,) = check.check(answer)
    assert result.verdict == verdict
    if verdict == "partly":
        assert result.missing == ("The Netherlands",)
        assert result.found["The Netherlands"] in ("The UK", "Germany", "Italy")


def test_a_whole_sentence_is_checked_by_itself(minilm: MiniLMEmbedder) -> None:
    """Only a fragment borrows the question: a sentence says its own claim."""
    check = SupportCheck([EMBARGO], minilm, question=[SUNDAYS])
    (result,) = check.check("The Netherlands imposed prison sentences for overuse [1].")
    assert result.verdict == "supported"


IPCC = SourcePassage(
    1,
    "The IPCC does not carry out research. Sessions of the IPCC Bureau, workshops, expert "
    "and lead authors meetings are by invitation only. Attendance at the 2003 meeting "
    "included 350 government officials and climate change experts.",
    "ipcc.md",
    "ipcc.md",
)
PLAGUE = SourcePassage(
    1,
    "From Italy, the disease spread northwest across Europe, striking France, Spain, "
    "Portugal and England by June 1348, then turned and spread east through Germany and "
    "Scandinavia from 1348 to 1350.",
    "black_death.md",
    "black_death.md",
)


@pytest.mark.parametrize(
    ("passage", "question", "answer"),
    [
        # Neither sentence of the span shares three of the question's words.
        (IPCC, "How many people attended the 2003 IPCC meeting?", "350 [1]."),
        # The question's years are the question's, not the fragment's to prove.
        (
            PLAGUE,
            "Where was the disease spreading between 1348 and 1350?",
            "Germany and Scandinavia [1].",
        ),
    ],
)
def test_a_right_fragment_stays_supported_with_its_question(
    minilm: MiniLMEmbedder, passage: SourcePassage, question: str, answer: str
) -> None:
    check = SupportCheck([passage], minilm, question=[question])
    (result,) = check.check(answer)
    assert (result.verdict, result.missing) == ("supported", ())


def test_a_short_sentence_of_a_longer_answer_says_its_own_claim(minilm: MiniLMEmbedder) -> None:
    boiler = SourcePassage(
        1,
        "The boiler was serviced on 3 March 2024. It costs 120 euros a year to maintain.",
        "boiler.txt",
        "boiler.txt",
    )
    check = SupportCheck([boiler], minilm, question=["How much does the boiler cost to maintain?"])
    answer = "It costs 120 euros a year to maintain [1]. It was serviced on 3 March 2024."
    assert [s.verdict for s in check.check(answer)] == ["supported", "supported"]
