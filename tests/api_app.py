"""The running API around fakes, with one notes file indexed: what the API tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from app.container import build_services
from app.settings import Settings
from models.protocols import ChatModel
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.pdfs import make_pdf
from tests.running import RunningApp, running_app, wait_ready

NOTES = "# Notes\n\nThe spare key is under the blue flowerpot.\n"


@asynccontextmanager
async def api_app(
    tmp_path: Path,
    *,
    llm: ChatModel | None = None,
    files: dict[str, str] | None = None,
    pdfs: dict[str, list[str]] | None = None,
    watch: bool = True,
    **settings: Any,
) -> AsyncIterator[RunningApp]:
    """Serve the API on a real socket with ``notes.md``, ``files`` and ``pdfs`` (their
    pages' text) ready to search; ``watch=False`` leaves the folder unwatched."""
    # The scripted model answers one queue: no router or suggestion calls may take from it.
    # The hash embedder's similarities mean nothing, so whatever the rules leave open
    # searches, and no follow-up suggestions are asked for.
    quiet = {"probe_chat_below": 0.0, "probe_rag_above": 0.0, "suggestions": False}
    config = Settings(**{"data_dir": tmp_path / "data", **quiet, **settings})
    config.paths.docs_dir.mkdir(parents=True, exist_ok=True)
    files = {"notes.md": NOTES, **(files or {})}
    for name, text in files.items():
        (config.paths.docs_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (config.paths.docs_dir / name).write_text(text, encoding="utf-8")
    for name, pages in (pdfs or {}).items():
        make_pdf(config.paths.docs_dir / name, pages)
    container = build_services(
        config, llm=llm or FakeChatModel(token_delay=0.005), embedder=FakeEmbedder()
    )
    async with running_app(container, watch=watch) as running:
        await wait_ready(running, len(files) + len(pdfs or {}))
        yield running


def anonymous(app: RunningApp, **headers: str) -> httpx.AsyncClient:
    """A client for the same server without the token (or with the headers given)."""
    return httpx.AsyncClient(base_url=app.url, headers=headers, timeout=30)


def error_code(response: httpx.Response) -> str:
    """The contract's error code, checking the body has the contract's shape."""
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["message"], body
    return str(body["error"]["code"])
