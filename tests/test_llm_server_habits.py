"""Docent end to end on model servers with their habits (tests/fakes/server_habits.py
``HABITS``): an answer arrives whole while the status is asked for, a follow-up is
rewritten with its @file, suggestions and the router's JSON arrive, and an answer the
server cut short says why."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.container import build_services
from app.settings import Settings
from models.embeddings import MiniLMEmbedder
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pdfs import make_pdf
from tests.running import RunningApp, eventually, read_sse, running_app, unmarked, wait_ready
from tests.test_llm_server import kind_of

MODEL = "qwen2.5-coder-1.5b-instruct"
FERRY = ["Timetable.", "The ferry to Tarvo leaves at 07:15 daily, and at 09:00 on Sundays."]
BUS = ["Timetable.", "The bus to Tarvo leaves at 08:00 daily, and at 10:00 on Sundays."]
SUGGESTED = ["Where does it stop?", "How long is the crossing?", "What does it cost?"]
REWRITTEN = "Sunday departure time of the ferry to Tarvo"
REPLIES = {
    "rewrite": f'{{"query": "{REWRITTEN}"}}',
    "suggest": '{"suggestions": ["' + '", "'.join(SUGGESTED) + '"]}',
    "route": '{"route": "documents"}',
    "answer": "It leaves at 09:00 on Sundays [1].",
}


def answer_by_kind(body: dict[str, Any]) -> str | None:
    return REPLIES.get(kind_of(body))


@pytest.fixture(params=["llama-cpp-python", "lm-studio", "vllm"])
def server(request: pytest.FixtureRequest) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer([MODEL], habits=request.param) as fake:
        fake.responder = answer_by_kind
        yield fake


@pytest.fixture
def llama() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer([MODEL], habits="llama-cpp-python") as fake:
        yield fake


@asynccontextmanager
async def docent(
    tmp_path: Path, server: FakeOpenAIServer, **settings: Any
) -> AsyncIterator[RunningApp]:
    """The app on ``server``, with the ferry's and the bus's timetables indexed."""
    config = Settings(
        data_dir=tmp_path / "data",
        llm_api="openai",
        llm_url=server.url,
        chat_model=MODEL,
        **settings,
    )
    container = build_services(config, embedder=MiniLMEmbedder())
    make_pdf(config.paths.docs_dir / "ferry.pdf", FERRY)
    make_pdf(config.paths.docs_dir / "bus.pdf", BUS)
    async with running_app(container) as app:
        await wait_ready(app, 2)
        yield app


async def ask(app: RunningApp, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    async with app.client.stream("POST", "/api/chat", json=body) as response:
        return await read_sse(response)


def done_of(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return next(data for kind, data in events if kind == "done")


async def test_an_answer_arrives_whole_while_the_status_is_asked_for(
    tmp_path: Path, llama: FakeOpenAIServer
) -> None:
    llama.enqueue_reply("It leaves at 07:15 daily [1].")
    async with docent(tmp_path, llama, suggestions=False) as app:
        monitor = app.container.health
        llama.reply_gate = threading.Event()  # the model is still reading the prompt
        try:
            body = {"message": "When does the ferry to Tarvo leave?", "mode": "rag"}
            turn = asyncio.create_task(ask(app, body))
            await eventually(lambda: llama.answering == 1, what="the model at work")
            monitor.poke()  # as the health check's timer firing
            asked = [asyncio.create_task(app.client.get("/api/status")) for _ in range(3)]
            asked.append(asyncio.create_task(monitor.check_now()))  # the banner's Retry
            # Either every check answered without asking the server, or one waits there.
            await eventually(
                lambda: all(a.done() for a in asked) or llama.waiting > 0, what="the checks"
            )
        finally:
            llama.reply_gate.set()
        events = await turn
        statuses = [(await a).json()["model_server"] for a in asked[:3]]
        report = await asked[3]
    assert unmarked(done_of(events)["answer"]) == "It leaves at 07:15 daily."
    assert llama.cut_short == 0
    assert all(s["reachable"] and s["error"] is None for s in statuses), statuses
    assert [p for p in report.problems if p.kind != "reranker_unavailable"] == []


async def test_a_follow_up_is_rewritten_with_its_file_and_suggestions_arrive(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    async with docent(tmp_path, server) as app:
        first = await ask(app, {"message": "When does the ferry to Tarvo leave?", "mode": "rag"})
        session = done_of(first)["session_id"]
        body = {"message": "@ferry.pdf and on Sundays?", "mode": "rag", "session_id": session}
        follow_up = await ask(app, body)
    done = done_of(follow_up)
    assert done["trace"]["queries"] == [{"text": REWRITTEN, "files": ["ferry.pdf"]}]
    assert {source["file"] for source in done["sources"]} == {"ferry.pdf"}
    assert unmarked(done["answer"]) == "It leaves at 09:00 on Sundays."
    for events in (first, follow_up):
        assert events[-1] == ("suggestions", {"suggestions": SUGGESTED})
    rewrites = [b for b in server.chat_requests() if kind_of(b) == "rewrite"]
    assert rewrites and rewrites[-1]["response_format"]["type"] in ("json_schema", "json_object")
    assert server.cut_short == 0


async def test_the_router_s_model_tier_reads_the_json_of_a_server_refusing_json_schema(
    tmp_path: Path, llama: FakeOpenAIServer
) -> None:
    llama.responder = answer_by_kind
    settings = {"suggestions": False, "probe_chat_below": -1.0, "probe_rag_above": 2.0}
    async with docent(tmp_path, llama, **settings) as app:
        events = await ask(app, {"message": "Is the crossing early?"})
    trace = done_of(events)["trace"]
    assert (trace["routed_by"], trace["route_reason"]) == ("llm", "LLM said documents")
    routes = [b["response_format"] for b in llama.chat_requests() if kind_of(b) == "route"]
    assert [f["type"] for f in routes] == ["json_schema", "json_object"]


async def test_an_answer_the_server_cut_short_says_why_and_shows_the_passages(
    tmp_path: Path, llama: FakeOpenAIServer
) -> None:
    async with docent(tmp_path, llama, suggestions=False) as app:
        llama.reply_gate = threading.Event()
        try:
            body = {"message": "When does the ferry to Tarvo leave?", "mode": "rag"}
            turn = asyncio.create_task(ask(app, body))
            await eventually(lambda: llama.answering == 1, what="the model at work")
            # Another app asks the server for its models: it ends Docent's answer for it.
            other = asyncio.create_task(asyncio.to_thread(httpx.get, llama.url + "/models"))
            await eventually(lambda: llama.waiting == 1, what="the other app's request")
        finally:
            llama.reply_gate.set()
        empty = done_of(await turn)
        await other
        llama.enqueue_reply("The ferry leaves at", ending="done")
        part = done_of(await ask(app, body))
    assert empty["answer"].startswith(
        f"**No answer could be written: The model server at {llama.url} ended the answer "
        "before the model wrote anything, without an error"
    )
    assert "another app or another Docent" in empty["answer"]
    assert "The ferry to Tarvo leaves at 07:15 daily" in empty["answer"]  # the passage
    assert empty["trace"]["llm_error"] is not None
    assert part["answer"].startswith("The ferry leaves at\n\n*(The answer was cut off: ")
    assert "ended the answer after 19 characters" in part["answer"]
