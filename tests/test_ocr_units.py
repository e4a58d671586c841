"""The parts of OCR that need no model: reading order, telling text from garbage, which
pages a loader hands to the reader, spreadsheets, the lanes and their progress."""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from ingest.document_parts import Page, PageOcr, PlacedLine
from ingest.loaders import load, open_document
from ingest.loaders.base import Resumable
from ingest.loaders.errors import NO_TEXT_LAYER, OCR_OFF, UnreadableFile
from ingest.loaders.images import ImageDocument
from ingest.ocr.layout import reading_text
from ingest.ocr.page_reader import DeferredReader, Line, Lines, NeedsOcr, OcrText
from ingest.ocr.reader import judge
from ingest.ocr.script import plausible_share, usable_text_layer
from ingest.ocr.status_line import OcrTally
from ingest.pipeline.chunker import chunk_pages
from ingest.pipeline.progress import EventBus, IngestEvent
from ingest.pipeline.queue import Job, WorkQueue
from tests.pdfs import make_pdf
from tests.scans import image_pdf, mixed_pdf, page_image, tiff, workbook


class FakeReader:
    """A PageReader that "reads" a page as the size of its image, and remembers each."""

    def __init__(self, confidence: float = 0.95) -> None:
        self.confidence = confidence
        self.sizes: list[tuple[int, int]] = []

    def read(self, draw: Callable[[], Image.Image]) -> OcrText:
        image = draw()
        self.sizes.append(image.size)
        return OcrText(f"read {image.size[0]}x{image.size[1]} pixels", self.confidence)


def _line(x: float, y: float, text: str, width: float = 300, height: float = 30) -> Line:
    points = ((x, y), (x + width, y), (x + width, y + height), (x, y + height))
    return Line(points, text, 0.98)


# -- reading order ----------------------------------------------------------------------


def test_two_columns_read_left_then_right_under_a_full_width_title() -> None:
    lines = [
        _line(100, 50, "A title across the page", width=900),
        _line(600, 130, "right column, line one"),
        _line(100, 132, "left column, line one"),
        _line(600, 165, "right column, line two"),
        _line(100, 168, "left column, line two"),
        _line(100, 290, "after a gap on the left"),
    ]
    text = reading_text(Lines(lines, 0, 1100, 1400))
    assert text == (
        "A title across the page\n\nleft column, line one\nleft column, line two"
        "\n\nafter a gap on the left\n\nright column, line one\nright column, line two"
    )


def test_narrow_cells_in_aligned_rows_read_as_a_table() -> None:
    rows = [("Name", "Count"), ("Apple", "12"), ("Kiwi", "7")]
    lines = [
        _line(x, 100 + 40 * i, cell, width=120)
        for i, row in enumerate(rows)
        for x, cell in zip((100, 600), row, strict=True)
    ]
    assert reading_text(Lines(lines, 0, 900, 600)) == "Name Count\nApple 12\nKiwi 7"


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_lines_of_a_turned_page_are_put_back_in_order(rotation: int) -> None:
    upright = [_line(100, 100 + 40 * i, f"line {i}") for i in range(3)]
    width, height = 800, 600

    def turn(x: float, y: float) -> tuple[float, float]:  # the page as the scanner saw it
        if rotation == 90:
            return height - y, x
        if rotation == 180:
            return width - x, height - y
        return y, width - x

    turned = [
        Line(tuple(turn(x, y) for x, y in line.points), line.text, line.score) for line in upright
    ]
    size = (height, width) if rotation in (90, 270) else (width, height)
    assert reading_text(Lines(turned, rotation, *size)) == "line 0\nline 1\nline 2"


def test_a_skewed_page_keeps_its_lines_apart() -> None:
    slope = 0.05  # about 3 degrees: each long line climbs 15 px, half a line's height
    lines = []
    for i, words in enumerate(["first line of text", "second line of text", "third line"]):
        y = 100 + 36 * i
        points = ((100, y), (400, y + 300 * slope), (400, y + 300 * slope + 30), (100, y + 30))
        lines.append(Line(points, words, 0.97))
    text = reading_text(Lines(lines, 0, 600, 400))
    assert text == "first line of text\nsecond line of text\nthird line"


# -- text or garbage --------------------------------------------------------------------


def test_a_text_layer_is_used_unless_it_is_mostly_symbols_or_a_stamp_on_a_scan() -> None:
    assert usable_text_layer("Quarterly report: revenue rose 4% in 2023.", draws_images=False)
    assert usable_text_layer("Page 3", draws_images=False)  # short, but no scan under it
    assert not usable_text_layer("Page 3", draws_images=True)  # a scanner's stamp
    assert not usable_text_layer("!\"#$%&'() *+,-./ :;<=>? @[]^_ {|}~ ¤¦§¨", draws_images=False)


