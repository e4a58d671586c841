"""A full disk: uploads answer 507 `disk_full` and leave nothing; files that arrive while
it is full are indexed once writes succeed again.

The tests with a real full disk mount a small tmpfs (tests/small_disk.py); the others
inject the failure where each store reports it, and run everywhere.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from app.container import build_services
from app.services.documents import NoSpace
from app.settings import Settings
from ingest.disk import DiskFull, can_write, is_disk_full
from ingest.document_parts import Chunk
from ingest.index.keyword.index import KeywordIndex
from tests.api_app import api_app, error_code
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import GatedEmbedder
from tests.fakes.search import make_chunk
from tests.running import RunningApp, eventually
from tests.small_disk import small_disk


async def listed(app: RunningApp) -> dict[str, dict[str, Any]]:
    documents = (await app.client.get("/api/documents")).json()["documents"]
    return {d["path"]: d for d in documents}


def test_every_store_s_way_of_saying_no_space_is_recognised() -> None:
    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_disk_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert is_disk_full(RuntimeError("Error in compaction: No space left on device (os error 28)"))
    wrapped = RuntimeError("indexing stopped")
    wrapped.__cause__ = OSError(errno.ENOSPC, "No space left on device")
    assert is_disk_full(wrapped)
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_disk_full(sqlite3.OperationalError("database is locked"))


async def test_an_upload_that_cannot_be_queued_leaves_no_file(tmp_path: Path) -> None:
    async with api_app(tmp_path, watch=False) as app:
        registry = app.container.registry
        real_upsert = registry.upsert

        def full(*args: Any, **kwargs: Any) -> Any:
            if args and args[0] == "minutes.md":
                raise sqlite3.OperationalError("database or disk is full")
            return real_upsert(*args, **kwargs)

        registry.upsert = full  # type: ignore[method-assign]
        response = await app.client.post(
            "/api/documents",
            files=[("files", ("fresh.md", b"# Fresh\n")), ("files", ("minutes.md", b"# M\n"))],
        )
        assert response.status_code == 507 and error_code(response) == "disk_full"
        message = response.json()["error"]["message"]
        assert str(app.container.settings.paths.data_dir) in message and "full" in message
        docs = app.container.settings.paths.docs_dir
        assert not (docs / "minutes.md").exists()
        assert not (docs / "fresh.md").exists()  # all or nothing
        assert app.container.indexer.waiting_for_space == ["minutes.md"]


async def test_a_file_seen_while_the_registry_is_full_is_queued_once_it_has_space(
    tmp_path: Path,
) -> None:
    async with api_app(tmp_path, watch=False) as app:
        indexer = app.container.indexer
        indexer.space.retry_seconds = 0.05
        registry = indexer.registry
        real_upsert = registry.upsert
        full = [True]

        def upsert(*args: Any, **kwargs: Any) -> Any:
            if full[0]:
                raise sqlite3.OperationalError("database or disk is full")
            return real_upsert(*args, **kwargs)

        registry.upsert = upsert  # type: ignore[method-assign]
        arrived = app.container.settings.paths.docs_dir / "arrived.md"
        arrived.write_text("# Arrived\n\nThe lighthouse keeper retired in 1961.\n")
        with pytest.raises(DiskFull):
            indexer.enqueue(arrived)
        assert indexer.waiting_for_space == ["arrived.md"]
        assert indexer.queued >= 1  # counted as waiting, not dropped
        full[0] = False  # space again: the next probe queues it

        async def indexed() -> bool:
            return (await listed(app)).get("arrived.md", {}).get("status") == "ready"

        await eventually(indexed, timeout=30, what="arrived.md indexed once space returned")
        assert indexer.waiting_for_space == []


def test_no_space_names_the_full_disk(tmp_path: Path) -> None:
    error = NoSpace(DiskFull(tmp_path))
    assert error.code == "disk_full" and str(tmp_path) in str(error)


async def test_uploads_to_a_full_documents_disk_get_507_and_leave_nothing(tmp_path: Path) -> None:
    with small_disk(tmp_path / "docs", 4) as disk:
        async with api_app(tmp_path, docs=disk.path, watch=False) as app:
            disk.fill()
            big = b"The tide tables are printed every spring. " * 8_000  # 344 kB
            response = await app.client.post(
                "/api/documents",
                files=[("files", ("tides.md", big)), ("files", ("more.md", big))],
            )
            assert response.status_code == 507 and error_code(response) == "disk_full"
            assert str(disk.path) in response.json()["error"]["message"]
            assert sorted(p.name for p in disk.path.iterdir()) == ["filler.bin", "notes.md"]
            disk.free()
            again = await app.client.post("/api/documents", files={"files": ("tides.md", big)})
            assert again.status_code == 201, again.text


async def test_files_that_arrive_while_the_data_dir_is_full_are_indexed_later(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "documents"
    docs.mkdir()
    with small_disk(tmp_path / "data", 64) as disk:
        async with api_app(tmp_path, docs=docs, data_dir=disk.path) as app:
            app.container.indexer.space.retry_seconds = 0.2
            disk.fill()
            assert not can_write(disk.path)
            for n in range(3):
                text = f"# Log {n}\n\n" + f"Reading number {n} of the harbour gauge. " * 4_000
                (docs / f"log{n}.md").write_text(text)
            upload = await app.client.post(
                "/api/documents", files={"files": ("sent.md", b"# Sent\n\nA letter.\n")}
            )
            # The registry can't record it: refused whole, the file did not stay.
            assert upload.status_code == 507 and error_code(upload) == "disk_full"
            assert str(disk.path) in upload.json()["error"]["message"]
            assert not (docs / "sent.md").exists()

            async def waiting() -> bool:
                return len(app.container.indexer.waiting_for_space) >= 1

            await eventually(waiting, timeout=30, what="a file waiting for space")
            disk.free()

            async def indexed() -> bool:
                found = await listed(app)
                return all(found.get(f"log{n}.md", {}).get("status") == "ready" for n in range(3))

            await eventually(indexed, timeout=60, what="every log indexed once space returned")
            found = await listed(app)
            assert not [d for d in found.values() if d["status"] == "error"], found


async def test_a_file_that_meets_a_full_disk_half_way_stops_embedding_and_waits(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "documents"
    docs.mkdir()
    with small_disk(tmp_path / "data", 64) as disk:
        settings = Settings(data_dir=disk.path, docs=docs, chunk_size=200, chunk_overlap=0)
        embedder = GatedEmbedder()
        container = build_services(settings, llm=FakeChatModel(), embedder=embedder)
        container.indexer.space.retry_seconds = 0.2
        await container.start(watch=False)
        try:
            embedder.hold()
            tides = "".join(f"Tide {n} stood at {n % 300} cm by the pier.\n" for n in range(6_000))
            (docs / "tides.md").write_text(tides)
            container.indexer.enqueue(docs / "tides.md")
            await eventually(lambda: embedder.waiting >= 1, what="the first batch embedding")
            disk.fill(leave=64 << 10)
            embedder.open()

            def waiting() -> bool:
                return container.indexer.waiting_for_space == ["tides.md"]

            await eventually(waiting, timeout=30, what="tides.md waiting for space")
            embedded = sum(len(call) for call in embedder.calls)
            chunks = len(tides) // 200
            assert embedded < chunks / 4, (embedded, chunks)  # it stopped, not read it all
            disk.free()

            def ready() -> bool:
                statuses = {d.path: d.status for d in container.documents.list()}
                return statuses.get("tides.md") == "ready"

            await eventually(ready, timeout=60, what="tides.md indexed once there was room")
        finally:
            embedder.open()
            await container.stop()


async def test_a_full_disk_anywhere_in_the_api_is_a_json_507(tmp_path: Path) -> None:
    async with api_app(tmp_path) as app:
        sessions = app.container.sessions

        def full(*args: Any, **kwargs: Any) -> Any:
            raise sqlite3.OperationalError("database or disk is full")

        sessions.list = full  # type: ignore[method-assign]
        response = await app.client.get("/api/sessions")
        assert response.status_code == 507 and error_code(response) == "disk_full"
        assert str(app.container.settings.paths.data_dir) in response.json()["error"]["message"]


class Library:
    """What the keyword index catches up with: documents and their chunks."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def document_ids(self) -> set[str]:
        return set(self.texts)

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        return [make_chunk(f"{doc_id}.md", None, self.texts[doc_id], doc_id=doc_id)]


def test_the_keyword_index_on_a_full_disk_refuses_first_and_loses_nothing(
    tmp_path: Path,
) -> None:
    texts = {"a": "otters hold hands", "b": "walruses sunbathe", "c": "puffins nest"}
    with small_disk(tmp_path / "small", 16) as disk:
        folder = disk.path / "keyword"
        index = KeywordIndex(folder)
        index.replace_document("a", Library(texts).document_chunks("a"))
        disk.fill(leave=64 << 10)
        with pytest.raises(DiskFull):
            index.replace_document("b", Library(texts).document_chunks("b"))
        assert index.document_ids() == {"a"}  # refused before anything changed
        # A write that does not ask first (catching up with the store at start) fails
        # half way; what it added stays in memory, to be written by the next write.
        disk.fill()
        with pytest.raises(OSError) as failed:
            index.catch_up(Library({"a": texts["a"], "c": texts["c"]}))
        assert is_disk_full(failed.value)
        disk.free()
        index.replace_document("b", Library(texts).document_chunks("b"))
        assert KeywordIndex(folder).document_ids() == {"a", "b", "c"}  # as read from disk
        assert [hit.doc_id for hit in KeywordIndex(folder).search("puffins").top(3)] == ["c"]
