"""`run.py ingest` and `status --check` tell the truth about the library."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import commands
from app.settings import Settings
from ingest.document_parts import DocStatus
from ingest.index.registry import Registry
from ingest.pipeline.lock import IndexLock


def _settings(tmp_path: Path) -> Settings:
    settings = Settings.model_validate(
        {"data_dir": tmp_path / "data", "ollama_host": "http://127.0.0.1:9"}
    )
    settings.paths.docs_dir.mkdir(parents=True)
    return settings


async def test_ingest_while_the_app_runs_reports_the_real_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(tmp_path)
    registry = Registry(settings.paths.data_dir / "docent.db")
    registry.upsert("a.txt", status=DocStatus.READY, chunks=3)
    registry.upsert("b.txt", status=DocStatus.READY, chunks=2)
    registry.close()
    running_app = IndexLock(settings.paths.data_dir / "indexer.lock")
    assert running_app.acquire()
    try:
        assert await commands.ingest(settings) == 0
    finally:
        running_app.release()
    out = capsys.readouterr().out
    assert "is running" in out and "indexes" in out
    assert "2 documents ready, 0 failed" in out


async def test_the_ingest_command_settles_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(tmp_path)
    (settings.paths.docs_dir / "note.txt").write_text("The ferry leaves at seven.")
    seen: list[int] = []
    monkeypatch.setattr(commands, "settle", lambda: seen.append(len(seen)))

    assert await commands.ingest(settings) == 0
    assert seen == [0]


async def test_status_check_says_what_differs_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(tmp_path)
    (settings.paths.docs_dir / "new.txt").write_text("never indexed")
    assert await commands.check(settings) == 1
    out = capsys.readouterr().out
    assert "1 file(s) in the folder but not in the registry: new.txt" in out

    (settings.paths.docs_dir / "new.txt").unlink()
    assert await commands.check(settings) == 0
    assert "agree" in capsys.readouterr().out


def test_status_with_check_runs_the_check_and_exits_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.cli.status_command import status

    settings = _settings(tmp_path)
    (settings.paths.docs_dir / "new.txt").write_text("never indexed")
    assert status(settings) == 0
    assert status(settings, check=True) == 1
    assert "new.txt" in capsys.readouterr().out
