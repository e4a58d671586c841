"""The window, driven in-process with NiceGUI's simulated user."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nicegui import ui
from nicegui.testing import User

from app.container import Container
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.network_guard import only_loopback
from tests.running import eventually
from ui.page import chat_page


@pytest.fixture
async def container(tmp_path: Path) -> AsyncIterator[Container]:
    settings = Settings(data_dir=tmp_path / "data")
    settings.docs_dir.mkdir(parents=True)
    (settings.docs_dir / "notes.md").write_text(
        "# Notes\n\nThe spare key is under the blue flowerpot.\n", encoding="utf-8"
    )
    built = Container(settings, llm=FakeChatModel(token_delay=0.01), embedder=FakeEmbedder())
    await built.start(watch=False)

    async def indexed() -> bool:
        return bool(built.ready_paths())

    await eventually(indexed, what="notes.md indexed")
    yield built
    await built.stop()


@pytest.fixture
def page(container: Container) -> None:
    """Serve the window at / for NiceGUI's ``user`` fixture."""
    ui.page("/")(lambda: chat_page(container))


async def test_a_message_streams_an_answer_with_its_source(
    user: User, container: Container, page: None
) -> None:
    assert isinstance(container.llm, FakeChatModel)
    container.llm.enqueue("The key is under the blue flowerpot [1].")
    with only_loopback() as outward:  # the window reaches nothing beyond this machine
        await user.open("/")
        await user.should_see("notes.md")
        user.find(marker="message-input").type("Where is the spare key?")
        user.find(marker="send").click()
        await user.should_see("Where is the spare key?")
        await user.should_see("The key is under the blue flowerpot [1].", retries=50)
        await user.should_see("[1] notes.md", retries=20)
        await user.should_see("Where is the spare key?", marker="session")
    assert outward == []


async def test_banner_says_how_to_fix_ollama(user: User, container: Container, page: None) -> None:
    assert isinstance(container.llm, FakeChatModel)
    container.llm.reachable = False
    await user.open("/")
    await user.should_see("ollama serve", retries=30)
    user.find(marker="message-input").type("Where is the spare key?")
    user.find(marker="send").click()
    await user.should_see("most relevant passages", retries=50)


async def test_earlier_session_reopens(user: User, container: Container, page: None) -> None:
    await container.chat.start_turn("old", "Where is the spare key?").result()
    await user.open("/")
    user.find(marker="session").click()
    await user.should_see("Echo:", retries=20)


async def test_new_chat_mid_answer_keeps_the_answer(
    user: User, container: Container, page: None
) -> None:
    assert isinstance(container.llm, FakeChatModel)
    long_answer = " ".join(f"word{i}" for i in range(60)) + " [1]."
    container.llm.enqueue(long_answer)
    await user.open("/")
    user.find(marker="message-input").type("Where is the spare key?")
    user.find(marker="send").click()
    await user.should_see("word1", retries=20)
    user.find(marker="new-chat").click()
    await user.should_see(marker="empty-hint")

    async def finished() -> bool:
        return not container.chat.is_busy(container.sessions.list()[0].id)

    await eventually(finished, what="the turn to finish")
    user.find(marker="session").click()
    await user.should_see("word59 [1].", retries=20)
