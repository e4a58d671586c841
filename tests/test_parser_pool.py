"""The parser processes: errors cross back as their own types, a worker that breaks its
memory limit or is stopped mid-file is killed and replaced, and none outlives the app."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ingest.pipeline.process as pipeline_module
from ingest.document_parts import DocStatus
from ingest.loaders import UnreadableFile, UnsupportedFile
from ingest.parsing import Cancelled, ParserPool, RemoteDocument
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from tests.api_app import api_app
from tests.bombs import docx_many_styles
from tests.ingest_parts import IngestParts, ingest_parts, warm_parsers
from tests.parse_tasks import address_space_mb, pid_alive, raising, stuck_reading
from tests.running import ROOT, eventually

needs_proc = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads processes from Linux's /proc"
)


@pytest.fixture
def pool() -> Iterator[ParserPool]:
    made = ParserPool(size=2)
    yield made
    made.close()


def _read(pool: ParserPool, path: Path, data: bytes | None = None) -> str:
    with pool.open_document(path, data) as document:
        return "".join(page.text for page in document.pages())


@pytest.mark.parametrize(
    "error",
    [
        PermissionError(13, "Permission denied", "/docs/locked.pdf"),
        FileNotFoundError(2, "No such file or directory", "/docs/gone.pdf"),
        IsADirectoryError(21, "Is a directory", "/docs/folder.txt"),
        OSError(5, "Input/output error", "/docs/bad-sector.pdf"),
        UnreadableFile("password-protected PDF: remove the password and save a copy"),
    ],
)
def test_errors_cross_back_as_the_types_the_indexer_tells_apart(
    pool: ParserPool, error: BaseException
) -> None:
    with pool.lease() as lease, pytest.raises(type(error)) as raised:
        lease.start(raising, (error,))

    assert type(raised.value) is type(error)
    assert str(raised.value) == str(error)
    if isinstance(error, OSError):
        assert isinstance(raised.value, OSError)
        assert (raised.value.errno, raised.value.filename) == (error.errno, error.filename)


def test_a_real_files_errors_cross_back(pool: ParserPool, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "photo.xyz").write_bytes(b"\x89PNG")

    with pytest.raises(FileNotFoundError):
        pool.open_document(tmp_path / "missing.txt")
    with pytest.raises(UnreadableFile, match="file is empty"):
        pool.open_document(tmp_path / "empty.txt")
    with pytest.raises(UnsupportedFile) as unsupported:
        pool.open_document(tmp_path / "photo.xyz")
    assert unsupported.value.path.name == "photo.xyz"
    assert len(pool.pids()) == 1  # a file's error is an answer: the worker carries on


def test_a_bug_in_a_loader_crosses_back_with_its_traceback(pool: ParserPool) -> None:
    with pool.lease() as lease, pytest.raises(KeyError) as raised:
        lease.start(raising, (KeyError("xref"),))

    assert any("raised in a parser process" in note for note in raised.value.__notes__)


def test_the_held_bytes_are_parsed_not_the_file_on_disk(pool: ParserPool, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("what is on disk now")

    assert _read(pool, path, b"the bytes the app read and hashed") == (
        "the bytes the app read and hashed"
    )
    assert _read(pool, path) == "what is on disk now"


@needs_proc
def test_a_file_over_the_memory_limit_fails_saying_so_and_its_worker_is_replaced(
    tmp_path: Path,
) -> None:
    (tmp_path / "small.txt").write_text("Herons stand still in the shallows.")
    docx_many_styles(tmp_path / "styles.docx", 200_000)  # ~70 MB once parsed
    probe = ParserPool(size=1)
    _read(probe, tmp_path / "small.txt")
    baseline = address_space_mb(probe.pids()[0])
    probe.close()
    limit = int(baseline) + 48
    pool = ParserPool(size=1, memory_mb=limit)
    try:
        assert "Herons" in _read(pool, tmp_path / "small.txt")
        [first] = pool.pids()

        with pytest.raises(UnreadableFile) as refused:
            _read(pool, tmp_path / "styles.docx")

        assert f"expands to more than {limit} MB" in refused.value.reason
        assert "DOCENT_PARSER_MEMORY_MB" in refused.value.reason
        assert not pid_alive(first)
        assert "Herons" in _read(pool, tmp_path / "small.txt")  # a fresh worker
        assert pool.pids() != [first]
    finally:
        pool.close()


def _read_in_a_thread(
    document: RemoteDocument,
) -> tuple[threading.Thread, list[BaseException]]:
    """Read every page in a thread of its own (the pipeline's producer); the list gets
    what the reading ended with."""
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            list(document.pages())
        except BaseException as error:
            outcome.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    return reader, outcome


@needs_proc
async def test_closing_a_document_mid_read_kills_its_worker(
    pool: ParserPool, tmp_path: Path
) -> None:
    """The producer thread waits on the pipe; another thread closes the document."""
    path = tmp_path / "stuck.txt"
    path.write_text("anything")
    document = RemoteDocument.open(pool, stuck_reading, (str(path),), None, None)
    reader, outcome = _read_in_a_thread(document)
    marker = tmp_path / "stuck.txt.parsing"
    await eventually(marker.exists, what="the worker to be stuck on the file")
    pid = int(marker.read_text())

    document.close()

    await eventually(lambda: not reader.is_alive(), what="the reader to give up")
    assert [type(error) for error in outcome] == [Cancelled]
    await eventually(lambda: not pid_alive(pid), what="the stuck worker to be gone")
    assert pid not in pool.pids()
    assert _read(pool, path) == "anything"  # a new worker serves the next file


@needs_proc
async def test_a_cancel_event_kills_the_worker_at_once(pool: ParserPool, tmp_path: Path) -> None:
    path = tmp_path / "stuck.txt"
    path.write_text("anything")
    cancelled = threading.Event()
    document = RemoteDocument.open(pool, stuck_reading, (str(path),), None, cancelled)
    reader, outcome = _read_in_a_thread(document)
    marker = tmp_path / "stuck.txt.parsing"
    await eventually(marker.exists, what="the worker to be stuck on the file")

    cancelled.set()

    await eventually(lambda: not reader.is_alive(), what="the reader to give up")
    assert [type(error) for error in outcome] == [Cancelled]
    await eventually(lambda: not pid_alive(int(marker.read_text())), what="the worker gone")


_ORPHAN = """
import sys
from pathlib import Path
from ingest.parsing import RemoteDocument, ParserPool
from tests.parse_tasks import stuck_reading
document = RemoteDocument.open(ParserPool(size=1), stuck_reading, (sys.argv[1],), None, None)
print(document.pid, flush=True)
list(document.pages())
"""


@needs_proc
async def test_workers_leave_when_the_app_dies_even_mid_file(tmp_path: Path) -> None:
    path = tmp_path / "stuck.txt"
    path.write_text("anything")
    app = subprocess.Popen(
        [sys.executable, "-c", _ORPHAN, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert app.stdout is not None
        worker = int(app.stdout.readline())
        marker = tmp_path / "stuck.txt.parsing"
        await eventually(marker.exists, what="the worker to be stuck on the file")

        app.kill()  # no clean-up runs in the app

        await eventually(lambda: not pid_alive(worker), what="the orphaned worker to leave")
    finally:
        app.kill()
        app.wait()


# -- the indexer's side: a file stopped mid-parse takes its worker with it ---------------


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[IngestParts]:
    with ingest_parts(tmp_path) as made:
        yield made


def _stuck_on(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The file called ``name`` hangs in its worker before its first page."""
    real_open = pipeline_module.open_source

    def open_source(path: Path, data: bytes | None, parsers: ParserPool, *rest: Any) -> Any:
        if path.name != name:
            return real_open(path, data, parsers, *rest)
        return RemoteDocument.open(parsers, stuck_reading, (str(path),), data, rest[0])

    monkeypatch.setattr(pipeline_module, "open_source", open_source)


async def _stuck_worker(docs: Path, name: str) -> int:
    marker = docs / f"{name}.parsing"
    await eventually(marker.exists, what=f"{name}'s worker to be stuck")
    return int(marker.read_text())


async def _next_file_gets_a_new_worker(indexer: Indexer, parts: IngestParts, old: int) -> None:
    (parts.docs / "next.txt").write_text("Herons stand still in the shallows.")
    indexer.enqueue(parts.docs / "next.txt")
    await eventually(lambda: parts.status("next.txt") == DocStatus.READY, what="next.txt")
    assert indexer.parsers.pids() and old not in indexer.parsers.pids()


@needs_proc
async def test_deleting_a_file_mid_parse_kills_its_worker(
    parts: IngestParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stuck_on(monkeypatch, "stuck.txt")
    indexer = Indexer(parts.docs, parts.registry, [parts.store], parts.embedder)
    (parts.docs / "stuck.txt").write_text("a file its parser never finishes")
    await indexer.start()
    try:
        indexer.enqueue(parts.docs / "stuck.txt")
        pid = await _stuck_worker(parts.docs, "stuck.txt")

        (parts.docs / "stuck.txt").unlink()
        indexer.enqueue(parts.docs / "stuck.txt")
        await asyncio.wait_for(indexer.wait_idle(), 60)

        assert parts.registry.get_by_path("stuck.txt") is None
        await eventually(lambda: not pid_alive(pid), what="the stuck worker to be killed")
        await _next_file_gets_a_new_worker(indexer, parts, pid)
    finally:
        await indexer.stop()


@needs_proc
async def test_a_file_past_its_time_budget_has_its_worker_killed(
    parts: IngestParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stuck_on(monkeypatch, "stuck.txt")
    # Its worker started already: the stuck file is seen in it long before the budget ends.
    with warm_parsers(2) as parsers:
        indexer = Indexer(
            parts.docs,
            parts.registry,
            [parts.store],
            parts.embedder,
            parsers=parsers,
            options=IndexOptions(time_budget=3.0),
        )
        (parts.docs / "stuck.txt").write_text("a file its parser never finishes")
        await indexer.start()
        try:
            indexer.enqueue(parts.docs / "stuck.txt")
            pid = await _stuck_worker(parts.docs, "stuck.txt")
            # A file takes its budget as it starts: the next one's is out of reach of any
            # machine's slowness, and only the stuck file's 3 s are ever used up.
            indexer.options.time_budget = 600.0
            await asyncio.wait_for(indexer.wait_idle(), 60)

            stuck = parts.registry.get_by_path("stuck.txt")
            assert stuck is not None and stuck.status == DocStatus.ERROR
            assert stuck.error is not None and "time budget" in stuck.error
            await eventually(lambda: not pid_alive(pid), what="the stuck worker to be killed")
            await _next_file_gets_a_new_worker(indexer, parts, pid)
        finally:
            await indexer.stop()


@needs_proc
async def test_stopping_the_indexer_kills_a_worker_mid_file(
    parts: IngestParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stuck_on(monkeypatch, "stuck.txt")
    indexer = Indexer(parts.docs, parts.registry, [parts.store], parts.embedder)
    (parts.docs / "stuck.txt").write_text("a file its parser never finishes")
    await indexer.start()
    indexer.enqueue(parts.docs / "stuck.txt")
    pid = await _stuck_worker(parts.docs, "stuck.txt")

    await indexer.stop()

    await eventually(lambda: not pid_alive(pid), what="the stuck worker to be killed")
    assert indexer.parsers.pids() == []
    assert parts.status("stuck.txt") == DocStatus.INDEXING  # resumed by the next scan


@needs_proc
async def test_the_memory_setting_limits_the_apps_parser_processes(tmp_path: Path) -> None:
    """Through Settings and the container, as a user sets DOCENT_PARSER_MEMORY_MB."""
    (tmp_path / "probe.txt").write_text("a probe")
    probe = ParserPool(size=1)
    _read(probe, tmp_path / "probe.txt")
    limit = int(address_space_mb(probe.pids()[0])) + 48
    probe.close()
    async with api_app(tmp_path, parser_memory_mb=limit) as app:
        docs, parsers = app.container.settings.paths.docs_dir, app.container.parsers
        [before] = parsers.pids()  # the worker that read notes.md
        docx_many_styles(docs / "styles.docx", 200_000)  # ~70 MB once parsed
        app.container.indexer.enqueue(docs / "styles.docx")

        def status(rel: str) -> DocStatus | None:
            record = app.container.registry.get_by_path(rel)
            return record.status if record else None

        await eventually(
            lambda: status("styles.docx") == DocStatus.ERROR, timeout=60, what="styles.docx"
        )
        record = app.container.registry.get_by_path("styles.docx")
        assert record is not None and record.error is not None
        assert f"more than {limit} MB" in record.error
        assert "DOCENT_PARSER_MEMORY_MB" in record.error
        await eventually(lambda: not pid_alive(before), what="the worker to be replaced")
        (docs / "after.md").write_text("# After\n\nHerons stand still.")
        app.container.indexer.enqueue(docs / "after.md")
        await eventually(lambda: status("after.md") == DocStatus.READY, what="after.md")
        assert before not in parsers.pids()


_UNGUARDED = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from ingest.parsing import ParserPool, ParserUnavailable
try:
    ParserPool(size=1).open_document(Path(sys.argv[2]))
except ParserUnavailable as error:
    print("unavailable:", error)
"""


def test_a_worker_that_cannot_start_blames_no_file(tmp_path: Path) -> None:
    """A script without a main guard runs again in each worker, which then fails."""
    script = tmp_path / "unguarded.py"
    script.write_text(_UNGUARDED)
    (tmp_path / "notes.txt").write_text("fine")

    done = subprocess.run(
        [sys.executable, str(script), str(ROOT), str(tmp_path / "notes.txt")],
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert "unavailable: a parser process could not start" in done.stdout, done.stderr
    assert '__name__ == "__main__"' in done.stdout
