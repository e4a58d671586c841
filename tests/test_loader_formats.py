"""Each format beyond PDF and plain text: its text, its headings, its bad files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from ingest.document_parts import Page
from ingest.loaders import UnreadableFile, load, open_document
from ingest.pipeline.chunker import chunk_pages
from tests.documents import make_docx, make_epub, make_pptx


def _reason(path: Path) -> str:
    with pytest.raises(UnreadableFile) as caught:
        load(path)
    return caught.value.reason


def _headings(pages: list[Page]) -> list[tuple[str, ...]]:
    return [section.path for page in pages for section in page.sections]


def _at_sections(pages: list[Page]) -> list[str]:
    """The first line of text at each section's start."""
    lines = []
    for page in pages:
        for section in page.sections:
            lines.append(page.text[section.start - page.offset :].split("\n", 1)[0])
    return lines


# -- Markdown ---------------------------------------------------------------------------


def test_markdown_front_matter_is_skipped_and_its_title_heads_the_path(tmp_path: Path) -> None:
    front = '---\ntitle: "Working While Traveling"\nkeywords: travel, remote\n---\n'
    body = "\nWhen you're away, say so.\n\n## Time zones\n\nPost your hours.\n"
    path = tmp_path / "page.md"
    path.write_text(front + body)

    (page,) = load(path)

    assert (page.offset, page.text) == (len(front), body)  # the file's own characters
    assert "keywords" not in page.text
    assert _headings([page]) == [
        ("Working While Traveling",),
        ("Working While Traveling", "Time zones"),
    ]
    chunks = list(chunk_pages([page], size=1000, overlap=0))
    assert [(c.heading, c.text) for c in chunks] == [
        ("Working While Traveling", "When you're away, say so."),
        ("Working While Traveling > Time zones", "## Time zones\n\nPost your hours."),
    ]


def test_markdown_headings_become_sections_and_code_fences_hide_hashes(tmp_path: Path) -> None:
    text = (
        "# Guide\n\nIntro.\n\n## Setup\n\n```sh\n# not a heading\n```\n\n"
        "Setext title\n------------\n\nBody.\n\n### Deeper ###\n\nMore.\n\n# Appendix\n"
    )
    path = tmp_path / "guide.md"
    path.write_text(text)

    pages = load(path)

    assert _headings(pages) == [
        ("Guide",),
        ("Guide", "Setup"),
        ("Guide", "Setext title"),
        ("Guide", "Setext title", "Deeper"),
        ("Appendix",),
    ]
    assert _at_sections(pages) == [
        "# Guide",
        "## Setup",
        "Setext title",
        "### Deeper ###",
        "# Appendix",
    ]


def test_markdown_without_front_matter_is_untouched(tmp_path: Path) -> None:
    text = "# Title\n\nBody --- with dashes\n\nmore\n"
    path = tmp_path / "plain.md"
    path.write_text(text)

    (page,) = load(path)

    assert (page.offset, page.text) == (0, text)


def test_an_h1_repeating_the_front_matter_title_is_not_doubled(tmp_path: Path) -> None:
    path = tmp_path / "dup.md"
    path.write_text("---\ntitle: Setup\n---\n# Setup\n\n## Install\n\nSteps.\n")

    assert _headings(load(path)) == [("Setup",), ("Setup",), ("Setup", "Install")]


# -- reStructuredText -------------------------------------------------------------------


def test_rst_titles_nest_by_the_order_their_adornments_appear(tmp_path: Path) -> None:
    text = (
        "=========\nThe Title\n=========\n\nIntro.\n\n"
        "Section A\n---------\n\nText A.\n\nSub of A\n~~~~~~~~\n\nText.\n\n"
        "Section B\n---------\n\nText B.\n\n----------\n\nAfter a transition.\n"
    )
    path = tmp_path / "doc.rst"
    path.write_text(text)

    pages = load(path)

    assert _headings(pages) == [
        ("The Title",),
        ("The Title", "Section A"),
        ("The Title", "Section A", "Sub of A"),
        ("The Title", "Section B"),
    ]
    assert _at_sections(pages)[0] == "========="  # the overline starts the section
    assert pages[0].text == text


# -- CSV --------------------------------------------------------------------------------


def test_csv_rows_are_labelled_with_their_headers(tmp_path: Path) -> None:
    path = tmp_path / "cities.csv"
    path.write_text('City,Population,Note\nOslo,709000,"capital, largest"\nBergen,,\n')

    (page,) = load(path)

    assert page.text == ("City: Oslo; Population: 709000; Note: capital, largest\nCity: Bergen\n")


