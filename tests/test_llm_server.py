"""Answering through an OpenAI-compatible server (LM Studio, llama-server, vLLM), end to
end: a turn over /api/chat and `run.py ask`, the router's JSON tier with and without
``response_format``, /api/status and /v1/models, and the command line's flags."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli.commands import DEGRADED_EXIT
from app.cli.main import main, parse
from app.cli.status_command import probe_openai
from app.container import build_services
from app.settings import LM_STUDIO_URL, Settings
from graph import prompts
from models.embeddings import MiniLMEmbedder
from models.openai_chat import OpenAIChat
from tests.fakes.ollama_server import unused_url
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pdfs import make_pdf
from tests.running import read_sse, run_py, running_app, wait_ready

MODEL = "qwen2.5-7b-instruct"
FERRY = ["Timetable.", "The ferry to Tarvo leaves at 07:15 daily."]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def kind_of(body: dict[str, Any]) -> str:
    """Which of Docent's calls a chat completion is, from its system prompt."""
    system = body["messages"][0]["content"]
    for kind, prompt in (
        ("route", prompts.ROUTE_SYSTEM),
        ("rewrite", prompts.REWRITE_SYSTEM),
        ("suggest", prompts.SUGGEST_SYSTEM),
    ):
        if system.startswith(prompt[:60]):
            return kind
    return "answer"


def json_kind(body: dict[str, Any]) -> str | None:
    return (body.get("response_format") or {}).get("type")


@pytest.mark.parametrize("formats", [{"json_schema", "json_object"}, set()])
async def test_a_turn_over_the_api_streams_from_the_server_and_routes_by_its_json(
    tmp_path: Path, server: FakeOpenAIServer, formats: set[str]
) -> None:
    server.response_formats = formats  # set(): a server that takes no response_format
    route = '{"route": "documents"}' if formats else 'Sure:\n```json\n{"route": "documents"}\n```'
    answers = {"route": route, "answer": "It leaves at 07:15 [1]."}
    server.responder = lambda body: answers.get(kind_of(body))
    settings = Settings(
        data_dir=tmp_path / "data",
        llm_api="openai",
        llm_url=server.url,
        chat_model=MODEL,
        suggestions=False,
        probe_chat_below=-1.0,  # every message the rules leave open goes to the LLM
        probe_rag_above=2.0,
    )
    container = build_services(settings, embedder=MiniLMEmbedder())
    make_pdf(settings.paths.docs_dir / "ferry.pdf", FERRY)
    async with running_app(container) as app:
        await wait_ready(app, 1)
        body = {"message": "Is the crossing early?"}
        async with app.client.stream("POST", "/api/chat", json=body) as response:
            events = await read_sse(response)
        status = (await app.client.get("/api/status")).json()
        models = (await app.client.get("/v1/models")).json()["data"]

    tokens = [data["text"] for kind, data in events if kind == "token"]
    done = next(data for kind, data in events if kind == "done")
    assert len(tokens) > 1 and "".join(tokens) == "It leaves at 07:15 [1]."
    # The answer check points the mark at the passage that says it (page 2 of the PDF).
    cited = {s["n"]: s for s in done["sources"]}
    n = int(done["answer"].removeprefix("It leaves at 07:15 [").removesuffix("].") or 0)
    assert (cited[n]["file"], cited[n]["page"]) == ("ferry.pdf", 2)
    trace = done["trace"]
    assert (trace["route"], trace["routed_by"], trace["route_reason"]) == (
        "rag",
        "llm",
        "LLM said documents",
    )
    assert trace["model"] == MODEL and trace["prompt_tokens"] > 0 and trace["answer_tokens"] == 5
    routes = [b for b in server.chat_requests() if kind_of(b) == "route"]
    if formats:
        assert [json_kind(b) for b in routes] == ["json_schema"]
        assert routes[0]["response_format"]["json_schema"]["schema"] == prompts.ROUTE_SCHEMA
    else:  # stepped down once, then read the JSON out of the fenced text
        assert [json_kind(b) for b in routes] == ["json_schema", "json_object", "json_object", None]
    (answer,) = [b for b in server.chat_requests() if kind_of(b) == "answer"]
    assert answer["stream"] is True and answer["stream_options"] == {"include_usage": True}
    assert answer["max_tokens"] == container.deps.options.answer_tokens
    assert status["model_server"] == {
        "api": "openai",
        "reachable": True,
        "host": server.url,
        "chat_model": MODEL,
        "models": server.models,
        "error": None,
    }
    assert status["ollama"] == {k: v for k, v in status["model_server"].items() if k != "api"}
    assert [(m["id"], m["owned_by"]) for m in models] == [
        ("docent", "docent"),
        *((name, "model-server") for name in server.models),
    ]


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    monkeypatch.setenv("DOCENT_DATA_DIR", str(data))
    (data / "documents").mkdir(parents=True)
    make_pdf(data / "documents" / "ferry.pdf", FERRY)
    assert main(["ingest"]) == 0
    return data


