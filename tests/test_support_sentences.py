"""The sentence splitter's hard cases: abbreviations, numbers, citations and Markdown."""

from __future__ import annotations

import pytest

from graph.support.sentences import split_sentences


def texts(text: str) -> list[str]:
    sentences = split_sentences(text)
    for sentence in sentences:
        assert text[sentence.start : sentence.end] == sentence.text
    return [s.text for s in sentences]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The U.S. economy grew 3.5% in 2021, e.g. in services. Dr. Smith agreed.",
            ["The U.S. economy grew 3.5% in 2021, e.g. in services.", "Dr. Smith agreed."],
        ),
        (
            "It cost $1,000.50 (approx.) vs. 900 in Jan. 2020. Mr. J. R. R. Tolkien wrote it.",
            ["It cost $1,000.50 (approx.) vs. 900 in Jan. 2020.", "Mr. J. R. R. Tolkien wrote it."],
        ),
        ("He moved to the U.S. He was 28.", ["He moved to the U.S.", "He was 28."]),
        ("She works for Acme Inc. in Ohio.", ["She works for Acme Inc. in Ohio."]),
        ("Apples, pears, etc. The rest spoiled.", ["Apples, pears, etc.", "The rest spoiled."]),
        ("Is it? Yes! It is... Then more.", ["Is it?", "Yes!", "It is...", "Then more."]),
        ("Version 2.1.3 of report.pdf is out.", ["Version 2.1.3 of report.pdf is out."]),
        ('He said "No." Then he left.', ['He said "No."', "Then he left."]),
        ("It ended in 1945. 1946 was calm.", ["It ended in 1945.", "1946 was calm."]),
        ("See Fig. 3 and No. 5 for details.", ["See Fig. 3 and No. 5 for details."]),
        (
            "It follows Circular No. A-11, Part 6. See No. More was said.",
            ["It follows Circular No. A-11, Part 6.", "See No.", "More was said."],
        ),
    ],
)
def test_abbreviations_numbers_and_stops(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_citation_marks_stay_with_their_sentence() -> None:
    text = "Tesla was born in 1856 [1]. He moved in 1884.[2][3] He died in 1943. [4, 14] End."
    assert texts(text) == [
        "Tesla was born in 1856 [1].",
        "He moved in 1884.[2][3]",
        "He died in 1943. [4, 14]",
        "End.",
    ]


def test_markdown_lists_headings_and_emphasis() -> None:
    text = (
        "## Early life\n"
        "Here is what I found:\n\n"
        "- **Tesla** was born in 1856 [1].\n"
        "- He moved to the U.S. in 1884 [2, 3]. He met Edison\n"
        "* Worked for Edison\n"
        "1. First item\n"
        "2) Second item\n"
        "> A quote. Another one.\n\n"
        "**Bold.** Plain after bold."
    )
    sentences = split_sentences(text)
    assert [(s.text, s.heading) for s in sentences] == [
        ("Early life", True),
        ("Here is what I found:", False),
        ("**Tesla** was born in 1856 [1].", False),
        ("He moved to the U.S. in 1884 [2, 3].", False),
        ("He met Edison", False),
        ("Worked for Edison", False),
        ("First item", False),
        ("Second item", False),
        ("A quote.", False),
        ("Another one.", False),
        ("**Bold.**", False),
        ("Plain after bold.", False),
    ]
    for s in sentences:
        assert text[s.start : s.end] == s.text


def test_a_line_break_inside_a_paragraph_is_a_soft_wrap() -> None:
    text = "The crisis began in October\n1973 when the embargo was proclaimed.\n\nNext paragraph."
    assert texts(text) == [
        "The crisis began in October\n1973 when the embargo was proclaimed.",
        "Next paragraph.",
    ]


def test_a_year_that_opens_a_wrapped_line_is_not_a_list_item() -> None:
    text = "It was founded in\n1850. Then it grew."
    assert texts(text) == ["It was founded in\n1850.", "Then it grew."]


def test_tables_rules_and_blank_text() -> None:
    assert texts("") == []
    assert texts("   \n\n  ") == []
    assert texts("Above.\n\n---\n\nBelow.") == ["Above.", "Below."]
    assert texts("| a | b |\n| 1 | 2 |") == ["| a | b |", "| 1 | 2 |"]


def test_crlf_and_trailing_spaces_keep_offsets_exact() -> None:
    text = "First one.  \r\n- Second one.\r\n\r\nThird one.   "
    assert texts(text) == ["First one.", "Second one.", "Third one."]


def test_fenced_code_states_nothing_to_check() -> None:
    text = (
        "Growth was 8%.\n\n```python\ngrowth = (12.0 - 11.1) / 11.1\nprint(growth)\n```\n"
        "The board expects more.\n~~~\nx = 1. Y = 2.\n~~~\nDone."
    )
    assert texts(text) == ["Growth was 8%.", "The board expects more.", "Done."]
