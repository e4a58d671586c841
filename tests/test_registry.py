"""Registry: the documents table in docent.db."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from ingest.document_parts import DocStatus, PlacedLine
from ingest.index.database import apply_migrations, connect
from ingest.index.registry import Registry, doc_id_for
from ingest.index.registry_rows import DOCUMENTS_SCHEMA


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    reg = Registry(tmp_path / "docent.db")
    yield reg
    reg.close()


def test_doc_id_is_stable_and_short() -> None:
    assert doc_id_for("reports/q1.pdf") == doc_id_for("reports/q1.pdf")
    assert doc_id_for("reports/q1.pdf") != doc_id_for("reports/q2.pdf")
    assert doc_id_for("a.txt") == hashlib.sha1(b"a.txt").hexdigest()[:16]
    assert all(c in "0123456789abcdef" for c in doc_id_for("ü/ß.md"))


def test_upsert_creates_then_updates_only_given_fields(registry: Registry) -> None:
    first = registry.upsert("docs/a.pdf", status=DocStatus.QUEUED)
    assert first.id == doc_id_for("docs/a.pdf")
    assert (first.pages, first.chunks, first.error, first.sha256) == (None, 0, None, None)

    registry.upsert("docs/a.pdf", status=DocStatus.INDEXING, sha256="abc")
    ready = registry.upsert("docs/a.pdf", status=DocStatus.READY, pages=3, chunks=7)

    assert (ready.status, ready.pages, ready.chunks, ready.sha256) == (DocStatus.READY, 3, 7, "abc")
    assert registry.get(ready.id) == ready
    assert registry.get_by_path("docs/a.pdf") == ready


def test_error_is_kept_for_errors_and_cleared_otherwise(registry: Registry) -> None:
    failed = registry.upsert("x.pdf", status=DocStatus.ERROR, error="password-protected")
    assert failed.error == "password-protected"

    # Still in error, no new reason given: the old one stays.
    assert registry.upsert("x.pdf", status=DocStatus.ERROR).error == "password-protected"

    queued = registry.upsert("x.pdf", status=DocStatus.QUEUED)
    assert queued.error is None
    assert registry.get(queued.id).error is None  # type: ignore[union-attr]


def test_ready_paths_are_the_ready_documents_sorted(registry: Registry) -> None:
    registry.upsert("b/two.pdf", status=DocStatus.READY)
    registry.upsert("a.txt", status=DocStatus.READY)
    registry.upsert("queued.md", status=DocStatus.QUEUED)
    registry.upsert("broken.pdf", status=DocStatus.ERROR, error="bad")
    assert registry.ready_paths() == ["a.txt", "b/two.pdf"]
    expected = [d.path for d in registry.list() if d.status == DocStatus.READY]
    assert registry.ready_paths() == expected


def test_passing_none_writes_null(registry: Registry) -> None:
    registry.upsert("a.pdf", status=DocStatus.READY, pages=4, chunks=2)
    record = registry.upsert("a.pdf", status=DocStatus.ERROR, pages=None, chunks=0, error="bad")
    assert (record.pages, record.chunks) == (None, 0)


def test_updated_at_is_iso_utc(registry: Registry) -> None:
    stamp = datetime.fromisoformat(registry.upsert("a.txt", status=DocStatus.QUEUED).updated_at)
    assert stamp.utcoffset() is not None and stamp.utcoffset().total_seconds() == 0  # type: ignore[union-attr]


def test_list_is_sorted_by_path_and_counts_cover_every_status(registry: Registry) -> None:
    registry.upsert("b/z.md", status=DocStatus.READY, chunks=1)
    registry.upsert("a.pdf", status=DocStatus.ERROR, error="empty file")
    registry.upsert("b/a.txt", status=DocStatus.READY, chunks=1)

    assert [r.path for r in registry.list()] == ["a.pdf", "b/a.txt", "b/z.md"]
    assert registry.counts() == {
        DocStatus.QUEUED: 0,
        DocStatus.INDEXING: 0,
        DocStatus.READY: 2,
        DocStatus.ERROR: 1,
    }


def test_remove(registry: Registry) -> None:
    record = registry.upsert("a.pdf", status=DocStatus.READY)
    assert registry.remove(record.id) is True
    assert registry.remove(record.id) is False
    assert registry.get(record.id) is None
    assert registry.get_by_path("a.pdf") is None


def test_persists_across_reopen(tmp_path: Path) -> None:
    db = tmp_path / "docent.db"
    first = Registry(db)
    written = first.upsert("notes/x.md", status=DocStatus.READY, sha256="f00", chunks=5)
    first.close()

    again = Registry(db)
    try:
        assert again.get(written.id) == written
        assert again.list() == [written]
    finally:
        again.close()


def test_two_connections_migrating_a_new_file_at_once_both_succeed(tmp_path: Path) -> None:
    """A second connection migrating after the first read its version and before it ran its
    step: the step must run once (CI once saw "table ocr_pages already exists")."""
    db = tmp_path / "docent.db"
    first, second = connect(db), connect(db)
    steps = ["CREATE TABLE pages (n INTEGER)"]
    failures: list[sqlite3.Error] = []
    # The second migration has begun its transaction (waiting for the lock, if it takes one)
    # or has run to its end.
    begun = threading.Event()
    second.set_trace_callback(lambda sql: begun.set() if sql.startswith("BEGIN") else None)

    def migrate_second() -> None:
        try:
            apply_migrations(second, "pages", steps)
        except sqlite3.Error as error:
            failures.append(error)
        finally:
            begun.set()

    other = threading.Thread(target=migrate_second)

    def between_read_and_step(sql: str) -> None:
        if sql.startswith("CREATE TABLE pages"):
            other.start()
            assert begun.wait(timeout=60), "the second migration never began"  # a deadline

    first.set_trace_callback(between_read_and_step)
    apply_migrations(first, "pages", steps)
    other.join(timeout=60)  # a deadline: a lock never released must not hang the run
    assert failures == [] and not other.is_alive()
    version = first.execute("SELECT version FROM schema_versions WHERE owner = 'pages'")
    assert version.fetchone() == (1,)
    first.close()
    second.close()


def test_uses_wal_and_leaves_room_for_other_tables(tmp_path: Path) -> None:
    db = tmp_path / "docent.db"
    Registry(db).close()

    other = connect(db)
    steps = ["CREATE TABLE session_titles (session_id TEXT PRIMARY KEY, title TEXT)"]
    apply_migrations(other, "sessions", steps)
    apply_migrations(other, "sessions", steps)  # a second run is a no-op
    other.execute("INSERT INTO session_titles VALUES ('s1', 'Hello')")
    other.commit()
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()

    reg = Registry(db)  # reopening does not disturb the other owner's table
    try:
        reg.upsert("a.txt", status=DocStatus.READY)
        raw = sqlite3.connect(db)
        versions = dict(raw.execute("SELECT owner, version FROM schema_versions"))
        titles = raw.execute("SELECT title FROM session_titles").fetchall()
        raw.close()
        assert versions == {"documents": len(DOCUMENTS_SCHEMA), "sessions": 1}
        assert titles == [("Hello",)]
    finally:
        reg.close()


def test_safe_from_many_threads(registry: Registry) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(50):
                registry.upsert(f"t{n}/f{i}.txt", status=DocStatus.READY, chunks=i)
                registry.list()
        except BaseException as exc:  # pragma: no cover - only on failure
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert registry.counts()[DocStatus.READY] == 400


def test_where_ocr_read_its_lines_stays_with_the_content_until_it_goes(
    registry: Registry,
) -> None:
    line = PlacedLine("Kestrel sails at dawn.", ((0.1, 0.2), (0.6, 0.2), (0.6, 0.25), (0.1, 0.25)))
    registry.begin_content("k1", "sha")
    registry.finish_content("scan.pdf", "k1", pages=2, chunks=1, placed={2: [line]})
    assert registry.placed_lines("k1", 2) == [line]
    assert registry.placed_lines("k1", 1) == []  # a page with text of its own
    # A copy of the same bytes is not read again: the lines stay.
    registry.finish_content("copy.pdf", "k1", pages=2, chunks=1)
    assert registry.placed_lines("k1", 2) == [line]
    # Read again (the OCR models changed): the new lines replace the old.
    moved = PlacedLine("Kestrel sails at dawn.", ((0.1, 0.3), (0.6, 0.3), (0.6, 0.35), (0.1, 0.35)))
    registry.finish_content("scan.pdf", "k1", pages=2, chunks=1, placed={2: [moved]})
    assert registry.placed_lines("k1", 2) == [moved]
    registry.drop_contents(["k1"])
    assert registry.placed_lines("k1", 2) == []
