"""Numbers, dates, codes and names of a sentence, normalised, found or not in a passage."""

from __future__ import annotations

import pytest

from graph.support.facts import index_passage, sentence_facts


def facts(sentence: str, common: set[str] | None = None) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in sentence_facts(sentence, common or set())]


def keys(sentence: str) -> set[str]:
    return {f.key for f in sentence_facts(sentence)}


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("It cost 1,000 dollars.", "It cost 1000 dollars."),
        ("Growth was 15% last year.", "Growth was 15 % last year."),
        ("Growth was 15% last year.", "Growth was 15 percent last year."),
        ("About 1.5 million people.", "About 1,500,000 people."),
        ("On March 3, 2021 it opened.", "On 3 March 2021 it opened."),
        ("On March 3, 2021 it opened.", "On 2021-03-03 it opened."),
        ("On November 27, 2007 it crashed.", "On 11/27/2007 it crashed."),
        ("On November 27, 2007 it crashed.", "On 27.11.2007 it crashed."),
        ("The B-52 flew.", "The B52 flew."),
    ],
)
def test_spellings_of_one_fact_share_a_key(one: str, other: str) -> None:
    assert keys(one) == keys(other) != set()


def test_each_kind_is_found_with_its_text() -> None:
    sentence = "In June 1884 Nikola Tesla paid $1,000.50 for 12% of the B-52 plans."
    assert facts(sentence) == [
        ("date", "June 1884"),
        ("name", "Nikola Tesla"),
        ("number", "$1,000.50"),
        ("number", "12%"),
        ("code", "B-52"),
    ]


def test_citation_marks_are_not_numbers() -> None:
    assert facts("The price rose to $12 [4, 14].") == [("number", "$12")]


def test_an_opening_capital_is_a_name_only_when_the_passages_never_write_it_small() -> None:
    assert facts("Born in Smiljan, he moved.", {"born"}) == [("name", "Smiljan")]
    assert facts("Tesla was born in Smiljan.", {"born"}) == [
        ("name", "Tesla"),
        ("name", "Smiljan"),
    ]
    assert facts("The Normans came.") == [("name", "Normans")]


def test_a_passage_holds_coarser_dates_numbers_in_words_and_the_years_of_its_dates() -> None:
    passage = index_passage("On 1 October 1973 about fifteen percent of the 1000 staff left.")
    for sentence in (
        "It began in October 1973.",
        "It began in 1973.",
        "It began on October 1.",
        "About 15% left.",
        "The 1,000 staff left.",
    ):
        assert all(passage.has(f) for f in sentence_facts(sentence)), sentence
    for sentence in ("It began in November 1973.", "About 12% left.", "It began in 1974."):
        assert not all(passage.has(f) for f in sentence_facts(sentence)), sentence


def test_a_name_is_present_when_its_distinctive_words_are_in_any_case() -> None:
    passage = index_passage("TESLA's lab at the University of Chicago hired Henry Kissinger.")
    present = {
        "Nikola Tesla": True,  # half its words, the last one among them
        "the Chicago campus": True,
        "Henry Kissinger": True,
        "Henry Ford": False,  # "Henry" is there, "Ford" is not
        "Edison": False,
    }
    for name, expected in present.items():
        (fact,) = [f for f in sentence_facts(f"He met {name} there.") if f.kind == "name"]
        assert passage.has(fact) is expected, name


def test_a_name_must_keep_its_ending_words() -> None:
    passage = index_passage("Black's Law Dictionary includes non-violence; force is not used.")
    for name, expected in {
        "Black's Law Dictionary": True,
        "the Law Dictionary": True,
        "Black's Air Force": False,  # "Black" and "force" are there, not the name
    }.items():
        (fact,) = [f for f in sentence_facts(f"He read {name} there.") if f.kind == "name"]
        assert passage.has(fact) is expected, name


def test_words_that_open_answers_are_not_names() -> None:
    assert facts("Numerous samples were found in Texas.") == [("name", "Texas")]
    assert facts("Additionally, the lab closed.") == []
    assert facts("Contemporary tests are fast.") == []


def test_an_acronym_is_present_when_its_name_is_spelled_out() -> None:
    passage = index_passage(
        "The American Automobile Association and the European Court of Justice met."
    )
    for acronym, expected in {"AAA": True, "ECJ": True, "NATO": False}.items():
        (fact,) = sentence_facts(f"He met the {acronym} there.")
        assert passage.has(fact) is expected, acronym


def test_a_report_s_numeric_date_holds_the_answer_s_date_either_way_it_is_read() -> None:
    """The NTSB's Belen report writes "11/27/2007"; a model answers "November 27, 2007".
    "03/04/2021" could be either day first or month first: it holds both."""
    report = index_passage("Date & Time: 11/27/2007, 1100 MST Registration: N74SR")
    assert all(report.has(f) for f in sentence_facts("It happened on November 27, 2007."))
    assert not report.has(sentence_facts("It happened on November 28, 2007.")[0])
    either = index_passage("Signed 03/04/2021 by both parties.")
    assert {"date:2021-03-04", "date:2021-04-03"} <= either.keys
    assert ("date", "12/31/1999") in facts("Version 1.2.3 shipped on 12/31/1999.")
