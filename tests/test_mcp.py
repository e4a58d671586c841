"""The MCP tools through the official mcp client: streamable HTTP at /mcp, and stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

import ingest.loaders as loaders
import ingest.parsing.tasks as tasks
from app.container import build_services
from app.settings import Settings
from tests.api_app import api_app, error_code
from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import RunningApp, running_app, wait_ready

ROOT = Path(__file__).resolve().parent.parent
RECIPES = "# Recipes\n\nThe pancake batter needs two eggs and a pinch of salt.\n"
MANUAL = ["The kettle must be descaled every month.", "The warranty lasts two years."]
TOOLS = {
    "search_documents",
    "find_documents",
    "ask",
    "list_documents",
    "read_document",
    "verify",
    "summarize_document",
}


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(
        tmp_path, files={"recipes.md": RECIPES}, pdfs={"manual.pdf": MANUAL}
    ) as running:
        yield running


def http_client(app: RunningApp, token: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {token or app.container.token}"}
    transport = streamable_http_client(
        f"{app.url}/mcp", http_client=httpx2.AsyncClient(headers=headers, timeout=30)
    )
    return Client(transport)


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return dict(result.structured_content)


def error_text(result: Any) -> str:
    assert result.is_error
    return " ".join(part.text for part in result.content)


async def call_every_tool(client: Client) -> dict[str, dict[str, Any]]:
    """Each tool once, as an assistant would call them; returns their structured results."""
    assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
    return {
        "list": structured(await client.call_tool("list_documents", {})),
        "search": structured(await client.call_tool("search_documents", {"query": "spare key"})),
        "find": structured(await client.call_tool("find_documents", {"query": "flowerpot"})),
        "ask": structured(await client.call_tool("ask", {"question": "Where is the spare key?"})),
        "read": structured(await client.call_tool("read_document", {"path": "notes.md"})),
    }


def check_results(results: dict[str, dict[str, Any]], paths: set[str]) -> None:
    assert {d["path"] for d in results["list"]["documents"]} == paths
    assert all(d["status"] == "ready" for d in results["list"]["documents"])
    assert results["search"]["results"][0]["file"] == "notes.md"
    assert "flowerpot" in results["search"]["results"][0]["text"]
    assert [d["path"] for d in results["find"]["documents"]] == ["notes.md"]
    assert results["find"]["matched"] == 1 and results["find"]["searched"] == len(paths)
    assert results["ask"]["answer"]
    assert results["ask"]["sources"][0]["file"] == "notes.md"
    assert "blue flowerpot" in results["read"]["text"] and results["read"]["pages"] is None


async def test_every_tool_over_streamable_http(app: RunningApp) -> None:
    async with http_client(app) as client:
        results = await call_every_tool(client)
    check_results(results, {"notes.md", "recipes.md", "manual.pdf"})
    # ask is a turn like any other: detached, and kept as a session.
    messages = await app.container.chat.messages(results["ask"]["session_id"])
    assert [m["role"] for m in messages] == ["user", "assistant"]


async def test_files_narrow_search_and_ask(app: RunningApp) -> None:
    async with http_client(app) as client:
        search = structured(
            await client.call_tool(
                "search_documents", {"query": "eggs key", "files": ["recipes.md"], "k": 3}
            )
        )
        answer = structured(
            await client.call_tool("ask", {"question": "What is needed?", "files": ["manual.pdf"]})
        )
    assert {r["file"] for r in search["results"]} == {"recipes.md"}
    assert {s["file"] for s in answer["sources"]} == {"manual.pdf"}


async def test_summarize_document_reads_every_page_of_the_file(app: RunningApp) -> None:
    async with http_client(app) as client:
        summary = structured(await client.call_tool("summarize_document", {"path": "manual.pdf"}))
        missing = await client.call_tool("summarize_document", {"path": "nothing.pdf"})
    assert [(s["file"], s["page"]) for s in summary["sources"]] == [
        ("manual.pdf", 1),
        ("manual.pdf", 2),
    ]
    messages = await app.container.chat.messages(summary["session_id"])
    assert messages[-1]["trace"]["route"] == "document"
    assert "list_documents" in error_text(missing)


async def test_search_tool_finds_what_the_search_route_finds(app: RunningApp) -> None:
    query = {"query": "how often must the kettle be descaled", "k": 3}
    route = (await app.client.post("/api/search", json=query)).json()["results"]
    async with http_client(app) as client:
        tool = structured(await client.call_tool("search_documents", query))["results"]
    assert route and [(r["path"], r["text"], r["score"]) for r in route] == [
        (r["path"], r["text"], r["score"]) for r in tool
    ]


async def test_tools_give_the_records_the_routes_give(app: RunningApp) -> None:
    # One set of records: a document and a checked sentence's span read alike over MCP
    # and REST (the span's `n`, `start` and `end`, the document's id and name included).
    text = {"text": "The kettle must be descaled every month."}
    checked = (await app.client.post("/api/verify", json=text)).json()["sentences"]
    listed = (await app.client.get("/api/documents")).json()["documents"]
    async with http_client(app) as client:
        tool_checked = structured(await client.call_tool("verify", text))["sentences"]
        tool_listed = structured(await client.call_tool("list_documents", {}))["documents"]
    assert checked[0]["source"] is not None and tool_checked == checked
    assert tool_listed == listed


async def test_read_document_by_page_and_its_errors(app: RunningApp) -> None:
    async with http_client(app) as client:
        page = structured(
            await client.call_tool("read_document", {"path": "manual.pdf", "page": 2})
        )
        whole = structured(await client.call_tool("read_document", {"path": "MANUAL.PDF"}))
        beyond = await client.call_tool("read_document", {"path": "manual.pdf", "page": 3})
        missing = await client.call_tool("read_document", {"path": "secret.md"})
        outside = await client.call_tool("read_document", {"path": "../../etc/passwd"})
        long_query = await client.call_tool("search_documents", {"query": "key " * 1001})
    assert page["page"] == 2 and page["pages"] == 2 and "warranty" in page["text"]
    assert "descaled" in whole["text"] and "warranty" in whole["text"]
    assert "2 pages" in error_text(beyond)
    assert "list_documents" in error_text(missing)
    assert "root:" not in error_text(outside) and "list_documents" in error_text(outside)
    assert "limit is 4,000" in error_text(long_query)


async def test_every_tool_refuses_with_the_reason_the_route_gives(app: RunningApp) -> None:
    bad_scope = await app.client.post("/api/verify", json={"text": "Tea.", "scope": "../"})
    assert bad_scope.status_code == 422
    climbs = bad_scope.json()["error"]["message"]
    too_long = await app.client.post("/api/find", json={"query": "key " * 1001})
    assert too_long.status_code == 413
    calls = [
        ("verify", {"text": "The kettle must be descaled.", "scope": "../"}, climbs),
        ("search_documents", {"query": "kettle", "scope": "../"}, climbs),
        ("find_documents", {"query": "kettle", "scope": "../"}, climbs),
        ("ask", {"question": "How often is the kettle descaled?", "scope": "../"}, climbs),
        ("find_documents", {"query": "key " * 1001}, too_long.json()["error"]["message"]),
    ]
    async with http_client(app) as client:
        for tool, arguments, reason in calls:
            result = await client.call_tool(tool, arguments)
            assert reason in error_text(result), tool


async def test_read_document_never_parses_in_the_apps_process(
    app: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loaders are switched off in this process; only a parser process can read."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a file was parsed in the app's own process")

    for module in (loaders, tasks):
        monkeypatch.setattr(module, "open_document", refuse)
    monkeypatch.setattr(loaders, "load", refuse)
    (app.container.settings.paths.docs_dir / "long.txt").write_text("Herons wade. " * 20_000)
    app.container.indexer.enqueue(app.container.settings.paths.docs_dir / "long.txt")
    await wait_ready(app, 4)

    async with http_client(app) as client:
        page = structured(
            await client.call_tool("read_document", {"path": "manual.pdf", "page": 2})
        )
        long = structured(await client.call_tool("read_document", {"path": "long.txt"}))

    assert "warranty" in page["text"]
    assert long["truncated"] and long["text"].startswith("Herons wade.")


async def test_mcp_needs_the_token(app: RunningApp) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=app.url, headers=accept) as anonymous:
        refused = await anonymous.post("/mcp", json=init)
        wrong = await anonymous.post("/mcp", json=init, headers={"Authorization": "Bearer no"})
    assert refused.status_code == 401 and error_code(refused) == "unauthorized"
    assert wrong.status_code == 401
    foreign = await app.client.post("/mcp", json=init, headers={**accept, "Host": "evil.test"})
    assert foreign.status_code == 403 and error_code(foreign) == "forbidden_host"
    page = await app.client.post(
        "/mcp", json=init, headers={**accept, "Origin": "http://evil.test"}
    )
    assert page.status_code == 403 and error_code(page) == "forbidden_origin"
    fine = await app.client.post("/mcp", json=init, headers=accept)
    assert fine.status_code == 200 and fine.json()["result"]["serverInfo"]["name"] == "docent"
    with pytest.raises(Exception):  # noqa: B017 - the client's own error type is not public
        async with http_client(app, token="wrong") as client:
            await client.list_tools()


async def test_every_tool_over_stdio_beside_the_running_app(tmp_path: Path) -> None:
    """What Claude Desktop does: launch `run.py mcp` while the window app runs."""
    with FakeOllamaServer(token_delay=0.001) as ollama:
        env = {
            "DOCENT_DATA_DIR": str(tmp_path / "data"),
            "DOCENT_OLLAMA_HOST": ollama.url,
            "DOCENT_EMBED_BACKEND": "ollama",
            "DOCENT_EMBED_MODEL": "nomic-embed-text",
        }
        settings = Settings(
            data_dir=tmp_path / "data",
            ollama_host=ollama.url,
            embed_backend="ollama",
            embed_model="nomic-embed-text",
        )
        settings.paths.docs_dir.mkdir(parents=True)
        (settings.paths.docs_dir / "notes.md").write_text(
            "# Notes\n\nThe spare key is under the blue flowerpot.\n", encoding="utf-8"
        )
        (settings.paths.docs_dir / "recipes.md").write_text(RECIPES, encoding="utf-8")
        async with running_app(build_services(settings)) as app:
            await wait_ready(app, 2)
            server = StdioServerParameters(
                command=sys.executable,
                args=[str(ROOT / "run.py"), "mcp"],
                env={**{k: v for k, v in os.environ.items() if k.startswith("PATH")}, **env},
                cwd=str(ROOT),
            )
            async with Client(server) as client:
                results = await call_every_tool(client)
            check_results(results, {"notes.md", "recipes.md"})
            # The answer asked over stdio is a session the window lists too.
            listed = (await app.client.get("/api/sessions")).json()["sessions"]
            assert results["ask"]["session_id"] in {s["id"] for s in listed}
    assert json.dumps(results["ask"])  # plain JSON all the way


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_mcp_answers_405_where_it_has_no_stream_or_session(
    app: RunningApp, method: str
) -> None:
    response = await app.client.request(
        method, "/mcp", headers={"Accept": "text/event-stream"}, timeout=10
    )
    assert response.status_code == 405 and error_code(response) == "method_not_allowed"
    assert response.headers["allow"] == "POST"
