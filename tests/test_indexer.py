"""Indexer: real files, registry and embedded Chroma in a temp dir; the fake embedder."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import ingest.pipeline.process as pipeline_module
from ingest.document_parts import Chunk, DocStatus
from ingest.loaders import NOT_A_PDF, PASSWORD_PROTECTED, LoadedDocument
from ingest.pipeline.folder import is_ignored
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.progress import IngestEvent
from tests.ingest_parts import IngestParts, ingest_parts, slow_after_first_page
from tests.pdfs import make_pdf
from tests.running import eventually


@dataclass
class Rig(IngestParts):
    indexer: Indexer
    events: list[IngestEvent]

    def kinds(self, rel: str) -> list[str]:
        return [event.kind for event in self.events if event.path == rel]


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[IngestParts]:
    with ingest_parts(tmp_path) as made:
        yield made


@pytest.fixture
async def rig(parts: IngestParts) -> AsyncIterator[Rig]:
    indexer = Indexer(
        parts.docs,
        parts.registry,
        [parts.store],
        parts.embedder,
        options=IndexOptions(chunk_size=200, chunk_overlap=20, retry_seconds=0.1),
    )
    events: list[IngestEvent] = []
    indexer.events.subscribe(events.append)
    yield Rig(parts.docs, parts.registry, parts.store, parts.embedder, indexer, events)
    await indexer.stop()


async def test_index_all_makes_files_ready_and_searchable(rig: Rig) -> None:
    make_pdf(rig.docs / "geo" / "rocks.pdf", ["Basalt forms from lava.", "Granite cools slowly."])
    (rig.docs / "notes.md").write_text("---\ntitle: Tides\n---\nTide pools hold anemones.\n")
    (rig.docs / "plain.txt").write_text("Penguins huddle in winter.")
    records = await rig.indexer.index_all()

    assert [r.path for r in records] == ["geo/rocks.pdf", "notes.md", "plain.txt"]
    assert all(r.status == DocStatus.READY and r.chunks > 0 for r in records)
    pdf = rig.registry.get_by_path("geo/rocks.pdf")
    assert pdf is not None and pdf.pages == 2 and pdf.sha256 and len(pdf.sha256) == 64
    assert rig.registry.get_by_path("plain.txt").pages is None  # type: ignore[union-attr]
    kinds = rig.kinds("geo/rocks.pdf")  # a page's chunks go out as soon as they are cut,
    assert kinds[:2] == ["queued", "started"] and kinds[-1] == "ready"  # so one or two
    assert set(kinds[2:-1]) == {"pages"}  # progress events, as parsing keeps up or not
    pages = [e for e in rig.events if e.kind == "pages" and e.path == "geo/rocks.pdf"]
    assert (pages[-1].pages_done, pages[-1].pages_total) == (2, 2)
    progress = rig.indexer.events.library()
    assert (progress.files_done, progress.files_total, progress.failed) == (3, 3, 0)

    hit = rig.store.search("granite cools slowly", k=1)[0]
    assert (hit.chunk.path, hit.chunk.file, hit.chunk.page) == ("geo/rocks.pdf", "rocks.pdf", 2)
    assert hit.chunk.doc_id == rig.key("geo/rocks.pdf")
    assert "anemones" in rig.store.search("anemones", k=1)[0].chunk.text
    assert rig.indexer.queued == 0


async def test_status_changes_are_reported_in_order(rig: Rig) -> None:
    (rig.docs / "a.txt").write_text("hello there")
    await rig.indexer.start()

    assert rig.indexer.enqueue(rig.docs / "a.txt")
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)

    assert rig.kinds("a.txt") == ["queued", "started", "pages", "ready"]
    assert rig.status("a.txt") == DocStatus.READY


async def test_corrupt_file_errors_without_stopping_the_others(rig: Rig) -> None:
    (rig.docs / "broken.pdf").write_bytes(b"definitely not a pdf" * 10)
    make_pdf(rig.docs / "locked.pdf", ["secret"], user_password="pw")
    (rig.docs / "fine.txt").write_text("Otters use stones as tools.")

    await rig.indexer.index_all()

    broken = rig.registry.get_by_path("broken.pdf")
    assert broken is not None and broken.status == DocStatus.ERROR
    assert broken.error == NOT_A_PDF
    assert rig.registry.get_by_path("locked.pdf").error == PASSWORD_PROTECTED  # type: ignore[union-attr]
    assert rig.status("fine.txt") == DocStatus.READY

    # The worker is still alive afterwards.
    await rig.indexer.start()
    (rig.docs / "later.txt").write_text("Later file.")
    rig.indexer.enqueue(rig.docs / "later.txt")
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)
    assert rig.status("later.txt") == DocStatus.READY


async def test_unexpected_failure_is_an_error_and_the_worker_goes_on(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(texts: object) -> list[list[float]]:
        raise RuntimeError("embedding server fell over")

    (rig.docs / "a.txt").write_text("first file")
    monkeypatch.setattr(rig.embedder, "embed", explode)
    await rig.indexer.index_all()
    monkeypatch.undo()

    record = rig.registry.get_by_path("a.txt")
    assert record is not None and record.status == DocStatus.ERROR
    assert record.error == "indexing failed: RuntimeError: embedding server fell over"

    # A rescan retries errors (the cause may be gone), and now it works.
    assert await rig.indexer.scan() == 1
    await rig.indexer.start()
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)
    assert rig.status("a.txt") == DocStatus.READY


async def test_rescan_skips_unchanged_files_and_picks_up_changes(rig: Rig) -> None:
    (rig.docs / "a.txt").write_text("alpha version one")
    (rig.docs / "b.txt").write_text("beta stays the same")
    await rig.indexer.index_all()
    calls = len(rig.embedder.calls)

    assert await rig.indexer.scan() == 0
    await rig.indexer.index_all()
    assert len(rig.embedder.calls) == calls
    assert rig.status("a.txt") == rig.status("b.txt") == DocStatus.READY

    (rig.docs / "a.txt").write_text("alpha version two with zebras")
    done = await rig.indexer.index_all()

    assert [r.path for r in done] == ["a.txt"]
    assert rig.store.search("zebras", k=1)[0].chunk.path == "a.txt"
    assert not any("one" in h.chunk.text for h in rig.store.search("alpha version one", k=5))


async def test_enqueue_of_an_unchanged_ready_file_does_not_reembed(rig: Rig) -> None:
    (rig.docs / "a.txt").write_text("steady content")
    await rig.indexer.index_all()
    calls = len(rig.embedder.calls)
    await rig.indexer.start()

    rig.indexer.enqueue(rig.docs / "a.txt")  # e.g. a "touch": an event, no new bytes
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)

    assert len(rig.embedder.calls) == calls
    record = rig.registry.get_by_path("a.txt")
    assert record is not None and record.status == DocStatus.READY and record.chunks == 1


async def test_vanished_files_are_removed_on_scan(rig: Rig) -> None:
    (rig.docs / "keep.txt").write_text("keep me")
    (rig.docs / "sub").mkdir()
    (rig.docs / "sub" / "gone.txt").write_text("remove me")
    await rig.indexer.index_all()

    (rig.docs / "sub" / "gone.txt").unlink()
    await rig.indexer.index_all()

    assert [r.path for r in rig.registry.list()] == ["keep.txt"]
    assert rig.store.document_ids() == {rig.key("keep.txt")}
    assert [e.path for e in rig.events if e.kind == "removed"] == ["sub/gone.txt"]


async def test_scan_recovers_files_left_unfinished_and_missing_from_store(rig: Rig) -> None:
    (rig.docs / "a.txt").write_text("interrupted while indexing")
    (rig.docs / "b.txt").write_text("lost from the store")
    await rig.indexer.index_all()
    rig.registry.upsert("a.txt", status=DocStatus.INDEXING)  # as if we crashed
    b_key = rig.key("b.txt")
    assert b_key is not None
    rig.store.delete_document(b_key)  # as if the index were rebuilt
    orphan = Chunk("orphan", "old.txt", "old.txt", None, 0, 0, 3, "old", "x")
    rig.store.replace_document("orphan", [orphan])  # chunks no registry row owns
    calls = len(rig.embedder.calls)

    assert await rig.indexer.scan() == 2
    await rig.indexer.start()
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)

    assert rig.status("a.txt") == rig.status("b.txt") == DocStatus.READY
    assert rig.store.document_ids() == {rig.key("a.txt"), b_key}
    # a.txt's chunks were all there: only b.txt's lost chunks are embedded again.
    assert [t for call in rig.embedder.calls[calls:] for t in call] == ["b: lost from the store"]
    assert (await rig.indexer.check()).differences() == []


async def test_ignores_hidden_and_temporary_files(rig: Rig) -> None:
    for name in [
        ".hidden.txt",
        "~$report.md",
        "draft.tmp",
        "x.swp",
        "dl.pdf.part",
        "dl.crdownload",
        ".~lock.a.txt#",
        "backup.txt~",
        "Thumbs.db",
    ]:
        (rig.docs / name).write_text("ignored")
    (rig.docs / ".git").mkdir()
    (rig.docs / ".git" / "notes.txt").write_text("ignored")

    assert await rig.indexer.scan() == 0
    assert not rig.indexer.enqueue(rig.docs / "draft.tmp")
    assert not rig.indexer.enqueue(rig.docs / ".git" / "notes.txt")
    assert not rig.indexer.enqueue(rig.docs.parent / "outside.txt")
    assert rig.registry.list() == []
    assert is_ignored("a/.cache/x.txt") and not is_ignored("a/b/report.PDF")


async def test_a_file_of_a_type_docent_does_not_read_says_so(rig: Rig) -> None:
    (rig.docs / "plan.dwg").write_bytes(b"AC1032 drawing")
    (rig.docs / "photo.png").write_bytes(b"\x89PNG not really")  # OCR is off here

    records = await rig.indexer.index_all()

    assert [r.path for r in records] == ["photo.png", "plan.dwg"]
    plan, photo = rig.registry.get_by_path("plan.dwg"), rig.registry.get_by_path("photo.png")
    assert plan is not None and plan.status == DocStatus.ERROR and plan.error is not None
    assert "plan.dwg: unsupported file type" in plan.error
    assert ".pdf" in plan.error and ".xlsx" in plan.error  # it names what Docent reads
    assert photo is not None and photo.error is not None and "DOCENT_OCR=off" in photo.error
    assert await rig.indexer.scan() == 0  # not tried again until the file changes


async def test_enqueue_dedupes_and_marks_queued_at_once(rig: Rig) -> None:
    (rig.docs / "a.txt").write_text("once")

    rig.indexer.enqueue(rig.docs / "a.txt")
    rig.indexer.enqueue(Path("a.txt"))  # relative paths are relative to the folder

    assert rig.indexer.queued == 1
    assert rig.status("a.txt") == DocStatus.QUEUED
    await rig.indexer.start()
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)
    assert rig.kinds("a.txt").count("ready") == 1


async def test_file_deleted_while_queued_is_removed(rig: Rig) -> None:
    (rig.docs / "a.txt").write_text("short-lived")
    rig.indexer.enqueue(rig.docs / "a.txt")
    (rig.docs / "a.txt").unlink()

    await rig.indexer.start()
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)

    assert rig.registry.list() == []


async def test_enqueue_removal_of_a_folder_removes_everything_under_it(rig: Rig) -> None:
    for rel in ["team/a.txt", "team/deep/b.txt", "teammate.txt"]:
        (rig.docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (rig.docs / rel).write_text(f"content of {rel}")
    await rig.indexer.index_all()
    (rig.docs / "team" / "deep" / "b.txt").unlink()
    (rig.docs / "team" / "a.txt").unlink()
    (rig.docs / "team" / "deep").rmdir()
    (rig.docs / "team").rmdir()

    await rig.indexer.start()
    assert rig.indexer.enqueue_removal(rig.docs / "team")
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)

    assert [r.path for r in rig.registry.list()] == ["teammate.txt"]


async def test_a_file_still_being_written_is_retried_until_it_settles(rig: Rig) -> None:
    path = rig.docs / "growing.txt"
    path.write_text("start of the file\n")
    stop = threading.Event()

    def keep_writing() -> None:
        with path.open("a") as fh:
            for i in range(40):
                fh.write(f"line {i} of the copy\n")
                fh.flush()
                time.sleep(0.03)
            fh.write("THE-END-MARKER\n")
        stop.set()

    writer = threading.Thread(target=keep_writing)
    writer.start()
    await rig.indexer.start()
    rig.indexer.enqueue(path)
    await eventually(stop.is_set)
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)
    writer.join()

    assert rig.status("growing.txt") == DocStatus.READY
    hits = rig.store.search("THE-END-MARKER", k=10)
    assert any("THE-END-MARKER" in h.chunk.text for h in hits)


async def test_a_file_that_never_settles_ends_in_error(
    parts: IngestParts,
) -> None:
    docs, registry, store = parts.docs, parts.registry, parts.store
    indexer = Indexer(
        docs,
        registry,
        [store],
        parts.embedder,
        options=IndexOptions(retry_seconds=0.05, max_retries=2),
    )
    path = docs / "busy.txt"
    path.write_text("x")
    stop = threading.Event()

    def scribble() -> None:
        while not stop.is_set():
            with path.open("a") as fh:
                fh.write("x")
            time.sleep(0.02)

    writer = threading.Thread(target=scribble)
    writer.start()
    try:
        await indexer.start()
        indexer.enqueue(path)
        await asyncio.wait_for(indexer.wait_idle(), 10)
    finally:
        stop.set()
        writer.join()
        await indexer.stop()

    record = registry.get_by_path("busy.txt")
    assert record is not None and record.status == DocStatus.ERROR
    assert record.error and "still being written" in record.error


async def test_stop_leaves_queued_files_for_the_next_scan(rig: Rig) -> None:
    for i in range(3):
        (rig.docs / f"f{i}.txt").write_text(f"file {i}")
    assert await rig.indexer.scan() == 3
    await rig.indexer.stop()  # never started: everything is still queued

    assert {r.status for r in rig.registry.list()} == {DocStatus.QUEUED}
    fresh = Indexer(rig.docs, rig.registry, [rig.store], rig.embedder)
    done = await fresh.index_all()
    assert [r.status for r in done] == [DocStatus.READY] * 3


async def test_a_locked_file_is_retried(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root ignores file modes, so stand in for a program holding the file locked
    # (what Windows does while an editor has it open).
    real_open = pipeline_module.open_source
    attempts: list[Path] = []

    def locked_twice(path: Path, *args: Any) -> LoadedDocument:
        attempts.append(path)
        if len(attempts) <= 2:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args)

    monkeypatch.setattr(pipeline_module, "open_source", locked_twice)
    (rig.docs / "locked.txt").write_text("Unlocked at last.")
    await rig.indexer.start()

    rig.indexer.enqueue(rig.docs / "locked.txt")
    await eventually(lambda: len(attempts) >= 1)
    assert rig.indexer.queued == 1  # waiting to retry, not forgotten
    await asyncio.wait_for(rig.indexer.wait_idle(), 10)

    assert len(attempts) == 3
    assert rig.status("locked.txt") == DocStatus.READY


async def test_files_waiting_for_their_write_give_their_place_and_share_one_write(
    parts: IngestParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two places, a file slow to parse in one: five small files pass through the other,
    each waiting for its write without its place, and one write takes them all once the
    slow file is done."""
    indexer = Indexer(
        parts.docs, parts.registry, [parts.store], parts.embedder, options=IndexOptions(workers=2)
    )
    indexer.pipeline.writes.hold = 10_000
    indexer.pipeline.writes.patience = 3600.0
    make_pdf(parts.docs / "slow.pdf", ["Herons wait in the reeds.", "Herons strike fast."])
    rest = threading.Event()
    slow_after_first_page(monkeypatch, "slow.pdf", rest)
    before = parts.store.writes.calls
    indexing = asyncio.create_task(indexer.index_all())
    try:
        await eventually(lambda: _embedded(parts, "Herons wait"), what="the slow file working")
        for i in range(5):
            path = parts.docs / f"bird{i:02}.txt"
            path.write_text(f"Bird {i} sings at dawn. " * 3)
            indexer.enqueue(path)
        await eventually(
            lambda: all(_embedded(parts, f"Bird {i} sings") for i in range(5)),
            what="all twelve small files embedded past the slow one",
        )
        assert parts.store.writes.calls == before  # they wait for the slow file's write
    finally:
        rest.set()
    records = await indexing
    await indexer.stop()

    assert len(records) == 6 and {r.status for r in records} == {DocStatus.READY}
    assert parts.store.writes.calls - before == 1
    assert parts.store.search("bird 4 sings", k=1)[0].chunk.path == "bird04.txt"


def _embedded(parts: IngestParts, text: str) -> bool:
    return any(text in embedded for call in parts.embedder.calls for embedded in call)


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(0.5, "0.5 s"), (45, "45 s"), (90, "1 min 30 s"), (900, "15 min"), (7500, "2 h 5 min")],
)
def test_a_time_budget_is_said_as_a_person_reads_it(seconds: float, said: str) -> None:
    from ingest.pipeline.runner import duration

    assert duration(seconds) == said
