"""Loaders: real files in, pages (or a reason a person understands) out."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import pytest

from ingest.loaders import (
    CORRUPT_PDF,
    EMPTY_FILE,
    NEEDS_AES,
    NO_TEXT_LAYER,
    PASSWORD_PROTECTED,
    SUPPORTED_SUFFIXES,
    UnreadableFile,
    UnsupportedFile,
    load,
)
from tests.corpus import CORPUS, needs_corpus
from tests.pdfs import make_pdf


def _words(text: str) -> list[str]:
    return text.split()


def test_pdf_pages_keep_their_numbers_and_text(tmp_path: Path) -> None:
    texts = [
        "Alpha page talks about volcanoes and basalt.",
        "Beta page is about " + "glaciers and moraines " * 40,
        "Gamma page mentions tidal pools.",
    ]
    pages = load(make_pdf(tmp_path / "three.pdf", texts))

    assert [page.number for page in pages] == [1, 2, 3]
    for page, text in zip(pages, texts, strict=True):
        assert _words(page.text) == _words(text)  # wrapping may turn spaces into newlines


def test_blank_pages_are_counted_but_empty(tmp_path: Path) -> None:
    pages = load(make_pdf(tmp_path / "gap.pdf", ["First words.", "", "Last words."]))

    assert len(pages) == 3
    assert pages[1].number == 2 and pages[1].text.strip() == ""
    assert "Last words." in pages[2].text


def test_password_protected_pdf(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "locked.pdf", ["Top secret plans."], user_password="hunter2")

    with pytest.raises(UnreadableFile) as caught:
        load(path)

    assert caught.value.reason == PASSWORD_PROTECTED


def test_encrypted_pdf_with_empty_password_is_read(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "restricted.pdf", ["Readable by anyone."], user_password="")

    pages = load(path)

    assert "Readable by anyone." in pages[0].text


def test_pdf_without_text_is_reported_as_scanned(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", ["", ""])

    with pytest.raises(UnreadableFile) as caught:
        load(path)

    assert caught.value.reason == NO_TEXT_LAYER


@pytest.mark.parametrize(
    "content",
    [b"this is not a pdf at all, just words" * 20, b"%PDF-1.7\n\x00\xff garbage \x13\x37" * 50],
)
def test_garbage_named_pdf_is_corrupt(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(content)

    with pytest.raises(UnreadableFile) as caught:
        load(path)

    assert caught.value.reason.startswith(f"{CORRUPT_PDF}: ")
    assert len(caught.value.reason) < 200


def test_truncated_pdf_is_corrupt_or_partial(tmp_path: Path) -> None:
    whole = make_pdf(tmp_path / "whole.pdf", ["Some words here."] * 3).read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(whole[: len(whole) // 3])

    try:
        pages = load(path)
    except UnreadableFile as exc:
        assert exc.reason.startswith(CORRUPT_PDF) or exc.reason == NO_TEXT_LAYER
    else:
        assert pages  # pypdf recovered what it could


@pytest.mark.parametrize("name", ["empty.pdf", "empty.txt", "empty.md", "blank.txt"])
def test_empty_files(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("  \n\n " if name.startswith("blank") else "")

    with pytest.raises(UnreadableFile) as caught:
        load(path)

    assert caught.value.reason == EMPTY_FILE


def test_text_file_is_one_unnumbered_page_with_the_files_text(tmp_path: Path) -> None:
    text = "Line one.\r\nLine two: café, naïve, 東京.\n"
    path = tmp_path / "notes.txt"
    path.write_bytes(text.encode("utf-8"))

    pages = load(path)

    assert len(pages) == 1
    assert pages[0].number is None
    assert pages[0].text == text  # unchanged, so spans are offsets into the file


def test_legacy_encoding_falls_back(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes("Smörgåsbord “quoted” — façade".encode("cp1252"))

    (page,) = load(path)

    assert page.text == "Smörgåsbord “quoted” — façade"


def test_stray_bad_byte_keeps_utf8(tmp_path: Path) -> None:
    path = tmp_path / "mostly.txt"
    path.write_bytes(("déjà vu " * 200).encode("utf-8") + b"\xff")

    (page,) = load(path)

    assert page.text.startswith("déjà vu déjà vu")


def test_binary_file_named_txt(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)

    with pytest.raises(UnreadableFile, match="binary"):
        load(path)


def test_markdown_front_matter_is_stripped_and_title_kept(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text(
        '---\ntitle: "Working While Traveling"\nkeywords: travel, remote\n---\n\n'
        "When you're working from another time zone, say so.\n"
    )

    (page,) = load(path)

    assert page.number is None
    assert page.text == (
        "# Working While Traveling\n\nWhen you're working from another time zone, say so.\n"
    )
    assert "keywords" not in page.text


def test_markdown_without_front_matter_is_untouched(tmp_path: Path) -> None:
    text = "# Title\n\nBody --- with dashes\n---\nmore\n"
    path = tmp_path / "plain.md"
    path.write_text(text)

    assert load(path)[0].text == text


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = tmp_path / "sheet.xlsx"
    path.write_bytes(b"PK\x03\x04")

    with pytest.raises(UnsupportedFile):
        load(path)
    assert {".pdf", ".txt", ".md"} <= SUPPORTED_SUFFIXES


def test_missing_file_is_an_os_error_not_a_reason(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "gone.txt")


# -- the shared corpus (the slowest test here: ~15-25 s) ---------------------------


def _expected_reason(notes: str) -> set[str] | None:
    """The reasons the corpus index's notes call for; None when any outcome is fine."""
    if notes.startswith("EMPTY"):
        return {EMPTY_FILE}
    if notes.startswith("SCANNED"):
        return {NO_TEXT_LAYER}
    if notes.startswith("ENCRYPTED") and "empty user pw" not in notes:
        # Without the 'cryptography' package pypdf cannot even test an AES-256 R6
        # password; the loader then says so instead of guessing.
        return {PASSWORD_PROTECTED, NEEDS_AES}
    return None


