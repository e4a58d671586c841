"""Identical files at two paths: embedded once, both paths are sources, counted once."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.status_command import status
from app.settings import Settings
from ingest.pipeline.indexer import Indexer
from tests.api_app import NOTES, api_app
from tests.ingest_parts import ingest_parts


async def test_an_answer_lists_both_paths_of_identical_files(tmp_path: Path) -> None:
    async with api_app(tmp_path, files={"copy-of-notes.md": NOTES}) as app:
        response = await app.client.post(
            "/api/chat", json={"message": "Where is the spare key?", "stream": False}
        )
        assert response.status_code == 200
        sources = response.json()["sources"]
        assert sources, "the answer has sources"
        first = sources[0]
        assert "flowerpot" in first["snippet"]
        assert first["path"] == "copy-of-notes.md"
        assert first["paths"] == ["copy-of-notes.md", "notes.md"]
        assert all(s.get("paths", [s["path"]]).count("notes.md") <= 1 for s in sources)


async def test_status_counts_the_chunks_of_identical_files_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(data_dir=tmp_path)
    text = "# Otters\n\n" + "Otters hold hands while they sleep in the kelp. " * 60
    with ingest_parts(tmp_path) as parts:  # documents/, docent.db and chroma/ under it
        for name in ("a.md", "b.md", "sub/c.md"):
            (parts.docs / name).parent.mkdir(parents=True, exist_ok=True)
            (parts.docs / name).write_text(text)
        (parts.docs / "other.md").write_text("# Herons\n\nHerons stand still.")
        indexer = Indexer(settings.paths.docs_dir, parts.registry, [parts.store], parts.embedder)
        await indexer.index_all()
        stored = parts.store.count()
        assert len(parts.registry.list()) == 4
        assert parts.registry.chunk_total() == stored  # the store holds each chunk once
        assert sum(r.chunks for r in parts.registry.list()) > stored  # per path, it repeats

    assert status(settings) == 0
    out = capsys.readouterr().out
    assert f"Chunks: {stored}\n" in out