def test_csv_delimiter_and_encoding_are_detected(tmp_path: Path) -> None:
    path = tmp_path / "semi.csv"
    rows = "Straße;Größe\n" + "".join(f"Königsweg {n};{n * 10}\n" for n in range(30))
    path.write_bytes(rows.encode("cp1252"))

    (page,) = load(path)

    assert page.text.startswith("Straße: Königsweg 0; Größe: 0\n")


def test_csv_quoted_values_may_span_lines(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text('id,text\n1,"first line\nsecond line"\n2,plain\n')

    (page,) = load(path)

    assert page.text == "id: 1; text: first line second line\nid: 2; text: plain\n"


# -- HTML -------------------------------------------------------------------------------


def test_html_visible_text_with_headings_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<!DOCTYPE html><html><head><title>Site</title><style>p{color:red}</style>"
        "<script>var secret = 1;</script></head><body><nav>Home</nav>"
        "<h1>Guide</h1><p>Hello   <b>bold</b>\n world &amp; more</p>"
        "<h2>Prices</h2><table><tr><th>Item</th><th>Cost</th></tr>"
        "<tr><td>Tea</td><td>3 &euro;</td></tr></table>"
        "<pre>keep   this\n  spacing</pre></body></html>"
    )

    (page,) = load(path)

    assert page.text == (
        "Home\n\nGuide\n\nHello bold world & more\n\nPrices\n\n"
        "Item | Cost\nTea | 3 €\n\nkeep   this\n  spacing"
    )
    assert "secret" not in page.text and "color" not in page.text
    assert _headings([page]) == [("Guide",), ("Guide", "Prices")]
    assert _at_sections([page]) == ["Guide", "Prices"]


def test_html_declared_charset_is_used(tmp_path: Path) -> None:
    path = tmp_path / "old.html"
    html = '<html><head><meta charset="windows-1252"></head><body><p>café “quotes”</p></body>'
    path.write_bytes(html.encode("cp1252"))

    assert load(path)[0].text == "café “quotes”"


def test_html_wrongly_declared_charset_does_not_garble_utf8(tmp_path: Path) -> None:
    path = tmp_path / "liar.html"
    meta = '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
    html = f"{meta}<p>naïve — ok</p>"
    path.write_bytes(html.encode("utf-8"))

    assert load(path)[0].text == "naïve — ok"


def test_html_without_closing_head_still_shows_the_body(tmp_path: Path) -> None:
    path = tmp_path / "sloppy.html"
    path.write_text("<html><head><title>T</title><body><p>Visible text.")

    assert load(path)[0].text == "Visible text."


def test_html_with_no_visible_text(tmp_path: Path) -> None:
    path = tmp_path / "script.html"
    path.write_text("<html><head><script>let x = 1;</script></head><body></body></html>")

    assert _reason(path) == "no text to index in this web page"


# -- Word -------------------------------------------------------------------------------


def test_docx_paragraphs_headings_and_tables(tmp_path: Path) -> None:
    path = make_docx(
        tmp_path / "report.docx",
        [
            ("Title", "Annual Report"),
            ("", "An introduction."),
            ("Heading 1", "Costs"),
            ("", "Costs rose."),
            ("Heading 2", "Travel"),
            ("", "Travel fell."),
        ],
        table=[["Item", "Cost"], ["Tea", "3"]],
    )

    with open_document(path) as document:
        assert document.page_count is None
        pages = list(document.pages())

    text = "".join(page.text for page in pages)
    assert text == (
        "Annual Report\n\nAn introduction.\n\nCosts\n\nCosts rose.\n\nTravel\n\n"
        "Travel fell.\n\nItem | Cost\n\nTea | 3\n\n"
    )
    assert _headings(pages) == [
        ("Annual Report",),
        ("Annual Report", "Costs"),
        ("Annual Report", "Costs", "Travel"),
    ]
    chunks = list(chunk_pages(pages, size=1000, overlap=0))
    assert [c.heading for c in chunks][-1] == "Annual Report > Costs > Travel"


def test_docx_without_text(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "blank.docx", [])

    assert _reason(path) == "no text to index in this Word document"


