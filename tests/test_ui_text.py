"""What the window does with text: Markdown answers, citations, @mentions, names."""

from __future__ import annotations

import re

from app.check_line import check_line, summary, worrying
from ui.answer.claim_marks import claim_wraps, why
from ui.answer.markdown import render
from ui.answer.source_groups import group_sources, middle_ellipsis
from ui.chat.mention_picker import (
    MentionIndex,
    Picked,
    active_query,
    insert,
    plain_title,
    remove_query,
    segments,
    shift_anchor,
    with_mentions,
)
from ui.library.file_links import inline_disposition


def test_answers_escape_html_and_refuse_script_links() -> None:
    html = render("Hi <script>alert(1)</script> [x](javascript:alert(1))")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html


def test_code_blocks_get_a_language_label_and_a_copy_button() -> None:
    html = render("```python\nprint('hi')\n```")
    assert '<div class="docent-code">' in html
    assert "<span>python</span>" in html and "docent-copy-code" in html
    assert "print" in html and '<pre tabindex="0"><code>' in html  # focusable: it scrolls


def test_tables_scroll_inside_their_own_box() -> None:
    html = render("| a | b |\n|---|---|\n| 1 | 2 |")
    assert html.startswith('<div class="docent-table" tabindex="0"><table>')


def test_citation_markers_become_links_but_not_in_code() -> None:
    html = render("Costs rose [1] and fell [2, 3]. `x[4]`")
    for n in (1, 2, 3):
        assert f'data-n="{n}"' in html
    assert 'data-n="4"' not in html
    sourced = render("See [1].", [{"n": 1, "file": "q3.pdf", "page": 4}])
    assert 'data-page="4"' in sourced and 'title="q3.pdf, page 4"' in sourced


def test_sources_are_grouped_one_entry_per_file_with_its_pages() -> None:
    sources = [
        {"n": 1, "file": "report.pdf", "path": "q3/report.pdf", "page": 9},
        {"n": 2, "file": "notes.md", "path": "notes.md", "page": None},
        {"n": 3, "file": "report.pdf", "path": "q3/report.pdf", "page": 4},
        {"n": 4, "file": "report.pdf", "path": "q3/report.pdf", "page": 9},
    ]
    groups = group_sources(sources)
    assert [(g.path, g.numbers, g.pages) for g in groups] == [
        ("q3/report.pdf", [1, 3, 4], [4, 9]),
        ("notes.md", [2], []),
    ]
    assert groups[0].pages_label == "pp. 4, 9"


def test_a_chip_names_the_cited_pages_and_uncited_files_come_last() -> None:
    sources = [
        {"n": 1, "file": "notes.md", "path": "notes.md", "page": None, "cited": False},
        {"n": 2, "file": "report.pdf", "path": "report.pdf", "page": 3, "cited": True},
        {"n": 3, "file": "report.pdf", "path": "report.pdf", "page": 1, "cited": False},
        {"n": 4, "file": "report.pdf", "path": "report.pdf", "page": 4, "cited": False},
    ]
    groups = group_sources(sources)
    assert [(g.path, g.cited) for g in groups] == [("report.pdf", True), ("notes.md", False)]
    assert groups[0].pages == [1, 3, 4] and groups[0].pages_label == "p. 3"


def test_long_names_are_shortened_in_the_middle_keeping_the_extension() -> None:
    name = "A very long annual report of the company for the year 2024 final version.pdf"
    short = middle_ellipsis(name, 32)
    assert len(short) == 32 and "…" in short
    assert short.startswith("A very") and short.endswith("ersion.pdf")
    assert middle_ellipsis("short.pdf") == "short.pdf"


PATHS = [
    "reports/Annual report 2024.pdf",
    "notes.md",
    "handbook/Employee Handbook.pdf",
    "q3/report.pdf",
    "a/report.pdf",
]


def test_fuzzy_filter_ranks_substrings_then_scattered_letters() -> None:
    index = MentionIndex(PATHS)
    assert [c.path for c in index.search("report")][:3] == [
        "a/report.pdf",
        "q3/report.pdf",
        "reports/Annual report 2024.pdf",
    ]
    assert [c.path for c in index.search("ehb")] == ["handbook/Employee Handbook.pdf"]
    # The folder itself is offered too (issue 26), then its file found by its path.
    assert [c.path for c in index.search("q3")] == ["q3/", "q3/report.pdf"]
    assert index.search("zzz") == []
    # With nothing typed, files come before folders.
    listed = [c.path for c in index.search("", limit=20)]
    assert sorted(listed[: len(PATHS)]) == sorted(PATHS)
    assert set(listed[len(PATHS) :]) == {"reports/", "handbook/", "q3/", "a/"}


def test_a_pick_inserts_the_name_or_the_path_when_names_clash() -> None:
    index = MentionIndex(PATHS)
    assert index.token(index.search("annual")[0]) == '@"Annual report 2024.pdf"'
    assert index.token(index.search("report.pdf")[0]) == '@"a/report.pdf"'


