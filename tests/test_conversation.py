"""Conversations end to end: the real app over HTTP, real MiniLM, a fake Ollama on a socket."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.container import build_services
from app.settings import Settings
from graph import prompts
from models.embeddings import MiniLMEmbedder
from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import RunningApp, read_sse, running_app, unmarked, wait_ready

DOCS = {
    "x200 dishwasher manual.pdf": [
        "The X200 dishwasher cleans twelve place settings and runs at 44 decibels.",
        "Warranty: the X200 dishwasher is covered for two years from the date of purchase.",
    ],
    "z9 blender guide.pdf": [
        "The Z9 blender has five speeds, a pulse button and a glass jug.",
        "Warranty: the Z9 blender motor is covered for five years.",
    ],
    "harbour.pdf": [
        "Ferries leave the northern pier every forty minutes during summer.",
        "The lighthouse keeper's cat is named Marmalade.",
    ],
}
X200, Z9 = "x200 dishwasher manual.pdf", "z9 blender guide.pdf"


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def server() -> Iterator[FakeOllamaServer]:
    with FakeOllamaServer() as fake:
        yield fake


def kind_of(body: dict[str, Any]) -> str:
    """Which of Docent's calls an /api/chat request is, from its system prompt."""
    system = body["messages"][0]["content"]
    if "format" not in body:
        return "answer"
    for kind, prompt in (
        ("route", prompts.ROUTE_SYSTEM[:60]),
        ("rewrite", prompts.REWRITE_SYSTEM[:60]),
        ("suggest", prompts.SUGGEST_SYSTEM[:60]),
    ):
        if system.startswith(prompt):
            return kind
    return "unknown"


def respond(**replies: Any) -> Any:
    """A responder for the fake server: a reply per kind of call (JSON given as objects)."""

    def pick(body: dict[str, Any]) -> str | None:
        reply = replies.get(kind_of(body))
        if reply is None:
            return None
        return reply if isinstance(reply, str) else json.dumps(reply)

    return pick


async def started(tmp_path: Path, server: FakeOllamaServer, embedder: Any, **settings: Any) -> Any:
    config = Settings(
        data_dir=tmp_path / "data", ollama_host=server.url, chat_model="llama3.2", **settings
    )
    container = build_services(config, embedder=embedder)
    for name, pages in DOCS.items():
        make_pdf(container.settings.paths.docs_dir / name, pages)
    return container


async def ask(app: RunningApp, message: str, session: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message}
    if session:
        body["session_id"] = session
    async with app.client.stream("POST", "/api/chat", json=body) as response:
        assert response.status_code == 200
        events = await read_sse(response)
    kinds = [kind for kind, _ in events]
    done = next(data for kind, data in events if kind == "done")
    tokens = "".join(data["text"] for kind, data in events if kind == "token")
    # The answer streamed is the model's draft; done's is checked (marks corrected, or a
    # plain "not covered" with the draft set aside in `searched`).
    draft = (done.get("searched") or {}).get("draft", done["answer"])
    assert unmarked(tokens) == unmarked(draft)
    suggestions = [data["suggestions"] for kind, data in events if kind == "suggestions"]
    return {"kinds": kinds, "done": done, "suggestions": suggestions}


def calls(server: FakeOllamaServer) -> list[str]:
    return [kind_of(body) for body in server.requests_to("/api/chat")]


