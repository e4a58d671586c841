"""The command line: token, ingest, status and ask, as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import build_parser, main, settings_from
from ingest.loaders import NOT_A_PDF
from tests.fakes.ollama_server import FakeOllamaServer, unused_url
from tests.pdfs import make_pdf

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    monkeypatch.setenv("DOCENT_DATA_DIR", str(data))
    monkeypatch.setenv("DOCENT_EMBED_BACKEND", "minilm")
    docs = data / "documents"
    docs.mkdir(parents=True)
    make_pdf(docs / "ferry.pdf", ["Timetable.", "The ferry to Tarvo leaves at 07:15 daily."])
    (docs / "broken.pdf").write_bytes(b"this is not a pdf")
    return data


def test_token_is_printed_by_run_py(data_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "run.py", "token"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == (data_dir / "api-token").read_text().strip()
    assert len(result.stdout.strip()) >= 32


def test_flags_win_over_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCENT_PORT", "9000")
    monkeypatch.setenv("DOCENT_CHAT_MODEL", "from-env")
    monkeypatch.setenv("OLLAMA_HOST", "10.1.2.3:11434")
    args = build_parser().parse_args(["--port", "9100", "--data-dir", str(tmp_path)])
    settings = settings_from(args)
    assert settings.port == 9100
    assert settings.chat_model == "from-env"
    assert settings.ollama_host == "http://10.1.2.3:11434"
    assert settings.docs_dir == tmp_path.resolve() / "documents"


def test_ingest_lists_failures_and_exits_zero(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest"]) == 0
    out = capsys.readouterr().out
    assert "1 documents ready, 1 failed" in out
    assert f"broken.pdf: {NOT_A_PDF}" in out


def test_status_reports_documents_and_ollama(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["ingest"])
    capsys.readouterr()
    assert main(["status", "--ollama-host", unused_url()]) == 0
    out = capsys.readouterr().out
    assert "ready     1" in out and "error     1" in out
    assert "Embedding model: all-MiniLM-L6-v2" in out
    assert "Ollama: not reachable" in out and "ollama serve" in out


def test_ask_streams_the_answer_and_its_sources(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["ingest"])
    capsys.readouterr()
    with FakeOllamaServer() as server:
        server.enqueue_reply("It leaves at 07:15 [1].")
        code = main(["ask", "When does the ferry to Tarvo leave?", "--ollama-host", server.url])
    out = capsys.readouterr().out
    assert code == 0
    assert "It leaves at 07:15 [1]." in out
    assert "[1] ferry.pdf, page 2" in out