def test_the_mention_being_typed_is_found_at_the_caret() -> None:
    assert active_query("hello @ann", 10) == (6, "ann")
    assert active_query('x @"Annual re', 13) == (2, "Annual re")
    assert active_query("hello @annual rep", 17) == (6, "annual rep")  # names have spaces
    assert active_query("mail a@b.c", 10) is None  # an e-mail address
    assert active_query("@ann\nnext line", 14) is None
    assert active_query('x @"done.pdf" and', 17) is None
    assert insert("ask @ann about", 8, 4, '@"Annual.pdf"') == ('ask @"Annual.pdf" about', 17)


def test_a_picked_file_keeps_its_place_as_the_text_is_edited() -> None:
    text, caret = remove_query("What does @ann", 14, 10)
    assert (text, caret) == ("What does ", 10)
    pick = Picked("a/Annual report.pdf", '@"Annual report.pdf"', caret)
    after = text + "say about costs?"  # typed on after the chip
    pick = shift_anchor(pick, text, after)
    assert with_mentions(after, [pick]) == 'What does @"Annual report.pdf" say about costs?'
    before = "So, " + after  # typed before it: it moves along
    moved = shift_anchor(pick, after, before)
    assert moved.at == pick.at + 4
    assert with_mentions(before, [moved]).startswith('So, What does @"Annual report.pdf" say')
    cut = shift_anchor(moved, before, "So, costs?")  # the words around it deleted
    assert with_mentions("So, costs?", [cut]) == 'So, @"Annual report.pdf" costs?'
    two = [Picked("a.pdf", '@"a.pdf"', 8), Picked("b.pdf", '@"b.pdf"', 8)]
    assert with_mentions("Compare ", two) == 'Compare @"a.pdf" @"b.pdf"'  # in the order picked


def test_mentions_show_as_names_in_bubbles_and_titles() -> None:
    text = 'What does @"Annual report 2024.pdf" say vs @notes.md?'
    assert segments(text) == [
        ("text", "What does "),
        ("mention", "Annual report 2024.pdf"),
        ("text", " say vs "),
        ("mention", "notes.md"),
        ("text", "?"),
    ]
    assert plain_title(text) == "What does Annual report 2024.pdf say vs notes.md?"
    assert plain_title('What is in @"docugami__nih-clinical-trial-prot…') == (
        "What is in docugami__nih-clinical-trial-prot…"
    )


def test_banners_keep_long_technical_messages_brief() -> None:
    from ui.frame.banners import brief

    long = (
        "the reranking model ms-marco-TinyBERT-L-2-v2 could not be loaded (HTTPSConnectionPool"
        "(host='example', port=443): Max retries exceeded with url: /model.zip (Caused by x))"
    )
    assert brief(long) == "The reranking model ms-marco-TinyBERT-L-2-v2 could not be loaded."
    short = "Ollama is not running at http://127.0.0.1:11434. Start it with `ollama serve`."
    assert brief(short) == short


def test_a_pdf_is_named_inline_in_ascii_and_in_utf8() -> None:
    header = inline_disposition('Rapport "été".pdf')
    header.encode("ascii")  # a header must be plain bytes
    assert header.startswith("inline; filename=\"Rapport '_t_'.pdf\"")
    assert header.endswith("filename*=UTF-8''Rapport%20%22%C3%A9t%C3%A9%22.pdf")


def test_checked_sentences_are_wrapped_piece_by_piece_and_the_markdown_still_holds() -> None:
    text = (
        "- **The rate** rose to `15%` [1].\n\n"
        "| Quarter | Revenue |\n|---|---|\n| Q3 | 12 M€ |\n\n"
        "See [the guide](https://example.org/guide). Done."
    )
    ranges = [
        ("**The rate** rose to `15%` [1].", "partly"),
        ("Quarter | Revenue |", "supported"),
        ("Q3 | 12 M€ |", "unsupported"),
        ("See [the guide](https://example.org/guide).", "supported"),
    ]
    support = [
        {
            "start": text.index(said),
            "end": text.index(said) + len(said),
            "verdict": verdict,
            "missing": ["15%"] if verdict == "partly" else [],
            "found": {"15%": "12%"} if verdict == "partly" else {},
            "source": None if verdict == "unsupported" else {"n": 1},
        }
        for said, verdict in ranges
    ]
    html = render(text, [{"n": 1, "file": "tax.pdf", "page": 2}], claim_wraps(support))
    plain = render(text, [{"n": 1, "file": "tax.pdf", "page": 2}])
    # The same document, only with the spans added: every tag of the plain render is kept.
    assert re.sub(r"</?span[^>]*>", "", html) == re.sub(r"</?span[^>]*>", "", plain)
    assert "<strong><span" in html and "<code><span" in html  # wrapped inside, not across
    assert html.count('data-s="0"') == 4  # strong, the text, code, the rest
    assert 'data-why="The passage says 12%, not 15%."' in html
    assert '<th><span class="docent-claim docent-claim-supported" data-s="1">Quarter' in html
    assert 'data-why="Not found in the sources."' in html
    assert 'href="https://example.org/guide"' in html and "\ue000" not in html