@pytest.mark.parametrize(("suffix", "kind"), [(".docx", "Word"), (".pptx", "PowerPoint")])
def test_office_file_saved_with_a_password(tmp_path: Path, suffix: str, kind: str) -> None:
    # Office encrypts a password-protected file into a compound (OLE2) file, not a zip.
    path = tmp_path / f"locked{suffix}"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600)

    reason = _reason(path)

    assert reason.startswith(f"password-protected or old-format {kind} file")
    assert f"unprotected {suffix}" in reason


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".epub"])
def test_package_that_is_not_a_zip_is_damaged(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"broken{suffix}"
    path.write_bytes(b"this was never a zip file " * 10)

    assert _reason(path).startswith("damaged ")


def test_docx_missing_its_document_part_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "hollow.docx"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("[Content_Types].xml", "<Types/>")

    assert "main document part is missing" in _reason(path)


# -- PowerPoint -------------------------------------------------------------------------


def test_pptx_one_page_per_slide_titled_with_notes(tmp_path: Path) -> None:
    path = make_pptx(
        tmp_path / "deck.pptx",
        [
            ("Welcome", ["First point", "Second point"], "Say hello first."),
            (None, ["A slide without a title"], ""),
            ("Wrap-up", ["Questions"], ""),
        ],
    )

    with open_document(path) as document:
        assert document.page_count == 3
        pages = list(document.pages())

    assert [page.number for page in pages] == [1, 2, 3]
    assert pages[0].text == "Welcome\n\nFirst point\nSecond point\n\nSay hello first."
    assert pages[1].text == "A slide without a title"
    chunks = list(chunk_pages(pages, size=1000, overlap=0))
    # The untitled slide does not inherit "Welcome".
    assert [(c.page, c.heading) for c in chunks] == [(1, "Welcome"), (2, ""), (3, "Wrap-up")]


# -- EPUB -------------------------------------------------------------------------------


def test_epub_chapters_in_spine_order_under_the_book_title(tmp_path: Path) -> None:
    path = make_epub(
        tmp_path / "book.epub",
        "A Short Book",
        [
            "<h1>Chapter One</h1><p>It was a dark night.</p>",
            "<h1>Chapter Two</h1><h2>Morning</h2><p>The sun rose.</p>",
        ],
    )

    pages = load(path)

    text = "".join(page.text for page in pages)
    assert text == "Chapter One\n\nIt was a dark night.Chapter Two\n\nMorning\n\nThe sun rose."
    assert [page.offset for page in pages] == [0, len("Chapter One\n\nIt was a dark night.")]
    assert _headings(pages) == [
        ("A Short Book", "Chapter One"),
        ("A Short Book", "Chapter Two"),
        ("A Short Book", "Chapter Two", "Morning"),
    ]


def test_epub_with_drm(tmp_path: Path) -> None:
    path = make_epub(tmp_path / "drm.epub", "Locked", ["<p>Secret.</p>"], encrypted=True)

    assert _reason(path) == "copy-protected (DRM) e-book: Docent can only read e-books without DRM"


def test_csv_without_a_header_row_is_not_labelled_with_data(tmp_path: Path) -> None:
    path = tmp_path / "plain.csv"
    path.write_text("1,Oslo,709000\n2,Bergen,291000\n")

    assert load(path)[0].text == "1; Oslo; 709000\n2; Bergen; 291000\n"


def test_markdown_with_nothing_but_front_matter_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "stub.md"
    path.write_text("---\ntitle: Coming soon\n---\n\n")

    assert _reason(path) == "file is empty"


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def test_docx_text_box_is_read_once_and_deleted_text_not_at_all(tmp_path: Path) -> None:
    # Word stores a text box twice (a modern Choice and a legacy Fallback copy) inside
    # the paragraph that anchors it; tracked deletions keep their text in w:delText.
    box = "<w:txbxContent><w:p><w:r><w:t>Boxed note.</w:t></w:r></w:p></w:txbxContent>"
    body = (
        "<w:p><w:r><w:t>Before the box.</w:t></w:r>"
        f"<w:r><mc:AlternateContent><mc:Choice Requires='wps'>{box}</mc:Choice>"
        f"<mc:Fallback>{box}</mc:Fallback></mc:AlternateContent></w:r>"
        "<w:del><w:r><w:delText>Removed words.</w:delText></w:r></w:del>"
        "<w:r><w:t xml:space='preserve'> After it.</w:t></w:r></w:p>"
        "<w:sdt><w:sdtContent><w:p><w:r><w:t>In a content control.</w:t></w:r></w:p>"
        "</w:sdtContent></w:sdt>"
    )
    path = tmp_path / "box.docx"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr(
            "word/document.xml",
            f"<w:document xmlns:w='{_W}' xmlns:mc='{_MC}'><w:body>{body}</w:body></w:document>",
        )

    (page,) = load(path)

    assert page.text == "Boxed note.\n\nBefore the box. After it.\n\nIn a content control.\n\n"
