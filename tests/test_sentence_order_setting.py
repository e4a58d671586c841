"""The sentence_order setting reaches the search: from the environment at start, and from
the settings dialog between two searches (tests/test_ui_dialogs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.container import build_services
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder


@pytest.mark.parametrize(("variable", "on"), [(None, False), ("true", True), ("false", False)])
async def test_the_environment_turns_it_on_and_it_is_off_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str | None, on: bool
) -> None:
    if variable is not None:
        monkeypatch.setenv("DOCENT_SENTENCE_ORDER", variable)
    built = build_services(
        Settings(data_dir=tmp_path), llm=FakeChatModel(), embedder=FakeEmbedder()
    )
    try:
        assert built.retriever.settings.sentence_order is on
    finally:
        await built.stop()