def test_what_the_window_says_of_a_sentence() -> None:
    assert why({"verdict": "supported", "source": {"n": 1}}) == ""
    assert why({"verdict": "unsupported", "source": None}) == "Not found in the sources."
    assert (
        why(
            {
                "verdict": "partly",
                "source": {"n": 1},
                "missing": ["10 July 1857", "Belgrade"],
                "found": {"10 July 1857": "10 July 1856"},
            }
        )
        == "The passage says 10 July 1856, not 10 July 1857; it doesn't mention Belgrade."
    )
    checked = [{"verdict": v} for v in ("supported", "partly", "supported")]
    assert summary(checked) == "2 of 3 sentences found in the sources (1 only in part)"
    assert summary([{"verdict": "supported"}]) == "1 of 1 sentence found in the sources"


def test_the_check_line_says_what_is_wrong_before_what_was_found() -> None:
    """ "3 of 4 found" must not reassure when the first sentence says the opposite of its
    source, nor "1 of 2 found" when the other sentence is found nowhere."""
    wrong = {
        "verdict": "partly",
        "missing": ["can transfer"],
        "found": {"can transfer": "cannot transfer"},
    }
    right = {"verdict": "supported"}
    assert summary([wrong, right, right, right]) == (
        "The first sentence contradicts the sources · 3 of 4 found"
    )
    assert summary([right, wrong, wrong]) == "2 sentences contradict the sources · 1 of 3 found"
    assert summary([right, {"verdict": "unsupported"}]) == (
        "1 sentence not found in the sources · 1 of 2 found"
    )
    lacking = {"verdict": "partly", "missing": ["Belgrade"], "found": {}}
    assert summary([wrong, {"verdict": "unsupported"}, lacking, right]) == (
        "The first sentence contradicts the sources · 1 not found · 1 only in part · 1 of 4 found"
    )
    assert worrying([right, wrong]) and not worrying([right, lacking])
    text = "Yes, you can transfer it. It takes a form."
    support = [
        {**wrong, "start": 0, "end": 25, "source": {"n": 1}},
        {**right, "start": 26, "end": 42, "source": {"n": 1}},
    ]
    html = render(text, [{"n": 1, "file": "leave.pdf", "page": 2}], claim_wraps(support))
    assert 'class="docent-claim docent-claim-partly docent-claim-contradicts"' in html
    assert "The passage says cannot transfer, not can transfer." in html


def test_a_sentence_with_nothing_to_check_is_plain_text_and_not_counted() -> None:
    text = "Sure. The rate rose to 12% [1]. Happy to help!"
    support = [
        {"start": 0, "end": 5, "verdict": "none", "source": None},
        {"start": 6, "end": 31, "verdict": "supported", "source": {"n": 1}},
        {"start": 32, "end": 46, "verdict": "none", "source": None},
    ]
    html = render(text, [{"n": 1, "file": "tax.pdf", "page": 2}], claim_wraps(support))
    assert html.count("docent-claim ") == 1 and 'data-s="1"' in html
    assert "<p>Sure. <span" in html and "Happy to help!</p>" in html
    assert summary(support) == "1 of 1 sentence found in the sources"


def test_a_source_read_by_ocr_is_marked_scanned_with_its_lowest_confidence() -> None:
    sources = [
        {
            "n": 1,
            "file": "scan.pdf",
            "path": "scan.pdf",
            "page": 2,
            "ocr": True,
            "ocr_confidence": 0.93,
        },
        {
            "n": 2,
            "file": "scan.pdf",
            "path": "scan.pdf",
            "page": 3,
            "ocr": True,
            "ocr_confidence": 0.81,
        },
        {"n": 3, "file": "notes.md", "path": "notes.md", "page": None},
    ]
    scan, notes = group_sources(sources)
    assert scan.scanned and scan.confidence == 0.81
    assert not notes.scanned


def test_the_library_says_what_ocr_left_uncertain_and_how_far_scans_are() -> None:
    from app.services.documents import DocumentView
    from ingest.pipeline.progress import LibraryProgress, OcrProgress
    from ui.library.status_text import detail, progress_line

    doc = DocumentView(
        "d",
        "scan.pdf",
        "scan.pdf",
        "ready",
        12,
        30,
        None,
        "",
        note="4 pages read with low confidence",
    )
    assert detail(doc) == "12 pages · 30 chunks · 4 pages read with low confidence"
    scans = OcrProgress(pages_done=12, pages_total=200, pages_per_second=0.4, eta_seconds=470)
    line = progress_line(LibraryProgress(1, 3, 0, 40, 2.0, None, ocr=scans))
    assert line.endswith("OCR: 12 of 200 pages · 0.4 pages/s · about 8 min left")


def test_the_check_line_as_text_says_first_that_the_answer_misses_the_question() -> None:
    support = [{"verdict": "supported"}, {"verdict": "unsupported"}]
    assert check_line(support) == "Check: 1 sentence not found in the sources · 1 of 2 found"
    assert check_line(support, misses_question=True).startswith(
        "Check: This doesn't seem to answer your question · 1 sentence not found"
    )
    assert check_line([{"verdict": "none"}]) == ""  # "Thanks!": nothing was checked
