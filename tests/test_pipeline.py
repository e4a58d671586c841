"""The pipeline's promises: content keys, reading once, limits, links, cancellation, fairness."""

from __future__ import annotations

import asyncio
import builtins
import io
import os
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import ingest.pipeline.folder as folder_module
import ingest.pipeline.process as pipeline_module
from ingest.document_parts import DocStatus
from ingest.parsing import ParserPool
from ingest.pipeline.folder import ReadFile
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.queue import SMALL_BYTES
from tests.documents import make_docx, make_epub, make_pptx
from tests.fakes.embedder import FakeEmbedder
from tests.ingest_parts import IngestParts, ingest_parts, slow_after_first_page, warm_parsers
from tests.pdfs import make_pdf
from tests.running import eventually


class GateEmbedder(FakeEmbedder):
    """Blocks on texts containing ``word`` until the gate opens (a file that takes long).

    A call can hang on one text, so it must not share its calls between files.
    """

    shared_batches = False

    def __init__(self, word: str = "BIGFILE") -> None:
        super().__init__()
        self.word = word
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if any(self.word in text for text in texts):
            self.waiting.set()
            self.gate.wait(30)
        return super().embed(texts)


@dataclass
class Rig(IngestParts):
    indexer: Indexer

    def texts(self, query: str, k: int = 10) -> list[str]:
        return [hit.chunk.text for hit in self.store.search(query, k=k)]

    def embedded(self) -> list[str]:
        return [text for call in self.embedder.calls for text in call]


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[IngestParts]:
    with ingest_parts(tmp_path) as made:
        yield made


def _indexer(parts: IngestParts, **options: Any) -> Indexer:
    options.setdefault("retry_seconds", 0.05)
    return Indexer(
        parts.docs, parts.registry, [parts.store], parts.embedder, options=IndexOptions(**options)
    )


@pytest.fixture
async def rig(parts: IngestParts) -> AsyncIterator[Rig]:
    indexer = _indexer(parts)
    yield Rig(parts.docs, parts.registry, parts.store, parts.embedder, indexer)
    await indexer.stop()


async def test_a_rename_moves_the_row_and_embeds_nothing(rig: Rig) -> None:
    (rig.docs / "draft.md").write_text("# Plan\n\nBuild the lighthouse on the cliff.")
    await rig.indexer.index_all()
    calls = len(rig.embedder.calls)

    (rig.docs / "sub").mkdir()
    (rig.docs / "draft.md").rename(rig.docs / "sub" / "final.md")
    await rig.indexer.index_all()

    assert len(rig.embedder.calls) == calls
    assert [r.path for r in rig.registry.list()] == ["sub/final.md"]
    hit = rig.store.search("lighthouse", k=1)[0]
    assert (hit.chunk.path, hit.chunk.file, hit.paths) == (
        "sub/final.md",
        "final.md",
        ("sub/final.md",),
    )
    assert (await rig.indexer.check()).differences() == []


async def test_identical_files_are_embedded_once_and_both_are_sources(rig: Rig) -> None:
    text = "Capybaras are the largest rodents. They live near water."
    (rig.docs / "a.txt").write_text(text)
    (rig.docs / "copy").mkdir()
    (rig.docs / "copy" / "b.txt").write_text(text)

    await rig.indexer.index_all()

    # Embedded once, behind the title of whichever copy was indexed first: both run at
    # once, so either may be.
    assert rig.embedded() in ([f"a: {text}"], [f"b: {text}"])
    assert rig.key("a.txt") == rig.key("copy/b.txt")
    hits = rig.store.search("capybaras rodents", k=5)
    assert len(hits) == 1 and hits[0].paths == ("a.txt", "copy/b.txt")
    assert rig.store.search("capybaras", k=5, files=["b.txt"])[0].paths == hits[0].paths

    # Removing one copy keeps the other searchable.
    (rig.docs / "a.txt").unlink()
    await rig.indexer.index_all()
    assert rig.store.search("capybaras", k=1)[0].paths == ("copy/b.txt",)
    assert rig.store.count() == 1


