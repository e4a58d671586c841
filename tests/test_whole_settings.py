"""The call budget of one question: a setting, an environment variable, and the dialog's."""

from __future__ import annotations

from pathlib import Path

import pytest
from nicegui.testing import User

from app.container import Services
from app.services.live_settings import turn_options
from app.services.preferences import InvalidSetting, Preferences, with_saved
from app.settings import Settings


def test_the_budget_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCENT_MAX_CALLS_PER_QUESTION", "7")
    settings = Settings(data_dir=tmp_path)
    assert turn_options(settings).max_calls_per_question == 7


def test_the_settings_dialog_offers_it_and_refuses_a_budget_too_small(tmp_path: Path) -> None:
    preferences = Preferences(Settings(data_dir=tmp_path))
    names = [name for name, _, _ in preferences.fields()]
    assert "max_calls_per_question" in names
    with pytest.raises(InvalidSetting, match="Max calls per question must be at least 2"):
        preferences.update({"max_calls_per_question": 1})
    assert preferences.update({"max_calls_per_question": 40}) == ["max_calls_per_question"]
    # Saved: the next start reads it.
    assert with_saved(Settings(data_dir=tmp_path)).turn.max_calls_per_question == 40


async def test_a_budget_changed_in_the_window_holds_from_the_next_question(
    container: Services,
) -> None:
    assert container.preferences.update({"max_calls_per_question": 9}) == []  # no restart
    assert container.deps.begin("Summarise @notes.md").options.max_calls_per_question == 9


async def test_the_dialog_names_the_budget_in_words(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    user.find(marker="settings").click()
    await user.should_see(marker="settings-dialog")
    await user.should_see("Model calls per question (reading whole documents)")
    await user.should_not_see("max_calls_per_question")
