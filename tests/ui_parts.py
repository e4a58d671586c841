"""What the window tests share: an app around fakes, its page, and reading what it shows."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nicegui import ElementFilter, ui
from nicegui.testing import User
from nicegui.testing.user_interaction import UserInteraction

from app.container import Container
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.documents import FakeDocumentService
from tests.fakes.embedder import FakeEmbedder
from tests.running import eventually
from ui.page import chat_page

NOTES = "# Notes\n\nThe spare key is under the blue flowerpot.\n"


@pytest.fixture
async def container(tmp_path: Path) -> AsyncIterator[Container]:
    """The app with a scripted chat model; notes.md indexed; the library scripted too."""
    settings = Settings(data_dir=tmp_path / "data")
    settings.docs_dir.mkdir(parents=True)
    (settings.docs_dir / "notes.md").write_text(NOTES, encoding="utf-8")
    built = Container(settings, llm=FakeChatModel(token_delay=0.01), embedder=FakeEmbedder())
    # The window's view of the library is scripted (statuses page by page, errors); the
    # real DocumentService is exercised end to end by the browser test.
    documents = FakeDocumentService(settings.docs_dir)
    documents.put("notes.md", chunks=1)
    built.documents = documents  # type: ignore[attr-defined]
    await built.start(watch=False)
    await eventually(lambda: bool(built.ready_paths()), what="notes.md indexed")
    yield built
    await built.stop()


@pytest.fixture
def page(container: Container) -> None:
    """Serve the window at / for NiceGUI's ``user`` fixture."""
    ui.page("/")(lambda: chat_page(container))


def llm(container: Container) -> FakeChatModel:
    assert isinstance(container.llm, FakeChatModel)
    return container.llm


def documents(container: Container) -> FakeDocumentService:
    docs = container.documents  # type: ignore[attr-defined]
    assert isinstance(docs, FakeDocumentService)
    return docs


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
