"""A setting changed in the window applies from the next turn and search, as a new
snapshot: nothing anyone holds changes under it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from app.container import Services, build_services
from app.services.live_settings import retrieval_settings, turn_options
from app.settings import EDITABLE, Settings
from graph.retrieval.retriever import RetrievalSettings
from graph.turn_options import TurnOptions
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder


@pytest.fixture
async def built(tmp_path: Path) -> AsyncIterator[Services]:
    services = build_services(
        Settings(data_dir=tmp_path), llm=FakeChatModel(), embedder=FakeEmbedder()
    )
    yield services
    await services.stop()


def another(value: Any) -> Any:
    """A valid value other than ``value`` (each live knob is a switch or a small count)."""
    return (not value) if isinstance(value, bool) else value + 1


SHARED = {f.name for f in dataclasses.fields(TurnOptions)} | {
    f.name for f in dataclasses.fields(RetrievalSettings)
}
LIVE_KNOBS = sorted(n for n, mark in EDITABLE.items() if mark.live and n in SHARED)


def test_every_live_setting_has_something_that_reads_it() -> None:
    others = {"chat_model", "rerank_download", "embed_backend", "embed_model", "embed_host"}
    live = {name for name, mark in EDITABLE.items() if mark.live}
    assert live - others == set(LIVE_KNOBS)
    assert {"top_k", "rerank_candidates", "sentence_order", "max_calls_per_question"} <= live


@pytest.mark.parametrize("name", LIVE_KNOBS)
async def test_a_live_setting_reaches_the_next_turn_and_search(built: Services, name: str) -> None:
    value = another(built.settings.value(name))
    assert built.preferences.update({name: value}) == []  # no restart
    turn = built.deps.begin("What does the report say?")
    try:
        held = {**vars(turn.options), **vars(turn.search.settings)}
        assert held[name] == value
    finally:
        turn.search.close()


async def test_a_change_makes_a_new_snapshot_and_leaves_the_old_one_be(built: Services) -> None:
    before = built.settings
    under_way = built.deps.begin("What does the report say?")
    built.preferences.update({"top_k": 9, "max_calls_per_question": 5, "ollama_host": "gpu:1"})
    assert (before.search.top_k, before.turn.max_calls_per_question) == (6, 24)
    assert (built.settings.search.top_k, built.settings.turn.max_calls_per_question) == (9, 5)
    assert built.settings.models.ollama_host == before.models.ollama_host  # it waits for a restart
    # A turn under way keeps what it began with; the next one has the change.
    assert (under_way.search.settings.top_k, under_way.options.max_calls_per_question) == (6, 24)
    under_way.search.close()
    assert built.retriever.settings == retrieval_settings(built.settings)
    assert built.deps.options == turn_options(built.settings)


def test_settings_are_frozen(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with pytest.raises(ValidationError, match="frozen"):
        settings.search.top_k = 3  # type: ignore[misc]
    with pytest.raises(ValidationError, match="frozen"):
        settings.search = settings.search  # type: ignore[misc]
    assert settings.replaced({"top_k": 3}).search.top_k == 3 and settings.search.top_k == 6
