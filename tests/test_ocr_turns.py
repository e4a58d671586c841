"""The OCR lane is shared and resumes: files take turns, a file reads at most
DOCENT_OCR_MAX_PAGES pages by OCR, and the pages read are kept, so a restart (or the
file's next turn) reads none of them again. OCR here is ``CodedReader``: the pages carry
their text in their pixels, so hundreds of pages read in seconds."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from app.container import build_services
from app.settings import Settings
from ingest.document_parts import DocStatus
from ingest.pipeline.kept_pages import KeptPages
from ingest.pipeline.progress import DocumentProgress, IngestEvent
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.ocr import HOLD, CodedReader, reads
from tests.running import RunningApp, eventually, running_app
from tests.scans import coded_page, tiff


@asynccontextmanager
async def _app(
    tmp_path: Path, on_event: Callable[[IngestEvent], None] | None = None, **settings: Any
) -> AsyncIterator[RunningApp]:
    """The app with OCR by ``CodedReader`` (log ``ocr.log``, gate ``gate``); ``on_event``
    hears its ingest events from the start."""
    config = Settings(data_dir=tmp_path / "data", suggestions=False, **settings)
    config.paths.docs_dir.mkdir(parents=True, exist_ok=True)
    reader = partial(CodedReader, tmp_path / "ocr.log", tmp_path / "gate")
    container = build_services(
        config, llm=FakeChatModel(), embedder=FakeEmbedder(), ocr_reader=reader
    )
    if on_event is not None:
        container.events.subscribe(on_event)
    async with running_app(container) as app:
        yield app


def _ledger(pages: int, hold: int | None = None) -> list[str]:
    """Each page's text; page ``hold`` waits for the gate as it is read."""
    return [
        f"Ledger folio {n} {HOLD if n == hold else 'lists'} cargo {n * 7} tide."
        for n in range(1, pages + 1)
    ]


def _drop(tmp_path: Path, docs: Path, name: str, texts: list[str]) -> None:
    """A scanned TIFF, written beside the folder and moved in whole."""
    tiff(tmp_path / name, [coded_page(text) for text in texts]).rename(docs / name)


def _status(app: RunningApp, path: str) -> DocStatus | None:
    record = app.container.registry.get_by_path(path)
    return None if record is None else record.status


def _stored(app: RunningApp) -> str:
    return "\n".join(app.container.embedding.store.texts())


async def test_a_one_page_scan_dropped_after_a_long_one_is_read_in_its_turn(
    tmp_path: Path,
) -> None:
    ledger = _ledger(300, hold=10)
    async with _app(tmp_path) as app:
        docs = app.container.settings.paths.docs_dir
        events = app.container.events
        seen: dict[str, DocumentProgress | None] = {}

        def on_event(event: IngestEvent) -> None:
            if event.kind == "ready" and event.path == "note.tif":
                seen["ledger"] = events.document("ledger.tif")  # how far the long one got

        events.subscribe(on_event)
        _drop(tmp_path, docs, "ledger.tif", ledger)
        log = tmp_path / "ocr.log"
        await eventually(lambda: len(reads(log)) == 9, what="the ledger's first nine pages")
        _drop(tmp_path, docs, "note.tif", ["A one-page note: the otter sleeps in kelp."])
        await eventually(
            lambda: _status(app, "note.tif") == DocStatus.QUEUED, what="the note to be queued"
        )
        (tmp_path / "gate").touch()  # the ledger reads on, with the note waiting

        # Its event, not its row: the row is written in the file's thread a moment before
        # the event that records how far the ledger got.
        await eventually(lambda: "ledger" in seen, timeout=60, what="the note's ready event")
        assert _status(app, "note.tif") == DocStatus.READY
        progress = seen["ledger"]
        assert progress is not None, "the ledger was done before the note"
        assert progress.pages_done < 150, progress
        assert _status(app, "ledger.tif") == DocStatus.INDEXING
        # OCR read the note as soon as the ledger's turn ended: after its held page.
        assert reads(log).index("A one-page note: the otter sleeps in kelp.") == 10
        await eventually(
            lambda: _status(app, "ledger.tif") == DocStatus.READY, timeout=120, what="ledger"
        )
        counted = Counter(reads(log))
        assert set(counted) == {*ledger, "A one-page note: the otter sleeps in kelp."}
        assert set(counted.values()) == {1}  # no page read twice across its turns
        stored = _stored(app)
        assert all(text in stored for text in ledger)
        record = app.container.registry.get_by_path("ledger.tif")
        assert record is not None and record.pages == 300 and record.sha256 is not None
        assert KeptPages(app.container.registry.db_path).kept(record.sha256).next_page == 1


