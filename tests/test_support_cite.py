"""Citations rewritten from the support check: only the marks change."""

from __future__ import annotations

from graph.support import (
    SentenceSupport,
    SourcePassage,
    SupportSpan,
    citation_marks,
    correct_citations,
    split_sentences,
    verify,
)
from tests.fakes.embedder import FakeEmbedder

NAMES = {1: "a.md", 2: "b.pdf", 3: "c.md"}
"""The sources given in these turns, by number."""


def support(answer: str, verdicts: list[tuple[str, tuple[int, ...]]]) -> list[SentenceSupport]:
    """One SentenceSupport per sentence of ``answer``: (verdict, supporting sources)."""
    out = []
    for sentence, (verdict, by) in zip(split_sentences(answer), verdicts, strict=True):
        source = SupportSpan(by[0], "f.md", "f.md", None, "x", 0, 1) if by else None
        out.append(
            SentenceSupport(
                sentence.text,
                sentence.start,
                sentence.end,
                verdict,  # type: ignore[arg-type]
                0.9 if by else 0.1,
                source=source,
                supported_by=by,
            )
        )
    return out


def test_marks_are_found_with_their_numbers() -> None:
    marks = citation_marks("A [1]. B [2][3]. C [4, 14]. D [1-3]. E [a] [2024 report] [link](x)")
    assert [(m.numbers, m.end - m.start) for m in marks] == [
        ((1,), 3),
        ((2,), 3),
        ((3,), 3),
        ((4, 14), 7),
        ((1, 2, 3), 5),
    ]


def test_a_sentence_cited_to_the_wrong_source_gets_the_right_one() -> None:
    answer = "Tesla was born in 1856 [2]. He moved in 1884 [3]."
    result = correct_citations(
        answer, support(answer, [("supported", (3,)), ("supported", (3,))]), NAMES
    )
    assert result.text == "Tesla was born in 1856 [3]. He moved in 1884 [3]."
    assert result.cited == ((3,), (3,))


def test_an_uncited_supported_sentence_gains_its_mark_before_the_stop() -> None:
    answer = "- **Tesla** was born in 1856.\n- He moved in 1884\n\nDone [1]."
    result = correct_citations(
        answer,
        support(answer, [("supported", (1,)), ("partly", (2,)), ("supported", (1,))]),
        NAMES,
    )
    assert result.text == "- **Tesla** was born in 1856 [1].\n- He moved in 1884 [2]\n\nDone [1]."
    assert result.cited == ((1,), (2,), (1,))


def test_foreign_reference_marks_are_dropped_everywhere() -> None:
    answer = "## Notes [7]\nThe price rose to $12 [4, 14]. It fell [1][9]."
    sentences = support(answer, [("supported", ()), ("supported", (1,)), ("supported", (1,))])
    result = correct_citations(answer, sentences[1:], NAMES)
    assert result.text == "## Notes\nThe price rose to $12 [1]. It fell [1]."
    assert result.cited == ((1,), (1,))


def test_an_unsupported_sentence_keeps_no_citation() -> None:
    answer = "Tesla was born in 1856 [1]. He loved pigeons [1]. He died in 1943."
    result = correct_citations(
        answer,
        support(answer, [("supported", (1,)), ("unsupported", ()), ("unsupported", ())]),
        NAMES,
    )
    assert result.text == "Tesla was born in 1856 [1]. He loved pigeons. He died in 1943."
    assert result.cited == ((1,), (), ())


def test_a_cited_source_that_also_supports_is_kept() -> None:
    answer = "The embargo began in 1973 [2][1]."
    result = correct_citations(answer, support(answer, [("supported", (1, 2))]), NAMES)
    assert result.text == answer
    assert result.cited == ((2, 1),)


def test_correct_marks_leave_the_answer_byte_identical() -> None:
    answer = "Line one [1].\r\n\r\n* Two — “quoted” [2]\t\n\nThree."
    result = correct_citations(
        answer,
        support(answer, [("supported", (1,)), ("supported", (2,)), ("unsupported", ())]),
        NAMES,
    )
    assert result.text == answer


