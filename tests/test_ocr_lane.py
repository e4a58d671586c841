"""The OCR lane: a long scan holds up no typed file, deleting it stops its OCR, the
models never reach for the network, and files that ended 'scanned' before are read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.container import build_services
from app.settings import Settings
from ingest.document_parts import DocStatus, Page
from ingest.index.registry import Registry
from ingest.loaders.errors import OLD_SCANNED
from ingest.parsing import ParserPool, RemoteDocument
from tests.api_app import api_app
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.parse_tasks import guarded_reading, pid_alive
from tests.running import RunningApp, eventually, running_app
from tests.scans import image_pdf, page_image


def _status(app: RunningApp, path: str) -> DocStatus | None:
    record = app.container.registry.get_by_path(path)
    return None if record is None else record.status


async def test_a_long_scan_holds_up_no_typed_file_and_deleting_it_stops_its_ocr(
    tmp_path: Path,
) -> None:
    pages = [page_image([f"Ledger page {n}.", "Tide tables."], size=(700, 260)) for n in range(200)]
    async with api_app(tmp_path) as app:
        docs = app.container.settings.paths.docs_dir
        image_pdf(tmp_path / "ledger.pdf", pages).rename(docs / "ledger.pdf")
        events = app.container.events

        def reading() -> bool:
            progress = events.document("ledger.pdf")
            return progress is not None and progress.pages_done >= 2

        await eventually(reading, timeout=120, what="the scan's OCR to be under way")
        ocr = app.container.ocr_parsers
        assert ocr is not None and len(ocr.pids()) == 1
        worker = ocr.pids()[0]

        (docs / "late.md").write_text("# Otters\n\nThe otter sleeps on its back in kelp.\n")
        await eventually(
            lambda: _status(app, "late.md") == DocStatus.READY,
            timeout=60,
            what="the Markdown file dropped during the scan to be ready",
        )
        assert _status(app, "ledger.pdf") == DocStatus.INDEXING  # still reading its pages
        found = await app.client.post("/api/search", json={"query": "otter kelp"})
        assert found.json()["results"][0]["path"] == "late.md"
        progress = app.container.documents.progress().ocr
        assert progress is not None and 2 <= progress.pages_done < progress.pages_total == 200

        (docs / "ledger.pdf").unlink()
        await eventually(
            lambda: _status(app, "ledger.pdf") is None and not pid_alive(worker),
            timeout=30,
            what="the deleted scan's row to go and its OCR worker to stop",
        )


def test_the_ocr_models_never_reach_beyond_this_machine(tmp_path: Path) -> None:
    picture = tmp_path / "note.png"
    page_image(["Nothing leaves this machine."], size=(900, 200)).save(picture)
    pool = ParserPool.for_ocr(3072)
    try:
        items: list[Any] = list(
            RemoteDocument.open(pool, guarded_reading, (str(picture),), None, None).pages()
        )
    finally:
        pool.close()
    *pages, attempts = items
    assert attempts == []  # the worker's own sockets, checked in the worker
    assert isinstance(pages[0], Page) and "leaves this machine" in pages[0].text


async def test_a_file_that_ended_scanned_before_ocr_is_read_once_and_alone(
    tmp_path: Path,
) -> None:
    scan = page_image(["Old scan.", "The granary ledger lists barley."], size=(900, 260))
    async with api_app(tmp_path, ocr="off") as app:
        docs = app.container.settings.paths.docs_dir
        image_pdf(docs / "scan.pdf", [scan])
        await eventually(
            lambda: _status(app, "scan.pdf") == DocStatus.ERROR, what="the scan to fail"
        )
    registry = Registry(tmp_path / "data" / "docent.db")  # as an older Docent left it
    registry.upsert("scan.pdf", status=DocStatus.ERROR, error=OLD_SCANNED[0], retry=False)
    registry.close()

    embedder = FakeEmbedder()
    settings = Settings(data_dir=tmp_path / "data")
    container = build_services(settings, llm=FakeChatModel(), embedder=embedder)
    async with running_app(container) as app:
        await eventually(
            lambda: _status(app, "scan.pdf") == DocStatus.READY,
            timeout=120,
            what="the old scan to be read by OCR",
        )
        embedded = [text for call in embedder.calls for text in call]
        assert any("granary ledger" in text for text in embedded)
        assert not any("flowerpot" in text for text in embedded)  # notes.md: not again
        assert app.container.registry.state("ocr_retried") == "1"


async def test_reading_a_scan_through_mcp_says_where_its_text_is(tmp_path: Path) -> None:
    from app.mcp.tools import DocentTools, ToolFailed

    async with api_app(tmp_path) as app:
        docs = app.container.settings.paths.docs_dir
        image_pdf(docs / "scan.pdf", [page_image(["A scanned notice."], size=(900, 200))])
        await eventually(
            lambda: _status(app, "scan.pdf") == DocStatus.READY, timeout=60, what="the scan"
        )
        container = app.container
        tools = DocentTools(container.chat, container.search, container.documents)
        try:
            await tools.read_document("scan.pdf", 1)
        except ToolFailed as failed:
            assert "scanned on page 1" in str(failed) and "search_documents" in str(failed)
        else:
            raise AssertionError("read_document should say the page is scanned")


async def test_a_scanned_page_keeps_where_each_line_was_read_for_the_viewer(
    tmp_path: Path,
) -> None:
    async with api_app(tmp_path) as app:
        docs = app.container.settings.paths.docs_dir
        notice = page_image(["Berth four closes", "at noon on Fridays."], size=(900, 300))
        image_pdf(docs / "scan.pdf", [notice])
        await eventually(
            lambda: _status(app, "scan.pdf") == DocStatus.READY, timeout=60, what="the scan"
        )
        record = app.container.registry.get_by_path("scan.pdf")
        assert record is not None
        placed = app.container.documents.placed_lines(record.id, 1)
        texts = [text for text, *_ in placed]
        assert texts == ["Berth four closes", "at noon on Fridays."], placed
        for _, ((left, top), (right, top_right), (_, bottom), _) in placed:
            assert 0 <= left < right <= 1 and 0 <= top < bottom <= 1
            assert abs(top - top_right) < 0.01  # printed level
        (_, first), (_, second) = placed
        assert first[2][1] <= second[0][1]  # the first line sits above the second
        assert app.container.documents.placed_lines(record.id, 2) == []