def test_ask_streams_the_server_s_answer_to_the_terminal(
    data_dir: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.responder = lambda body: "It leaves at 07:15 [1]." if kind_of(body) == "answer" else None
    capsys.readouterr()
    flags = ["--llm-api", "openai", "--llm-url", server.url, "--chat-model", MODEL]
    code = main(["ask", "When does the ferry to Tarvo leave?", *flags])
    out = capsys.readouterr().out
    assert code == 0
    assert "It leaves at 07:15 [1]." in out and "[1] ferry.pdf, page 2" in out
    assert server.chat_requests()[-1]["stream"] is True


def test_ask_with_no_server_running_says_what_to_start(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    url = unused_url() + "/v1"
    code = main(
        ["ask", "When does the ferry to Tarvo leave?", "--llm-api", "openai", "--llm-url", url]
    )
    captured = capsys.readouterr()
    assert code == DEGRADED_EXIT
    assert f"No model server answers at {url}. Start LM Studio's server" in captured.err
    assert "The ferry to Tarvo leaves at 07:15 daily" in captured.out  # the passage instead


def test_status_names_the_model_server_and_a_model_it_has_not_loaded(
    data_dir: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    flags = ["--llm-api", "openai", "--llm-url", server.url, "--chat-model", "llama-3.3-70b"]
    assert main(["status", *flags]) == 0
    out = capsys.readouterr().out
    models = ", ".join(server.models)
    assert f"Model server (OpenAI API): reachable at {server.url}; models: {models}" in out
    assert (
        f"Warning: The model 'llama-3.3-70b' is not loaded in the server at {server.url}; "
        f"load it, or choose one of: {models}."
    ) in out
    assert "Ollama" not in out


async def test_the_status_probe_agrees_with_the_adapter(server: FakeOpenAIServer) -> None:
    server.api_key = "sk-right"
    cases = [
        (server.url, MODEL, "sk-right"),
        (server.url, "llama-3.3-70b", "sk-right"),
        (server.url, MODEL, None),  # 401
        (server.root, MODEL, "sk-right"),  # no /v1: 404
        (unused_url() + "/v1", MODEL, None),
    ]
    for url, model, key in cases:
        adapter = OpenAIChat(url, model, api_key=key)
        try:
            assert probe_openai(url, model, key) == await adapter.health(), (url, model, key)
        finally:
            await adapter.aclose()


def test_the_flags_and_variables_choose_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, settings = parse(["--llm-api", "openai", "--llm-url", "127.0.0.1:8081/v1/"])
    assert (settings.models.llm_api, settings.models.chat_url) == (
        "openai",
        "http://127.0.0.1:8081/v1",
    )
    _, settings = parse(["--llm-api", "openai"])
    assert settings.models.chat_url == LM_STUDIO_URL == "http://127.0.0.1:1234/v1"
    # With Ollama, --llm-url says what --ollama-host says (Ollama's API is at the root).
    _, settings = parse(["--llm-url", "http://gpu-box:11434/v1"])
    assert settings.models.chat_url == settings.models.embed_ollama_host == "http://gpu-box:11434"
    monkeypatch.setenv("DOCENT_LLM_API", "openai")
    monkeypatch.setenv("DOCENT_LLM_URL", "http://10.0.0.5:8000/v1")
    _, settings = parse(["--chat-model", "Qwen/Qwen2.5-7B-Instruct"])
    assert settings.models.chat_url == "http://10.0.0.5:8000/v1"
    assert (
        settings.models.embed_ollama_host == settings.models.ollama_host
    )  # embeddings stay as they were
    refused = run_py("--llm-api", "llamacpp", "--no-browser", "--data-dir", str(tmp_path / "d"))
    assert refused.returncode == 2 and "llm_api" in refused.stderr
    shown = run_py("--help").stdout
    assert "--llm-api {ollama,openai}" in shown and "--llm-url" in shown
