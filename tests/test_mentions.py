"""@mentions: every form, several per message, near misses, and nothing silently dropped."""

from __future__ import annotations

import pytest

from graph.mentions import find_mentions, matched_paths, strip_mentions

FILES = [
    "reports/q3.pdf",
    "notes.md",
    "Annual Report 2024.pdf",
    "x200 dishwasher manual.pdf",
    "z9 blender manual.pdf",
    "budget.pdf",
    "report.pdf",
]


ANNUAL = "Annual Report 2024.pdf"


def resolve(text: str) -> list[tuple[str, list[str]]]:
    return [(m["said"], m["paths"]) for m in find_mentions(text, FILES)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@report.pdf what changed?", [("@report.pdf", ["report.pdf"])]),
        ("see @reports/q3.pdf", [("@reports/q3.pdf", ["reports/q3.pdf"])]),
        (
            '@"Annual Report 2024.pdf" profit?',
            [('@"Annual Report 2024.pdf"', ["Annual Report 2024.pdf"])],
        ),
        (
            "@Annual Report 2024.pdf profit?",
            [("@Annual Report 2024.pdf", ["Annual Report 2024.pdf"])],
        ),
        ("@budget: totals?", [("@budget", ["budget.pdf"])]),
        ("@Q3.PDF and @NOTES", [("@Q3.PDF", ["reports/q3.pdf"]), ("@NOTES", ["notes.md"])]),
        ("what is in @report?", [("@report", ["report.pdf"])]),
    ],
)
def test_exact_forms(text: str, expected: list[tuple[str, list[str]]]) -> None:
    assert resolve(text) == expected


@pytest.mark.parametrize(
    ("text", "said", "path"),
    [
        ("what does @reprot.pdf say", "@reprot.pdf", "report.pdf"),
        ("@budgte totals", "@budgte", "budget.pdf"),
        ("@dishwashr warranty", "@dishwashr", "x200 dishwasher manual.pdf"),
        ("@BLENDER speeds", "@BLENDER", "z9 blender manual.pdf"),
        ("@anual report 2024 profit", "@anual report 2024", "Annual Report 2024.pdf"),
    ],
)
def test_close_names_match_case_insensitively(text: str, said: str, path: str) -> None:
    assert resolve(text) == [(said, [path])]


def test_an_email_address_is_not_a_mention() -> None:
    assert find_mentions("mail bob@example.com about it", FILES) == []


def test_unmatched_mention_keeps_the_closest_names() -> None:
    (mention,) = find_mentions("@budgets2019 totals", FILES)
    assert mention["paths"] == []
    assert mention["closest"][0] == "budget.pdf"
    assert len(mention["closest"]) == 3


def test_equally_close_names_are_not_guessed() -> None:
    (mention,) = find_mentions("@manual warranty", FILES)
    assert mention["paths"] == []
    assert set(mention["closest"][:2]) == {"x200 dishwasher manual.pdf", "z9 blender manual.pdf"}


def test_no_library_means_nothing_matches_and_nothing_is_closest() -> None:
    (mention,) = find_mentions("@report.pdf", [])
    assert (mention["paths"], mention["closest"]) == ([], [])


def test_two_mentions_then_stripped_to_file_names() -> None:
    text = 'compare @x200 and @"z9 blender manual.pdf" warranties'
    mentioned = find_mentions(text, FILES)
    assert matched_paths(mentioned) == ["x200 dishwasher manual.pdf", "z9 blender manual.pdf"]
    assert strip_mentions(text, mentioned) == (
        "compare x200 dishwasher manual.pdf and z9 blender manual.pdf warranties"
    )


def test_same_file_twice_is_one_path() -> None:
    mentioned = find_mentions("@report and @report.pdf", FILES)
    assert matched_paths(mentioned) == ["report.pdf"]
