"""What the window tests share: the app around fakes at its edges, its page, and reading
what the page shows.

The library is the real DocumentService over a temporary documents folder; only the
chat model and the embedder are fakes (``GatedEmbedder`` lets a test hold indexing
batch by batch).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from nicegui import ElementFilter, ui
from nicegui.testing import User
from nicegui.testing.user_interaction import UserInteraction

from app.api import new_access
from app.container import Services, build_services
from app.services.documents import DocumentService
from app.settings import Settings
from models.protocols import Message
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import GatedEmbedder
from tests.running import eventually
from ui.page import ChatPage

NOTES = "# Notes\n\nThe spare key is under the blue flowerpot.\n"
SUGGESTIONS = ["Who else has a key?", "When was the lock changed?", "Is there a spare?"]


def side_calls(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | None:
    """Answer the calls around an answer (rewrite, suggestions, routing), so the scripted
    model's queue holds only the answers a test enqueues."""
    properties = (schema or {}).get("properties", {})
    if "suggestions" in properties:
        return json.dumps({"suggestions": SUGGESTIONS})
    if "query" in properties:  # the rewriter: the last message stands as it is
        last = messages[-1]["content"].rsplit("Last message:", 1)[-1].strip()
        return json.dumps({"query": last})
    if "route" in properties:
        return json.dumps({"route": "documents"})
    return None


@pytest.fixture
async def container(tmp_path: Path) -> AsyncIterator[Services]:
    """The app with a scripted chat model and notes.md indexed by the real pipeline."""
    settings = Settings(data_dir=tmp_path / "data", chunk_size=200, chunk_overlap=0)
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text(NOTES, encoding="utf-8")
    model = FakeChatModel(token_delay=0.01)
    model.responder = side_calls
    embedder = GatedEmbedder()
    built = build_services(settings, llm=model, embedder=embedder)
    await built.start(watch=False)
    await eventually(lambda: bool(built.registry.ready_paths()), what="notes.md indexed")
    yield built
    embedder.open()  # a test that held indexing must not hold the shutdown
    await built.stop()


@pytest.fixture
def page(container: Services) -> None:
    """Serve the window at / for NiceGUI's ``user`` fixture."""
    access = new_access(container.settings, container.token)
    ui.page("/")(lambda: ChatPage(container, access))
    # What the window's root serves at any path: a chat's own address reopens it.
    ui.page("/chat/{session_id}")(lambda session_id: ChatPage(container, access))


def llm(container: Services) -> FakeChatModel:
    assert isinstance(container.llm, FakeChatModel)
    return container.llm


def embedder(container: Services) -> GatedEmbedder:
    assert isinstance(container.embedding.embedder, GatedEmbedder)
    return container.embedding.embedder


def documents(container: Services) -> DocumentService:
    return container.documents


async def add_file(container: Services, name: str, data: bytes, folder: str | None = None) -> str:
    """Add a file through the DocumentService, as an upload does; returns its path."""

    async def chunks() -> AsyncIterator[bytes]:
        yield data

    added = await container.documents.add(name, chunks(), folder=folder)
    return added.view.path


async def settled(
    container: Services, path: str, status: str = "ready", *, timeout: float = 10
) -> None:
    """Wait until the pipeline has taken ``path`` to ``status`` (a scan, read by OCR at
    seconds a page on a busy machine, needs a longer ``timeout``)."""

    def reached() -> bool:
        found = next((d for d in container.documents.list() if d.path == path), None)
        return found is not None and found.status == status

    await eventually(reached, timeout=timeout, what=f"{path} {status}")


def contents(user: User, marker: str) -> list[str]:
    """The HTML or text of every visible element with ``marker``."""
    out = []
    with user:
        found = list(ElementFilter(marker=marker))
    for element in found:
        if not element.visible:
            continue
        value: Any = getattr(element, "content", None) or getattr(element, "text", None)
        out.append(str(value or ""))
    return out


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


async def answer_shows(user: User, needle: str, index: int = -1) -> bool:
    answers = contents(user, "answer")
    return bool(answers) and needle in text_of(answers[index])


def emit(user: User, event: str, args: Any = None) -> None:
    """Deliver a page-level event (what docent.js sends with emitEvent) as the browser would."""
    assert user.client is not None
    UserInteraction(user, {user.client.layout}, None).trigger(event, args)