async def test_a_changed_file_switches_to_its_new_chunks_and_the_old_ones_go(rig: Rig) -> None:
    path = rig.docs / "notes.txt"
    path.write_text("The meeting is about aardvarks.")
    await rig.indexer.index_all()
    old = rig.key("notes.txt")

    path.write_text("The meeting is about porcupines.")
    await rig.indexer.index_all()

    assert rig.key("notes.txt") != old
    assert rig.texts("meeting") == ["The meeting is about porcupines."]
    assert rig.store.document_ids() == {rig.key("notes.txt")}
    assert rig.registry.content(old) is None  # type: ignore[arg-type]


async def test_a_scan_hashes_each_new_file_once_and_a_restart_reads_none(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(5):
        (rig.docs / f"f{i}.md").write_text(f"# File {i}\n\nSome text about topic {i}.")
    make_pdf(rig.docs / "doc.pdf", ["Page one about moles.", "Page two about voles."])
    reads: list[str] = []
    real = folder_module.read_and_hash

    def counted(path: Path, size: int) -> ReadFile:
        reads.append(path.name)
        return real(path, size)

    monkeypatch.setattr("ingest.pipeline.process.read_and_hash", counted)

    await rig.indexer.index_all()
    assert sorted(reads) == sorted(["doc.pdf", *(f"f{i}.md" for i in range(5))])
    assert {r.status for r in rig.registry.list()} == {DocStatus.READY}

    reads.clear()
    fresh = _indexer(rig)
    assert await fresh.scan() == 0
    await fresh.stop()
    assert reads == []


def _count_opens(monkeypatch: pytest.MonkeyPatch, docs: Path) -> list[str]:
    """Names of the files under ``docs`` opened from disk, once per open.

    ``io.open`` is what ``Path.open``, ``open`` and zipfile all end in.
    """
    opened: list[str] = []
    real_open = io.open

    def counted(file: object, *args: object, **kwargs: object) -> object:
        if isinstance(file, str | Path) and Path(file).resolve().is_relative_to(docs.resolve()):
            opened.append(Path(file).name)
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(io, "open", counted)
    monkeypatch.setattr(builtins, "open", counted)
    return opened


async def test_a_new_file_is_read_from_disk_once(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    (rig.docs / "notes.md").write_text("---\ntitle: Notes\n---\n# Otters\n\nOtters hold hands.")
    (rig.docs / "plain.txt").write_text("Herons stand still in the shallows.")
    (rig.docs / "table.csv").write_text("animal,habit\nbadger,digs setts\n")
    (rig.docs / "page.html").write_text("<h1>Moles</h1><p>Moles dig tunnels.</p>")
    make_pdf(rig.docs / "doc.pdf", ["Page one about voles.", "Page two about shrews."])
    make_docx(rig.docs / "memo.docx", [("Heading 1", "Stoats"), ("", "Stoats turn white.")])
    make_pptx(rig.docs / "deck.pptx", [("Weasels", ["Weasels are small."], "")])
    make_epub(rig.docs / "book.epub", "Ferrets", ["<p>Ferrets sleep a lot.</p>"])
    opened = _count_opens(monkeypatch, rig.docs)

    await rig.indexer.index_all()

    assert {r.status for r in rig.registry.list()} == {DocStatus.READY}
    assert sorted(opened) == [
        "book.epub",
        "deck.pptx",
        "doc.pdf",
        "memo.docx",
        "notes.md",
        "page.html",
        "plain.txt",
        "table.csv",
    ]
    assert "Moles dig tunnels." in " ".join(rig.texts("moles"))


async def test_a_file_too_big_to_hold_is_hashed_then_parsed_from_disk(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder_module, "HOLD_BYTES", 10)
    (rig.docs / "long.txt").write_text("Kingfishers dive for fish. " * 20)
    opened = _count_opens(monkeypatch, rig.docs)
    sent: list[bytes | None] = []
    real_open = pipeline_module.open_source

    def spied_open(path: Path, data: bytes | None, *args: Any) -> Any:
        sent.append(data)
        return real_open(path, data, *args)

    monkeypatch.setattr(pipeline_module, "open_source", spied_open)

    await rig.indexer.index_all()

    assert rig.status("long.txt") == DocStatus.READY
    assert opened == ["long.txt"]  # the app streams it once, for its hash
    assert sent == [None]  # no bytes held: the parser process reads it from disk
    assert any("Kingfishers" in text for text in rig.texts("kingfishers"))


async def test_a_file_slow_to_parse_hands_over_the_chunks_it_has(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedder gets a page's chunks while the next page is still being parsed."""
    words = " ".join(f"word{n}" for n in range(300))
    make_pdf(rig.docs / "slow.pdf", [f"Page{n} {words}" for n in (1, 2, 3)])
    rest = threading.Event()
    slow_after_first_page(monkeypatch, "slow.pdf", rest)
    indexing = asyncio.create_task(rig.indexer.index_all())
    try:
        await eventually(lambda: bool(rig.embedded()), what="the first page's chunks embedded")
        seen = " ".join(rig.embedded())
        assert "Page1" in seen and "Page2" not in seen  # page 2 is still being parsed
    finally:
        rest.set()
    await indexing
    record = rig.registry.get_by_path("slow.pdf")
    assert record is not None and record.status == DocStatus.READY and record.pages == 3
    assert all(f"Page{n}" in " ".join(rig.embedded()) for n in (1, 2, 3))


async def test_a_touch_reads_the_file_but_embeds_nothing(rig: Rig) -> None:
    path = rig.docs / "a.txt"
    path.write_text("steady content")
    await rig.indexer.index_all()
    calls = len(rig.embedder.calls)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))

    assert await rig.indexer.scan() == 1
    await rig.indexer.start()
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)

    assert len(rig.embedder.calls) == calls
    record = rig.registry.get_by_path("a.txt")
    assert record is not None and record.status == DocStatus.READY
    assert record.mtime_ns == path.stat().st_mtime_ns  # the new stat is remembered
    assert await rig.indexer.scan() == 0


