"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.chat import FakeChatModel
from tests.fakes.ollama_server import FakeOllamaServer

# NiceGUI's `user` fixture drives pages in-process, without a browser.
pytest_plugins = ["nicegui.testing.user_plugin"]


@pytest.fixture
def ollama_server() -> Iterator[FakeOllamaServer]:
    """A fake Ollama on a real localhost port, stopped after the test."""
    with FakeOllamaServer() as server:
        yield server


@pytest.fixture
def fake_chat() -> FakeChatModel:
    """An in-process ChatModel with scripted replies."""
    return FakeChatModel()
