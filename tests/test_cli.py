"""The command line: token, ingest, status and ask, as a user runs them."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from app.cli.commands import DEGRADED_EXIT
from app.cli.main import main, parse
from app.cli.status_command import MINILM_NAME, probe_ollama
from app.paths import DATA_DIR_ENV, resolve_data_dir
from app.settings import Settings
from app.token import load_or_create_token
from ingest.loaders import NOT_A_PDF
from models.embeddings import MODEL_NAME
from models.ollama_chat import OllamaChat
from tests.fakes.ollama_server import FakeOllamaServer, unused_url
from tests.pdfs import make_pdf
from tests.running import run_py


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
    token = load_or_create_token(data_dir / "api-token")  # as the first start does
    result = run_py("token", check=True)
    assert result.stdout.strip() == token and len(token) >= 32
    assert str(data_dir) in result.stderr  # which data dir it read


def test_token_never_creates_a_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "never-started"
    result = run_py("token", "--data-dir", str(missing))
    assert result.returncode == 1 and result.stdout == ""
    assert f"no API token in {missing}" in result.stderr and "run.py --data-dir" in result.stderr
    assert not missing.exists()


def test_open_says_when_no_instance_runs(data_dir: Path) -> None:
    load_or_create_token(data_dir / "api-token")
    result = run_py("open", "--no-browser")
    assert result.returncode == 1
    assert f"Docent is not running with data dir {data_dir}" in result.stderr
    assert "uv run run.py" in result.stderr


def test_status_never_creates_a_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "never-started"
    assert main(["status", "--data-dir", str(missing), "--ollama-host", unused_url()]) == 0
    assert not missing.exists()


def test_status_warns_when_the_chat_model_is_not_installed(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOllamaServer() as server:
        assert main(["status", "--ollama-host", server.url, "--chat-model", "mistral"]) == 0
    out = capsys.readouterr().out
    assert "Ollama: reachable" in out
    assert "Warning: The model 'mistral' is not installed" in out and "ollama pull mistral" in out


async def test_status_probe_agrees_with_the_chat_adapter() -> None:
    with FakeOllamaServer() as server:
        for host, model in [(server.url, "llama3.2"), (server.url, "mistral"), (unused_url(), "x")]:
            adapter = OllamaChat(host, model)
            try:
                assert probe_ollama(host, model) == await adapter.health(), (host, model)
            finally:
                await adapter.aclose()
    assert MINILM_NAME == MODEL_NAME


def test_data_dir_resolves_as_settings_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV)
    assert resolve_data_dir(None) == Settings().paths.data_dir
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "from-env"))
    assert resolve_data_dir(None) == Settings().paths.data_dir == (tmp_path / "from-env").resolve()
    flag = tmp_path / "from-flag"
    assert resolve_data_dir(flag) == Settings(data_dir=flag).paths.data_dir


def test_non_loopback_host_warns_and_a_taken_port_stops_the_start(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_py(
            "--no-browser",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--data-dir",
            str(tmp_path / "d"),
        )
    assert result.returncode == 1
    assert "Warning: --host 0.0.0.0 makes Docent reachable from other machines" in result.stderr
    assert f"Port {port} on 0.0.0.0 is already in use" in result.stderr
    assert "Docent is at" not in result.stdout


def test_flags_win_over_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCENT_PORT", "9000")
    monkeypatch.setenv("DOCENT_CHAT_MODEL", "from-env")
    monkeypatch.setenv("OLLAMA_HOST", "10.1.2.3:11434")
    args, settings = parse(["ask", "why?", "--port", "9100", "--data-dir", str(tmp_path)])
    assert (args.command, args.question) == ("ask", "why?")
    assert settings.server.port == 9100
    assert settings.models.chat_model == "from-env"
    assert settings.models.ollama_host == "http://10.1.2.3:11434"
    assert settings.paths.docs_dir == tmp_path.resolve() / "documents"


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
        server.enqueue_reply("It **leaves** at 07:15 \\#1 [1].")
        code = main(["ask", "When does the ferry to Tarvo leave?", "--ollama-host", server.url])
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0
    assert "It leaves at 07:15 #1 [1]." in out  # plain text, not Markdown
    assert "[1] ferry.pdf, page 2" in out
    # stderr is no terminal here: its progress is a line each, with no escape codes in it.
    assert "Searching 1 document…\n" in captured.err and "\033" not in captured.err
    # Then the window's Check line: the terminal shows what the sources hold too.
    last = captured.err.rstrip().splitlines()[-1]
    assert last.startswith("Check: ") and "of 1 sentence found in the sources" in last


def test_ask_without_ollama_exits_non_zero_with_plain_passages(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data_dir / "documents" / "costs.md").write_text(
        "# Costs\n\nThe *harbour* fees rose to 12 kroner (see `fees.csv`) in ## week 3.\n"
    )
    main(["ingest"])
    capsys.readouterr()
    code = main(["ask", "How much are the harbour fees?", "--ollama-host", unused_url()])
    captured = capsys.readouterr()
    assert code == DEGRADED_EXIT
    assert "No answer could be written" in captured.out and "ollama serve" in captured.err
    # The passage quoted as written, line by line, as plain text shows Markdown (a heading's
    # marks dropped, since the window renders passages now), no Markdown escapes or bold.
    assert "> Costs\n>\n> The *harbour* fees rose to 12 kroner (see fees.csv) in ## week 3." in (
        captured.out
    )
    assert "\\" not in captured.out and "**" not in captured.out


def test_every_setting_is_a_flag_and_the_contract_s_flags_stay(tmp_path: Path) -> None:
    args, settings = parse(
        ["--top-k", "9", "--no-suggestions", "--native", "--no-browser", "--docs", str(tmp_path)]
    )
    assert args.command == "serve"
    assert (settings.search.top_k, settings.turn.suggestions, settings.server.native) == (
        9,
        False,
        True,
    )
    assert settings.server.open_browser is False and settings.paths.docs_dir == tmp_path.resolve()
    refused = run_py("--top-k", "0", "--no-browser", "--data-dir", str(tmp_path / "d"))
    assert refused.returncode == 2 and "top_k" in refused.stderr