def test_checked_and_corrected_end_to_end() -> None:
    passages = [
        SourcePassage(1, "The embargo caused an oil crisis with many long-term effects."),
        SourcePassage(2, "Nikola Tesla was born in 1856 in Smiljan. He died in 1943."),
        SourcePassage(3, "Penguins breed on the Antarctic ice in winter."),
    ]
    answer = (
        "Tesla was born in 1856 in Smiljan [1]. The embargo caused an oil crisis. "
        "Tesla invented the telephone [4, 14]. Penguins breed on the Antarctic ice in winter [3]."
    )
    checked = verify(answer, passages, FakeEmbedder())
    assert [s.verdict for s in checked] == ["supported", "supported", "unsupported", "supported"]
    result = correct_citations(answer, checked, {p.n: p.file for p in passages})
    assert result.text == (
        "Tesla was born in 1856 in Smiljan [2]. The embargo caused an oil crisis [1]. "
        "Tesla invented the telephone. Penguins breed on the Antarctic ice in winter [3]."
    )
    assert result.cited == ((2,), (1,), (), (3,))


def test_the_checked_sentences_move_with_the_marks() -> None:
    answer = (
        "Tesla was born in 1856 [2]. The embargo caused an oil crisis\n\n"
        "- Tesla invented the telephone [4, 14].\n- Done [1]"
    )
    checked = support(
        answer,
        [("supported", (3,)), ("supported", (1,)), ("unsupported", ()), ("supported", (1,))],
    )
    result = correct_citations(answer, checked, NAMES)
    assert result.text == (
        "Tesla was born in 1856 [3]. The embargo caused an oil crisis [1]\n\n"
        "- Tesla invented the telephone.\n- Done [1]"
    )
    moved = result.moved(checked)
    assert [s.text for s in moved] == [
        "Tesla was born in 1856 [3].",
        "The embargo caused an oil crisis [1]",  # its new mark is its own
        "Tesla invented the telephone.",
        "Done [1]",
    ]
    for sentence in moved:
        assert result.text[sentence.start : sentence.end] == sentence.text


def test_a_mark_used_as_a_noun_goes_with_the_words_that_lead_into_it() -> None:
    # A small model writes "According to [2], ..."; with [2] not a source, the answer read
    # "According to, the Malkin Athletic Center has three weight rooms".
    answer = "According to [2], the center has three weight rooms [1]. It opened, see [7]."
    result = correct_citations(answer, support(answer, [("supported", (1,)), ("none", ())]), NAMES)
    assert result.text == "The center has three weight rooms [1]. It opened."
    checked = result.moved(support(answer, [("supported", (1,)), ("none", ())]))
    assert [s.text for s in checked] == ["The center has three weight rooms [1].", "It opened."]


def test_a_lead_in_mid_sentence_goes_with_its_comma() -> None:
    answer = "The center has three weight rooms, according to [5]."
    result = correct_citations(answer, support(answer, [("supported", (1,))]), NAMES)
    assert result.text == "The center has three weight rooms [1]."


def test_a_mark_used_as_a_noun_becomes_its_files_name_not_a_hole() -> None:
    """A find answer's "Both [1] and [2] mention leave." read "Both and mention leave."."""
    answer = "Both [1] and [2] mention parental leave."
    unsupported = support(answer, [("unsupported", ())])
    result = correct_citations(answer, unsupported, NAMES)
    assert result.text == "Both `a.md` and `b.pdf` mention parental leave."
    assert [s.text for s in result.moved(unsupported)] == [result.text]
    answer = "[3] says it lasts 12 weeks [3]."
    result = correct_citations(answer, support(answer, [("unsupported", ())]), NAMES)
    assert result.text == "`c.md` says it lasts 12 weeks."


def test_a_mark_that_cites_is_still_dropped_from_an_unsupported_sentence() -> None:
    answer = "The fee is $5 [1] and the term is a year [2]. It is stated in [9]."
    result = correct_citations(
        answer, support(answer, [("unsupported", ()), ("unsupported", ())]), NAMES
    )
    assert result.text == "The fee is $5 and the term is a year. It is stated in."
