"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import models  # noqa: F401  before any test module loads onnxruntime: telemetry off
from tests.fakes.chat import FakeChatModel
from tests.fakes.ollama_server import FakeOllamaServer

# NiceGUI's `user` fixture drives pages in-process, without a browser.
# tests.ui_parts: the window tests' app and page fixtures.
pytest_plugins = ["nicegui.testing.user_plugin", "tests.ui_parts"]


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's settings or writes to their real data dir."""
    for name in list(os.environ):
        if name.startswith("DOCENT_") or name == "OLLAMA_HOST":
            monkeypatch.delenv(name)
    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path / "docent-data"))
    # Tests never download: the reranker runs only where a test builds its model.
    monkeypatch.setenv("DOCENT_RERANK_DOWNLOAD", "false")


@pytest.fixture
def ollama_server() -> Iterator[FakeOllamaServer]:
    """A fake Ollama on a real localhost port, stopped after the test."""
    with FakeOllamaServer() as server:
        yield server


@pytest.fixture
def fake_chat() -> FakeChatModel:
    """An in-process ChatModel with scripted replies."""
    return FakeChatModel()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: sweeps a whole corpus or a huge file; asserts outcomes, not time"
    )
