"""The window while the services load: the message box takes a question at once, and the
chat page answers it when it can."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nicegui import ui
from nicegui.testing import User

from app.api import new_access
from app.container import Services, build_services
from app.settings import Settings
from app.startup import Starting
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import eventually
from tests.ui_parts import answer_shows, contents, side_calls, text_of
from ui.starting import open_window


@pytest.fixture
async def held(tmp_path: Path) -> AsyncIterator[tuple[Starting, threading.Event, FakeChatModel]]:
    """Starting whose build waits until the test releases it, served at /."""
    settings = Settings(data_dir=tmp_path / "data")
    model = FakeChatModel()
    model.responder = side_calls
    container = build_services(settings, llm=model, embedder=FakeEmbedder())
    released = threading.Event()

    def build() -> Services:  # the heavy imports and models, held back by the test
        released.wait(60)
        return container

    services = Starting(build, watch=False)
    access = new_access(settings, container.token)
    ui.page("/")(lambda: open_window(services, access))
    yield services, released, model
    released.set()
    await services.stop()


async def test_a_question_asked_while_starting_is_answered_once_ready(
    user: User, held: tuple[Starting, threading.Event, FakeChatModel]
) -> None:
    services, released, model = held
    model.enqueue("Docent has no documents yet, so I cannot say.")
    await user.open("/")
    await user.should_see("Docent is starting…")
    user.find(marker="message-input").type("Where is the spare key?")
    user.find(marker="message-input").trigger("keydown", {})
    await user.should_see("Where is the spare key?", marker="held")
    await user.should_see("it answers as soon as it is ready")
    assert not services.ready
    user.find(marker="message-input").type("and a draft")
    released.set()
    await eventually(lambda: answer_shows(user, "no documents yet"), timeout=20, what="answer")
    assert [text_of(t) for t in contents(user, "user-text")] == ["Where is the spare key?"]
    await user.should_not_see(marker="starting")
    assert user.find(marker="message-input").elements.pop().value == "and a draft"


async def test_the_page_says_why_when_the_services_fail(user: User, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    container = build_services(settings, llm=FakeChatModel(), embedder=FakeEmbedder())

    def build() -> Services:
        raise RuntimeError("the embedding model's files are missing")

    services = Starting(build, watch=False)
    ui.page("/")(lambda: open_window(services, new_access(settings, container.token)))
    await user.open("/")
    await user.should_see("Docent could not start: the embedding model's files are missing")
    await user.should_not_see(marker="message-input")
    container.registry.close()
