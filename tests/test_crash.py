"""Crash safety: a subprocess killed with SIGKILL mid-ingest, then restarted.

After the restart the consistency check passes, every document is ready with its
chunks once, and nothing the first process had stored is embedded again.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.index.chroma_calls import open_chroma
from ingest.index.registry import Registry
from ingest.index.vectors import ChromaStore
from ingest.pipeline.indexer import Indexer
from ingest.types import DocStatus
from tests.crash_child import MARK
from tests.fakes.embedder import FakeEmbedder

ROOT = Path(__file__).resolve().parents[1]


def _folder(docs: Path) -> None:
    docs.mkdir(parents=True)
    for i in range(12):
        (docs / f"note{i:02}.txt").write_text(f"Note {i} is about the animal number {i}. " * 5)
    lines = [f"{MARK} line {n} tells part {n} of the long story." for n in range(4000)]
    (docs / "interrupt.txt").write_text("\n".join(lines))


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
        while not (data / "reached").exists():
            assert first.poll() is None, first.communicate()[0].decode()
            await asyncio.sleep(0.05)
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
