"""Settings sit in groups inside (``settings.search.top_k``) while every outside name stays
flat: the ``DOCENT_*`` variables, the command-line flags and the saved preferences file."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic.fields import FieldInfo

from app.cli.main import parse
from app.services.preferences import InvalidSetting, Preferences, with_saved
from app.settings import GROUP_OF, GROUPS, SearchSettings, Settings

EVERY = sorted(GROUP_OF)


def field(name: str) -> FieldInfo:
    return GROUPS[GROUP_OF[name]].model_fields[name]


def other_text(name: str, tmp_path: Path) -> str:
    """A valid value for setting ``name`` other than its default, as a variable spells it."""
    info = field(name)
    default = info.get_default(call_default_factory=True)
    kind = info.annotation
    if isinstance(kind, types.UnionType):  # X | None: a value of X
        kind = next(k for k in typing.get_args(kind) if k is not type(None))
    if typing.get_origin(kind) is typing.Literal:
        return next(choice for choice in typing.get_args(kind) if choice != default)
    if kind is bool:
        return "false" if default else "true"
    if kind in (int, float):
        return str(default + 1)
    if kind is Path:
        return str(tmp_path / f"given-{name}")
    return f"http://given-{name.replace('_', '-')}:1"


def held(settings: Settings, name: str) -> Any:
    """Where the setting lives now: in its group."""
    return getattr(getattr(settings, GROUP_OF[name]), name)


def expected(name: str, text: str) -> Any:
    return getattr(GROUPS[GROUP_OF[name]].model_validate({name: text}), name)


@pytest.mark.parametrize("name", EVERY)
def test_each_variable_keeps_its_flat_name_and_lands_in_its_group(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = other_text(name, tmp_path)
    monkeypatch.setenv(f"DOCENT_{name.upper()}", text)
    given = {} if name == "data_dir" else {"data_dir": tmp_path}
    settings = Settings(**given)
    assert held(settings, name) == expected(name, text)
    assert held(settings, name) != field(name).get_default(call_default_factory=True)
    assert name in settings.explicit()


@pytest.mark.parametrize("name", [n for n in EVERY if n != "open_browser"])  # --no-browser
def test_each_flag_keeps_its_flat_name_and_wins_over_the_variable(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = other_text(name, tmp_path)
    flag = f"--{name.replace('_', '-')}"
    if field(name).annotation is bool:
        argv = [flag if text == "true" else f"--no-{flag[2:]}"]
        monkeypatch.setenv(f"DOCENT_{name.upper()}", "false" if text == "true" else "true")
    else:
        argv = [flag, text]
    _, settings = parse(["status", "--data-dir", str(tmp_path), *argv])
    assert held(settings, name) == expected(name, text)


def test_a_preferences_file_written_before_the_groups_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DOCENT_RERANK_DOWNLOAD")  # set for every test; a variable wins
    # As the code before the groups wrote it: flat names, paths as text, the window's
    # own choices beside them, and a key the window may not set.
    docs = tmp_path / "my documents"
    today = {
        "llm_api": "openai",
        "llm_url": "http://127.0.0.1:8081/v1",
        "chat_model": "qwen2.5:7b",
        "embed_backend": "ollama",
        "embed_model": "nomic-embed-text",
        "embed_host": "http://gpu-box:11434",
        "top_k": 9,
        "rerank_candidates": 40,
        "rerank_download": True,
        "sentence_order": True,
        "suggestions": False,
        "max_calls_per_question": 40,
        "docs": str(docs),
        "port": 9999,
        "window": {"rerank-offer": "no"},
    }
    (tmp_path / "preferences.json").write_text(json.dumps(today, indent=2))
    settings = with_saved(Settings(data_dir=tmp_path))
    assert (settings.models.llm_api, settings.models.chat_url) == (
        "openai",
        "http://127.0.0.1:8081/v1",
    )
    assert settings.models.chat_model == "qwen2.5:7b"
    assert settings.models.embed_ollama_host == "http://gpu-box:11434"
    assert (settings.search.top_k, settings.search.rerank_candidates) == (9, 40)
    assert settings.search.rerank_download and settings.search.sentence_order
    assert (settings.turn.suggestions, settings.turn.max_calls_per_question) == (False, 40)
    assert settings.paths.docs_dir == docs.resolve()
    assert settings.server.port == 8080  # not the window's to set
    preferences = Preferences(settings)
    assert preferences.remembered("rerank-offer") == "no"
    shown = {name: value for name, value, _ in preferences.fields()}
    assert (shown["top_k"], shown["docs"], shown["chat_model"]) == (9, docs.resolve(), "qwen2.5:7b")


def test_what_the_window_saves_keeps_the_flat_format(tmp_path: Path) -> None:
    preferences = Preferences(Settings(data_dir=tmp_path))
    preferences.update({"top_k": 12, "docs": str(tmp_path / "elsewhere")})
    preferences.remember("rerank-offer", "yes")
    saved = json.loads((tmp_path / "preferences.json").read_text())
    assert saved == {
        "top_k": 12,
        "docs": str((tmp_path / "elsewhere").resolve()),
        "window": {"rerank-offer": "yes"},
    }


def test_a_refused_value_is_named_by_its_setting_not_its_group(tmp_path: Path) -> None:
    preferences = Preferences(Settings(data_dir=tmp_path))
    with pytest.raises(InvalidSetting, match=r"^Not saved\. Top K must be at most 50\.$"):
        preferences.update({"top_k": 51})
    with pytest.raises(InvalidSetting, match="Model server must be one of 'ollama' or 'openai'"):
        preferences.update({"llm_api": "grpc"})


def test_a_group_given_whole_wins_over_the_variables_of_its_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCENT_TOP_K", "5")
    monkeypatch.setenv("DOCENT_RERANK_CANDIDATES", "9")
    settings = Settings(search=SearchSettings(top_k=3), data_dir=tmp_path)
    assert (settings.search.top_k, settings.search.rerank_candidates) == (3, 9)
    assert settings.explicit()["top_k"] == 3