@needs_corpus
def test_slow_every_corpus_pdf_loads_or_explains() -> None:
    corpus = CORPUS
    with (corpus / "pdfs_meta" / "pdfs_index.csv").open(newline="") as fh:
        notes = {row["file"]: row["notes"] for row in csv.DictReader(fh)}
    pdfs = sorted((corpus / "pdfs").glob("*.pdf"))
    assert len(pdfs) > 100

    timings: list[tuple[float, str, str]] = []
    problems: list[str] = []
    for path in pdfs:
        note = notes.get(path.name, "")
        began = time.perf_counter()
        try:
            pages = load(path)
            outcome = f"{len(pages)} pages"
            if not any(page.text.strip() for page in pages):
                problems.append(f"{path.name}: pages but no text")
        except UnreadableFile as exc:
            outcome = exc.reason
            if not exc.reason:
                problems.append(f"{path.name}: empty reason")
        except Exception as exc:  # the point of the test: nothing else escapes
            outcome = f"{type(exc).__name__}: {exc}"
            problems.append(f"{path.name}: raised {outcome}")
        elapsed = time.perf_counter() - began
        timings.append((elapsed, path.name, outcome))
        expected = _expected_reason(note)
        if expected is not None and outcome not in expected:
            problems.append(f"{path.name}: expected {sorted(expected)}, got {outcome!r}")
        if "empty user pw" in note or "opens with empty user password" in note:
            if outcome == PASSWORD_PROTECTED:
                problems.append(f"{path.name}: opens with an empty password, got {outcome!r}")
        if elapsed > 20:
            problems.append(f"{path.name}: took {elapsed:.1f}s")

    timings.sort(reverse=True)
    print(f"\n{len(pdfs)} PDFs in {sum(t for t, _, _ in timings):.1f}s; slowest:")
    for elapsed, name, outcome in timings[:5]:
        print(f"  {elapsed:5.2f}s {name} ({outcome})")
    assert not problems, "\n".join(problems)
