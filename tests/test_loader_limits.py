"""Files built to exhaust memory fail fast, inside the loaders, with a reason that names
what was too big; the parser process's memory limit is only the last resort."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from ingest.loaders import UnreadableFile, load
from ingest.loaders.limits import TEXT_CHARS, CappedPart
from ingest.parsing.tasks import PAGE_CHARS, read_document
from tests.bombs import P_NS, R_NS, docx_long_text, docx_many_styles, rels_part


def _reason(path: Path) -> str:
    with pytest.raises(UnreadableFile) as refused:
        load(path)
    return refused.value.reason


def test_a_run_of_text_past_the_limit_is_refused_without_reading_the_rest(
    tmp_path: Path,
) -> None:
    path = docx_long_text(tmp_path / "long.docx", chars=64 << 20)

    reason = _reason(path)

    assert reason.startswith("this Word file has a run of more than 1,048,576 characters")
    assert "(part word/document.xml)" in reason


def test_a_part_parsed_whole_may_hold_only_so_many_elements(tmp_path: Path) -> None:
    path = docx_many_styles(tmp_path / "styles.docx", 300_000)

    reason = _reason(path)

    assert reason.startswith("this Word file has more than 250,000 XML elements in one part")
    assert "(part word/styles.xml)" in reason


def test_a_part_is_cut_off_at_its_byte_limit_whatever_its_header_says() -> None:
    for how in ("all", "blocks"):
        part = CappedPart(io.BytesIO(b"x" * 100), "word/document.xml", "Word", limit=64)
        with pytest.raises(UnreadableFile) as refused:
            if how == "all":
                part.read()
            else:
                while part.read(16):
                    pass
        assert refused.value.reason.startswith("this Word file expands to more than 64 bytes")
    exact = CappedPart(io.BytesIO(b"x" * 64), "word/document.xml", "Word", limit=64)
    assert exact.read() == b"x" * 64  # at the limit is fine


def test_entity_expansion_is_still_refused_by_expat(tmp_path: Path) -> None:
    """Billion laughs, expanded in an attribute, which no limit of ours counts."""
    entities = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {b} "{("&" + a + ";") * 10}">'
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    path = tmp_path / "laughs.docx"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><!DOCTYPE d [{entities}]>'
            '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
            '<w:body><w:p w:rsidR="&i;"><w:r><w:t>Hi</w:t></w:r></w:p></w:body></w:document>',
        )

    assert _reason(path).startswith("damaged Word file")


def test_a_slide_whose_text_would_fill_the_app_is_refused_at_the_boundary(
    tmp_path: Path,
) -> None:
    """Each run is under the text limit, but the page they make is too big to hand over."""
    run = "<a:p><a:r><a:t>" + "a" * (TEXT_CHARS - 1) + "</a:t></a:r></a:p>"
    runs = PAGE_CHARS // (TEXT_CHARS - 1) + 1
    path = tmp_path / "deck.pptx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        slides = rels_part(("slide", "slides/slide1.xml"))
        package.writestr("ppt/_rels/presentation.xml.rels", slides)
        package.writestr(
            "ppt/presentation.xml",
            f'<p:presentation {P_NS} {R_NS}><p:sldIdLst><p:sldId id="256" r:id="rId1"/>'
            "</p:sldIdLst></p:presentation>",
        )
        package.writestr(
            "ppt/slides/slide1.xml",
            f'<p:sld {P_NS} xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
            f"<p:cSld><p:spTree><p:sp><p:txBody>{run * runs}</p:txBody></p:sp>"
            "</p:spTree></p:cSld></p:sld>",
        )

    with pytest.raises(UnreadableFile) as refused:
        list(read_document(str(path), "off", None))

    assert refused.value.reason.startswith("page 1 of this file holds more than 8,388,608")


def test_a_csv_row_with_too_many_fields_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text("name,value\n" + "a," * 150_000 + "\n")

    assert _reason(path).startswith("a row of this CSV file has more than 100,000 fields")


@pytest.mark.parametrize(
    "row",
    ["a" * (5 << 20), ",".join(['"' + "a line inside quotes\n" * 40_000 + '"'] * 6)],
    ids=["one line", "quoted lines"],
)
def test_a_csv_row_too_long_is_refused_before_the_csv_reader_builds_it(
    tmp_path: Path, row: str
) -> None:
    path = tmp_path / "long.csv"
    path.write_text("name,value\n" + row + ",1\n")

    assert _reason(path).startswith("a row of this CSV file is longer than 4,194,304 characters")


def test_csv_rows_after_a_long_one_start_counting_again(tmp_path: Path) -> None:
    """The limit is per row: many rows that add up to more than it are fine."""
    path = tmp_path / "many.csv"
    row = "x" * 1000
    path.write_text("name\n" + f"{row}\n" * 10_000)

    pages = load(path)

    assert sum(page.text.count("\n") for page in pages) == 10_000