async def test_ocr_reads_at_most_the_limit_and_the_note_says_which_pages_it_left_out(
    tmp_path: Path,
) -> None:
    from ui.library.status_text import detail

    ledger = _ledger(7)
    async with _app(tmp_path, ocr_max_pages=4) as app:
        _drop(tmp_path, app.container.settings.paths.docs_dir, "ledger.tif", ledger)
        await eventually(
            lambda: _status(app, "ledger.tif") == DocStatus.READY, timeout=60, what="ledger"
        )
        assert reads(tmp_path / "ocr.log") == ledger[:4]
        stored = _stored(app)
        assert all(text in stored for text in ledger[:4])
        assert not any(text in stored for text in ledger[4:])
        listed = (await app.client.get("/api/documents")).json()["documents"]
        (entry,) = [d for d in listed if d["path"] == "ledger.tif"]
        assert entry["status"] == "ready" and entry["pages"] == 7
        assert entry["note"] == (
            "scanned: 4 pages read by OCR; pages 5–7 left out: OCR reads at most 4 pages"
            " of a file (raise DOCENT_OCR_MAX_PAGES to read more)"
        )
        (view,) = [v for v in app.container.documents.list() if v.path == "ledger.tif"]
        assert detail(view).endswith(entry["note"])  # the window's library says it too


async def test_a_scan_stopped_mid_file_continues_from_its_first_page_not_read(
    tmp_path: Path,
) -> None:
    ledger = _ledger(12, hold=6)
    log = tmp_path / "ocr.log"
    async with _app(tmp_path) as app:
        _drop(tmp_path, app.container.settings.paths.docs_dir, "ledger.tif", ledger)
        kept = KeptPages(app.container.registry.db_path)

        def five_kept() -> bool:
            record = app.container.registry.get_by_path("ledger.tif")
            return (
                record is not None
                and record.sha256 is not None
                and (kept.kept(record.sha256).next_page == 6)
            )

        await eventually(five_kept, timeout=60, what="five pages read and kept")
        kept.close()
    assert reads(log) == ledger[:5]  # stopped while page 6 was being read

    (tmp_path / "gate").touch()
    progress: list[tuple[str, int]] = []

    def on_event(event: IngestEvent) -> None:
        if event.path == "ledger.tif" and event.kind in ("started", "pages"):
            progress.append((event.kind, event.pages_done))

    async with _app(tmp_path, on_event) as app:
        await eventually(
            lambda: _status(app, "ledger.tif") == DocStatus.READY, timeout=60, what="ledger"
        )
        assert reads(log) == ledger  # pages 1 to 5 were not read again
        assert progress[0] == ("started", 5)  # and its progress did not start at 0
        assert min(done for _, done in progress) == 5
        stored = _stored(app)
        assert all(text in stored for text in ledger)
        record = app.container.registry.get_by_path("ledger.tif")
        assert record is not None and record.note == "scanned: 12 pages read by OCR"


async def test_a_scan_deleted_mid_file_leaves_no_pages_kept(tmp_path: Path) -> None:
    async with _app(tmp_path) as app:
        docs = app.container.settings.paths.docs_dir
        _drop(tmp_path, docs, "ledger.tif", _ledger(12, hold=6))
        await eventually(lambda: len(reads(tmp_path / "ocr.log")) == 5, what="five pages")
        record = app.container.registry.get_by_path("ledger.tif")
        assert record is not None and record.sha256 is not None
        sha = record.sha256
        kept = KeptPages(app.container.registry.db_path)
        await eventually(lambda: kept.kept(sha).next_page == 6, what="five pages kept")
        (docs / "ledger.tif").unlink()
        await eventually(
            lambda: _status(app, "ledger.tif") is None and kept.kept(sha).next_page == 1,
            what="the deleted scan's row and kept pages to go",
        )
        kept.close()
