"""POST /api/find and scopes in /api/search, in the real app around fakes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.container import build_services
from app.settings import Settings
from ingest.keys import doc_id_for
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import RunningApp, running_app, wait_ready

FILES = {
    "tax/2024/return.md": "The shredder receipt ABC-123 was filed with the return.",
    "tax/2023/return.md": "Last year the shredder broke; invoice ABC-1234 covers a new one.",
    "home/garden.md": "The hedge trimmer and the shredder live in the shed by the gate.",
    "home/kitchen.md": "The kettle descaler is under the sink, beside the force majeure clause.",
    "notes.md": "Force and majeure are two words; the contract's clause says nothing else.",
}


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    settings = Settings(data_dir=tmp_path / "data", max_query_chars=500)
    for rel, text in FILES.items():
        path = settings.paths.docs_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    container = build_services(
        settings, llm=FakeChatModel(default_reply="ok"), embedder=FakeEmbedder()
    )
    async with running_app(container) as running:
        await wait_ready(running, len(FILES))
        yield running


async def find(app: RunningApp, query: str, **body: Any) -> dict[str, Any]:
    response = await app.client.post("/api/find", json={"query": query, **body})
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_every_matching_document_with_its_best_passage(app: RunningApp) -> None:
    found = await find(app, "shredder")
    paths = {d["path"] for d in found["documents"]}
    assert paths == {"tax/2024/return.md", "tax/2023/return.md", "home/garden.md"}
    assert found["searched"] == len(FILES) and found["matched"] == 3
    garden = next(d for d in found["documents"] if d["path"] == "home/garden.md")
    assert garden["id"] == doc_id_for("home/garden.md") and garden["file"] == "garden.md"
    assert garden["hits"] == 1 and "hedge trimmer" in garden["best"]["text"]
    assert {"dense", "bm25", "coverage", "literal"} <= set(garden["best"]["scores"])


async def test_a_code_matches_only_literally(app: RunningApp) -> None:
    found = await find(app, "which files mention ABC-123")
    assert [d["path"] for d in found["documents"]] == ["tax/2024/return.md"]
    assert found["documents"][0]["best"]["scores"]["literal"] is True


async def test_a_quoted_string_matches_only_as_written(app: RunningApp) -> None:
    found = await find(app, '"force majeure"')
    # notes.md holds both words, but not together.
    assert [d["path"] for d in found["documents"]] == ["home/kitchen.md"]


async def test_a_scope_limits_find_and_search_to_its_folder(app: RunningApp) -> None:
    found = await find(app, "shredder", scope="tax/")
    assert {d["path"] for d in found["documents"]} == {"tax/2024/return.md", "tax/2023/return.md"}
    assert found["searched"] == 2
    # Files narrow a scope further; a list of entries is a scope too.
    only = await find(app, "shredder", scope=["tax/", "home/garden.md"], files=["garden.md"])
    assert [d["path"] for d in only["documents"]] == ["home/garden.md"] and only["searched"] == 1
    response = await app.client.post(
        "/api/search", json={"query": "the shredder broke", "scope": "tax/2023"}
    )
    assert response.status_code == 200, response.text
    assert {r["path"] for r in response.json()["results"]} == {"tax/2023/return.md"}


async def test_bad_requests_get_a_sentence(app: RunningApp) -> None:
    outside = await app.client.post("/api/find", json={"query": "key", "scope": "../etc/"})
    assert outside.status_code == 422
    assert "leaves the documents folder" in outside.json()["error"]["message"]
    empty = await app.client.post("/api/find", json={"query": "key", "scope": "nowhere/"})
    assert empty.status_code == 404 and empty.json()["error"]["code"] == "scope_empty"
    assert "nowhere/" in empty.json()["error"]["message"]
    blank = await app.client.post("/api/find", json={"query": "   "})
    assert blank.status_code == 422 and "empty" in blank.json()["error"]["message"]
    long = await app.client.post("/api/find", json={"query": "x" * 501})
    assert long.status_code == 413


async def chat(app: RunningApp, message: str, **body: Any) -> dict[str, Any]:
    response = await app.client.post(
        "/api/chat", json={"message": message, "stream": False, **body}
    )
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_a_chat_keeps_its_scope_until_it_is_changed(app: RunningApp) -> None:
    first = await chat(app, "where does the shredder live?", mode="rag", scope="home")
    sid = first["session_id"]
    assert first["trace"]["scope"] == ["home/"]
    assert {s["path"] for s in first["sources"]} <= {"home/garden.md", "home/kitchen.md"}
    assert first["coverage"]["documents_in_scope"] == 2
    second = await chat(app, "and the shredder receipt?", session_id=sid, mode="rag")
    assert second["trace"]["scope"] == ["home/"]
    assert await app.container.chat.scope(sid) == ["home/"]
    whole = await chat(app, "the shredder?", session_id=sid, mode="rag", scope="")
    assert whole["trace"]["scope"] == [] and whole["coverage"]["documents_in_scope"] == len(FILES)
    assert await app.container.chat.scope(sid) == []
    refused = await app.client.post(
        "/api/chat", json={"message": "hi", "scope": "../../", "stream": False}
    )
    assert refused.status_code == 422 and "documents folder" in refused.json()["error"]["message"]


async def test_a_find_question_in_chat_counts_what_the_code_found(app: RunningApp) -> None:
    done = await chat(app, "How many documents mention the shredder?")
    assert done["trace"]["route"] == "find" and done["trace"]["routed_by"] == "rules"
    assert done["answer"].startswith("**3 of 5 documents** mention")
    assert done["coverage"] == {
        "documents_read": 3,
        "documents_matched": 3,
        "documents_in_scope": 5,
        "pages_read": 3,
    }


async def test_v1_takes_a_folder_as_the_model_name(app: RunningApp) -> None:
    models = (await app.client.get("/v1/models")).json()["data"]
    assert {"docent/home", "docent/tax", "docent/tax/2024"} <= {m["id"] for m in models}
    response = await app.client.post(
        "/v1/chat/completions",
        json={
            "model": "docent/home",
            "mode": "rag",
            "messages": [{"role": "user", "content": "where does the shredder live?"}],
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["sources"] and {s["path"] for s in body["sources"]} <= {
        "home/garden.md",
        "home/kitchen.md",
    }
    assert await app.container.chat.scope(body["session_id"]) == ["home/"]