def test_nonsense_in_mixed_alphabets_is_not_taken_for_text() -> None:
    assert plausible_share("The quick brown fox, state-of-the-art (1984) jumps.") > 0.9
    assert plausible_share("Λa46 xCL! to LLl aIxl AUUGIxλ ci ua") < 0.5


def test_a_page_of_lines_the_models_do_not_know_was_not_read() -> None:
    blanks = [Line(_line(100, 60 * i, "").points, "      ,", 0.86) for i in range(5)]
    result = judge(Lines(blanks, 0, 800, 600))
    assert result == OcrText("", None, unread=True)
    one_speck = judge(Lines(blanks[:1], 0, 800, 600))  # a speck on a photo says nothing
    assert not one_speck.unread


def test_each_line_read_is_placed_on_its_page_as_fractions_of_it() -> None:
    straight = _line(100, 60, "Kestrel sails at dawn.", width=400, height=30)
    slanted = Line(((100, 330), (500, 310), (500, 340), (100, 360)), "from the north quay.", 0.97)
    speck = Line(_line(700, 500, "").points, "      ,", 0.5)
    read = judge(Lines([straight, slanted, speck], 0, 800, 600))
    assert read.lines == (
        PlacedLine(
            "Kestrel sails at dawn.", ((0.125, 0.1), (0.625, 0.1), (0.625, 0.15), (0.125, 0.15))
        ),
        # slanted: its own corners, so the viewer turns its box with it
        PlacedLine(
            "from the north quay.", ((0.125, 0.55), (0.625, 0.5167), (0.625, 0.5667), (0.125, 0.6))
        ),
    )  # the speck was not read, so it is not placed


# -- which pages a loader hands to OCR ----------------------------------------------------


def test_a_mixed_pdf_reads_only_its_image_pages_by_ocr(tmp_path: Path) -> None:
    path = mixed_pdf(
        tmp_path / "mixed.pdf",
        ["A typed page about basalt columns.", page_image(["scan"]), "Another typed page."],
    )
    reader = FakeReader()
    with open_document(path, reader) as document:
        pages = list(document.pages())
    assert [p.ocr is not None for p in pages] == [False, True, False]
    assert len(reader.sizes) == 1
    assert pages[1].text.startswith("read ") and pages[1].ocr == PageOcr(0.95)
    width, height = reader.sizes[0]
    assert 1100 < width < 1400 and 1600 < height < 1900  # A4 rendered at 150 dpi


