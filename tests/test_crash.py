"""Crash safety: a subprocess killed with SIGKILL mid-ingest, then restarted.

After the restart the consistency check passes, every document is ready with its
chunks once, and nothing the first process had stored is embedded again.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.document_parts import DocStatus
from ingest.index.chroma_calls import open_chroma
from ingest.index.registry import Registry
from ingest.index.vectors import ChromaStore
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.kept_pages import KeptPages
from tests.crash_child import MARK
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.ocr import HOLD, reads
from tests.running import eventually
from tests.scans import coded_page, tiff

ROOT = Path(__file__).resolve().parents[1]


def _folder(docs: Path) -> None:
    docs.mkdir(parents=True)
    for i in range(12):
        (docs / f"note{i:02}.txt").write_text(f"Note {i} is about the animal number {i}. " * 5)
    lines = [f"{MARK} line {n} tells part {n} of the long story." for n in range(4000)]
    (docs / "interrupt.txt").write_text("\n".join(lines))


def alive(child: subprocess.Popen[bytes]) -> bool:
    """True while ``child`` runs; fails with its output once it has ended."""
    assert child.poll() is None, child.communicate()[0].decode()
    return True


def _child(data: Path, log: Path, crash_at: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.crash_child", str(data), str(log), crash_at],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _embedded(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def _stored_texts(data: Path) -> set[str]:
    client = open_chroma(data)
    try:
        store = ChromaStore(client, FakeEmbedder())
        return set(store.texts())
    finally:
        client.close()


@pytest.mark.parametrize(
    "crash_at",
    [
        pytest.param("load", marks=pytest.mark.slow),
        "embed",
        pytest.param("between", marks=pytest.mark.slow),
    ],
)
async def test_kill_9_mid_ingest_then_restart(tmp_path: Path, crash_at: str) -> None:
    data = tmp_path / "data"
    _folder(data / "documents")
    first = _child(data, tmp_path / "first.jsonl", crash_at)
    try:
        await eventually(
            lambda: alive(first) and (data / "reached").exists(),
            timeout=300,
            what=f"the child to reach {crash_at}",
        )
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    stored = _stored_texts(data)
    marked_stored = {text for text in stored if MARK in text}
    if crash_at == "load":
        assert not marked_stored
    else:
        assert marked_stored  # work to resume, not redo
    (data / "reached").unlink()

    second = _child(data, tmp_path / "second.jsonl", "none")
    out, _ = second.communicate(timeout=300)
    assert second.returncode == 0, out.decode()

    again = set(_embedded(tmp_path / "second.jsonl")) & stored
    assert not again, f"{len(again)} stored chunks were embedded again"
    registry = Registry(data / "docent.db")
    client = open_chroma(data)
    try:
        store = ChromaStore(client, FakeEmbedder(), lookup=registry)
        records = registry.list()
        assert len(records) == 13 and {r.status for r in records} == {DocStatus.READY}
        indexer = Indexer(data / "documents", registry, [store], store.embedder)
        report = await indexer.check()
        assert report.differences() == []
        assert store.count() == sum(c.chunks for c in registry.contents())
    finally:
        registry.close()
        client.close()


async def test_kill_9_mid_ocr_then_restart_reads_only_the_pages_not_read(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    docs = data / "documents"
    docs.mkdir(parents=True)
    pages = [f"Folio {n} {HOLD if n == 8 else 'lists'} {n * 11} barrels." for n in range(1, 21)]
    tiff(docs / "ledger.tif", [coded_page(text) for text in pages])
    sha = hashlib.sha256((docs / "ledger.tif").read_bytes()).hexdigest()
    kept = KeptPages(data / "docent.db")
    first = _child(data, tmp_path / "first.jsonl", "ocr")
    try:
        # Page 8 waits for a gate that stays shut: seven pages read, and kept.
        await eventually(
            lambda: alive(first) and kept.kept(sha).next_page >= 8,
            timeout=300,
            what="seven pages read and kept",
        )
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert reads(tmp_path / "first.ocr") == pages[:7]

    (data / "gate").touch()
    second = _child(data, tmp_path / "second.jsonl", "ocr")
    out, _ = second.communicate(timeout=300)
    assert second.returncode == 0, out.decode()
    assert reads(tmp_path / "second.ocr") == pages[7:]  # not one page read again
    stored = "\n".join(_stored_texts(data))
    assert all(text in stored for text in pages)
    registry = Registry(data / "docent.db")
    try:
        record = registry.get_by_path("ledger.tif")
        assert record is not None and record.status == DocStatus.READY
        assert record.note == "scanned: 20 pages read by OCR"
    finally:
        registry.close()
    assert kept.kept(sha).next_page == 1  # indexed: its kept pages are gone
    kept.close()
