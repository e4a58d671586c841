"""Loaders: real files in, pages (or the right reason, in words a person understands) out."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
from fpdf import FPDF

from ingest.loaders import (
    BINARY_CONTENT,
    EMPTY_FILE,
    LOADERS,
    NO_TEXT_DRAWN,
    NO_TEXT_LAYER,
    NOT_A_PDF,
    PASSWORD_PROTECTED,
    SUPPORTED_SUFFIXES,
    UnreadableFile,
    UnsupportedFile,
    load,
    open_document,
)
from ingest.pipeline.chunker import chunk_pages
from tests.corpus import CORPUS, needs_corpus
from tests.pdfs import NO_XREF_PDF, make_pdf

DAMAGED = "damaged PDF: "


def _words(text: str) -> list[str]:
    return text.split()


def _reason(path: Path) -> str:
    with pytest.raises(UnreadableFile) as caught:
        load(path)
    return caught.value.reason


# -- PDF ------------------------------------------------------------------------------


def test_pdf_pages_keep_their_numbers_and_text(tmp_path: Path) -> None:
    texts = [
        "Alpha page talks about volcanoes and basalt.",
        "Beta page is about " + "glaciers and moraines " * 40,
        "Gamma page mentions tidal pools.",
    ]
    with open_document(make_pdf(tmp_path / "three.pdf", texts)) as document:
        assert document.page_count == 3  # known before any page is read
        pages = list(document.pages())

    assert [page.number for page in pages] == [1, 2, 3]
    for page, text in zip(pages, texts, strict=True):
        assert page.offset == 0
        assert _words(page.text) == _words(text)  # wrapping may turn spaces into newlines


def test_pdf_pages_come_one_at_a_time(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "two.pdf", ["First page.", "Second page."])
    document = open_document(path)

    pages = document.pages()
    assert "First page." in next(pages).text
    document.close()  # a reader that stops early lets the file go
    pages.close()


def test_blank_pages_are_counted_but_empty(tmp_path: Path) -> None:
    pages = load(make_pdf(tmp_path / "gap.pdf", ["First words.", "", "Last words."]))

    assert len(pages) == 3
    assert pages[1].number == 2 and pages[1].text.strip() == ""
    assert "Last words." in pages[2].text


@pytest.mark.parametrize("aes", [None, 128, 256])
def test_password_protected_pdf(tmp_path: Path, aes: int | None) -> None:
    path = make_pdf(tmp_path / "locked.pdf", ["Top secret plans."], user_password="pw", aes=aes)

    assert _reason(path) == PASSWORD_PROTECTED


@pytest.mark.parametrize("aes", [None, 128, 256])
def test_encrypted_pdf_with_empty_password_is_read(tmp_path: Path, aes: int | None) -> None:
    # AES needs pypdf's crypto extra: this fails if the dependency goes missing.
    path = make_pdf(tmp_path / "open.pdf", ["Readable by anyone."], user_password="", aes=aes)

    (page,) = load(path)

    assert "Readable by anyone." in page.text


def test_pdf_with_only_pictures_is_reported_as_scanned(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", ["", ""], image_pages=frozenset({1, 2}))

    assert _reason(path) == NO_TEXT_LAYER


def test_pdf_with_blank_pages_is_not_called_a_scan(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "blank.pdf", ["", ""])

    assert _reason(path) == NO_TEXT_DRAWN


def test_text_named_pdf_is_not_a_pdf(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_bytes(b"this is not a pdf at all, just words" * 20)

    assert _reason(path) == NOT_A_PDF


def test_garbage_after_a_pdf_header_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n\x00\xff garbage \x13\x37" * 50)

    reason = _reason(path)

    assert reason.startswith(DAMAGED) and reason.endswith("saving a copy may repair it")
    assert len(reason) < 250


def test_truncated_pdf_is_damaged_or_partial(tmp_path: Path) -> None:
    whole = make_pdf(tmp_path / "whole.pdf", ["Some words here."] * 3).read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(whole[: len(whole) // 3])

    try:
        pages = load(path)
    except UnreadableFile as exc:
        assert exc.reason.startswith(DAMAGED) or exc.reason in {NO_TEXT_DRAWN, NO_TEXT_LAYER}
    else:
        assert pages  # pypdf recovered what it could


def test_pdf_without_cross_reference_table_is_read(tmp_path: Path) -> None:
    # Like pdfminer's simple1.pdf: objects and a trailer, but no xref table or startxref.
    path = tmp_path / "simple.pdf"
    path.write_bytes(NO_XREF_PDF)

    (page,) = load(path)

    assert page.text.strip() == "Hello World"


def test_pdf_bookmarks_become_heading_paths_placed_where_their_titles_are(
    tmp_path: Path,
) -> None:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)

    def write(text: str) -> None:
        pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")

    pdf.add_page()
    pdf.start_section("Introduction", level=0)
    write("Introduction\nWhy we looked.")
    pdf.add_page()
    write("More of the introduction, on page two.")
    pdf.start_section("Methods", level=0)
    write("Methods\nWe measured the water every morning.")
    pdf.start_section("Sampling", level=1)
    write("Sampling\nOne litre a day.")
    path = tmp_path / "report.pdf"
    pdf.output(str(path))

    chunks = list(chunk_pages(load(path), size=1000, overlap=0))

    assert [(c.page, c.heading, c.text.split("\n")[0]) for c in chunks] == [
        (1, "Introduction", "Introduction"),
        (2, "Introduction", "More of the introduction, on page two."),
        (2, "Methods", "Methods"),
        (2, "Methods > Sampling", "Sampling"),
    ]


# -- text files -------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", sorted(SUPPORTED_SUFFIXES))
def test_zero_byte_file_of_every_type_is_empty(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"empty{suffix}"
    path.write_bytes(b"")

    assert _reason(path) == EMPTY_FILE


@pytest.mark.parametrize("suffix", [".txt", ".md", ".rst", ".csv"])
def test_blank_text_file_is_empty(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"blank{suffix}"
    path.write_text("  \n\n \t\r\n")

    assert _reason(path) == EMPTY_FILE


def test_text_file_keeps_the_files_text_so_spans_are_file_positions(tmp_path: Path) -> None:
    text = "Line one.\r\nLine two: café, naïve, 東京.\n"
    path = tmp_path / "notes.txt"
    path.write_bytes(text.encode("utf-8"))

    with open_document(path) as document:
        assert document.page_count is None
        (page,) = document.pages()

    assert (page.number, page.offset, page.text) == (None, 0, text)


def test_utf8_byte_order_mark_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffHello".encode())

    assert load(path)[0].text == "Hello"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Smörgåsbord “quoted” — façade", "cp1252"),
        ("Les élèves étaient déjà là, à côté du château. " * 20, "cp1252"),
        ("Größe und Straße, schön überall. " * 20, "cp1252"),
        ("Zażółć gęślą jaźń. Łódź jest dużym miastem w Polsce. " * 20, "cp1250"),
        ("Привет мир, это текст на русском языке. " * 20, "cp1251"),
        ("日本語の文章です。東京は大きい都市です。" * 20, "shift_jis"),
        ("Hello world, this is text in UTF-16. " * 20, "utf-16"),
        ("Hello world, this is text in UTF-16 without a mark. " * 20, "utf-16-le"),
    ],
)
def test_legacy_encodings_are_detected(tmp_path: Path, text: str, encoding: str) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes(text.encode(encoding))

    (page,) = load(path)

    assert page.text == text


def test_stray_bad_byte_keeps_utf8(tmp_path: Path) -> None:
    path = tmp_path / "mostly.txt"
    path.write_bytes(("déjà vu " * 200).encode("utf-8") + b"\xff")

    (page,) = load(path)

    assert page.text.startswith("déjà vu déjà vu")


def test_binary_file_named_txt(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)

    assert _reason(path) == BINARY_CONTENT


@pytest.mark.parametrize("seed", range(3))
def test_random_binary_without_nul_bytes_named_txt(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / "random.txt"
    path.write_bytes(bytes(rng.randrange(1, 256) for _ in range(300_000)))

    assert _reason(path) == BINARY_CONTENT


def test_binary_past_a_text_header_is_found(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = tmp_path / "dump.txt"
    head = b"A perfectly ordinary first line of text.\n" * 2000  # 82 kB of text
    path.write_bytes(head + bytes(rng.randrange(1, 256) for _ in range(400_000)))

    assert _reason(path) == BINARY_CONTENT


@pytest.mark.parametrize("suffix", [".txt", ".md", ".rst", ".csv", ".html"])
@pytest.mark.parametrize("seed", range(4))
def test_any_bytes_load_or_explain_never_crash(tmp_path: Path, suffix: str, seed: int) -> None:
    rng = random.Random(seed)
    words = ["naïve", "東京", "text", "\n", "# Head", "a,b;c", "<p>", "---", "\r\n", "\x00"]
    data = "".join(rng.choice(words) for _ in range(2000)).encode(
        rng.choice(["utf-8", "utf-16", "cp1252", "shift_jis", "utf-8"]), errors="ignore"
    )
    cut = rng.randrange(len(data))
    path = tmp_path / f"odd{suffix}"
    path.write_bytes(data[:cut] + bytes(rng.randrange(256) for _ in range(50)) + data[cut:])

    try:
        pages = load(path)
    except UnreadableFile as exc:
        assert exc.reason
    else:
        assert all(isinstance(page.text, str) for page in pages)


# -- the registry -----------------------------------------------------------------------


def test_one_list_of_supported_types() -> None:
    assert SUPPORTED_SUFFIXES == frozenset(LOADERS)
    expected = {".pdf", ".txt", ".md", ".rst", ".csv", ".html", ".docx", ".pptx", ".epub"}
    assert expected <= SUPPORTED_SUFFIXES
    assert all(suffix == suffix.lower() and suffix.startswith(".") for suffix in LOADERS)


def test_suffix_case_does_not_matter(tmp_path: Path) -> None:
    path = tmp_path / "NOTES.TXT"
    path.write_text("Upper-case names are common on Windows.")

    assert load(path)[0].text == "Upper-case names are common on Windows."


def test_unsupported_suffix_names_what_is_supported(tmp_path: Path) -> None:
    path = tmp_path / "drawing.dwg"
    path.write_bytes(b"AC1032")

    with pytest.raises(UnsupportedFile) as caught:
        open_document(path)
    message = str(caught.value)
    assert "drawing.dwg" in message and ".docx" in message and ".png" in message


def test_missing_file_is_an_os_error_not_a_reason(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "gone.txt")


# -- the shared corpus ------------------------------------------------------------------

_NO_TEXT = {NO_TEXT_LAYER, NO_TEXT_DRAWN}


def _problem(name: str, note: str, outcome: str, text: str) -> str | None:
    """What is wrong with a corpus PDF's outcome, given its notes in pdfs_index.csv."""
    loaded = outcome == "loaded"
    if note.startswith("EMPTY"):
        ok = outcome == EMPTY_FILE
    elif note.startswith("SCANNED"):
        ok = outcome == NO_TEXT_LAYER
    elif "empty user pw" in note:
        # encrypted_doc_no_id.pdf opens with the empty password; what it holds is one
        # CCITT fax image of a patent page (and two blank pages): a scan, truly.
        ok = outcome == NO_TEXT_LAYER if "no_id" in name else loaded
    elif note.startswith("ENCRYPTED"):
        ok = outcome == PASSWORD_PROTECTED
    elif note.startswith("MALFORMED"):
        ok = (loaded and bool(text.strip())) or outcome.startswith(DAMAGED)
    elif name == "pdfminer__simple1.pdf":  # no xref table, read by object scan
        ok = loaded and "Hello World" in text
    else:
        ok = loaded or outcome in _NO_TEXT or outcome.startswith(DAMAGED)
    return None if ok else f"{name}: {outcome!r} does not fit its notes {note!r}"


@pytest.mark.slow
@needs_corpus
def test_every_corpus_pdf_loads_or_gives_the_right_reason() -> None:
    with (CORPUS / "pdfs_meta" / "pdfs_index.csv").open(newline="") as fh:
        notes = {row["file"]: row["notes"] for row in csv.DictReader(fh)}
    pdfs = sorted((CORPUS / "pdfs").glob("*.pdf"))
    assert len(pdfs) > 100

    problems: list[str] = []
    outcomes: dict[str, int] = {}
    for path in pdfs:
        text = ""
        try:
            with open_document(path) as document:
                pages = list(document.pages())
            assert len(pages) == document.page_count
            text = "".join(page.text for page in pages)
            outcome = "loaded"
        except UnreadableFile as exc:
            outcome = exc.reason
        except Exception as exc:  # the point of the test: nothing else escapes
            outcome = f"raised {type(exc).__name__}: {exc}"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if problem := _problem(path.name, notes.get(path.name, ""), outcome, text):
            problems.append(problem)

    print("\n".join(f"{count:4d}  {outcome}" for outcome, count in sorted(outcomes.items())))
    assert not problems, "\n".join(problems)