async def test_follow_up_with_a_pronoun_searches_what_it_refers_to(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    server.responder = respond(
        route={"route": "documents"},
        rewrite={"query": "X200 dishwasher warranty period"},
        suggest={"suggestions": ["Is it quiet?", "How many settings?", "Where to buy?"]},
        answer="It is covered for two years [1].",
    )
    container = await started(tmp_path, server, embedder)
    async with running_app(container) as app:
        await wait_ready(app, 3)
        first = await ask(app, "What is the X200 dishwasher?")
        sid = first["done"]["session_id"]
        second = await ask(app, "And how long is its warranty?", sid)
        messages = await container.chat.messages(sid)

    assert first["done"]["sources"][0]["file"] == X200
    assert first["kinds"][-2:] == ["done", "suggestions"]
    assert first["suggestions"] == [["Is it quiet?", "How many settings?", "Where to buy?"]]
    trace = second["done"]["trace"]
    assert (trace["route"], trace["routed_by"]) == ("rag", "rules")
    assert trace["queries"] == [{"text": "X200 dishwasher warranty period", "files": []}]
    top = second["done"]["sources"][0]
    assert (top["file"], top["page"], top["cited"]) == (X200, 2, True)
    rewrite = next(b for b in server.requests_to("/api/chat") if kind_of(b) == "rewrite")
    assert "User: What is the X200 dishwasher?" in rewrite["messages"][-1]["content"]
    # The trace is saved with the answer and read back later.
    assert messages[-1]["trace"] == trace and messages[-1]["sources"] == second["done"]["sources"]
    assert trace["model"] == "llama3.2" and trace["prompt_tokens"] > 0
    assert trace["answer_tokens"] == 7 and trace["ttft_ms"] > 0


async def test_two_mentions_search_each_file(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    server.responder = respond(answer="Two years [1] against five [2].")
    container = await started(tmp_path, server, embedder, suggestions=False)
    async with running_app(container) as app:
        await wait_ready(app, 3)
        out = await ask(app, 'What warranty do @x200 and @"z9 blender guide.pdf" give?')
    trace = out["done"]["trace"]
    assert trace["routed_by"] == "mention"
    assert [q["files"] for q in trace["queries"]] == [[X200], [Z9]]
    assert {s["file"] for s in out["done"]["sources"]} == {X200, Z9}
    assert calls(server) == ["answer"]


async def test_misspelt_mention_finds_its_file_and_an_unknown_one_is_reported(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    server.responder = respond(answer="It runs at 44 decibels [1].")
    container = await started(tmp_path, server, embedder, suggestions=False)
    async with running_app(container) as app:
        await wait_ready(app, 3)
        out = await ask(app, "@dishwashr how loud is it? and @budget2019?")
    done = out["done"]
    assert {s["file"] for s in done["sources"]} == {X200}
    first_line = done["answer"].splitlines()[0]
    assert first_line.startswith("I found no document called `@budget2019`. The closest are `")
    assert done["answer"].endswith("It runs at 44 decibels [1].")


async def test_unanswerable_question_is_not_answered_from_outside_the_sources(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    server.responder = respond(answer="The documents don't say which colours the X200 comes in.")
    container = await started(tmp_path, server, embedder, suggestions=False)
    async with running_app(container) as app:
        await wait_ready(app, 3)
        # Close enough to the manual to pass the relevance floor, yet not in it.
        out = await ask(app, "Which colours does the X200 dishwasher come in?")
    answer_call = next(b for b in server.requests_to("/api/chat") if kind_of(b) == "answer")
    assert answer_call["messages"][0]["content"] == prompts.RAG_SYSTEM
    done = out["done"]
    sources = done["sources"]
    assert sources and all(s["cited"] is False for s in sources)
    # Nothing the model said is in the passages: the answer says so, and what was searched.
    assert done["answer"] == prompts.NOT_COVERED
    assert done["support"] == []
    searched = done["searched"]
    assert searched["queries"] == ["Which colours does the X200 dishwasher come in?"]
    assert searched["draft"] == "The documents don't say which colours the X200 comes in."
    assert {n["file"] for n in searched["nearest"]} == {s["file"] for s in sources}


async def test_malformed_json_at_every_llm_call_never_breaks_a_turn(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    server.responder = respond(
        route="{route: documents", rewrite="[", suggest="sure!", answer="Two years [1]."
    )
    container = await started(
        tmp_path,
        server,
        embedder,
        expand_queries=True,
        probe_chat_below=-1.0,  # every message the rules leave open goes to the LLM
        probe_rag_above=2.0,
    )
    async with running_app(container) as app:
        await wait_ready(app, 3)
        first = await ask(app, "Is the X200 covered for long?")
        second = await ask(app, "Is the Z9 as well?", first["done"]["session_id"])
    assert calls(server) == [
        *("route", "rewrite", "answer", "suggest"),
        *("route", "rewrite", "answer", "suggest"),
    ]
    for out, question in ((first, "Is the X200 covered for long?"), (second, "Is the Z9 as well?")):
        trace = out["done"]["trace"]
        assert (trace["route"], trace["routed_by"]) == ("rag", "llm")
        assert "searching anyway" in trace["route_reason"]
        assert trace["queries"] == [{"text": question, "files": []}]
        # The check may correct the mark: the X200's page is the one that says two years.
        assert unmarked(out["done"]["answer"]) == "Two years."
        assert out["kinds"][-1] == "done" and out["suggestions"] == []


async def test_prompt_carries_num_ctx_and_fits_it(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    server.responder = respond(answer="Ferries leave every forty minutes [1].")
    long_pages = [
        f"Ferry timetable part {i}. " + "Ferries leave the pier on schedule. " * 24
        for i in range(12)
    ]
    container = await started(
        tmp_path, server, embedder, context_tokens=2048, top_k=12, suggestions=False
    )
    make_pdf(container.settings.paths.docs_dir / "timetable.pdf", long_pages)
    async with running_app(container) as app:
        await wait_ready(app, 4)
        out = await ask(app, "According to the timetable, when do ferries leave the pier?")
    (sent,) = server.chat_requests()
    assert sent["options"]["num_ctx"] == 2048
    assert sent["prompt_tokens"] + container.deps.options.answer_tokens <= 2048
    trace = out["done"]["trace"]
    assert trace["passages_trimmed"] > 0
    assert trace["prompt_tokens"] == sent["prompt_tokens"]  # from Ollama's final chunk
    assert len(out["done"]["sources"]) == 12 - trace["passages_trimmed"]


async def test_chat_and_embeddings_on_different_hosts(tmp_path: Path) -> None:
    with FakeOllamaServer() as chat_host, FakeOllamaServer() as embed_host:
        chat_host.responder = respond(answer="Marmalade [1].")
        config = Settings(
            data_dir=tmp_path / "data",
            ollama_host=chat_host.url,
            embed_backend="ollama",
            embed_host=embed_host.url,
            embed_model="nomic-embed-text",
            suggestions=False,
        )
        container = build_services(config)
        make_pdf(container.settings.paths.docs_dir / "harbour.pdf", DOCS["harbour.pdf"])
        async with running_app(container) as app:
            await wait_ready(app, 1)
            question = "According to my files, what is the lighthouse keeper's cat named?"
            out = await ask(app, question)
    assert out["done"]["sources"][0]["file"] == "harbour.pdf"
    assert embed_host.requests_to("/api/embed") and not embed_host.requests_to("/api/chat")
    assert chat_host.requests_to("/api/chat") and not chat_host.requests_to("/api/embed")