def test_a_pdf_resumed_at_a_page_reads_on_as_a_whole_reading_does(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    typed = mixed_pdf(
        tmp_path / "typed.pdf",
        ["Part one opens.", page_image(["scan"]), "Chapter A goes on.", page_image(["map"])],
    )
    writer = PdfWriter(clone_from=PdfReader(typed))
    part = writer.add_outline_item(title="Part one", page_number=0)
    writer.add_outline_item(title="Chapter A", page_number=2, parent=part)
    writer.add_outline_item(title="Chapter B", page_number=3, parent=part)  # under part one
    path = tmp_path / "book.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    with open_document(path, FakeReader()) as document:
        whole = list(document.pages())
    reader = FakeReader()
    with open_document(path, reader) as document:
        assert isinstance(document, Resumable)
        document.resume_at(3, seen_text=True)
        rest = list(document.pages())
    assert rest == whole[2:]
    assert rest[1].sections[0].path == ("Part one", "Chapter B")
    assert len(reader.sizes) == 1  # the scan on page 2 was not drawn again


def test_ocr_past_its_limit_leaves_the_pages_out_unread_and_says_which(tmp_path: Path) -> None:
    from ingest.parsing.tasks import ScanPlan, read_scan

    path = tiff(tmp_path / "fax.tif", [page_image([str(n)], size=(300 + n, 200)) for n in range(5)])
    count, *pages = read_scan(str(path), ScanPlan(FakeReader, ocr_pages=2), None)
    assert count == 5
    assert [p.text.startswith("read ") for p in pages] == [True, True, False, False, False]
    assert all(p.ocr is not None and p.ocr.left_out for p in pages[2:])
    tally = OcrTally(limit=2)
    for page in pages:
        tally.add(page)
    assert tally.note() == (
        "scanned: 2 pages read by OCR; pages 3–5 left out: OCR reads at most 2 pages of a"
        " file (raise DOCENT_OCR_MAX_PAGES to read more)"
    )
    _, *resumed = read_scan(str(path), ScanPlan(FakeReader, first_page=4, ocr_pages=1), None)
    assert [(p.number, p.text) for p in resumed] == [(4, "read 303x200 pixels"), (5, "")]


def test_in_the_typed_lane_the_first_scanned_page_hands_the_file_over(tmp_path: Path) -> None:
    path = mixed_pdf(tmp_path / "mixed.pdf", ["Typed first.", page_image(["scan"])])
    with open_document(path, DeferredReader()) as document:
        pages = document.pages()
        assert next(pages).text.strip() == "Typed first."
        with pytest.raises(NeedsOcr):
            next(pages)


def test_with_ocr_off_a_scan_says_so_and_a_picture_too(tmp_path: Path) -> None:
    scan = image_pdf(tmp_path / "scan.pdf", [page_image(["scan"])])
    with pytest.raises(UnreadableFile) as caught:
        load(scan)
    assert caught.value.reason == NO_TEXT_LAYER and "DOCENT_OCR=off" in NO_TEXT_LAYER
    page_image(["photo"], size=(400, 200)).save(tmp_path / "photo.png")
    with pytest.raises(UnreadableFile) as refused:
        load(tmp_path / "photo.png")
    assert refused.value.reason == OCR_OFF


def test_a_typed_pdf_never_meets_the_reader(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "typed.pdf", ["Granite cools slowly.", "Basalt forms from lava."])
    reader = FakeReader()
    assert [p.ocr for p in load(path, reader)] == [None, None] and reader.sizes == []


def test_every_frame_of_a_tiff_is_a_page(tmp_path: Path) -> None:
    path = tiff(tmp_path / "fax.tif", [page_image([str(n)], size=(300 + n, 200)) for n in range(3)])
    reader = FakeReader()
    with ImageDocument(path, reader) as document:
        assert document.page_count == 3
        pages = list(document.pages())
    assert [p.number for p in pages] == [1, 2, 3]
    assert reader.sizes == [(300, 200), (301, 200), (302, 200)]


def test_a_picture_claiming_too_many_pixels_fails_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ingest.loaders.images.MAX_PIXELS", 10_000)
    page_image(["big"], size=(200, 100)).save(tmp_path / "big.png")
    with pytest.raises(UnreadableFile) as caught:
        ImageDocument(tmp_path / "big.png", FakeReader())
    assert "decompression bomb" in caught.value.reason


def jpeg_claiming(path: Path, width: int, height: int) -> Path:
    """A small JPEG whose header claims ``width`` × ``height`` pixels (never decoded)."""
    page_image(["big"], size=(64, 48)).save(path, "JPEG")
    data = bytearray(path.read_bytes())
    frame = data.index(b"\xff\xc0")  # SOF0: length, precision, then height and width
    data[frame + 5 : frame + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    path.write_bytes(bytes(data))
    return path


def test_a_picture_is_refused_at_the_number_its_message_names(tmp_path: Path) -> None:
    # 196 megapixels: once refused by Pillow's own limit, naming ours (200,000,000).
    poster = jpeg_claiming(tmp_path / "poster.jpg", 14_000, 14_000)
    with pytest.raises(UnreadableFile) as caught:
        ImageDocument(poster, FakeReader())
    named = re.search(r"more than ([\d,]+) pixels", caught.value.reason)
    assert named is not None, caught.value.reason
    limit = int(named.group(1).replace(",", ""))
    assert 14_000 * 14_000 > limit
    side = math.isqrt(limit)  # a picture within the limit named opens
    ImageDocument(jpeg_claiming(tmp_path / "within.jpg", side, side), FakeReader()).close()


# -- spreadsheets ----------------------------------------------------------------------


def test_each_sheet_is_a_page_named_after_it_and_rows_carry_the_header(tmp_path: Path) -> None:
    path = workbook(
        tmp_path / "stock.xlsx",
        {
            "Fruit": [["Name", "Price"], ["Apple", 1.5], ["Kiwi", 2.0], [None, None]],
            "Counts": [[3, 4], [5, 6]],
        },
    )
    pages = load(path)
    assert [(p.number, p.sections[0].path) for p in pages] == [(1, ("Fruit",)), (2, ("Counts",))]
    assert pages[0].text == "Name: Apple; Price: 1.5\nName: Kiwi; Price: 2\n"
    assert pages[1].text == "3; 4\n5; 6\n"  # no header row: values alone
    chunks = list(chunk_pages(pages, size=30, overlap=0))
    assert all("Name: " in c.text for c in chunks if c.page == 1)  # each chunk stands alone
    assert {c.heading for c in chunks} == {"Fruit", "Counts"}


# -- chunks, lanes and progress ---------------------------------------------------------


def test_the_status_line_says_how_many_pages_ocr_read_and_how_well() -> None:
    def tally(*pages: Page) -> str | None:
        counted = OcrTally()
        for page in pages:
            counted.add(page)
        return counted.note()

    typed = Page(1, "Typed words.")
    good, low = PageOcr(0.97), PageOcr(0.6)
    unread = PageOcr(None, unread=True)
    assert tally(typed) is None
    assert tally(typed, Page(2, "Scan.", ocr=good)) == "scanned: 1 page read by OCR"
    assert tally(Page(1, "A.", ocr=good), Page(2, "B.", ocr=low), Page(3, "", ocr=unread)) == (
        "scanned: 2 pages read by OCR; 1 page read with low confidence; 1 page could not be"
        " read (a script the built-in OCR does not know)"
    )


def test_chunks_of_an_ocr_page_carry_its_confidence() -> None:
    pages = [Page(1, "Typed words."), Page(2, "Scanned words.", ocr=PageOcr(0.91))]
    chunks = list(chunk_pages(pages, size=100, overlap=10))
    assert [c.ocr_confidence for c in chunks] == [None, 0.91]


async def test_each_lane_takes_only_its_own_jobs() -> None:
    queue = WorkQueue()
    queue.put("scan.pdf", lane="ocr")
    queue.put("notes.md")
    typed = await queue.get("typed")
    assert typed is not None and typed.rel == "notes.md"
    assert queue.waiting("ocr") == 1
    scan = await queue.get("ocr")
    assert scan is not None and (scan.rel, scan.lane) == ("scan.pdf", "ocr")

    queue.put("mixed.pdf")
    job = await queue.get("typed")
    assert job is not None
    queue.hand_over(job, "ocr")  # it met a scanned page
    queue.done(job)
    moved = await asyncio.wait_for(queue.get("ocr"), 1)
    assert moved is not None and (moved.rel, moved.lane) == ("mixed.pdf", "ocr")


async def test_scans_take_turns_and_a_new_one_goes_before_those_that_had_one() -> None:
    queue = WorkQueue()

    async def next_scan() -> Job:
        job = await asyncio.wait_for(queue.get("ocr"), 1)
        assert job is not None
        return job

    queue.put("ledger.tif", size=900, lane="ocr")
    ledger = await next_scan()
    assert not ledger.others_waiting.is_set()  # alone: it reads on
    queue.put("atlas.tif", size=800, lane="ocr")
    assert ledger.others_waiting.is_set()  # its turn ends at its next page
    queue.requeue(ledger)
    queue.done(ledger)
    atlas = await next_scan()
    assert atlas.rel == "atlas.tif" and atlas.others_waiting.is_set()
    queue.put("note.tif", size=5, lane="ocr")
    queue.requeue(atlas)
    queue.done(atlas)
    order = []
    for _ in range(3):  # the new file, then the two long ones in turn
        job = await next_scan()
        order.append(job.rel)
        if job.rel != "note.tif":
            queue.requeue(job)
        queue.done(job)
    assert order == ["note.tif", "ledger.tif", "atlas.tif"]
    last = await next_scan()
    assert last.rel == "ledger.tif" and last.others_waiting.is_set()
    queue.done(last)  # it read to its end
    final = await next_scan()
    assert final.rel == "atlas.tif" and not final.others_waiting.is_set()
    queue.done(final)
    assert queue.idle


def test_ocr_progress_counts_pages_with_a_rate_and_an_eta() -> None:
    bus = EventBus()
    bus.publish(IngestEvent("queued", "scan.pdf", "d"))
    bus.publish(IngestEvent("started", "scan.pdf", "d", 0, 10, ocr=True))
    assert bus.library().ocr is not None and bus.library().ocr.pages_done == 0  # type: ignore[union-attr]
    for done in range(1, 5):
        bus.publish(IngestEvent("pages", "scan.pdf", "d", done, 10, ocr=True))
    progress = bus.library().ocr
    assert progress is not None and (progress.pages_done, progress.pages_total) == (4, 10)
    assert progress.pages_per_second > 0 and progress.eta_seconds is not None
    assert bus.library().eta_seconds is None or bus.library().eta_seconds >= 0