async def test_a_failed_file_is_not_retried_until_its_bytes_change(rig: Rig) -> None:
    (rig.docs / "broken.pdf").write_bytes(b"definitely not a pdf" * 10)
    await rig.indexer.index_all()
    record = rig.registry.get_by_path("broken.pdf")
    assert record is not None and record.status == DocStatus.ERROR and not record.retry

    fresh = _indexer(rig)
    assert await fresh.scan() == 0  # a restart leaves it alone
    await fresh.stop()

    make_pdf(rig.docs / "broken.pdf", ["Now a real PDF about newts."])
    assert await fresh.scan() == 1
    await fresh.index_all()
    assert rig.status("broken.pdf") == DocStatus.READY


async def test_a_file_over_the_size_limit_fails_without_being_read(
    parts: IngestParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexer = _indexer(parts, max_file_bytes=1000)
    (parts.docs / "big.txt").write_text("word " * 1000)
    (parts.docs / "small.txt").write_text("a small file about finches")
    monkeypatch.setattr(
        "ingest.pipeline.process.read_and_hash",
        lambda path, size: (
            (_ for _ in ()).throw(AssertionError("read"))
            if path.name == "big.txt"
            else folder_module.read_and_hash(path, size)
        ),
    )

    await indexer.index_all()

    big = parts.registry.get_by_path("big.txt")
    assert big is not None and big.status == DocStatus.ERROR
    assert big.error is not None and big.error.startswith("too large to index")
    assert "DOCENT_MAX_FILE_MB" in big.error
    assert parts.status("small.txt") == DocStatus.READY


async def test_a_link_out_of_the_folder_is_never_followed(rig: Rig, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("The launch code is walrus-42.")
    (rig.docs / "inside.txt").write_text("Inside the folder: puffins.")
    (rig.docs / "leak.txt").symlink_to(secret)
    (rig.docs / "alias.txt").symlink_to(rig.docs / "inside.txt")

    await rig.indexer.index_all()

    leak = rig.registry.get_by_path("leak.txt")
    assert leak is not None and leak.status == DocStatus.ERROR
    assert leak.error is not None and "outside the documents folder" in leak.error
    assert str(secret) in leak.error
    assert not any("walrus" in text for text in rig.embedded())
    assert rig.status("alias.txt") == DocStatus.READY  # a link inside the folder is fine


async def test_small_files_are_not_starved_behind_a_big_one(parts: IngestParts) -> None:
    embedder = GateEmbedder()
    parts.store.embedder = embedder
    indexer = Indexer(parts.docs, parts.registry, [parts.store], embedder)
    (parts.docs / "big.txt").write_text("BIGFILE " + "filler text here. " * (SMALL_BYTES // 17))
    await indexer.start()
    try:
        indexer.enqueue(parts.docs / "big.txt")
        await eventually(embedder.waiting.is_set, what="the big file to be embedding")
        for i in range(3):
            (parts.docs / f"small{i}.txt").write_text(f"small file number {i}")
            indexer.enqueue(parts.docs / f"small{i}.txt")

        await eventually(
            lambda: all(parts.status(f"small{i}.txt") == DocStatus.READY for i in range(3)),
            what="the small files ready while the big one runs",
        )
        assert parts.status("big.txt") == DocStatus.INDEXING
        embedder.gate.set()
        await asyncio.wait_for(indexer.wait_idle(), 60)
        assert parts.status("big.txt") == DocStatus.READY
    finally:
        embedder.gate.set()
        await indexer.stop()


async def test_deleting_a_file_cancels_its_running_work(parts: IngestParts) -> None:
    embedder = GateEmbedder()
    parts.store.embedder = embedder
    indexer = Indexer(parts.docs, parts.registry, [parts.store], embedder)
    (parts.docs / "big.txt").write_text("BIGFILE " + "filler text here. " * 20000)
    await indexer.start()
    try:
        indexer.enqueue(parts.docs / "big.txt")
        await eventually(embedder.waiting.is_set, what="the big file to be embedding")
        batches = len(embedder.calls)

        (parts.docs / "big.txt").unlink()
        indexer.enqueue(parts.docs / "big.txt")
        embedder.gate.set()
        await asyncio.wait_for(indexer.wait_idle(), 60)

        assert parts.registry.list() == []
        assert len(embedder.calls) <= batches + 1  # the batch in hand, and no more
        assert parts.store.count() == 0
        assert parts.registry.contents() == []
    finally:
        embedder.gate.set()
        await indexer.stop()


async def test_a_file_past_its_time_budget_fails_and_the_others_go_on(parts: IngestParts) -> None:
    embedder = GateEmbedder()
    parts.store.embedder = embedder
    # stuck.txt waits on its gate however long its budget is, and is seen in a worker
    # already started long before the budget ends.
    with warm_parsers(2) as parsers:
        await _past_budget_others_go_on(parts, embedder, parsers)


async def _past_budget_others_go_on(
    parts: IngestParts, embedder: GateEmbedder, parsers: ParserPool
) -> None:
    indexer = Indexer(
        parts.docs,
        parts.registry,
        [parts.store],
        embedder,
        parsers=parsers,
        options=IndexOptions(time_budget=3.0),
    )
    (parts.docs / "stuck.txt").write_text("BIGFILE never finishes")
    (parts.docs / "fine.txt").write_text("a file about herons")
    await indexer.start()
    try:
        indexer.enqueue(parts.docs / "stuck.txt")
        await eventually(embedder.waiting.is_set, what="stuck.txt stuck in the embedder")
        # A file takes its budget as it starts: fine.txt's is out of reach of any machine's
        # slowness, and only stuck.txt's 3 s are ever used up.
        indexer.options.time_budget = 600.0
        indexer.enqueue(parts.docs / "fine.txt")
        await asyncio.wait_for(indexer.wait_idle(), 60)
        stuck = parts.registry.get_by_path("stuck.txt")
        assert stuck is not None and stuck.status == DocStatus.ERROR
        assert stuck.error is not None and "time budget (3 s)" in stuck.error
        assert parts.status("fine.txt") == DocStatus.READY
    finally:
        embedder.gate.set()
        await indexer.stop()


async def test_stop_returns_while_a_thread_is_stuck(parts: IngestParts) -> None:
    embedder = GateEmbedder()
    parts.store.embedder = embedder
    indexer = Indexer(parts.docs, parts.registry, [parts.store], embedder)
    (parts.docs / "stuck.txt").write_text("BIGFILE stuck in the embedder")
    await indexer.start()
    indexer.enqueue(parts.docs / "stuck.txt")
    await eventually(embedder.waiting.is_set)

    await asyncio.wait_for(indexer.stop(timeout=0.2), 10)

    assert parts.status("stuck.txt") == DocStatus.INDEXING  # resumed by the next scan
    embedder.gate.set()
